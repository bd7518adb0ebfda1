// SPDX-License-Identifier: Apache-2.0

package qdisc

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// tcNest is tc's addattr_nest with NLA_F_NESTED.
func tcNest(typ uint16, payload ...[]byte) []byte { return tcAttr(typ|0x8000, cat(payload...)) }

func tcU8(typ uint16, v uint8) []byte { return tcAttr(typ, []byte{v}) }

// TestParseETS checks requests against tc's ets_parse_opt: every nest
// flagged, bands always, strict when not 0, the lists when given.
func TestParseETS(t *testing.T) {
	for _, tc := range []struct {
		args string
		want []byte
	}{
		{"bands 3", tcU8(attrs.TCAETSNbands, 3)},
		{"strict 2 bands 0", cat(tcU8(attrs.TCAETSNbands, 2), tcU8(attrs.TCAETSNstrict, 2))},
		{"strict 1 quanta 1000 2000", cat(tcU8(attrs.TCAETSNbands, 3), tcU8(attrs.TCAETSNstrict, 1),
			tcNest(attrs.TCAETSQuanta, tcU32(attrs.TCAETSQuantaBand, 1000), tcU32(attrs.TCAETSQuantaBand, 2000)))},
		// 256 is read as an unsigned int and sent as a u8.
		{"bands 2 priomap 1 256", cat(tcU8(attrs.TCAETSNbands, 2),
			tcNest(attrs.TCAETSPriomap, tcU8(attrs.TCAETSPriomapBand, 1), tcU8(attrs.TCAETSPriomapBand, 0)))},
		{"priomap 0 quanta 5 bands 4", cat(tcU8(attrs.TCAETSNbands, 4),
			tcNest(attrs.TCAETSQuanta, tcU32(attrs.TCAETSQuantaBand, 5)), tcNest(attrs.TCAETSPriomap, tcU8(attrs.TCAETSPriomapBand, 0)))},
	} {
		o, err := parseETS(strings.Fields(tc.args))
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		a := attrs.TCAttrs{Options: o}
		e := attrs.NewEncoder(nil)
		a.Encode(e)
		if got, want := e.Bytes(), tcNest(attrs.TCAOptions, tc.want); !bytes.Equal(got, want) {
			t.Errorf("%q: got %x, want %x", tc.args, got, want)
		}
	}
	o, err := parseETSClass([]string{"quantum", "1500"})
	if err != nil {
		t.Fatal(err)
	}
	e := attrs.NewEncoder(nil)
	(&attrs.TCAttrs{Options: o}).Encode(e)
	if got, want := e.Bytes(), tcNest(attrs.TCAOptions, tcU32(attrs.TCAETSQuantaBand, 1500)); !bytes.Equal(got, want) {
		t.Errorf("class: got %x, want %x", got, want)
	}
}

func TestParseETSErrors(t *testing.T) {
	for _, tc := range []struct {
		class     bool
		args, msg string
		usage     bool
		code      int
	}{
		{false, "", `One of "bands", "quanta" or "strict" needs to be specified`, true, 1},
		{false, "help", "", true, 1},
		{false, "band 3", `What is "band"?`, true, 1},
		{false, "bands", `Command line is not complete. Try option "help"`, false, 255},
		{false, "bands x", `Illegal "bands"`, false, 1},
		{false, "strict 17", `The number of "strict" must be <= 16`, false, 1},
		{false, "bands 2 bands 3", `Duplicate "bands"`, false, 1},
		{false, "quanta 1 quanta 2", `Duplicate "quanta"`, false, 1},
		{false, "quanta 0", `"quanta" must be > 0`, false, 1},
		{false, "quanta 1 x", `Illegal "quanta" element`, false, 1},
		{false, "bands 2 priomap x", `Illegal "priomap" element`, false, 1},
		{false, "bands 2 priomap 2", `"priomap" element is out of bounds`, false, 1},
		{false, "bands 2 priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0", `"priomap" index cannot be higher than 15`, false, 1},
		{false, "strict 2 quanta 1 bands 2", "Not enough total bands to cover all the strict bands and quanta", true, 1},
		{true, "quantum", `Command line is not complete. Try option "help"`, false, 255},
		{true, "quantum 1 quantum 2", `Duplicate "quantum"`, false, 1},
		{true, "quantum 0", `"quanta" must be > 0`, false, 1},
		{true, "foo", "What is \"foo\"?\n" + etsClassUsage, false, 1},
		{true, "help", etsClassUsage, false, 1},
	} {
		var err error
		if tc.class {
			_, err = parseETSClass(strings.Fields(tc.args))
		} else {
			_, err = parseETS(strings.Fields(tc.args))
		}
		var pe *tcword.ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%q: error %v, want a ParseError", tc.args, err)
			continue
		}
		if pe.Msg != tc.msg || pe.ShowUsage != tc.usage || pe.ExitCode() != tc.code {
			t.Errorf("%q: got (%q, usage %v, exit %d), want (%q, %v, %d)", tc.args, pe.Msg, pe.ShowUsage, pe.ExitCode(), tc.msg, tc.usage, tc.code)
		}
	}
}

// TestPrintETS checks the qdisc's lists, as words in text and arrays in
// JSON, and a class's quantum.
func TestPrintETS(t *testing.T) {
	k := tckind.LookupQdisc("ets")
	prio := make([][]byte, 16)
	for i := range prio {
		prio[i] = tcU8(attrs.TCAETSPriomapBand, uint8(i%3))
	}
	opts := attrs.DecodeTCOptionsMsg("ets", cat(tcU8(attrs.TCAETSNbands, 3), tcU8(attrs.TCAETSNstrict, 1),
		tcNest(attrs.TCAETSQuanta, tcU32(attrs.TCAETSQuantaBand, 1000), tcU32(attrs.TCAETSQuantaBand, 2000)),
		tcNest(attrs.TCAETSPriomap, prio...)))
	print := func(p *tcfmt.Printer) { k.PrintOptions(p, opts) }
	if got, want := printWith(tcfmt.Options{}, print), "bands 3 strict 1 quanta 1000 2000 priomap 0 1 2 0 1 2 0 1 2 0 1 2 0 1 2 0 "; got != want {
		t.Errorf("text:\n got %q\nwant %q", got, want)
	}
	if got, want := printWith(tcfmt.Options{JSON: true}, print),
		`{"bands":3,"strict":1,"quanta":[1000,2000],"priomap":[0,1,2,0,1,2,0,1,2,0,1,2,0,1,2,0]}`+"\n"; got != want {
		t.Errorf("JSON:\n got %q\nwant %q", got, want)
	}
	class := attrs.DecodeTCOptionsMsg("ets", tcU32(attrs.TCAETSQuantaBand, 1514))
	if got := printWith(tcfmt.Options{}, func(p *tcfmt.Printer) { k.PrintClassOptions(p, class) }); got != "quantum 1514 " {
		t.Errorf("class: got %q", got)
	}
}

// TestETSMatchesKernelDumps parses every recorded ets qdisc and class as
// gotc and checks what it would send against the kernel's dump: the bands,
// the strict bands, the quanta given (the kernel fills in the rest) and
// the priomap given (likewise).
func TestETSMatchesKernelDumps(t *testing.T) {
	qdiscs, classes := goldenSetups(t, "ets", "qdisc"), goldenSetups(t, "ets", "class")
	if len(qdiscs) < 2 || len(classes) < 1 {
		t.Fatalf("only %d recorded ets qdiscs and %d classes", len(qdiscs), len(classes))
	}
	for _, c := range qdiscs {
		o, err := parseETS(c.args)
		if err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		k := c.msg.Attrs.Options.(*attrs.ETSAttrs)
		if *o.Nbands != *k.Nbands || (o.Nstrict == nil) != (k.Nstrict == nil) || o.Nstrict != nil && *o.Nstrict != *k.Nstrict {
			t.Errorf("%q: bands or strict differ from the kernel's dump", c.args)
		}
		if o.Quanta != nil && !slices.Equal(o.Quanta.QuantaBand, k.Quanta.QuantaBand[:len(o.Quanta.QuantaBand)]) {
			t.Errorf("%q: quanta %v, the kernel dumped %v", c.args, o.Quanta.QuantaBand, k.Quanta.QuantaBand)
		}
		if o.Priomap != nil && !bytes.Equal(o.Priomap.PriomapBand, k.Priomap.PriomapBand[:len(o.Priomap.PriomapBand)]) {
			t.Errorf("%q: priomap %v, the kernel dumped %v", c.args, o.Priomap.PriomapBand, k.Priomap.PriomapBand)
		}
	}
	for _, c := range classes {
		o, err := parseETSClass(c.args)
		if err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		if k := c.msg.Attrs.Options.(*attrs.ETSAttrs); !slices.Equal(o.QuantaBand, k.QuantaBand) {
			t.Errorf("%q: quantum %v, the kernel dumped %v", c.args, o.QuantaBand, k.QuantaBand)
		}
	}
}

// TestETSDeviceDefaults: the quanta the kernel gives an ets's sharing
// bands that the request leaves without one, from the device's MTU and
// link-layer header; nothing to fill when every sharing band has one.
func TestETSDeviceDefaults(t *testing.T) {
	ether := tckind.Device{TxQueueLen: 1000, MTU: 1500, Type: 1}
	for _, tt := range []struct {
		words  string
		dev    tckind.Device
		quanta []uint32 // nil: nothing filled
		kw     string
	}{
		{"bands 4 strict 1 quanta 3000", ether, []uint32{3000, 1514, 1514}, "bands 4 strict 1 quanta 3000 1514 1514"},
		{"bands 3", ether, []uint32{1514, 1514, 1514}, "bands 3 quanta 1514 1514 1514"},
		{"bands 3", tckind.Device{MTU: 9000, Type: 0xfffe}, []uint32{9000, 9000, 9000}, "bands 3 quanta 9000 9000 9000"},
		{"strict 2", ether, nil, ""},
		{"quanta 1000 2000", ether, nil, ""},
		{"bands 3", tckind.Device{MTU: 1500, Type: 768}, nil, ""},
	} {
		opts, err := parseETS(strings.Fields(tt.words))
		if err != nil {
			t.Fatalf("%q: %v", tt.words, err)
		}
		got, kw, ok := tckind.LookupQdisc("ets").DeviceDefaults(tt.dev, opts)
		if ok != (tt.quanta != nil) {
			t.Errorf("%q on %+v: filled %v, want %v", tt.words, tt.dev, ok, tt.quanta != nil)
			continue
		}
		if !ok {
			continue
		}
		if q := got.(*attrs.ETSAttrs).Quanta.QuantaBand; !slices.Equal(q, tt.quanta) {
			t.Errorf("%q on %+v: quanta %v, want %v", tt.words, tt.dev, q, tt.quanta)
		}
		if strings.Join(kw, " ") != tt.kw {
			t.Errorf("%q on %+v: keywords %q, want %q", tt.words, tt.dev, kw, tt.kw)
		}
		if opts.Quanta != nil && len(opts.Quanta.QuantaBand) == len(tt.quanta) {
			t.Errorf("%q: the request's own quanta were changed", tt.words)
		}
	}
}
