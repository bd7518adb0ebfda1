// SPDX-License-Identifier: Apache-2.0

package qdisc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// optionPayload is the TCA_OPTIONS payload a kind's parser gives for args,
// nil when it sends none.
func optionPayload(t *testing.T, kind, args string) []byte {
	t.Helper()
	o, err := tckind.LookupQdisc(kind).ParseQdisc(strings.Fields(args), tckind.ParseEnv{})
	if err != nil {
		t.Fatalf("%s %q: %v", kind, args, err)
	}
	switch o := o.(type) {
	case nil:
		return nil
	case *attrs.TCFifoQopt:
		return o.Append(nil)
	case *attrs.TCPlugQopt:
		return o.Append(nil)
	default:
		t.Fatalf("%s %q: options of type %T", kind, args, o)
		return nil
	}
}

// words is the native-endian struct of 32-bit members tc sends.
func words(v ...uint32) []byte {
	var b []byte
	for _, w := range v {
		b = binary.NativeEndian.AppendUint32(b, w)
	}
	return b
}

// TestParseFifoBytes checks the payload against tc's fifo_parse_opt: the
// size parser for every kind, the last limit, nothing without a limit.
func TestParseFifoBytes(t *testing.T) {
	for _, kind := range []string{"pfifo", "bfifo", "pfifo_head_drop"} {
		for _, c := range []struct {
			args string
			want []byte
		}{
			{"", nil},
			{"limit 0", words(0)},
			{"limit 100", words(100)},
			{"limit 10k", words(10240)},
			{"limit 1.5k", words(1536)},
			{"limit 10kbit", words(1280)},
			{"limit 0x10", words(16)},
			{"limit 4294967295", words(0xffffffff)},
			{"limit 5 limit 7", words(7)},
		} {
			if got := optionPayload(t, kind, c.args); string(got) != string(c.want) {
				t.Errorf("%s %q: sent %x, want %x", kind, c.args, got, c.want)
			}
		}
	}
}

// TestParsePlugBytes checks the command tc's plug_parse_opt sends.
func TestParsePlugBytes(t *testing.T) {
	for _, c := range []struct {
		args string
		want []byte
	}{
		{"", nil},
		{"block", words(plugBuffer, 0)},
		{"release", words(plugReleaseOne, 0)},
		{"release_indefinite", words(plugReleaseIndefinite, 0)},
		{"limit 10k", words(plugLimit, 10240)},
		{"block release", words(plugReleaseOne, 0)},
		// The command changes; the limit read before stays.
		{"limit 5 block", words(plugBuffer, 5)},
	} {
		if got := optionPayload(t, "plug", c.args); string(got) != string(c.want) {
			t.Errorf("plug %q: sent %x, want %x", c.args, got, c.want)
		}
	}
}

// TestFifoPlugErrors checks tc's messages and exit statuses.
func TestFifoPlugErrors(t *testing.T) {
	for _, c := range []struct {
		kind, args, msg string
		usage           bool
		code            int
	}{
		{"pfifo", "limit", `Command line is not complete. Try option "help"`, false, 255},
		{"pfifo", "limit 4g", `pfifo: Illegal value for "limit": "4g"`, false, 1},
		{"bfifo", "limit -1", `bfifo: Illegal value for "limit": "-1"`, false, 1},
		{"pfifo_head_drop", "limit abc", `pfifo_head_drop: Illegal value for "limit": "abc"`, false, 1},
		{"bfifo", "lim 10", `bfifo: unknown parameter "lim"`, true, 1},
		{"pfifo", "help", "", true, 1},
		{"plug", "limit", `Command line is not complete. Try option "help"`, false, 255},
		{"plug", "limit x", `Illegal value for "limit": "x"`, false, 1},
		{"plug", "foo", `plug: unknown parameter "foo"`, true, 1},
		{"plug", "help", "", true, 1},
	} {
		_, err := tckind.LookupQdisc(c.kind).ParseQdisc(strings.Fields(c.args), tckind.ParseEnv{})
		var pe *tcword.ParseError
		if !errors.As(err, &pe) || pe.Msg != c.msg || pe.ShowUsage != c.usage || pe.ExitCode() != c.code {
			t.Errorf("%s %q: %#v, want %q usage %v exit %d", c.kind, c.args, err, c.msg, c.usage, c.code)
		}
	}
}

// TestPrintFifo checks the text and JSON tc prints for the kernel's dump.
func TestPrintFifo(t *testing.T) {
	for _, c := range []struct {
		kind       string
		limit      uint32
		text, json string
	}{
		{"pfifo", 1000, "limit 1000p", `{"limit":1000}` + "\n"},
		{"pfifo_head_drop", 10240, "limit 10240p", `{"limit":10240}` + "\n"},
		{"bfifo", 1514000, "limit 1514000b", `{"limit":1514000}` + "\n"},
		{"bfifo", 10240, "limit 10Kb", `{"limit":10240}` + "\n"},
		{"bfifo", 0xffffffff, "limit 4Gb", `{"limit":4294967295}` + "\n"},
	} {
		print := func(p *tcfmt.Printer) { tckind.LookupQdisc(c.kind).PrintOptions(p, &attrs.TCFifoQopt{Limit: c.limit}) }
		if got := printWith(tcfmt.Options{}, print); got != c.text {
			t.Errorf("%s %d: text %q, want %q", c.kind, c.limit, got, c.text)
		}
		if got := printWith(tcfmt.Options{JSON: true}, print); got != c.json {
			t.Errorf("%s %d: JSON %q, want %q", c.kind, c.limit, got, c.json)
		}
	}
}

// TestFifoDeviceDefaults: the kernel's limit of a fifo given none, by
// device; none where gotc cannot tell it.
func TestFifoDeviceDefaults(t *testing.T) {
	ether := tckind.Device{TxQueueLen: 32, MTU: 1500, Type: 1}
	for _, tt := range []struct {
		kind  string
		dev   tckind.Device
		limit uint32
		ok    bool
	}{
		{"pfifo", ether, 32, true},
		{"pfifo_head_drop", ether, 32, true},
		{"bfifo", ether, 32 * 1514, true},
		{"bfifo", tckind.Device{TxQueueLen: 500, MTU: 1420, Type: 0xfffe}, 500 * 1420, true},
		{"bfifo", tckind.Device{TxQueueLen: 10, MTU: 1500, Type: 768}, 0, false},
		{"pfifo", tckind.Device{MTU: 1500, Type: 1}, 0, false},
	} {
		opts, words, ok := tckind.LookupQdisc(tt.kind).DeviceDefaults(tt.dev, nil)
		if ok != tt.ok {
			t.Errorf("%s on %+v: %v, want %v", tt.kind, tt.dev, ok, tt.ok)
			continue
		}
		if !ok {
			continue
		}
		if got := opts.(*attrs.TCFifoQopt).Limit; got != tt.limit {
			t.Errorf("%s on %+v: limit %d, want %d", tt.kind, tt.dev, got, tt.limit)
		}
		if want := fmt.Sprint("limit ", tt.limit); strings.Join(words, " ") != want {
			t.Errorf("%s on %+v: words %q, want %q", tt.kind, tt.dev, words, want)
		}
	}
}
