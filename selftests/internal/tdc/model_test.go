// SPDX-License-Identifier: Apache-2.0

package tdc

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestModelCaseBlocks(t *testing.T) {
	mk := func(extra string) *Case {
		var c Case
		if err := json.Unmarshal([]byte(`{"id": "x", "expExitCode": "0"`+extra+`}`), &c); err != nil {
			t.Fatal(err)
		}
		return &c
	}
	if _, _, ok, _ := modelCase(mk("")); ok {
		t.Error("a case without traffic is a model case")
	}
	for _, bad := range []string{
		`, "traffic": {"dev": "v0"}`,
		`, "modelCompare": {"exact": ["packets"]}`,
		`, "traffic": {}, "modelCompare": {}`,
		`, "traffic": {}, "modelCompare": {"exact": ["tins[x]"]}`,
		`, "traffic": {}, "modelCompare": {"exact": ["packets"], "minMarginUs": 50}`,
		`, "traffic": {}, "modelCompare": {"exact": ["packets"], "typo": 1}`,
		`, "traffic": {}, "modelCompare": {"exact": ["packets"], "parent": "root"}`,
		`, "traffic": {}, "modelCompare": {"exact": ["packets"], "parent": "1:x"}`,
		`, "traffic": {}, "modelCompare": {"exact": ["packets"], "rate": "fast"}`,
		`, "traffic": {}, "modelCompare": {"exact": ["packets"], "burst": "2k"}`,
	} {
		if _, _, ok, err := modelCase(mk(bad)); !ok || err == nil {
			t.Errorf("%s: ok %v err %v", bad, ok, err)
		}
	}
	_, mc, ok, err := modelCase(mk(`, "traffic": {}, "modelCompare": {"exact": ["tins[*].sent_packets"], "bounded": ["prob"]}`))
	if !ok || err != nil || mc.MinMarginUS != DefaultMinMarginUS || mc.TrafficTimeoutMS != 1000 {
		t.Errorf("%+v %v %v", mc, ok, err)
	}
	// A parent is compared as the dump prints it.
	_, mc, ok, err = modelCase(mk(`, "traffic": {}, "modelCompare": {"exact": ["packets"], "parent": "0001:01", "rate": "1mbit", "burst": "2k"}`))
	if !ok || err != nil || mc.Parent != "1:1" {
		t.Errorf("%+v %v %v", mc, ok, err)
	}
}

func TestQdiscJSON(t *testing.T) {
	dump := `[{"kind":"htb","handle":"1:","root":true,"packets":3},{"kind":"fq_codel","handle":"10:","parent":"1:1","packets":2}]`
	for parent, want := range map[string]string{"": "htb", "1:1": "fq_codel"} {
		q, err := qdiscJSON(dump, parent)
		if err != nil || q["kind"] != want {
			t.Errorf("parent %q: %v %v", parent, q, err)
		}
	}
	if _, err := qdiscJSON(dump, "1:2"); err == nil {
		t.Error("parent 1:2 found")
	}
}

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	q, err := qdiscJSON(s, "")
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func TestCompareDumps(t *testing.T) {
	kernel := decode(t, `[{"kind":"cake","root":false},{"kind":"cake","root":true,"packets":10,"bytes":18446744073709551615,
		"tins":[{"sent_packets":4,"peak_delay_us":900},{"sent_packets":6,"peak_delay_us":5000}]}]`)
	model := decode(t, `[{"kind":"cake","root":true,"packets":10,"bytes":18446744073709551615,
		"tins":[{"sent_packets":4,"peak_delay_us":0},{"sent_packets":5,"peak_delay_us":0}]}]`)
	late := decode(t, `[{"kind":"cake","root":true,"packets":11,"bytes":18446744073709551615,
		"tins":[{"sent_packets":4,"peak_delay_us":100},{"sent_packets":5,"peak_delay_us":0}]}]`)
	mc := &ModelCompare{Exact: []string{"bytes", "packets", "tins[*].sent_packets"}, Bounded: []string{"tins[*].peak_delay_us"}}
	report, fails := compareDumps(kernel, [2]map[string]any{model, late}, mc, 1000)
	want := []string{
		"undecidable: packets is 10 or 11",
		"tins[1].sent_packets: kernel 6, model 5",
		"tins[1].peak_delay_us: kernel 5000 outside the model's [-1000, 1000]",
	}
	if len(fails) != len(want) {
		t.Fatalf("failures %q", fails)
	}
	for i, w := range want {
		if !strings.HasPrefix(fails[i], w) {
			t.Errorf("failure %d: %q, want %q...", i, fails[i], w)
		}
	}
	// tins[0]'s 900 µs is within the late prediction's 100 plus 1000.
	if !strings.Contains(report, "tins[0].peak_delay_us") || !strings.Contains(report, "bytes") {
		t.Errorf("report:\n%s", report)
	}
	if _, fails := compareDumps(kernel, [2]map[string]any{model, model}, &ModelCompare{Exact: []string{"nosuch"}}, 0); len(fails) != 1 {
		t.Errorf("missing field: %q", fails)
	}
}

func TestParseMargin(t *testing.T) {
	for in, want := range map[string]int64{
		"model margins: shaper none aqm 5000000ns min 5000000ns sends 64 max_send_dur 0ns\n":         5000000,
		"model margins: step none tick none clamp none order none min none sends 1 max_send_dur 5ns": math.MaxInt64,
	} {
		if got, err := parseMargin(in); err != nil || got != want {
			t.Errorf("%q: %d %v", in, got, err)
		}
	}
	if _, err := parseMargin("nothing"); err == nil {
		t.Error("no margins line accepted")
	}
}

// TestStalled: a kernel whose qdisc recorded a wait longer than the
// model's by more than the timing margin was stalled; within the margin,
// or without the field, it was not.
func TestStalled(t *testing.T) {
	doc := func(delays ...int) map[string]any {
		var tins []any
		for _, d := range delays {
			tins = append(tins, map[string]any{"peak_delay_us": json.Number(strconv.Itoa(d))})
		}
		return map[string]any{"tins": tins}
	}
	preds := [2]map[string]any{doc(10, 300), doc(12, 350)}
	for _, c := range []struct {
		name   string
		kernel map[string]any
		path   string
		late   int64
		stall  bool
	}{
		{"a dequeue 120 ms late", doc(120000, 40), "tins[*].peak_delay_us", 120000 - 350, true},
		{"within the margin", doc(4000, 40), "tins[*].peak_delay_us", 4000 - 350, false},
		{"no field named", doc(120000, 40), "", 0, false},
		{"a field the dump lacks", doc(120000, 40), "tins[*].avg_delay_us", 0, false},
	} {
		late, stall := stalled(c.kernel, preds, c.path, 5000*1000)
		if late != c.late || stall != c.stall {
			t.Errorf("%s: stalled = %d µs, %v; want %d, %v", c.name, late, stall, c.late, c.stall)
		}
	}
}
