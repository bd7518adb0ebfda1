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

// TestParseCodelBytes checks the request payload against what tc's
// codel_parse_opt writes: its attribute order (limit, interval, target,
// ecn, ce_threshold), tc's units, and the values it leaves out.
func TestParseCodelBytes(t *testing.T) {
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	for _, tc := range []struct {
		args string
		want []byte
	}{
		{"", nil},
		{"limit 1000", tcU32(attrs.TCACodelLimit, 1000)},
		{"limit 0x10", tcU32(attrs.TCACodelLimit, 16)},
		{"limit 0 target 0 interval 0", nil},
		{"target 5ms", tcU32(attrs.TCACodelTarget, 5000)},
		{"interval 1s", tcU32(attrs.TCACodelInterval, 1000000)},
		{"ce_threshold 0", tcU32(attrs.TCACodelCEThreshold, 0)},
		{"ecn", tcU32(attrs.TCACodelECN, 1)},
		{"ecn noecn", tcU32(attrs.TCACodelECN, 0)},
		{"limit 1 limit 2", tcU32(attrs.TCACodelLimit, 2)},
		{"ce_threshold 1ms ecn target 3ms interval 50ms limit 500", cat(
			tcU32(attrs.TCACodelLimit, 500), tcU32(attrs.TCACodelInterval, 50000),
			tcU32(attrs.TCACodelTarget, 3000), tcU32(attrs.TCACodelECN, 1),
			tcU32(attrs.TCACodelCEThreshold, 1000))},
	} {
		o, err := parseCodel(strings.Fields(tc.args))
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		e := attrs.NewEncoder(nil)
		o.Encode(e)
		if got := e.Bytes(); !bytes.Equal(got, tc.want) {
			t.Errorf("%q: got %x, want %x", tc.args, got, tc.want)
		}
	}
}

// TestCodelNestFlag checks that the empty nest goes out without
// NLA_F_NESTED, as tc's addattr_nest sends it.
func TestCodelNestFlag(t *testing.T) {
	o, err := parseCodel(nil)
	if err != nil || o == nil {
		t.Fatalf("no options: %v %v", o, err)
	}
	a := attrs.TCAttrs{Options: o}
	e := attrs.NewEncoder(nil)
	a.Encode(e)
	if want := tcAttr(attrs.TCAOptions, nil); !bytes.Equal(e.Bytes(), want) {
		t.Errorf("empty options: got %x, want %x", e.Bytes(), want)
	}
}

func TestParseCodelErrors(t *testing.T) {
	for _, tc := range []struct {
		args, msg string
		usage     bool
		code      int
	}{
		{"limit", `Command line is not complete. Try option "help"`, false, 255},
		{"ce_threshold", `Command line is not complete. Try option "help"`, false, 255},
		{"limit -1", `Illegal "limit"`, false, 1},
		{"limit 4294967296", `Illegal "limit"`, false, 1},
		{"target 5parsecs", `Illegal "target"`, false, 1},
		{"interval -1ms", `Illegal "interval"`, false, 1},
		{"ce_threshold x", `Illegal "ce_threshold"`, false, 1},
		{"lim 10", `What is "lim"?`, true, 1},
		{"help", "", true, 1},
	} {
		_, err := parseCodel(strings.Fields(tc.args))
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

func TestPrintCodelOptions(t *testing.T) {
	u := func(v uint32) *uint32 { return &v }
	def := &attrs.CodelAttrs{Target: u(5000), Limit: u(1000), Interval: u(100000), ECN: u(0)}
	if got, want := printWith(tcfmt.Options{}, func(p *tcfmt.Printer) { printCodelOptions(p, def) }),
		"limit 1000p target 5ms interval 100ms "; got != want {
		t.Errorf("defaults: got %q, want %q", got, want)
	}
	all := &attrs.CodelAttrs{Target: u(3000), Limit: u(500), Interval: u(50000), ECN: u(1), CEThreshold: u(1000)}
	if got, want := printWith(tcfmt.Options{}, func(p *tcfmt.Printer) { printCodelOptions(p, all) }),
		"limit 500p target 3ms ce_threshold 1ms interval 50ms ecn "; got != want {
		t.Errorf("all: got %q, want %q", got, want)
	}
	if got, want := printWith(tcfmt.Options{JSON: true}, func(p *tcfmt.Printer) { printCodelOptions(p, all) }),
		`{"limit":500,"target":3000,"ce_threshold":1000,"interval":50000,"ecn":true}`+"\n"; got != want {
		t.Errorf("all, JSON: got %q, want %q", got, want)
	}
}

// codelXstatsBytes lays out struct tc_codel_xstats: maxpacket, count,
// lastcount, ldelay, drop_next, drop_overlimit, ecn_mark, dropping, ce_mark.
func codelXstatsBytes(words ...uint32) []byte {
	var b []byte
	for _, w := range words {
		b = binary.NativeEndian.AppendUint32(b, w)
	}
	return b
}

func TestPrintCodelXstats(t *testing.T) {
	neg := func(v int32) uint32 { return uint32(v) }
	for _, tc := range []struct {
		name       string
		payload    []byte
		text, json string
	}{
		{"idle", codelXstatsBytes(0, 0, 0, 0, 0, 0, 0, 0, 0),
			"  count 0 lastcount 0 ldelay 0us drop_next 0us\n  maxpacket 0 ecn_mark 0 drop_overlimit 0",
			`{"count":0,"lastcount":0,"ldelay":0,"drop_next":0,"maxpacket":0,"ecn_mark":0,"drop_overlimit":0}` + "\n"},
		{"dropping", codelXstatsBytes(1514, 5, 4, 12000, 2500, 2, 3, 1, 7),
			"  count 5 lastcount 4 ldelay 12ms dropping drop_next 2.5ms\n  maxpacket 1514 ecn_mark 3 drop_overlimit 2 ce_mark 7",
			`{"count":5,"lastcount":4,"ldelay":12000,"dropping":true,"drop_next":2500,"maxpacket":1514,"ecn_mark":3,"drop_overlimit":2,"ce_mark":7}` + "\n"},
		{"overdue", codelXstatsBytes(0, 1, 0, 0, neg(-1500), 0, 0, 1, 0),
			"  count 1 lastcount 0 ldelay 0us dropping drop_next -1.5ms\n  maxpacket 0 ecn_mark 0 drop_overlimit 0",
			`{"count":1,"lastcount":0,"ldelay":0,"dropping":true,"drop_next":-1500,"maxpacket":0,"ecn_mark":0,"drop_overlimit":0}` + "\n"},
		// tc zero-fills a short payload.
		{"short", codelXstatsBytes(1514, 2),
			"  count 2 lastcount 0 ldelay 0us drop_next 0us\n  maxpacket 1514 ecn_mark 0 drop_overlimit 0",
			`{"count":2,"lastcount":0,"ldelay":0,"drop_next":0,"maxpacket":1514,"ecn_mark":0,"drop_overlimit":0}` + "\n"},
	} {
		x := tckind.Xstats{App: attrs.DecodeStatsAppMsg("codel", tc.payload)}
		k := tckind.LookupQdisc("codel")
		if got := printWith(tcfmt.Options{}, func(p *tcfmt.Printer) { k.PrintXstats(p, x) }); got != tc.text {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.text)
		}
		if got := printWith(tcfmt.Options{JSON: true}, func(p *tcfmt.Printer) { k.PrintXstats(p, x) }); got != tc.json {
			t.Errorf("%s, JSON: got %q, want %q", tc.name, got, tc.json)
		}
	}
}

// TestCodelStatsTable checks that the registry's table reads the fields
// -s prints.
func TestCodelStatsTable(t *testing.T) {
	x := tckind.Xstats{Legacy: attrs.DecodeTCXstatsMsg("codel", codelXstatsBytes(1514, 5, 4, 12000, 2500, 2, 3, 1, 7))}
	s := codelStatsTable.Of(x)
	if s == nil {
		t.Fatal("no statistics")
	}
	want := map[string]uint64{"count": 5, "lastcount": 4, "ldelay": 12000, "dropping": 1, "drop_next": 2500,
		"maxpacket": 1514, "ecn_mark": 3, "drop_overlimit": 2, "ce_mark": 7}
	for _, f := range codelStatsTable.Fields {
		if v, ok := f.Get(s); !ok || v != want[f.Key] {
			t.Errorf("%s: got %d %v, want %d", f.Key, v, ok, want[f.Key])
		}
	}
	if codelStatsTable.Of(tckind.Xstats{}) != nil {
		t.Error("statistics without xstats")
	}
}
