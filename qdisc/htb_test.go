// SPDX-License-Identifier: Apache-2.0

package qdisc

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/kindtest"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

func encodeOptions(o interface{ Encode(*attrs.Encoder) }) []byte {
	var e attrs.Encoder
	o.Encode(&e)
	return e.Bytes()
}

// TestHTBQdiscRequest checks the bytes of the qdisc's TCA_OPTIONS payload:
// TCA_HTB_INIT always (version 3, r2q 10), then direct_qlen and offload.
func TestHTBQdiscRequest(t *testing.T) {
	o, err := parseHTB([]string{"default", "1f", "direct_qlen", "50", "debug", "0123x", "offload"})
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{
		24, 0, 2, 0, 3, 0, 0, 0, 10, 0, 0, 0, 0x1f, 0, 0, 0, 0xe4, 0, 0, 0, 0, 0, 0, 0, // init; debug 0b11100100
		8, 0, 5, 0, 50, 0, 0, 0, // direct_qlen
		4, 0, 9, 0, // offload
	}
	if got := encodeOptions(o); !bytes.Equal(got, want) {
		t.Errorf("got  %x\nwant %x", got, want)
	}
	if o, _ := parseHTB([]string{"direct_qlen", "4294967295"}); o.DirectQlen != nil {
		t.Error("direct_qlen 2^32-1 is tc's 'not given' and is not sent")
	}
}

// TestHTBClassMatchesKernelDumps parses every htb class of the recorded
// scenarios as gotc and compares what it would send with what the kernel
// dumped of tc's request: rates, bursts in ticks, prio, quantum, overhead,
// mpu and link layer.
func TestHTBClassMatchesKernelDumps(t *testing.T) {
	useClock(t, testbedClock)
	cases := goldenSetups(t, "htb", "class")
	if len(cases) < 7 {
		t.Fatalf("only %d recorded htb classes", len(cases))
	}
	for _, c := range cases {
		o, err := parseHTBClass(c.args, tckind.ParseEnv{})
		if err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		k := c.msg.Attrs.Options.(*attrs.HTBAttrs)
		g, w := *o.Parms, *k.Parms
		// The kernel dumps no cell size and fills in the level; a quantum
		// of 0 is the kernel's to derive.
		g.Rate.CellLog, g.Rate.CellAlign, g.Ceil.CellLog, g.Ceil.CellAlign, g.Level = 0, 0, 0, 0, w.Level
		if g.Quantum == 0 {
			g.Quantum = w.Quantum
		}
		if g != w {
			t.Errorf("%q:\n sent %+v\n kernel %+v", c.args, g, w)
		}
		if (o.Rate64 == nil) != (k.Rate64 == nil) || (o.Ceil64 == nil) != (k.Ceil64 == nil) {
			t.Errorf("%q: rate64/ceil64 presence differs from the kernel's dump", c.args)
		}
		if len(o.Rtab) != 1024 || len(o.Ctab) != 1024 {
			t.Errorf("%q: rate tables of %d and %d bytes", c.args, len(o.Rtab), len(o.Ctab))
		}
	}
}

// TestHTBErrors checks tc's messages and exit statuses for bad input.
func TestHTBErrors(t *testing.T) {
	for _, c := range []struct {
		class bool
		args  []string
		msg   string
		usage bool
		code  int
	}{
		{false, []string{"r2q", "x"}, `Illegal "r2q"`, true, 1},
		{false, []string{"default", "zz"}, `Illegal "default"`, true, 1},
		{false, []string{"help"}, `What is "help"?`, true, 1},
		{false, []string{"r2q"}, `Command line is not complete. Try option "help"`, false, 255},
		{true, []string{"ceil", "1mbit"}, `"rate" is required.`, false, 1},
		{true, []string{"rate", "1mbit", "rate", "2mbit"}, `Double "rate" spec`, false, 1},
		{true, []string{"rate", "1mbit", "burst", "10k/3"}, `Illegal "burst"`, true, 1},
		{true, []string{"rate", "1mbit", "buffer", "x"}, `Illegal "buffer"`, true, 1},
		{true, []string{"rate", "1mbit", "mpu", "70000"}, `Illegal "mpu"`, true, 1},
		{true, []string{"rate", "8bit", "burst", "100mb"}, `htb: burst out of range`, false, 1},
		{true, []string{"rate", "1mbit", "x"}, `What is "x"?`, true, 1},
		{true, []string{"help"}, ``, true, 1},
		{true, []string{"rate"}, `Command line is not complete. Try option "help"`, false, 255},
	} {
		var err error
		if c.class {
			_, err = parseHTBClass(c.args, tckind.ParseEnv{})
		} else {
			_, err = parseHTB(c.args)
		}
		var pe *tcword.ParseError
		if !errors.As(err, &pe) || pe.Msg != c.msg || pe.ShowUsage != c.usage || pe.ExitCode() != c.code {
			t.Errorf("%q: %#v, want %q usage %v exit %d", c.args, err, c.msg, c.usage, c.code)
		}
	}
}

// TestPrintHTBClass checks a class's text with and without -d against tc's
// (testdata/golden/htb-tree.golden, class 1:20).
func TestPrintHTBClass(t *testing.T) {
	useClock(t, testbedClock)
	o := &attrs.HTBAttrs{Parms: &attrs.TCHTBOpt{
		Rate:    attrs.TCRatespec{Rate: 625000, Linklayer: 1},
		Ceil:    attrs.TCRatespec{Rate: 6250000, Linklayer: 1},
		Buffer:  384000,
		Cbuffer: 7680,
		Quantum: 3000,
		Prio:    7,
	}}
	for _, c := range []struct {
		opts tcfmt.Options
		want string
	}{
		{tcfmt.Options{}, "prio 7 rate 5Mbit ceil 50Mbit burst 15Kb cburst 3Kb"},
		{tcfmt.Options{Details: true}, "prio 7 quantum 3000 rate 5Mbit ceil 50Mbit linklayer ethernet burst 15Kb/1mpu 0b cburst 3Kb/1mpu 0b level 0 "},
		{tcfmt.Options{JSON: true}, `{"prio":7,"rate":625000,"ceil":6250000,"burst":15360,"cburst":3072}`},
	} {
		var b bytes.Buffer
		p := tcfmt.NewPrinter(&b, c.opts)
		p.StartPlain()
		p.OpenObject("")
		printHTB(p, o)
		p.CloseObject()
		if err := p.Flush(); err != nil {
			t.Fatal(err)
		}
		if got := b.String(); got != c.want {
			t.Errorf("%+v:\n got %q\nwant %q", c.opts, got, c.want)
		}
	}
}

// fuzzHTB checks one parser of htb's keywords on args split at NULs: an
// error is a ParseError, and accepted options encode, decode back to the
// same bytes and print alike before and after; nothing panics.
func fuzzHTB(t *testing.T, s string, parse func([]string) (*attrs.HTBAttrs, error)) {
	useClock(t, testbedClock)
	args := strings.Split(s, "\x00")
	o, err := parse(args)
	if err != nil {
		var pe *tcword.ParseError
		if !errors.As(err, &pe) {
			t.Fatalf("%q: error %v is not a ParseError", args, err)
		}
		return
	}
	b := encodeOptions(o)
	var back attrs.HTBAttrs
	if err := back.Decode(b); err != nil {
		t.Fatalf("%q: encoding %x does not decode: %v", args, b, err)
	}
	if got := encodeOptions(&back); !bytes.Equal(got, b) {
		t.Fatalf("%q: round trip %x != %x", args, got, b)
	}
	for _, opt := range []tcfmt.Options{{}, {JSON: true}, {Details: true, Raw: true}} {
		before := kindtest.Render(opt, func(p *tcfmt.Printer) { printHTB(p, o) })
		if after := kindtest.Render(opt, func(p *tcfmt.Printer) { printHTB(p, &back) }); after != before {
			t.Fatalf("%q: prints %q after the round trip, %q before", args, after, before)
		}
	}
}

func FuzzParseHTB(f *testing.F) {
	for _, s := range []string{"default\x0010", "r2q\x005\x00direct_qlen\x0050", "debug\x000123x\x00offload", "default", "r2q\x00x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { fuzzHTB(t, s, parseHTB) })
}

func FuzzParseHTBClass(f *testing.F) {
	for _, s := range []string{"rate\x001mbit", "rate\x001mbit\x00ceil\x002mbit\x00burst\x0015k\x00cburst\x001500/8\x00prio\x001",
		"rate\x0010gbit\x00quantum\x001500\x00overhead\x0010\x00mpu\x0064\x00linklayer\x00atm", "rate\x005%", "ceil\x001mbit",
		"rate\x001mbit\x00mtu\x009000\x00r2q\x002"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fuzzHTB(t, s, func(args []string) (*attrs.HTBAttrs, error) { return parseHTBClass(args, tckind.ParseEnv{}) })
	})
}
