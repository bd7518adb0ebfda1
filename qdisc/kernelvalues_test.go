// SPDX-License-Identifier: Apache-2.0

package qdisc

import (
	"slices"
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tckind"
)

// The kernel's rounding, worked by hand from net/sched: fq_codel's 5 ms
// target is kept as 4882 units of 1.024 µs and dumped as 4999 µs; dualpi2's
// default alpha 40 (0.15625 Hz) is kept as 42 and dumped as 39.
func TestKernelRounding(t *testing.T) {
	if got := codelDumped(5000); got != 4999 {
		t.Errorf("codel 5000 µs dumps as %d, want 4999", got)
	}
	if got := dualpi2GainDumped(40); got != 39 {
		t.Errorf("dualpi2 gain 40 dumps as %d, want 39", got)
	}
	for _, us := range []uint32{0, 1, 999, 5000, 100000, 1 << 31} {
		d := codelDumped(us)
		if codelDumped(*tckind.Restoring("fq_codel", &attrs.FQCodelAttrs{Target: &d}).(*attrs.FQCodelAttrs).Target) != d {
			t.Errorf("codel %d µs: restoring its dump %d does not dump as it", us, d)
		}
	}
	for _, v := range []uint32{1, 39, 40, 41, 816, 1 << 23} {
		d := dualpi2GainDumped(v)
		r := *tckind.Restoring("dualpi2", &attrs.DualPI2Attrs{Alpha: &d}).(*attrs.DualPI2Attrs).Alpha
		if dualpi2GainDumped(r) != d {
			t.Errorf("gain %d: restoring its dump %d gives %d, which dumps as %d", v, d, r, dualpi2GainDumped(r))
		}
	}
	five := uint32(5000)
	if got := *tckind.Dumped("fq_codel", &attrs.FQCodelAttrs{Target: &five}).(*attrs.FQCodelAttrs).Target; got != 4999 || five != 5000 {
		t.Errorf("Dumped: target %d (request now %d), want 4999 (5000)", got, five)
	}
}

// TestSFQLimitCapsFlows: sfq_change caps the limit at depth × flows and
// the flows at the limit; a request without a limit keeps the default 127,
// uncapped, so a dump of 127 and 1024 flows is written without its limit.
func TestSFQLimitCapsFlows(t *testing.T) {
	for _, tt := range []struct {
		words        string
		limit, flows uint32
	}{
		{"limit 100 flows 128", 100, 100},
		{"limit 5000 flows 4 depth 10", 40, 4},
		{"flows 1024", sfqDefaultLimit, 1024},
	} {
		opts, err := sfqOptions(strings.Fields(tt.words), tckind.ParseEnv{})
		if err != nil {
			t.Fatalf("%q: %v", tt.words, err)
		}
		kept := tckind.Dumped("sfq", opts).(*attrs.TCSFQQoptV1)
		if kept.V0.Limit != tt.limit || kept.V0.Flows != tt.flows {
			t.Errorf("%q: kept limit %d flows %d, want %d and %d", tt.words, kept.V0.Limit, kept.V0.Flows, tt.limit, tt.flows)
		}
	}
	words, err := tckind.QdiscKeywords("sfq", &attrs.TCSFQQoptV1{V0: attrs.TCSFQQopt{Limit: sfqDefaultLimit, Flows: 1024, Quantum: 1514, Divisor: 1024}, Depth: 127})
	if err != nil || strings.Contains(strings.Join(words, " "), "limit") {
		t.Errorf("keywords of the default limit with 1024 flows: %q, %v", words, err)
	}
}

// TestJiffiesAndClampsKept: the kinds that keep a time in jiffies dump it
// whole ticks of the running kernel (HZ 250 on the test bed: 15 ms is 4
// ticks, 16 ms), pie's target in psched ticks of 64 ns (the test bed
// dumps "target 20ms" as 20000 µs), and fq, fq_pie
// and hhf raise a small quantum to 256 bytes (fq's also capped at 1 MiB).
func TestJiffiesAndClampsKept(t *testing.T) {
	u := func(v uint32) *uint32 { return &v }
	tick := uint32(1_000_000 / tcword.KernelHZ())
	up := func(us uint32) uint32 { return (us + tick - 1) / tick * tick } // HZ dividing 10^6
	pie := tckind.Dumped("pie", &attrs.PIEAttrs{Target: u(20000), Tupdate: u(15000)}).(*attrs.PIEAttrs)
	if *pie.Target != 20000 || *pie.Tupdate != up(15000) {
		t.Errorf("pie target 20000 tupdate 15000 dumps as %d and %d, want 20000 and %d", *pie.Target, *pie.Tupdate, up(15000))
	}
	// 4294967 ms: 4294967000000 ns, which the u32 cuts to 4294671296.
	if got := pieTargetDumped(4_294_967_000); got != 4_294_671 {
		t.Errorf("pie target 4294967 ms dumps as %d µs, want 4294671 (ns wrapped in a u32)", got)
	}
	back := tckind.Restoring("pie", pie).(*attrs.PIEAttrs)
	if again := tckind.Dumped("pie", back).(*attrs.PIEAttrs); *again.Target != *pie.Target || *again.Tupdate != *pie.Tupdate {
		t.Errorf("pie: restoring %d/%d gives a request that dumps as %d/%d", *pie.Target, *pie.Tupdate, *again.Target, *again.Tupdate)
	}
	fqPIE := tckind.Dumped("fq_pie", &attrs.FQPIEAttrs{Tupdate: u(1), Quantum: u(100)}).(*attrs.FQPIEAttrs)
	if *fqPIE.Tupdate != tick || *fqPIE.Quantum != 256 {
		t.Errorf("fq_pie tupdate 1 quantum 100 dumps as %d and %d, want %d and 256", *fqPIE.Tupdate, *fqPIE.Quantum, tick)
	}
	hhf := tckind.Dumped("hhf", &attrs.HHFAttrs{Quantum: u(1), ResetTimeout: u(41000), EvictTimeout: u(999)}).(*attrs.HHFAttrs)
	if *hhf.Quantum != 256 || *hhf.ResetTimeout != up(41000) || *hhf.EvictTimeout != up(999) {
		t.Errorf("hhf dumps quantum %d reset %d evict %d, want 256, %d, %d", *hhf.Quantum, *hhf.ResetTimeout, *hhf.EvictTimeout, up(41000), up(999))
	}
	for _, tt := range []struct{ quantum, kept uint32 }{{100, 256}, {3028, 3028}, {2 << 20, 1 << 20}} {
		fq := tckind.Dumped("fq", &attrs.FQAttrs{Quantum: u(tt.quantum), FlowDefaultRate: u(1000), FlowRefillDelay: u(39001)}).(*attrs.FQAttrs)
		if *fq.Quantum != tt.kept || fq.FlowDefaultRate != nil || *fq.FlowRefillDelay != up(39001) {
			t.Errorf("fq quantum %d: dumps quantum %d defrate %v refill %d, want %d, none, %d", tt.quantum, *fq.Quantum, fq.FlowDefaultRate, *fq.FlowRefillDelay, tt.kept, up(39001))
		}
	}
}

// TestETSKept: ets clamps quanta to 256 .. 1 MiB, sends the rest of the
// priomap to the last band, and dumps no strict count of 0.
func TestETSKept(t *testing.T) {
	opts, err := parseETS(strings.Fields("bands 4 strict 0 quanta 100 3000 2000000 priomap 3 2"))
	if err != nil {
		t.Fatal(err)
	}
	d := tckind.Dumped("ets", opts).(*attrs.ETSAttrs)
	if d.Nstrict != nil {
		t.Errorf("strict 0 dumped as %d, want none", *d.Nstrict)
	}
	if got := d.Quanta.QuantaBand; !slices.Equal(got, []uint32{256, 3000, 1 << 20}) {
		t.Errorf("quanta dumped as %v, want [256 3000 1048576]", got)
	}
	want := []uint8{3, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3}
	if got := d.Priomap.PriomapBand; !slices.Equal(got, want) {
		t.Errorf("priomap dumped as %v, want %v", got, want)
	}
	if q := opts.Quanta.QuantaBand[0]; q != 100 {
		t.Errorf("Dumped changed the request's quantum to %d", q)
	}
}
