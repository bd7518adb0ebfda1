// SPDX-License-Identifier: Apache-2.0

package qdisc

import (
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
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
		opts, err := ParseSFQ(strings.Fields(tt.words), tckind.ParseEnv{})
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
