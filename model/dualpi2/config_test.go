// SPDX-License-Identifier: Apache-2.0

package dualpi2

import (
	"errors"
	"math"
	"testing"

	"github.com/gotc/gotc/attrs"
)

func u32(v uint32) *uint32 { return &v }
func u8(v uint8) *uint8    { return &v }

func mustNew(t testing.TB, cfg attrs.DualPI2Attrs, opts ...Option) *Qdisc {
	t.Helper()
	q, err := New(cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// TestDefaults checks the dump of a qdisc created without options against
// dualpi2_reset_default, and the derived internal values.
func TestDefaults(t *testing.T) {
	q := mustNew(t, attrs.DualPI2Attrs{})
	c := q.Config()
	check := func(name string, got, want uint64) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %d, want %d", name, got, want)
		}
	}
	check("limit", uint64(*c.Limit), 10000)
	check("memory_limit", uint64(*c.MemoryLimit), 30280000)
	check("target", uint64(*c.Target), 15000)
	check("tupdate", uint64(*c.Tupdate), 16000)
	check("alpha", uint64(*c.Alpha), 40)
	check("beta", uint64(*c.Beta), 818)
	check("step_thresh_us", uint64(*c.StepThreshUS), 1000)
	if c.StepThreshPkts != nil {
		t.Errorf("step_thresh_pkts present in a time-mode dump")
	}
	check("min_qlen_step", uint64(*c.MinQlenStep), 0)
	check("coupling", uint64(*c.Coupling), 2)
	check("drop_overload", uint64(*c.DropOverload), 1)
	check("drop_early", uint64(*c.DropEarly), 0)
	check("c_protection", uint64(*c.CProtection), 10)
	check("ecn_mask", uint64(*c.ECNMask), 1)
	check("split_gso", uint64(*c.SplitGSO), 1)
	check("internal alpha", uint64(q.p.alpha), 44)
	check("internal beta", uint64(q.p.beta), 879)

	st := q.Stats()
	if st.Xstats.Credit != -121120 {
		t.Errorf("credit = %d, want -121120 (1514*(10-90))", st.Xstats.Credit)
	}
	if st.Xstats.MemoryLimit != 30280000 || st.Xstats.Prob != 0 {
		t.Errorf("xstats at rest: %+v", st.Xstats)
	}
}

// TestAlphaBetaScaling checks dualpi2_scale_alpha_beta and the dump's
// inverse, including the lossy round trips 41→44→40 and 819→879→818.
func TestAlphaBetaScaling(t *testing.T) {
	for _, tc := range []struct{ in, internal, dumped uint32 }{
		{1, 1, 0},
		{41, 44, 40},
		{40, 42, 39}, // feeding a dump back in drifts further
		{819, 879, 818},
		{256, 274, 255},
		{alphaBetaMax, 2305843007, 2147483646},
	} {
		if got := ScaleAlphaBeta(tc.in); got != tc.internal {
			t.Errorf("scale(%d) = %d, want %d", tc.in, got, tc.internal)
		}
		if got := UnscaleAlphaBeta(tc.internal); got != tc.dumped {
			t.Errorf("unscale(%d) = %d, want %d", tc.internal, got, tc.dumped)
		}
		q := mustNew(t, attrs.DualPI2Attrs{Alpha: u32(tc.in), Beta: u32(tc.in)})
		if c := q.Config(); *c.Alpha != tc.dumped || *c.Beta != tc.dumped {
			t.Errorf("dump of alpha=beta=%d: %d/%d, want %d", tc.in, *c.Alpha, *c.Beta, tc.dumped)
		}
	}
}

// TestConfigSemantics checks dualpi2_change's attribute semantics and the
// netlink policy's refusals.
func TestConfigSemantics(t *testing.T) {
	// LIMIT recomputes memory_limit from psched_mtu.
	q := mustNew(t, attrs.DualPI2Attrs{Limit: u32(100)})
	if m := *q.Config().MemoryLimit; m != 100*2*1514 {
		t.Errorf("memory_limit after limit 100 = %d, want 302800", m)
	}
	q = mustNew(t, attrs.DualPI2Attrs{Limit: u32(100)}, WithMTU(9014))
	if m := *q.Config().MemoryLimit; m != 100*2*9014 {
		t.Errorf("memory_limit with mtu 9014 = %d", m)
	}
	// An explicit MEMORY_LIMIT wins whatever the order on the wire.
	q = mustNew(t, attrs.DualPI2Attrs{Limit: u32(100), MemoryLimit: u32(5000)})
	if m := *q.Config().MemoryLimit; m != 5000 {
		t.Errorf("memory_limit = %d, want 5000", m)
	}
	// Saturation at U32_MAX.
	q = mustNew(t, attrs.DualPI2Attrs{Limit: u32(math.MaxUint32)})
	if m := *q.Config().MemoryLimit; m != math.MaxUint32 {
		t.Errorf("saturated memory_limit = %d", m)
	}
	// tupdate and step_thresh saturate at U32_MAX ns; target is u64.
	q = mustNew(t, attrs.DualPI2Attrs{Tupdate: u32(5_000_000), StepThreshUS: u32(5_000_000), Target: u32(4_000_000_000)})
	c := q.Config()
	if *c.Tupdate != 4294967 || *c.StepThreshUS != 4294967 || *c.Target != 4_000_000_000 {
		t.Errorf("tupdate/step/target = %d/%d/%d", *c.Tupdate, *c.StepThreshUS, *c.Target)
	}
	// Step threshold in packets is dumped as such.
	q = mustNew(t, attrs.DualPI2Attrs{StepThreshPkts: u32(7)})
	c = q.Config()
	if c.StepThreshUS != nil || c.StepThreshPkts == nil || *c.StepThreshPkts != 7 {
		t.Errorf("step pkts dump: %v %v", c.StepThreshUS, c.StepThreshPkts)
	}
	// C_PROTECTION recomputes the credit and resets it.
	q = mustNew(t, attrs.DualPI2Attrs{CProtection: u8(60)})
	if cr := q.Stats().Xstats.Credit; cr != 1514*(60-40) {
		t.Errorf("credit with wc 60 = %d", cr)
	}
	em := attrs.DualPI2ECNMask(3)
	q = mustNew(t, attrs.DualPI2Attrs{ECNMask: &em})
	if *q.Config().ECNMask != 3 {
		t.Errorf("ecn_mask")
	}

	bad := []attrs.DualPI2Attrs{
		{Limit: u32(0)},
		{MemoryLimit: u32(0)},
		{Tupdate: u32(0)},
		{Alpha: u32(0)},
		{Beta: u32(1 << 31)},
		{Coupling: u8(0)},
		{CProtection: u8(101)},
		{StepThreshPkts: u32(1), StepThreshUS: u32(1)},
		{Unknown: []attrs.Attribute{{Type: 99}}},
	}
	for i, cfg := range bad {
		if _, err := New(cfg); !errors.Is(err, ErrInvalid) {
			t.Errorf("bad[%d]: err = %v, want ErrInvalid", i, err)
		}
	}
	zero := attrs.DualPI2ECNMask(0)
	if _, err := New(attrs.DualPI2Attrs{ECNMask: &zero}); !errors.Is(err, ErrInvalid) {
		t.Errorf("ecn_mask 0 accepted")
	}
}

// TestConfigRoundTrip checks that Config() fed back to New reproduces every
// attribute except the lossy gains.
func TestConfigRoundTrip(t *testing.T) {
	do := attrs.DualPI2DropOverload(0)
	de := attrs.DualPI2DropEarly(1)
	sg := attrs.DualPI2SplitGSO(0)
	in := attrs.DualPI2Attrs{Limit: u32(77), MemoryLimit: u32(123456), Target: u32(5000), Tupdate: u32(2500),
		StepThreshPkts: u32(9), MinQlenStep: u32(3), Coupling: u8(3), DropOverload: &do, DropEarly: &de,
		CProtection: u8(25), SplitGSO: &sg}
	a := mustNew(t, in).Config()
	b := mustNew(t, a).Config()
	a.Alpha, a.Beta, b.Alpha, b.Beta = nil, nil, nil, nil
	ja, jb := dumpString(a), dumpString(b)
	if ja != jb {
		t.Errorf("round trip:\n%s\n%s", ja, jb)
	}
}

func dumpString(a attrs.DualPI2Attrs) string {
	e := attrs.NewEncoder(nil)
	a.Encode(e)
	return string(e.Bytes())
}
