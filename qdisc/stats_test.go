// SPDX-License-Identifier: Apache-2.0

package qdisc

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/kindtest"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// printedJSON prints a kind's statistics as tc -s -j does and decodes them.
func printedJSON(t *testing.T, k *tckind.Qdisc, x tckind.Xstats) map[string]any {
	t.Helper()
	out := kindtest.Render(tcfmt.Options{JSON: true}, func(p *tcfmt.Printer) { k.PrintXstats(p, x) })
	var got []map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got) != 1 {
		t.Fatalf("%s: %v", out, err)
	}
	return got[0]
}

// The stats tables are what watch and the exporter read: their keys and
// values must be those tc's -s -j prints (which the printers are checked
// against in the goldens).
func TestStatsTablesMatchPrintedJSON(t *testing.T) {
	pi2 := &attrs.TCDualPI2Xstats{Prob: math.MaxUint32 / 4, DelayC: 2, DelayL: 3, PacketsInC: 4, PacketsInL: 5,
		Maxq: 6, ECNMark: 7, StepMarks: 8, Credit: -9, MemoryUsed: 10, MaxMemoryUsed: 11, MemoryLimit: 12}
	k := tckind.LookupQdisc("dualpi2")
	x := tckind.Xstats{App: pi2}
	got := printedJSON(t, k, x)
	s := k.Stats.Of(x)
	if s == nil {
		t.Fatal("Of found no statistics")
	}
	if len(got) != len(k.Stats.Fields) {
		t.Errorf("tc prints %d members, the table has %d", len(got), len(k.Stats.Fields))
	}
	for i := range k.Stats.Fields {
		f := &k.Stats.Fields[i]
		raw, ok := f.Get(s)
		want := float64(int64(raw))
		if f.Unit == tckind.UnitProbability {
			want = f.Value(raw)
		}
		if v, present := got[f.Key].(float64); !ok || !present || math.Abs(v-want) > 1e-6 {
			t.Errorf("%s: table %v (%v), printed %v", f.Key, want, ok, got[f.Key])
		}
	}
	if k.Stats.Of(tckind.Xstats{Legacy: pi2}) != s {
		t.Error("Of does not fall back to TCA_XSTATS")
	}
	if k.Stats.Of(tckind.Xstats{App: &attrs.CakeStatsAttrs{}}) != nil {
		t.Error("Of took CAKE's statistics for DualPI2's")
	}

	u := func(v uint32) *uint32 { return &v }
	cs := cakeStats(cakeTin(1, 2, 3, 4, 5, 6), cakeTin(7, 8, 9, 10, 11, 12))
	cs.MemoryUsed, cs.MemoryLimit, cs.MinNetlen, cs.MaxNetlen = u(100), u(200), u(60), u(1500)
	cs.TinStats[1].BacklogPackets = u(3)
	k = tckind.LookupQdisc("cake")
	x = tckind.Xstats{Legacy: cs}
	got = printedJSON(t, k, x)
	s = k.Stats.Of(x)
	for i := range k.Stats.Fields {
		f := &k.Stats.Fields[i]
		raw, ok := f.Get(s)
		v, present := got[f.Key].(float64)
		if ok != present || v != float64(raw) {
			t.Errorf("%s: table %d (%v), printed %v", f.Key, raw, ok, got[f.Key])
		}
	}
	r := k.Stats.Records
	tins, _ := got[r.Key].([]any)
	if n := r.Len(s); n != 2 || len(tins) != n {
		t.Fatalf("%d tins printed, Len %d", len(tins), n)
	}
	for i := range tins {
		printed := tins[i].(map[string]any)
		rec := r.Record(s, i)
		for j := range r.Fields {
			f := &r.Fields[j]
			raw, ok := f.Get(rec)
			v, present := printed[f.Key].(float64)
			if f.Text == "" {
				ok = false // not tc's: not printed
			}
			if ok != present || (ok && v != float64(raw)) {
				t.Errorf("tin %d %s: table %d (%v), printed %v", i, f.Key, raw, ok, printed[f.Key])
			}
		}
	}
	if rows := r.TextRows(); len(rows) != 20 || rows[0].Key != "threshold_rate" || rows[19].Key != "flow_quantum" {
		t.Errorf("%d text rows", len(rows))
	}

	// fq_codel's qdisc statistics, every one non-zero (tc leaves some out
	// when zero): the xstats' type 0 and the union's first nine u32s.
	fx := &attrs.TCFQCodelXstats{Type: fqCodelXstatsQdisc}
	for i := 0; i < 9; i++ {
		binary.NativeEndian.PutUint32(fx.Union[4*i:], uint32(100+i))
	}
	k = tckind.LookupQdisc("fq_codel")
	x = tckind.Xstats{App: fx}
	got = printedJSON(t, k, x)
	s = k.Stats.Of(x)
	if s == nil || len(got) != len(k.Stats.Fields) {
		t.Fatalf("fq_codel: tc prints %d members, the table has %d (%v)", len(got), len(k.Stats.Fields), s)
	}
	for i := range k.Stats.Fields {
		f := &k.Stats.Fields[i]
		raw, ok := f.Get(s)
		if v, present := got[f.Key].(float64); !ok || !present || v != float64(raw) {
			t.Errorf("fq_codel %s: table %d (%v), printed %v", f.Key, raw, ok, got[f.Key])
		}
	}
	fx.Type = fqCodelXstatsClass
	if k.Stats.Of(tckind.Xstats{App: fx}) != nil {
		t.Error("fq_codel: a class's statistics taken for the qdisc's")
	}
}

// The tables of the kinds whose statistics are one record of fields, each
// present and non-zero (tc leaves hfsc's work and rtwork out when zero):
// every field is what tc -s -j prints, and tc prints no other.
func TestFlatStatsTablesMatchPrintedJSON(t *testing.T) {
	u64 := func(v uint64) *uint64 { return &v }
	for _, tt := range []struct {
		kind string
		x    tckind.Xstats
	}{
		{"hfsc", tckind.Xstats{App: &attrs.TCHFSCStats{Work: 1 << 40, Rtwork: 5, Period: 7, Level: 2}}},
		{"hfsc", tckind.Xstats{Legacy: &attrs.TCHFSCStats{Work: 1, Rtwork: 1 << 33, Period: 1, Level: 1}}},
		{"sfq", tckind.Xstats{App: &attrs.TCSFQXstats{Allot: -1514}}},
		{"sfq", tckind.Xstats{Legacy: &attrs.TCSFQXstats{Allot: 3028}}},
		{"taprio", tckind.Xstats{App: &attrs.TAPrioOffloadStatsAttrs{WindowDrops: u64(1 << 35), TxOverruns: u64(9)}}},
	} {
		k := tckind.LookupQdisc(tt.kind)
		got := printedJSON(t, k, tt.x)
		s := k.Stats.Of(tt.x)
		if s == nil {
			t.Errorf("%s: Of found no statistics", tt.kind)
			continue
		}
		if len(got) != len(k.Stats.Fields) {
			t.Errorf("%s: tc prints %d members, the table has %d", tt.kind, len(got), len(k.Stats.Fields))
		}
		for i := range k.Stats.Fields {
			f := &k.Stats.Fields[i]
			raw, ok := f.Get(s)
			want := f.Value(raw)
			if v, present := got[f.Key].(float64); !ok || !present || v != want {
				t.Errorf("%s %s: table %v (%v), printed %v", tt.kind, f.Key, want, ok, got[f.Key])
			}
		}
	}
	// taprio's statistics are an offloading device's, each present only
	// when it reports it.
	k := tckind.LookupQdisc("taprio")
	s := k.Stats.Of(tckind.Xstats{App: &attrs.TAPrioOffloadStatsAttrs{TxOverruns: u64(3)}})
	if _, ok := k.Stats.Fields[0].Get(s); ok {
		t.Error("taprio: window_drops present without the attribute")
	}
	if k.Stats.Of(tckind.Xstats{App: &attrs.TCHFSCStats{}}) != nil || tckind.LookupQdisc("hfsc").Stats.Of(tckind.Xstats{App: &attrs.TCSFQXstats{}}) != nil {
		t.Error("a table took another kind's statistics")
	}
}

// htb's and drr's tables read a class's statistics: tc's JSON keys, and
// htb's tokens (psched ticks of 64 ns, signed) as seconds.
func TestClassStatsTables(t *testing.T) {
	htb := tckind.LookupQdisc("htb")
	x := tckind.Xstats{App: &attrs.TCHTBXstats{Lends: 3, Borrows: 4, Giants: 5, Tokens: -15625, Ctokens: 31250}}
	out := kindtest.Render(tcfmt.Options{JSON: true}, func(p *tcfmt.Printer) { htb.PrintClassXstats(p, x) })
	var printed []map[string]any
	if err := json.Unmarshal([]byte(out), &printed); err != nil || len(printed) != 1 {
		t.Fatalf("%s: %v", out, err)
	}
	s := htb.Stats.Of(x)
	want := map[string]float64{"lended": 3, "borrowed": 4, "giants": 5, "tokens": -0.001, "ctokens": 0.002}
	for i := range htb.Stats.Fields {
		f := &htb.Stats.Fields[i]
		v, ok := f.Get(s)
		if !ok || f.Value(v) != want[f.Key] {
			t.Errorf("htb %s = %v (%v), want %v", f.Key, f.Value(v), ok, want[f.Key])
		}
		if printed[0][f.Key] == nil {
			t.Errorf("htb %s: tc prints no such key", f.Key)
		}
	}
	if htb.Stats.Of(tckind.Xstats{App: attrs.StatsAppMsgRaw{1, 2}}) != nil {
		t.Error("htb: a payload too short for the struct read as statistics")
	}

	drr := tckind.LookupQdisc("drr")
	d := drr.Stats.Of(tckind.Xstats{Legacy: &attrs.TCDRRStats{Deficit: 1514}})
	if v, ok := drr.Stats.Fields[0].Get(d); !ok || v != 1514 {
		t.Errorf("drr deficit = %d, %v; want 1514", v, ok)
	}
}
