// SPDX-License-Identifier: Apache-2.0

package qdisc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// curve is a struct tc_service_curve's bytes.
func curve(m1, d, m2 uint32) []byte {
	b := binary.NativeEndian.AppendUint32(nil, m1)
	b = binary.NativeEndian.AppendUint32(b, d)
	return binary.NativeEndian.AppendUint32(b, m2)
}

// hfscClassCases are class option lists and the TCA_OPTIONS payload tc
// sends for them (rt, ls, ul in that order), at the usual microsecond
// clock.
var hfscClassCases = []struct {
	args string
	want []byte
}{
	{"rt m2 1mbit", tcAttr(attrs.TCAHFSCRsc, curve(0, 0, 125000))},
	{"sc rate 1mbit", cat(tcAttr(attrs.TCAHFSCRsc, curve(0, 0, 125000)), tcAttr(attrs.TCAHFSCFsc, curve(0, 0, 125000)))},
	{"ls m1 2mbit d 10ms m2 1mbit ul m2 3mbit",
		cat(tcAttr(attrs.TCAHFSCFsc, curve(250000, 10000, 125000)), tcAttr(attrs.TCAHFSCUsc, curve(0, 0, 375000)))},
	// Concave: 1500 bytes in 10ms is steeper than 1mbit.
	{"rt umax 1500 dmax 10ms rate 1mbit", tcAttr(attrs.TCAHFSCRsc, curve(150000, 10000, 125000))},
	// Convex: the flat segment ends where 1mbit sends 1500 bytes by 50ms.
	{"rt umax 1500 dmax 50ms rate 1mbit", tcAttr(attrs.TCAHFSCRsc, curve(0, 38000, 125000))},
	{"rt dmax 5ms rate 1mbit", tcAttr(attrs.TCAHFSCRsc, curve(0, 5000, 125000))},
	// Abbreviations, and "m" taken as m1.
	{"r m 1mbit d 1ms m2 8kbit", tcAttr(attrs.TCAHFSCRsc, curve(125000, 1000, 1000))},
	// ul after rt and ls: still sent last; a later rt replaces an earlier.
	{"ul m2 1mbit ls m2 2mbit rt m2 1kbit rt m2 2kbit",
		cat(tcAttr(attrs.TCAHFSCRsc, curve(0, 0, 250)), tcAttr(attrs.TCAHFSCFsc, curve(0, 0, 250000)), tcAttr(attrs.TCAHFSCUsc, curve(0, 0, 125000)))},
}

func cat(bs ...[]byte) []byte { return bytes.Join(bs, nil) }

func TestParseHFSCClass(t *testing.T) {
	for _, tc := range hfscClassCases {
		o, err := parseHFSCClass(strings.Fields(tc.args), tckind.ParseEnv{})
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		a := attrs.TCAttrs{Options: o}
		e := attrs.NewEncoder(nil)
		a.Encode(e)
		if got, want := e.Bytes(), tcAttr(attrs.TCAOptions, tc.want); !bytes.Equal(got, want) {
			t.Errorf("%q: got %x, want %x", tc.args, got, want)
		}
	}
}

func TestParseHFSCQdisc(t *testing.T) {
	for args, want := range map[string]uint16{"": 0, "default 10": 0x10, "def 0x1f": 0x1f, "default 0 default 3": 3} {
		o, err := parseHFSC(strings.Fields(args))
		if err != nil {
			t.Errorf("%q: %v", args, err)
			continue
		}
		if q := hfscQopt(o); q == nil || q.Defcls != want {
			t.Errorf("%q: got %v, want default %#x", args, q, want)
		}
	}
}

var hfscErrorCases = []struct {
	class     bool
	args, msg string
	usage     bool
	code      int
}{
	{false, "foo", `HFSC: What is "foo" ?`, true, 1},
	{false, "help", "", true, 1},
	{false, "default", `Command line is not complete. Try option "help"`, false, 255},
	{false, "default x", `HFSC: Illegal "default"`, false, 1},
	{false, "default 10000", `HFSC: Illegal "default"`, false, 1},
	{false, "default 1 default 2", `HFSC: Double "default"`, false, 1},
	{true, "", "HFSC: no parameters given\n" + hfscClassUsage, false, 1},
	{true, "help", hfscClassUsage, false, 1},
	{true, "foo", "HFSC: What is \"foo\" ?\n" + hfscClassUsage, false, 1},
	{true, "ul m2 1mbit", "HFSC: Upper-limit Service Curve without Link-Share Service Curve\n" + hfscClassUsage, false, 1},
	{true, "rt", `Command line is not complete. Try option "help"`, false, 255},
	{true, "rt m1 1mbit", `Command line is not complete. Try option "help"`, false, 255},
	{true, "rt m1 1mbit d 1ms", `Command line is not complete. Try option "help"`, false, 255},
	{true, "rt m2", `Command line is not complete. Try option "help"`, false, 255},
	{true, "rt foo", `HFSC: Illegal "rt"`, false, 1},
	{true, "rt m2 x", "HFSC: Illegal \"m2\"\nHFSC: Illegal \"rt\"", false, 1},
	{true, "ls m1 x d 1ms m2 1mbit", "HFSC: Illegal \"m1\"\nHFSC: Illegal \"ls\"", false, 1},
	// "d" is also an abbreviation of the other form's dmax.
	{true, "rt d x m2 1mbit", "HFSC: Illegal \"d\"\nHFSC: Illegal \"dmax\"\nHFSC: Illegal \"rt\"", false, 1},
	{true, "sc umax 1500 rate 1mbit", "HFSC: umax given but dmax is zero.\nHFSC: Illegal \"sc\"", false, 1},
	{true, "ul umax x dmax 1ms rate 1mbit", "HFSC: Illegal \"umax\"\nHFSC: Illegal \"ul\"", false, 1},
	{true, "rt m2 0", "HFSC: Service Curve has two zero slopes\nHFSC: Illegal \"rt\"", false, 1},
	{true, "rt rate 0", "HFSC: Service Curve has two zero slopes\nHFSC: Illegal \"rt\"", false, 1},
	{true, "rt m2 40gbit", "HFSC: Illegal \"m2\"\nHFSC: Illegal \"rt\"", false, 1},
	{true, "rt m2 1% ", "No device specified; specify device to rate limit by percentage\nHFSC: Illegal \"m2\"\nHFSC: Illegal \"rt\"", false, 1},
}

func TestParseHFSCErrors(t *testing.T) {
	for _, tc := range hfscErrorCases {
		var notes bytes.Buffer
		env := tckind.ParseEnv{Stderr: &notes}
		var err error
		if tc.class {
			_, err = parseHFSCClass(strings.Fields(tc.args), env)
		} else {
			_, err = parseHFSC(strings.Fields(tc.args))
		}
		var pe *tcword.ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%q: error %v, want a ParseError", tc.args, err)
			continue
		}
		if got := notes.String() + pe.Msg; got != tc.msg || pe.ShowUsage != tc.usage || pe.ExitCode() != tc.code {
			t.Errorf("%q: got (%q, usage %v, exit %d), want (%q, %v, %d)", tc.args, got, pe.ShowUsage, pe.ExitCode(), tc.msg, tc.usage, tc.code)
		}
	}
}

// TestPrintHFSC checks the curve lines ("sc" for equal rt and ls) and the
// class statistics in text and JSON.
func TestPrintHFSC(t *testing.T) {
	k := tckind.LookupQdisc("hfsc")
	payload := cat(tcAttr(attrs.TCAHFSCRsc, curve(250000, 10000, 125000)), tcAttr(attrs.TCAHFSCFsc, curve(250000, 10000, 125000)),
		tcAttr(attrs.TCAHFSCUsc, curve(0, 0, 1250000)))
	opts := attrs.DecodeTCOptionsMsg("hfsc", payload)
	st := attrs.TCHFSCStats{Work: 3000, Period: 2, Level: 1}
	x := tckind.Xstats{App: attrs.DecodeStatsAppMsg("hfsc", st.Append(nil))}
	print := func(p *tcfmt.Printer) {
		k.PrintClassOptions(p, opts)
		k.PrintClassXstats(p, x)
	}
	if got, want := printWith(tcfmt.Options{}, print),
		"sc m1 2Mbit d 10ms m2 1Mbit ul m1 0bit d 0us m2 10Mbit  period 2 work 3000 bytes  level 1 \n"; got != want {
		t.Errorf("text:\n got %q\nwant %q", got, want)
	}
	want := `{"sc":{"m1":250000,"d":10000,"m2":125000},"ul":{"m1":0,"d":0,"m2":1250000},"period":2,"work":3000,"level":1}` + "\n"
	if got := printWith(tcfmt.Options{JSON: true}, print); got != want {
		t.Errorf("JSON:\n got %q\nwant %q", got, want)
	}
	q := printWith(tcfmt.Options{}, func(p *tcfmt.Printer) { k.PrintOptions(p, attrs.DecodeTCOptionsMsg("hfsc", []byte{0x10, 0})) })
	if q != " default 0x10 " {
		t.Errorf("qdisc: got %q", q)
	}
}

// FuzzParseHFSCClass feeds arbitrary words to the service-curve grammar: it
// must not panic, must fail only with a *ParseError, and whatever it
// accepts must have a link-sharing curve wherever it has an upper limit,
// no curve of two zero slopes, and encode into a nest that decodes back
// the same and prints.
func FuzzParseHFSCClass(f *testing.F) {
	for _, tc := range hfscClassCases {
		f.Add(tc.args)
	}
	for _, tc := range hfscErrorCases {
		if tc.class {
			f.Add(tc.args)
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		o, err := parseHFSCClass(strings.Split(s, " "), tckind.ParseEnv{})
		if err != nil {
			var pe *tcword.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("%q: error %T is not a *ParseError", s, err)
			}
			return
		}
		if o.Rsc == nil && o.Fsc == nil && o.Usc == nil || o.Usc != nil && o.Fsc == nil {
			t.Fatalf("%q: accepted curves %+v", s, o)
		}
		for _, sc := range []*attrs.TCServiceCurve{o.Rsc, o.Fsc, o.Usc} {
			if sc != nil && sc.M1 == 0 && sc.M2 == 0 {
				t.Fatalf("%q: a curve of two zero slopes", s)
			}
		}
		e := attrs.NewEncoder(nil)
		o.Encode(e)
		back, ok := attrs.DecodeTCOptionsMsg("hfsc", e.Bytes()).(*attrs.HFSCAttrs)
		if !ok {
			t.Fatalf("%q: %x does not decode as hfsc class options", s, e.Bytes())
		}
		for i, pair := range [][2]*attrs.TCServiceCurve{{o.Rsc, back.Rsc}, {o.Fsc, back.Fsc}, {o.Usc, back.Usc}} {
			if (pair[0] == nil) != (pair[1] == nil) || pair[0] != nil && *pair[0] != *pair[1] {
				t.Fatalf("%q: curve %d does not round-trip", s, i)
			}
		}
		printWith(tcfmt.Options{}, func(p *tcfmt.Printer) { printHFSCClass(p, back) })
		printWith(tcfmt.Options{JSON: true}, func(p *tcfmt.Printer) { printHFSCClass(p, back) })
	})
}

// TestHFSCClassMatchesKernelDumps parses every hfsc class of the recorded
// scenarios as gotc and compares its curves with what the kernel dumped of
// tc's request.
func TestHFSCClassMatchesKernelDumps(t *testing.T) {
	cases := goldenSetups(t, "hfsc", "class")
	if len(cases) < 3 {
		t.Fatalf("only %d recorded hfsc classes", len(cases))
	}
	for _, c := range cases {
		o, err := parseHFSCClass(c.args, tckind.ParseEnv{})
		if err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		k := c.msg.Attrs.Options.(*attrs.HFSCAttrs)
		for i, pair := range [][2]*attrs.TCServiceCurve{{o.Rsc, k.Rsc}, {o.Fsc, k.Fsc}, {o.Usc, k.Usc}} {
			if (pair[0] == nil) != (pair[1] == nil) || pair[0] != nil && *pair[0] != *pair[1] {
				t.Errorf("%q: curve %d: sent %+v, the kernel dumped %+v", c.args, i, pair[0], pair[1])
			}
		}
	}
}
