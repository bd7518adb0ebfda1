// SPDX-License-Identifier: Apache-2.0

package qdisc

import (
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
