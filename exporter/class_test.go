// SPDX-License-Identifier: Apache-2.0

package exporter

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/gotc/gotc/netlink"
	dto "github.com/prometheus/client_model/go"
)

// classKernel is eth0 with an htb tree: 1:1 under the root qdisc 1: (its
// parent "root", as htb dumps a top class), the
// subscribers 1:10 and 1:20 under it, an fq_codel leaf 10: under 1:10
// (whose flows the kernel dumps as classes); and wan0 with prio's bands.
func classKernel() *fakeKernel {
	h := netlink.MakeHandle
	flow := fakeQdisc(2, h(0x10, 1), h(0x10, 0), "fq_codel", 1, 1)
	return &fakeKernel{
		links: map[int32]string{2: "eth0", 3: "wan0"},
		msgs: []*netlink.Msg{
			fakeQdisc(2, h(1, 0), netlink.HandleRoot, "htb", 100, 10),
			fakeQdisc(2, h(0x10, 0), h(1, 0x10), "fq_codel", 50, 5),
			fakeQdisc(3, h(2, 0), netlink.HandleRoot, "prio", 70, 7),
		},
		classes: []*netlink.Msg{
			htbClass(2, h(1, 0x20), h(1, 1), 20),        // a child before its parent
			htbClass(2, h(1, 1), netlink.HandleRoot, 1), // as the kernel dumps a top class
			htbClass(2, h(1, 0x10), h(1, 1), 10),
			flow,
			fakeQdisc(3, h(2, 1), h(2, 0), "prio", 30, 3),
		},
	}
}

// series returns each series of family name by the value of label key.
func series(t *testing.T, mfs map[string]*dto.MetricFamily, name, key string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, m := range mfs[name].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == key {
				out[l.GetValue()] = m.GetCounter().GetValue() + m.GetGauge().GetValue()
			}
		}
	}
	return out
}

func TestClasses(t *testing.T) {
	k := classKernel()
	c := New(Options{Dial: func() (Source, error) { return k.conn(), nil }})
	defer c.Close()
	mfs := gather(t, c)
	got := series(t, mfs, "gotc_class_bytes_total", "class")
	want := map[string]float64{"1:1": 1000, "1:10": 10000, "1:20": 20000, "2:1": 30}
	if len(got) != len(want) {
		t.Errorf("classes exported: %v, want %v (no fq_codel flows)", got, want)
	}
	for id, v := range want {
		if got[id] != v {
			t.Errorf("class %s bytes %v, want %v", id, got[id], v)
		}
	}
	sub := map[string]string{"dev": "eth0", "class": "1:10", "kind": "htb", "parent": "1:1"}
	for name, want := range map[string]float64{
		"gotc_htb_lends_total":     11,
		"gotc_htb_borrows_total":   12,
		"gotc_htb_giants_total":    0,
		"gotc_htb_tokens_seconds":  -0.001,
		"gotc_htb_ctokens_seconds": 10 * 64e-9,
		"gotc_class_backlog_bytes": 4500,
	} {
		if got := value(t, mfs, name, sub); math.Abs(got-want) > 1e-15 {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if n := len(mfs["gotc_htb_tokens_seconds"].GetMetric()); n != 3 {
		t.Errorf("%d htb classes with tokens, want 3", n)
	}
	if got := value(t, mfs, "gotc_exporter_classes", nil); got != 4 {
		t.Errorf("gotc_exporter_classes = %v", got)
	}
	if got := value(t, mfs, "gotc_exporter_qdiscs", nil); got != 3 {
		t.Errorf("gotc_exporter_qdiscs = %v", got)
	}
}

func TestSelection(t *testing.T) {
	h := netlink.MakeHandle
	for _, tc := range []struct {
		name            string
		opts            Options
		qdiscs, classes []string
	}{
		{"include a subtree", Options{Include: []Match{{Under: h(1, 0x10)}}}, []string{"10:"}, []string{"1:10"}},
		{"include a device", Options{Include: []Match{{Dev: "wan0"}}}, []string{"2:"}, []string{"2:1"}},
		{"exclude a kind", Options{Exclude: []Match{{Kind: "htb"}}}, []string{"10:", "2:"}, []string{"2:1"}},
		{"exclude a handle", Options{Exclude: []Match{{Handle: h(1, 0x20)}, {Handle: h(0x10, 0)}}},
			[]string{"1:", "2:"}, []string{"1:1", "1:10", "2:1"}},
		{"aggregate a subtree", Options{Aggregate: []Match{{Dev: "eth0", Handle: h(1, 1)}}},
			[]string{"1:", "2:"}, []string{"1:1", "2:1"}},
		{"aggregate under", Options{Aggregate: []Match{{Under: h(1, 0)}}}, []string{"1:", "2:"}, []string{"2:1"}},
	} {
		k := classKernel()
		tc.opts.Dial = func() (Source, error) { return k.conn(), nil }
		mfs := gather(t, New(tc.opts))
		for fam, want := range map[string][]string{"gotc_qdisc_bytes_total": tc.qdiscs, "gotc_class_bytes_total": tc.classes} {
			key := "handle"
			if fam == "gotc_class_bytes_total" {
				key = "class"
			}
			got := series(t, mfs, fam, key)
			if len(got) != len(want) {
				t.Errorf("%s: %s %v, want %v", tc.name, fam, got, want)
				continue
			}
			for _, id := range want {
				if _, ok := got[id]; !ok {
					t.Errorf("%s: %s lacks %s: %v", tc.name, fam, id, got)
				}
			}
		}
	}
}

func TestNames(t *testing.T) {
	k := classKernel()
	c := New(Options{
		Dial:  func() (Source, error) { return k.conn(), nil },
		Names: map[NameKey]string{{"eth0", netlink.MakeHandle(1, 0x10)}: `alice "a"`, {"wan0", netlink.MakeHandle(1, 0x10)}: "not eth0"},
	})
	mfs := gather(t, c)
	got := series(t, mfs, "gotc_class_bytes_total", "name")
	if len(got) != 1 || got[`alice "a"`] != 10000 {
		t.Errorf("named series %v", got)
	}
	if v := value(t, mfs, "gotc_htb_borrows_total", map[string]string{"name": `alice "a"`}); v != 12 {
		t.Errorf("borrows of alice %v", v)
	}
}

// docs/exporter.md's table lists every metric the exporter can write.
func TestDocsListEveryMetric(t *testing.T) {
	doc, err := os.ReadFile("../docs/exporter.md")
	if err != nil {
		t.Fatal(err)
	}
	var defs []*metricDef
	for _, g := range []*genericDefs{qdiscDefs, classDefs} {
		defs = append(append(defs, g.stats[:]...), g.unknown)
	}
	for _, km := range kindDefs() {
		defs = append(append(defs, km.fields...), km.recFields...)
	}
	for _, d := range defs {
		if d != nil && !strings.Contains(string(doc), "| `"+d.name+"` |") {
			t.Errorf("docs/exporter.md does not list %s", d.name)
		}
	}
	for _, h := range healthDefs {
		if !strings.Contains(string(doc), "| `"+h.name+"` |") {
			t.Errorf("docs/exporter.md does not list %s", h.name)
		}
	}
}
