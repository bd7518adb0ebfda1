// SPDX-License-Identifier: Apache-2.0

package qdisc

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// Probabilities as tc scales them (rint of the fraction times 2^32-1).
const (
	pct1   = 42949673   // 1%
	pct2   = 85899346   // 2%
	pct3   = 128849019  // 3%
	pct10  = 429496730  // 10%
	pct25  = 1073741824 // 25%: 1073741823.75 rounds up
	pct50  = 2147483648 // 50%: the tie 2147483647.5 rounds to even
	pct99  = 4252017622 // 99%
	pct100 = math.MaxUint32
)

// netemDistDir makes a TC_LIB_DIR holding the given tables (name -> file
// text) for the test.
func netemDistDir(t *testing.T, tables map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range tables {
		if err := os.WriteFile(filepath.Join(dir, name+".dist"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("TC_LIB_DIR", dir)
	return dir
}

func ptr[T any](v T) *T { return &v }

// describeNetem writes parsed or decoded options with every pointer
// followed, so that two can be compared as text.
func describeNetem(o *attrs.TCOptionsMsgNetem) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%+v", o.Header)
	a := &o.Attrs
	field := func(name string, set bool, v any) {
		if set {
			fmt.Fprintf(&b, " %s=%+v", name, v)
		}
	}
	field("latency", a.Latency64 != nil, deref(a.Latency64))
	field("jitter", a.Jitter64 != nil, deref(a.Jitter64))
	field("corr", a.Corr != nil, deref(a.Corr))
	field("reorder", a.Reorder != nil, deref(a.Reorder))
	field("ecn", a.ECN != nil, deref(a.ECN))
	field("corrupt", a.Corrupt != nil, deref(a.Corrupt))
	field("slot", a.Slot != nil, deref(a.Slot))
	if a.Loss != nil {
		field("gi", a.Loss.Gi != nil, deref(a.Loss.Gi))
		field("ge", a.Loss.Ge != nil, deref(a.Loss.Ge))
	}
	field("rate64", a.Rate64 != nil, deref(a.Rate64))
	field("rate", a.Rate != nil, deref(a.Rate))
	field("seed", a.PrngSeed != nil, deref(a.PrngSeed))
	field("dist", a.DelayDist != nil, a.DelayDist)
	field("slotdist", a.SlotDist != nil, a.SlotDist)
	field("unknown", a.Unknown != nil, a.Unknown)
	return b.String()
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// netemParseCases are command lines tc accepts, with what it sends.
var netemParseCases = []struct {
	args string
	want attrs.TCOptionsMsgNetem
}{
	{"", attrs.TCOptionsMsgNetem{Header: attrs.TCNetemQopt{Limit: 1000}}},
	{"limit 10k", attrs.TCOptionsMsgNetem{Header: attrs.TCNetemQopt{Limit: 10240}}},
	{"delay 100ms", attrs.TCOptionsMsgNetem{Header: attrs.TCNetemQopt{Limit: 1000},
		Attrs: attrs.NetemAttrs{Latency64: ptr[int64](100e6)}}},
	{"delay 100ms 10ms 25%", attrs.TCOptionsMsgNetem{Header: attrs.TCNetemQopt{Limit: 1000},
		Attrs: attrs.NetemAttrs{Latency64: ptr[int64](100e6), Jitter64: ptr[int64](10e6), Corr: &attrs.TCNetemCorr{DelayCorr: pct25}}}},
	// A bare time is in nanoseconds.
	{"delay 1.5us 0", attrs.TCOptionsMsgNetem{Header: attrs.TCNetemQopt{Limit: 1000},
		Attrs: attrs.NetemAttrs{Latency64: ptr[int64](1500), Jitter64: ptr[int64](0)}}},
	{"loss 1%", attrs.TCOptionsMsgNetem{Header: attrs.TCNetemQopt{Limit: 1000, Loss: pct1}}},
	{"drop random 2 50", attrs.TCOptionsMsgNetem{Header: attrs.TCNetemQopt{Limit: 1000, Loss: pct2},
		Attrs: attrs.NetemAttrs{Corr: &attrs.TCNetemCorr{LossCorr: pct50}}}},
	{"loss state 1", attrs.TCOptionsMsgNetem{Header: attrs.TCNetemQopt{Limit: 1000},
		Attrs: attrs.NetemAttrs{Loss: &attrs.NetemLossAttrs{Gi: &attrs.TCNetemGimodel{P13: pct1, P31: pct99, P23: pct100}}}}},
	{"loss state 1% 2% 3% 10% 25%", attrs.TCOptionsMsgNetem{Header: attrs.TCNetemQopt{Limit: 1000},
		Attrs: attrs.NetemAttrs{Loss: &attrs.NetemLossAttrs{Gi: &attrs.TCNetemGimodel{P13: pct1, P31: pct2, P32: pct3, P23: pct10, P14: pct25}}}}},
	{"loss gemodel 1%", attrs.TCOptionsMsgNetem{Header: attrs.TCNetemQopt{Limit: 1000},
		Attrs: attrs.NetemAttrs{Loss: &attrs.NetemLossAttrs{Ge: &attrs.TCNetemGemodel{P: pct1, R: pct99}}}}},
	// 1-h is sent as h.
	{"loss gemodel 1% 10% 25% 2% ecn", attrs.TCOptionsMsgNetem{Header: attrs.TCNetemQopt{Limit: 1000},
		Attrs: attrs.NetemAttrs{ECN: ptr[uint32](1),
			Loss: &attrs.NetemLossAttrs{Ge: &attrs.TCNetemGemodel{P: pct1, R: pct10, H: pct100 - pct25, K1: pct2}}}}},
	// duplicate's correlation alone sends no TCA_NETEM_CORR.
	{"duplicate 2% 3%", attrs.TCOptionsMsgNetem{Header: attrs.TCNetemQopt{Limit: 1000, Duplicate: pct2}}},
	{"duplicate 2% 3% corrupt 1% 10%", attrs.TCOptionsMsgNetem{Header: attrs.TCNetemQopt{Limit: 1000, Duplicate: pct2},
		Attrs: attrs.NetemAttrs{Corr: &attrs.TCNetemCorr{DupCorr: pct3},
			Corrupt: &attrs.TCNetemCorrupt{Probability: pct1, Correlation: pct10}}}},
	// Reordering without a gap sets gap 1.
	{"delay 1ms reorder 25% 50%", attrs.TCOptionsMsgNetem{Header: attrs.TCNetemQopt{Limit: 1000, Gap: 1},
		Attrs: attrs.NetemAttrs{Latency64: ptr[int64](1e6), Corr: &attrs.TCNetemCorr{},
			Reorder: &attrs.TCNetemReorder{Probability: pct25, Correlation: pct50}}}},
	{"delay 1ms reorder 100% gap 0x10", attrs.TCOptionsMsgNetem{Header: attrs.TCNetemQopt{Limit: 1000, Gap: 16},
		Attrs: attrs.NetemAttrs{Latency64: ptr[int64](1e6), Reorder: &attrs.TCNetemReorder{Probability: pct100}}}},
	{"rate 1mbit -10 64 -4", attrs.TCOptionsMsgNetem{Header: attrs.TCNetemQopt{Limit: 1000},
		Attrs: attrs.NetemAttrs{Rate: &attrs.TCNetemRate{Rate: 125000, PacketOverhead: -10, CellSize: 64, CellOverhead: -4}}}},
	// Each overhead is read when the next word looks like a number.
	{"rate 20000 7", attrs.TCOptionsMsgNetem{Header: attrs.TCNetemQopt{Limit: 1000},
		Attrs: attrs.NetemAttrs{Rate: &attrs.TCNetemRate{Rate: 2500, PacketOverhead: 7}}}},
	{"rate 50gbit", attrs.TCOptionsMsgNetem{Header: attrs.TCNetemQopt{Limit: 1000},
		Attrs: attrs.NetemAttrs{Rate64: ptr[uint64](6250000000), Rate: &attrs.TCNetemRate{Rate: math.MaxUint32}}}},
	{"slot 10 200 packets 2000 bytes 9000", attrs.TCOptionsMsgNetem{Header: attrs.TCNetemQopt{Limit: 1000},
		Attrs: attrs.NetemAttrs{Slot: &attrs.TCNetemSlot{MinDelay: 10, MaxDelay: 200, MaxPackets: 2000, MaxBytes: 9000}}}},
	{"slot 1ms p 3", attrs.TCOptionsMsgNetem{Header: attrs.TCNetemQopt{Limit: 1000},
		Attrs: attrs.NetemAttrs{Slot: &attrs.TCNetemSlot{MinDelay: 1e6, MaxDelay: 1e6, MaxPackets: 3}}}},
	{"slot distribution t 1ms 0.1ms bytes 3000000000", attrs.TCOptionsMsgNetem{Header: attrs.TCNetemQopt{Limit: 1000},
		Attrs: attrs.NetemAttrs{Slot: &attrs.TCNetemSlot{DistDelay: 1e6, DistJitter: 1e5, MaxBytes: -1294967296},
			SlotDist: []int16{1, -2, 3}}}},
	{"seed 18446744073709551615", attrs.TCOptionsMsgNetem{Header: attrs.TCNetemQopt{Limit: 1000},
		Attrs: attrs.NetemAttrs{PrngSeed: ptr[uint64](math.MaxUint64)}}},
	{"delay 10ms 1ms distribution t", attrs.TCOptionsMsgNetem{Header: attrs.TCNetemQopt{Limit: 1000},
		Attrs: attrs.NetemAttrs{Latency64: ptr[int64](10e6), Jitter64: ptr[int64](1e6), DelayDist: []int16{1, -2, 3}}}},
	// Abbreviations, and a later delay keeping an earlier jitter.
	{"d 5ms 1ms l 10 du 1% s 3 e lo 2 d 6ms", attrs.TCOptionsMsgNetem{Header: attrs.TCNetemQopt{Limit: 10, Loss: pct2, Duplicate: pct1},
		Attrs: attrs.NetemAttrs{Latency64: ptr[int64](6e6), Jitter64: ptr[int64](1e6), ECN: ptr[uint32](1), PrngSeed: ptr[uint64](3)}}},
	// A zero loss does not count as a loss model already given.
	{"loss 0 loss 1", attrs.TCOptionsMsgNetem{Header: attrs.TCNetemQopt{Limit: 1000, Loss: pct1}}},
}

func TestParseNetem(t *testing.T) {
	netemDistDir(t, map[string]string{"t": "# a table\n1 -2\n\n0x3 junk 4\n"})
	for _, c := range netemParseCases {
		got, err := parseNetem(strings.Fields(c.args), tckind.ParseEnv{})
		if err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		if g, w := describeNetem(got), describeNetem(&c.want); g != w {
			t.Errorf("%q:\n got  %s\n want %s", c.args, g, w)
		}
	}
}

// netemErrorCases are command lines tc refuses, with its message (without
// the usage), whether the usage follows, and the exit status.
var netemErrorCases = []struct {
	args  string
	msg   string
	usage bool
	code  int
}{
	{"help", "", true, 1},
	{"nosuch", `What is "nosuch"?`, true, 1},
	// A word not starting with a digit ends the optional values.
	{"latency 1500 x", `What is "x"?`, true, 1},
	{"slot 1ms by 4gb", `Illegal "slot bytes"`, false, 1},
	{"limit", `Command line is not complete. Try option "help"`, false, 255},
	{"limit x", `Illegal "limit"`, false, 1},
	{"delay x", `Illegal "latency"`, false, 1},
	{"delay 1ms 1x", `Illegal "latency"`, false, 1},
	{"delay 1ms 1ms 101", `Illegal "latency"`, false, 1},
	{"loss", `Command line is not complete. Try option "help"`, false, 255},
	{"loss random x", `Illegal "loss percent"`, false, 1},
	{"loss 1 2x", `Illegal "loss correlation"`, false, 1},
	{"loss foo", `Unknown loss parameter: foo`, false, 1},
	{"loss 1 loss 2", "Illegal \"duplicate loss argument\n\"", false, 1},
	{"loss state 1 drop 1", "Illegal \"duplicate loss argument\n\"", false, 1},
	{"loss state x", `Illegal "loss p13"`, false, 1},
	{"loss state 1 2 3 4 5x", `Illegal "loss p14"`, false, 1},
	{"loss gemodel 1 2 3x", `Illegal "loss gemodel h"`, false, 1},
	{"loss gemodel 1 2 3 4x", `Illegal "loss gemodel k"`, false, 1},
	{"seed -x", `Illegal "seed"`, false, 1},
	{"reorder 1", "reordering not possible without specifying some delay", true, 1},
	{"gap 2", "gap specified without reorder probability", true, 1},
	{"delay 1ms reorder 0 gap 2", "gap specified without reorder probability", true, 1},
	{"ecn loss 0", "ecn requested without loss model", true, 1},
	{"delay 1ms distribution t", "distribution specified but no latency and jitter values", true, 1},
	{"corrupt 1 2%%", `Illegal "corrupt"`, false, 1},
	{"duplicate x", `Illegal "duplicate"`, false, 1},
	{"rate 1mbit 1 2 -3x", `Illegal "rate"`, false, 1},
	{"rate 1mbit 1 2 -", `Illegal "rate"`, false, 1},
	{"rate 5%", "No device specified; specify device to rate limit by percentage\nIllegal \"rate\"", false, 1},
	{"slot", `Command line is not complete. Try option "help"`, false, 255},
	{"slot foo", "Unknown slot parameter: foo", false, 1},
	{"slot 2ms 1ms", `Illegal "slot max_delay"`, false, 1},
	{"slot 1ms packets", `Illegal "slot packets"`, false, 1},
	{"slot 1ms bytes 5gb", `Illegal "slot bytes"`, false, 1},
	{"slot distribution t 1ms", `Command line is not complete. Try option "help"`, false, 255},
	{"slot distribution t 1ms 0", "Non-positive jitter", false, 1},
	{"slot distribution t x 1ms", `Illegal "slot delay"`, false, 1},
	{"delay 1ms 1ms distribution empty", "", false, 1},
}

func TestNetemErrors(t *testing.T) {
	netemDistDir(t, map[string]string{"t": "1 2 3\n", "empty": "# nothing\n\nx 1\n"})
	for _, c := range netemErrorCases {
		_, err := parseNetem(strings.Fields(c.args), tckind.ParseEnv{})
		msg := c.msg
		if strings.Contains(msg, "No device") {
			// The percentage's own message goes to stderr before the error.
			var stderr bytes.Buffer
			_, err = parseNetem(strings.Fields(c.args), tckind.ParseEnv{Stderr: &stderr})
			msg = strings.TrimPrefix(msg, stderr.String())
		}
		var pe *tcword.ParseError
		if !errors.As(err, &pe) || pe.Msg != msg || pe.ShowUsage != c.usage || pe.ExitCode() != c.code {
			t.Errorf("%q: %#v, want %q usage %v exit %d", c.args, err, msg, c.usage, c.code)
		}
	}
}

// TestNetemDistribution reads tables as tc does: comments and empty lines
// skipped, numbers in any base up to the first word that is not one, kept
// as s16; the file named in tc's message when it is missing.
func TestNetemDistribution(t *testing.T) {
	dir := netemDistDir(t, map[string]string{
		"mixed": "#c\n 010 0x10 -1\n\n70000 junk 5\n# 9\n-0\t7", // 70000 wraps to 4464
		"big":   strings.Repeat("1 ", netemMaxDist+1),
		"full":  strings.Repeat("1 ", netemMaxDist),
	})
	n := &netemParser{}
	got, err := n.readDist("mixed")
	if want := []int16{8, 16, -1, 4464, 0, 7}; err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("mixed: %v %v, want %v", got, err, want)
	}
	path := dir + "/big.dist"
	if _, err := n.readDist("big"); err == nil || err.Error() != path+": too much data" {
		t.Errorf("big: %v", err)
	}
	path = dir + "/nosuch.dist"
	if _, err := n.readDist("nosuch"); err == nil || err.Error() != "No distribution data for nosuch ("+path+": No such file or directory)" {
		t.Errorf("nosuch: %v", err)
	}
	// A table of the most entries fits tc's reading but not its request.
	_, err = parseNetem(strings.Fields("delay 1ms 1ms distribution full"), tckind.ParseEnv{})
	if err == nil || err.Error() != "addattr_l ERROR: message exceeded bound of 32768" {
		t.Errorf("full: %v", err)
	}
	// tc's path buffer holds 127 bytes.
	long := strings.Repeat("n", 200)
	if p := netemDistPath(long); len(p) != 127 || !strings.HasPrefix(p, dir+"/nnn") {
		t.Errorf("long name: %q", p)
	}
}

func TestScalePercent(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint32
		ok   bool
	}{
		{"1%", pct1, true}, {"1", pct1, true}, {"25", pct25, true}, {"50%", pct50, true}, {"100", pct100, true},
		{"0", 0, true}, {"", 0, true}, {"%", 0, true}, {"nan", 0, true},
		{"100.1", 0, false}, {"-1", 0, false}, {"1%%", 0, false}, {"1x", 0, false}, {"inf", 0, false},
	} {
		got, ok := netemPercent(c.in)
		if ok != c.ok || ok && got != c.want {
			t.Errorf("%q: %d %v, want %d %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// printNetem prints options as "qdisc show" would, alone.
func printNetem(o *attrs.TCOptionsMsgNetem, opts tcfmt.Options) string {
	var b bytes.Buffer
	p := tcfmt.NewPrinter(&b, opts)
	p.StartPlain()
	if opts.JSON {
		p.OpenObject("")
	}
	printNetemOptions(p, o)
	if opts.JSON {
		p.CloseObject()
	}
	p.Finish()
	return b.String()
}

// TestNetemPrint checks printing of what the kernel does not dump the way
// tc's requests leave it: a jitter without delay correlation, a
// correlation without jitter (not shown), an absent seed and no slot.
func TestNetemPrint(t *testing.T) {
	o := &attrs.TCOptionsMsgNetem{Header: attrs.TCNetemQopt{Limit: math.MaxUint32, Gap: 2},
		Attrs: attrs.NetemAttrs{Latency64: ptr[int64](5e6), Corr: &attrs.TCNetemCorr{DelayCorr: pct10},
			Rate: &attrs.TCNetemRate{Rate: 0, CellSize: 9}}}
	if got, want := printNetem(o, tcfmt.Options{}), "limit -1 delay 5ms gap 2"; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
	want := `{"limit":4294967295,"delay":{"delay":0.005,"jitter":0,"correlation":0.1},"ecn":false,"gap":2}` + "\n"
	if got := printNetem(o, tcfmt.Options{JSON: true}); got != want {
		t.Errorf("json %q, want %q", got, want)
	}
	x := &attrs.TCNetemXstats{Delayed: 1, AllocationErrors: 2}
	var b bytes.Buffer
	p := tcfmt.NewPrinter(&b, tcfmt.Options{})
	p.StartPlain()
	printNetemXstats(p, x)
	p.Finish()
	if got, want := b.String(), "  delayed 1 dropped 0 corrupted 0 duplicated 0 reordered 0 ecn_marked 0 alloc_errors 2"; got != want {
		t.Errorf("xstats %q, want %q", got, want)
	}
}

// TestNetemMatchesKernelDumps parses every recorded netem qdisc and holds
// what gotc would send against the kernel's dump of tc's request: the
// struct, the times, the probabilities and the rate and slot as sent.
func TestNetemMatchesKernelDumps(t *testing.T) {
	cases := goldenSetups(t, "netem", "qdisc")
	if len(cases) < 5 {
		t.Fatalf("only %d recorded netem qdiscs", len(cases))
	}
	for _, c := range cases {
		o, err := parseNetem(c.args, tckind.ParseEnv{})
		if err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		k := c.msg.Attrs.Options.(*attrs.TCOptionsMsgNetem)
		// The kernel keeps the delay in the struct too (in ticks).
		want := k.Header
		want.Latency, want.Jitter = 0, 0
		if o.Header != want {
			t.Errorf("%q: struct %+v, kernel %+v", c.args, o.Header, want)
		}
		a, ka := &o.Attrs, &k.Attrs
		if deref(a.Latency64) != deref(ka.Latency64) || deref(a.Jitter64) != deref(ka.Jitter64) {
			t.Errorf("%q: delay %d %d, kernel %d %d", c.args, deref(a.Latency64), deref(a.Jitter64), deref(ka.Latency64), deref(ka.Jitter64))
		}
		if a.Corr != nil && *a.Corr != *ka.Corr || deref(a.Reorder) != deref(ka.Reorder) || deref(a.Corrupt) != deref(ka.Corrupt) {
			t.Errorf("%q: probabilities %s, kernel %s", c.args, describeNetem(o), describeNetem(k))
		}
		if a.Rate != nil && (*a.Rate != *ka.Rate || deref(a.Rate64) != deref(ka.Rate64)) || deref(a.Slot) != deref(ka.Slot) {
			t.Errorf("%q: rate and slot %s, kernel %s", c.args, describeNetem(o), describeNetem(k))
		}
		if (a.Loss == nil) != (ka.Loss == nil) || a.Loss != nil && (deref(a.Loss.Gi) != deref(ka.Loss.Gi) || deref(a.Loss.Ge) != deref(ka.Loss.Ge)) {
			t.Errorf("%q: loss model %s, kernel %s", c.args, describeNetem(o), describeNetem(k))
		}
		if a.PrngSeed != nil && *a.PrngSeed != *ka.PrngSeed {
			t.Errorf("%q: seed %d, kernel %d", c.args, *a.PrngSeed, *ka.PrngSeed)
		}
	}
}

// FuzzParseNetem feeds arbitrary words (separated by blanks) to the parser:
// it must not panic, must fail only with a *ParseError, and whatever it
// accepts must encode into options that decode back the same and print.
func FuzzParseNetem(f *testing.F) {
	for _, c := range netemParseCases {
		f.Add(c.args)
	}
	for _, c := range netemErrorCases {
		f.Add(c.args)
	}
	dir := f.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "t.dist"), []byte("1 2 3\n-4\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	f.Setenv("TC_LIB_DIR", dir)
	f.Fuzz(func(t *testing.T, s string) {
		o, err := parseNetem(strings.Split(s, " "), tckind.ParseEnv{})
		if err != nil {
			var pe *tcword.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("%q: error %T is not a *ParseError", s, err)
			}
			return
		}
		e := attrs.NewEncoder(nil)
		o.Encode(e)
		var back attrs.TCOptionsMsgNetem
		if err := back.Decode(e.Bytes()); err != nil {
			t.Fatalf("%q: decode: %v", s, err)
		}
		if describeNetem(&back) != describeNetem(o) {
			t.Fatalf("%q: round trip\n %s\n %s", s, describeNetem(&back), describeNetem(o))
		}
		printNetem(o, tcfmt.Options{Details: true})
		printNetem(o, tcfmt.Options{JSON: true, Pretty: true})
	})
}

func TestNetemChangeAccepted(t *testing.T) {
	netemDistDir(t, map[string]string{"t": "1 2 3\n"})
	for _, c := range []struct {
		args string
		want bool
	}{
		{"", true},
		{"delay 10ms 1ms 10% distribution t loss state 1 ecn rate 1mbit slot 1ms 2ms seed 1", true},
		{"slot distribution t 1ms 1ms packets 4 bytes 1k", true},
		{"delay 1e300s", false}, // wraps negative
		{"slot 1ms packets -1", false},
		{"slot 1ms bytes 3g", false},
	} {
		o, err := parseNetem(strings.Fields(c.args), tckind.ParseEnv{})
		if err != nil {
			t.Fatalf("%q: %v", c.args, err)
		}
		if got := tckind.LookupQdisc("netem").ChangeAccepted(o, ""); got != c.want {
			t.Errorf("%q: ChangeAccepted = %v, want %v", c.args, got, c.want)
		}
	}
	for _, o := range []attrs.TCOptionsMsg{nil, attrs.TCOptionsMsgRaw{1, 2},
		&attrs.TCOptionsMsgNetem{Attrs: attrs.NetemAttrs{DelayDist: []int16{}}},
		&attrs.TCOptionsMsgNetem{Attrs: attrs.NetemAttrs{Unknown: []attrs.Attribute{{Type: 99}}}}} {
		if tckind.LookupQdisc("netem").ChangeAccepted(o, "") {
			t.Errorf("%#v accepted", o)
		}
	}
}
