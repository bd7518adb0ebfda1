// SPDX-License-Identifier: Apache-2.0

package tckind

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/kindtest"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
)

// TestParseSizeTable: tc's keywords and abbreviations, where parsing stops,
// and its messages (checked against tc 7.3 in the test bed) and statuses.
func TestParseSizeTable(t *testing.T) {
	for _, c := range []struct {
		args string
		want attrs.TCSizespec
		rest string
		err  string
		code int
	}{
		{args: "overhead 18 pfifo", want: attrs.TCSizespec{Overhead: 18}, rest: "pfifo"},
		{args: "linklayer ethernet overhead -4", want: attrs.TCSizespec{Linklayer: 1, Overhead: -4}},
		{args: "l adsl mp 64 mt 1500 t 128 o 2 tbf rate", want: attrs.TCSizespec{Linklayer: 2, MPU: 64, Mtu: 1500, Tsize: 128, Overhead: 2}, rest: "tbf rate"},
		{args: "m 9000 mpu 1 sfq", want: attrs.TCSizespec{Mtu: 9000, MPU: 1}, rest: "sfq"},
		{args: "mtu 0 mtu 5 mpu 1", want: attrs.TCSizespec{Mtu: 5, MPU: 1}}, // a zero is unset
		{args: "mtu 1500 pfifo", err: "", code: 255},                        // nothing a table would change
		{args: "", err: `Command line is not complete. Try option "help"`, code: 255},
		{args: "overhead", err: `Command line is not complete. Try option "help"`, code: 255},
		{args: "help", err: stabUsage, code: 255},
		{args: "mtu 1 mtu 2", err: `Error: duplicate "mtu": "2" is the second value.`, code: 255},
		{args: "linklayer atm linklayer atm", err: `Error: duplicate "linklayer": "atm" is the second value.`, code: 255},
		{args: "mtu x", err: `Error: argument "invalid mtu" is wrong: mtu`, code: 255},
		{args: "mpu -1", err: `Error: argument "invalid mpu" is wrong: mpu`, code: 255},
		{args: "tsize 0x10", err: `Error: argument "invalid table size" is wrong: tsize`, code: 255},
		{args: "overhead 1.5", err: `Error: argument "invalid overhead" is wrong: overhead`, code: 255},
		{args: "overhead 2147483648", err: `Error: argument "invalid overhead" is wrong: overhead`, code: 255},
		{args: "linklayer ptm", err: `Error: argument "invalid linklayer" is wrong: linklayer`, code: 255},
	} {
		got, rest, err := ParseSizeTable(strings.Fields(c.args))
		var pe *tcword.ParseError
		switch {
		case c.code != 0:
			if !errors.As(err, &pe) || pe.Msg != c.err || pe.ExitCode() != c.code {
				t.Errorf("%q: error %#v, want %q (exit %d)", c.args, err, c.err, c.code)
			}
		case err != nil:
			t.Errorf("%q: %v", c.args, err)
		case got != c.want || strings.Join(rest, " ") != c.rest:
			t.Errorf("%q: %+v, rest %q; want %+v, rest %q", c.args, got, rest, c.want, c.rest)
		}
	}
}

// TestSizeTable checks tc_calc_size_table's arithmetic on worked examples.
func TestSizeTable(t *testing.T) {
	// The overhead alone needs no slots: mtu and tsize are not sent.
	st, fits := SizeTable(attrs.TCSizespec{Overhead: 18, Mtu: 1600, Tsize: 100, Linklayer: 1}, 1<<16)
	if want := (attrs.TCSizespec{Overhead: 18, Linklayer: 1}); !fits || *st.Base != want || st.Data != nil {
		t.Errorf("overhead only: %+v %v %v", st.Base, st.Data, fits)
	}
	// ATM with the defaults: 512 slots of 4 bytes (2047 >> 2 <= 511), each
	// the size of the whole 53-byte cells that carry 4(i+1) bytes.
	st, fits = SizeTable(attrs.TCSizespec{Linklayer: 2}, 1<<16)
	if want := (attrs.TCSizespec{Linklayer: 2, Mtu: 2047, Tsize: 512, CellLog: 2, CellAlign: -1}); !fits || *st.Base != want {
		t.Errorf("atm: %+v", st.Base)
	}
	if len(st.Data) != 512 || st.Data[0] != 53 || st.Data[11] != 53 || st.Data[12] != 106 || st.Data[511] != 43*53 {
		t.Errorf("atm slots: %d, %v ... %d", len(st.Data), st.Data[:13], st.Data[len(st.Data)-1])
	}
	// An mpu beyond 16 bits shifts every slot one bit.
	big, _ := SizeTable(attrs.TCSizespec{Linklayer: 2, MPU: 70000}, 1<<16)
	if big.Base.SizeLog != 1 || big.Data[0] != 1459*53/2 || big.Data[511] != 1459*53/2 {
		t.Errorf("mpu 70000: size_log %d, slots %d %d", big.Base.SizeLog, big.Data[0], big.Data[511])
	}
	// One slot covers all of mtu.
	st, _ = SizeTable(attrs.TCSizespec{MPU: 10, Tsize: 1, Mtu: 1500}, 1<<16)
	if st.Base.CellLog != 11 || len(st.Data) != 1 || st.Data[0] != 2048 {
		t.Errorf("tsize 1: %+v %v", st.Base, st.Data)
	}
	// Slots beyond the room: the same base, no data.
	small, fits := SizeTable(attrs.TCSizespec{Linklayer: 2, MPU: 70000}, 1022)
	if fits || small.Data != nil || *small.Base != *big.Base {
		t.Errorf("no room: %+v %d slots, fits %v", small.Base, len(small.Data), fits)
	}
}

// TestPrintSizeTable: tc -d's line of the base a kernel dumps, text and JSON.
func TestPrintSizeTable(t *testing.T) {
	st := &attrs.TCAStabAttrs{Base: &attrs.TCSizespec{Linklayer: 2, Overhead: -4, MPU: 64, Mtu: 2047, Tsize: 512, CellLog: 2, CellAlign: -1}}
	if got, want := kindtest.Render(tcfmt.Options{}, func(p *tcfmt.Printer) { PrintSizeTable(p, st) }), " linklayer atm overhead -4 mpu 64 mtu 2047 tsize 512 "; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
	if got, want := kindtest.Render(tcfmt.Options{JSON: true}, func(p *tcfmt.Printer) { PrintSizeTable(p, st) }), `[{"stab":{"linklayer":"atm","overhead":-4,"mpu":64,"mtu":2047,"tsize":512}}]`+"\n"; got != want {
		t.Errorf("json %s, want %s", got, want)
	}
	st.Base = &attrs.TCSizespec{Overhead: 18}
	if got, want := kindtest.Render(tcfmt.Options{}, func(p *tcfmt.Printer) { PrintSizeTable(p, st) }), " overhead 18 "; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
}

// TestParseEstimator: tc_setup_estimator's interval and ewma_log (tc -r
// prints them: 1s 8s is i=0 e=3), and tc's errors.
func TestParseEstimator(t *testing.T) {
	for _, c := range []struct {
		args     string
		interval int8
		ewma     uint8
		err      string
	}{
		{args: "1s 8s", interval: 0, ewma: 3},
		{args: "250ms 1s", interval: -2, ewma: 2},
		{args: "125ms 500ms", interval: -2, ewma: 2},
		{args: "8s 64s", interval: 3, ewma: 3},
		{args: "2s 16s htb", interval: 1, ewma: 3},
		{args: "500ms 100s", interval: -1, ewma: 7},
		{args: "1us 4000s", err: "Error: estimator parameters are out of range."},
		{args: "10s 8s", err: "Error: estimator parameters are out of range."},
		{args: "1s 1ms", err: "Error: estimator parameters are out of range."},
		{args: "x 8s", err: `Error: argument "invalid estimator interval" is wrong: estimator`},
		{args: "1s x", err: `Error: argument "invalid estimator time constant" is wrong: estimator`},
		{args: "1s", err: `Command line is not complete. Try option "help"`},
	} {
		est, rest, err := ParseEstimator(strings.Fields(c.args), nil, io.Discard)
		var pe *tcword.ParseError
		if c.err != "" {
			if !errors.As(err, &pe) || pe.Msg != c.err || pe.ExitCode() != 255 {
				t.Errorf("%q: error %v, want %q", c.args, err, c.err)
			}
			continue
		}
		if err != nil || est.Interval != c.interval || est.EwmaLog != c.ewma || len(rest) != len(strings.Fields(c.args))-2 {
			t.Errorf("%q: %+v rest %q %v, want i=%d e=%d", c.args, est, rest, err, c.interval, c.ewma)
		}
	}
	_, _, err := ParseEstimator([]string{"1s", "8s"}, &attrs.GnetEstimator{EwmaLog: 3}, io.Discard)
	if want := `Error: duplicate "estimator": "1s" is the second value.`; err == nil || err.Error() != want {
		t.Errorf("second estimator: %v", err)
	}
	var help strings.Builder
	if _, _, err := ParseEstimator([]string{"help"}, nil, &help); err == nil || help.String() != estimatorUsage {
		t.Errorf("help: %q, %v", help.String(), err)
	}
}

// Any size table the parser accepts computes, encodes and decodes back; no
// input panics. Tables of more than 2^16 slots are not computed here (tc
// would allocate them; the fuzzer would only wait).
func FuzzParseSizeTable(f *testing.F) {
	for _, s := range []string{"overhead\x0018", "linklayer\x00atm\x00mtu\x009000\x00tsize\x002048", "mpu\x0070000\x00linklayer\x00atm",
		"help", "mtu\x001\x00mtu\x002", "l\x00e\x00o\x00-4\x00pfifo", "tsize\x001\x00mpu\x001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		args := strings.Split(s, "\x00")
		spec, rest, err := ParseSizeTable(args)
		if err != nil {
			var pe *tcword.ParseError
			if !errors.As(err, &pe) || pe.ExitCode() != 255 {
				t.Fatalf("%q: error %v is not tc's exit 255", args, err)
			}
			return
		}
		if len(rest) > len(args) || !sizeTableWanted(&spec) {
			t.Fatalf("%q: rest %q, spec %+v", args, rest, spec)
		}
		if spec.Tsize > 1<<16 || spec.Mtu > 1<<30 {
			return
		}
		// A netlink attribute's length is 16 bits: the nest holds the base
		// (8 bytes with its header), the slots' header, and the slots.
		const room = 0xffff - 4 - (4 + attrs.TCSizespecLen) - 4
		st, fits := SizeTable(spec, room)
		if fits && len(st.Data) != int(st.Base.Tsize) || !fits && (len(st.Data) != 0 || 2*int(st.Base.Tsize) <= room) {
			t.Fatalf("%q: %d slots for tsize %d (fits %v)", args, len(st.Data), st.Base.Tsize, fits)
		}
		var e attrs.Encoder
		st.Encode(&e)
		var back attrs.TCAStabAttrs
		if err := back.Decode(e.Bytes()); err != nil || !reflect.DeepEqual(back.Base, st.Base) || len(back.Data) != len(st.Data) {
			t.Fatalf("%q: round trip %+v, %v", args, back.Base, err)
		}
		for _, o := range []tcfmt.Options{{}, {JSON: true}} {
			kindtest.Render(o, func(p *tcfmt.Printer) { PrintSizeTable(p, &back) })
		}
	})
}
