package qdisc

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/tcfmt"
)

// unregister undoes a test's registration.
func unregister(name string) { kinds.remove(name) }

func TestRegisterRefusesADuplicate(t *testing.T) {
	const name = "gotc_test_kind"
	defer unregister(name)
	if err := Register(&Kind{Name: name}); err != nil {
		t.Fatal(err)
	}
	first := Lookup(name)
	err := Register(&Kind{Name: name, Usage: "second"})
	if err == nil {
		t.Fatal("a second kind of the same name was registered")
	}
	// Both registrants are this file, at two lines.
	if msg := err.Error(); !strings.Contains(msg, `"gotc_test_kind"`) || strings.Count(msg, "qdisc/register_test.go:") != 2 {
		t.Errorf("error %q does not name the kind and both registrants", msg)
	}
	if Lookup(name) != first {
		t.Error("the duplicate replaced the first kind")
	}
	if err := Register(&Kind{}); err == nil {
		t.Error("a kind without a name was registered")
	}
}

// A kind file that registers a name another file has (an option-less name
// left in qfq.go, say) fails at init, naming both places.
func TestMustRegisterPanicsOnADuplicate(t *testing.T) {
	const name = "test-duplicate"
	mustRegister(&Kind{Name: name})
	defer unregister(name)
	defer func() {
		r := recover()
		err, ok := r.(error)
		if !ok {
			t.Fatalf("recovered %v, want an error", r)
		}
		if msg := err.Error(); !strings.Contains(msg, `kind "test-duplicate" registered twice: by qdisc/register_test.go:`) ||
			!strings.Contains(msg, "and by qdisc/register_test.go:") {
			t.Errorf("panic %q", msg)
		}
	}()
	mustRegister(&Kind{Name: name})
}

func TestRegisterFilterRefusesADuplicate(t *testing.T) {
	first := LookupFilter("matchall")
	err := RegisterFilter(&FilterKind{Name: "matchall"})
	if err == nil || !strings.Contains(err.Error(), `filter kind "matchall" registered twice: by qdisc/matchall.go:`) {
		t.Errorf("err %v", err)
	}
	if LookupFilter("matchall") != first {
		t.Error("the duplicate replaced matchall")
	}
	defer func() {
		if recover() == nil {
			t.Error("mustRegisterFilter took a duplicate")
		}
	}()
	mustRegisterFilter(&FilterKind{Name: "matchall"})
}

func TestRegisterChecksTheStatsTable(t *testing.T) {
	const name = "gotc_test_stats"
	defer unregister(name)
	get := func(any) (uint64, bool) { return 0, true }
	bad := &StatsTable{Of: func(Xstats) any { return nil }, Fields: []Stat{
		{Key: "a", Get: get}, {Key: "a", Get: get},
	}}
	if err := Register(&Kind{Name: name, Stats: bad}); err == nil || !strings.Contains(err.Error(), `"a" listed twice`) {
		t.Errorf("duplicate key: %v", err)
	}
	bad.Fields = []Stat{{Key: "a", Get: get, Metric: "gotc_test_a", Help: "A.", Counter: true}}
	if err := Register(&Kind{Name: name, Stats: bad}); err == nil {
		t.Error("a counter whose metric does not end in _total was registered")
	}
}

func TestKindsSorted(t *testing.T) {
	var names []string
	for _, k := range Kinds() {
		names = append(names, k.Name)
	}
	if !sort.StringsAreSorted(names) || !slices.Contains(names, "cake") || !slices.Contains(names, "dualpi2") {
		t.Errorf("Kinds() = %s", strings.Join(names, " "))
	}
	var filters []string
	for _, k := range FilterKinds() {
		filters = append(filters, k.Name)
	}
	if !sort.StringsAreSorted(filters) || !slices.Contains(filters, "matchall") || !slices.Contains(filters, "u32") {
		t.Errorf("FilterKinds() = %v", filters)
	}
}

// printedJSON prints a kind's statistics as tc -s -j does and decodes them.
func printedJSON(t *testing.T, k *Kind, x Xstats) map[string]any {
	t.Helper()
	out := render(tcfmt.Options{JSON: true}, func(p *tcfmt.Printer) { k.PrintXstats(p, x) })
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
	k := Lookup("dualpi2")
	x := Xstats{App: pi2}
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
		if f.Unit == UnitProbability {
			want = f.Value(raw)
		}
		if v, present := got[f.Key].(float64); !ok || !present || math.Abs(v-want) > 1e-6 {
			t.Errorf("%s: table %v (%v), printed %v", f.Key, want, ok, got[f.Key])
		}
	}
	if k.Stats.Of(Xstats{Legacy: pi2}) != s {
		t.Error("Of does not fall back to TCA_XSTATS")
	}
	if k.Stats.Of(Xstats{App: &attrs.CakeStatsAttrs{}}) != nil {
		t.Error("Of took CAKE's statistics for DualPI2's")
	}

	u := func(v uint32) *uint32 { return &v }
	cs := cakeStats(cakeTin(1, 2, 3, 4, 5, 6), cakeTin(7, 8, 9, 10, 11, 12))
	cs.MemoryUsed, cs.MemoryLimit, cs.MinNetlen, cs.MaxNetlen = u(100), u(200), u(60), u(1500)
	cs.TinStats[1].BacklogPackets = u(3)
	k = Lookup("cake")
	x = Xstats{Legacy: cs}
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
	k = Lookup("fq_codel")
	x = Xstats{App: fx}
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
	if k.Stats.Of(Xstats{App: fx}) != nil {
		t.Error("fq_codel: a class's statistics taken for the qdisc's")
	}
}
