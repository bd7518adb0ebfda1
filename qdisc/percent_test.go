// SPDX-License-Identifier: Apache-2.0

package qdisc

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tckind"
)

// fakeSysfs points sysClassNet at a directory of its own for the test, with
// a speed file of the given content for each device. A nil content makes
// speed a directory, which opens but fails the read as a dummy device's
// speed does; a device not named has no speed file at all.
func fakeSysfs(t *testing.T, speeds map[string][]byte) string {
	t.Helper()
	root := t.TempDir()
	for dev, content := range speeds {
		dir := filepath.Join(root, dev)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(dir, "speed")
		var err error
		if content == nil {
			err = os.Mkdir(name, 0o755)
		} else {
			err = os.WriteFile(name, content, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	old := tcword.SysClassNet
	tcword.SysClassNet = root
	t.Cleanup(func() { tcword.SysClassNet = old })
	return root
}

// TestPercentRate checks get_percent_rate64's rates, its refusals and the
// messages tc prints for them.
func TestPercentRate(t *testing.T) {
	root := fakeSysfs(t, map[string][]byte{
		"veth":  []byte("10000\n"),
		"dummy": nil,
		"empty": {},
		"blank": []byte("\n"),
		"word":  []byte("abc\n"),
		"trail": []byte("1000 \n"),
		"space": []byte(" 100\n"),
		"hex":   []byte("0x10\n"),
		"nonl":  []byte("100"),
		"neg":   []byte("-1\n"),
		"huge":  []byte("2000000000\n"),
		"over":  []byte("99999999999999999999\n"),
		"nul":   []byte("12\x0034\n"),
	})
	unknown := func(dev string) string {
		f := root + "/" + dev + "/speed"
		return `property "speed" in file ` + f + " is currently unknown\nFailed to parse " + f + "\n"
	}
	notNumber := func(dev, v string) string {
		f := root + "/" + dev + "/speed"
		return `value "` + v + `" in file ` + f + " is not a number\nFailed to parse " + f + "\n"
	}
	const (
		malformed = "Specified rate value could not be read or is malformed\n"
		rangeMsg  = "Invalid rate specified; should be between [0,100]% but is "
	)
	for _, c := range []struct {
		dev, arg string
		want     uint64
		ok       bool
		stderr   string
	}{
		{"veth", "10%", 125000000, true, ""},
		{"veth", "0.5%", 6250000, true, ""},
		{"veth", "100%", 1250000000, true, ""},
		{"veth", "0%", 0, true, ""},
		// sscanf stops at the first other byte, so "%" alone is 0%,
		// trailing words are ignored and "1e2%" is 1%.
		{"veth", "%", 0, true, ""},
		{"veth", "10%abc", 125000000, true, ""},
		{"veth", "1e2%", 12500000, true, ""},
		{"veth", "1.%", 12500000, true, ""},
		// 3333333300 bits are 416666662.5 bytes, truncated.
		{"veth", "33.333333%", 416666662, true, ""},
		{"veth", "150%", 0, false, rangeMsg + "150%\n"},
		{"veth", "101%x", 0, false, rangeMsg + "101%x\n"},
		{"veth", "abc%", 0, false, malformed},
		{"veth", "-1%", 0, false, malformed},
		{"veth", "5%%", 0, false, malformed},
		{"veth", "1.5.2%", 0, false, malformed},
		{"veth", "%5", 0, false, malformed},
		{"veth", ".%", 0, false, malformed},
		{"", "10%", 0, false, "No device specified; specify device to rate limit by percentage\n"},
		{"nodev", "10%", 0, false, "fopen " + root + "/nodev/speed: No such file or directory\n"},
		// The device is read before the percentage.
		{"dummy", "abc%", 0, false, unknown("dummy")},
		{"empty", "10%", 0, false, unknown("empty")},
		{"blank", "10%", 0, false, notNumber("blank", "")},
		{"word", "10%", 0, false, notNumber("word", "abc")},
		{"trail", "10%", 0, false, notNumber("trail", "1000 ")},
		// C reads the line up to its NUL.
		{"nul", "10%", 150000, true, ""},
		{"space", "10%", 1250000, true, ""},
		{"hex", "50%", 1000000, true, ""},
		{"nonl", "10%", 1250000, true, ""},
		// A negative speed gives a negative rate, which get_rate64
		// refuses without a word.
		{"neg", "10%", 0, false, ""},
		// Rates of 10^12 bits or more do not fit tc's buffer as "%lf"
		// prints them.
		{"huge", "100%", 0, false, "Unable to parse calculated rate\n"},
		{"huge", "0.4%", 0, false, "Unable to parse calculated rate\n"},
		{"huge", "0.01%", 25000000000, true, ""},
		{"over", "10%", 0, false, "strtol " + root + "/over/speed: Numerical result out of range" +
			"Failed to parse " + root + "/over/speed\n"},
	} {
		var b bytes.Buffer
		got, ok := tcword.PercentRate(c.arg, c.dev, &b)
		if got != c.want || ok != c.ok || b.String() != c.stderr {
			t.Errorf("%s %q: %d %v %q, want %d %v %q", c.dev, c.arg, got, ok, b.String(), c.want, c.ok, c.stderr)
		}
	}
}

// TestPercentRateKinds checks that htb's rate and ceil and tbf's rate and
// peakrate take percentages, and refuse them with tc's words after the
// device's.
func TestPercentRateKinds(t *testing.T) {
	root := fakeSysfs(t, map[string][]byte{"veth": []byte("10000\n"), "dummy": nil})
	veth := tckind.ParseEnv{Dev: "veth"}
	o, err := parseHTBClass([]string{"rate", "10%", "ceil", "50%"}, veth)
	if err != nil || o.Parms.Rate.Rate != 125000000 || o.Parms.Ceil.Rate != 625000000 {
		t.Errorf("htb: %+v, %v", o, err)
	}
	q, err := parseTBF([]string{"rate", "10%", "burst", "10k", "limit", "10k", "peakrate", "20%", "mtu", "1500"}, veth)
	if err != nil || q.Parms.Rate.Rate != 125000000 || q.Parms.Peakrate.Rate != 250000000 {
		t.Errorf("tbf: %+v, %v", q, err)
	}
	f := root + "/dummy/speed"
	devMsg := `property "speed" in file ` + f + " is currently unknown\nFailed to parse " + f + "\n"
	for _, c := range []struct {
		tbf  bool
		args []string
		msg  string
	}{
		{false, []string{"rate", "10%"}, `Illegal "rate"`},
		{false, []string{"rate", "1mbit", "ceil", "50%"}, `Illegal "ceil"`},
		{true, []string{"rate", "10%", "burst", "10k", "limit", "10k"}, `tbf: illegal value for "rate": "10%"`},
		{true, []string{"peakrate", "20%"}, `tbf: illegal value for "peakrate": "20%"`},
	} {
		var b bytes.Buffer
		env := tckind.ParseEnv{Dev: "dummy", Stderr: &b}
		if c.tbf {
			_, err = parseTBF(c.args, env)
		} else {
			_, err = parseHTBClass(c.args, env)
		}
		var pe *tcword.ParseError
		if !errors.As(err, &pe) || pe.Msg != c.msg || b.String() != devMsg {
			t.Errorf("%q: %v after %q, want %q after %q", c.args, err, b.String(), c.msg, devMsg)
		}
	}
}
