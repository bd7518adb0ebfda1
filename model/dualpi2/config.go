// SPDX-License-Identifier: Apache-2.0

package dualpi2

import (
	"errors"
	"fmt"
	"math"

	"github.com/gotc/gotc/attrs"
)

// Constants of the kernel's integer arithmetic (sch_dualpi2.c).
const (
	// MaxProb is 100% for prob (MAX_PROB = U32_MAX).
	MaxProb = math.MaxUint32

	// Netlink alpha/beta are Hz*256; internally they are in units that make
	// delta/64 a prob increment: scale = a*MaxProb >> (8-6) / 1e9.
	alphaBetaScaling     = 8 - 6
	alphaBetaGranularity = 6
	alphaBetaMax         = 1<<31 - 1

	// maxWC: the weights are percentages, wc + wl = 100.
	maxWC = 100

	// DefaultMTU is psched_mtu() of an Ethernet device with MTU 1500
	// (dev->mtu + dev->hard_header_len).
	DefaultMTU = 1514

	// DefaultHandle is the qdisc handle 1: (major in the upper 16 bits),
	// used to classify skb->priority when no WithHandle option is given.
	DefaultHandle = 0x00010000
)

// ScaleAlphaBeta converts a netlink alpha/beta (Hz*256) to the kernel's
// internal gain (dualpi2_scale_alpha_beta): floor(floor(a*(2^32-1)/4)/1e9).
func ScaleAlphaBeta(a uint32) uint32 {
	return uint32((uint64(a) * MaxProb >> alphaBetaScaling) / 1e9)
}

// UnscaleAlphaBeta converts an internal gain back to what a dump shows
// (dualpi2_unscale_alpha_beta): floor(v*1e9*4/(2^32-1)). The round trip loses
// precision: 41 → 44 → 40, 819 → 879 → 818.
func UnscaleAlphaBeta(v uint32) uint32 {
	return uint32((uint64(v) * 1e9 << alphaBetaScaling) / MaxProb)
}

// usToNs is convert_us_to_nsec: µs to ns saturating at U32_MAX.
func usToNs(us uint32) uint32 {
	ns := uint64(us) * 1000
	if ns > math.MaxUint32 {
		return math.MaxUint32
	}
	return uint32(ns)
}

// nsToUs is convert_ns_to_usec: ns to µs saturating at U32_MAX.
func nsToUs(ns uint64) uint32 {
	us := ns / 1000
	if us > math.MaxUint32 {
		return math.MaxUint32
	}
	return uint32(us)
}

// memoryLimitFor is get_memory_limit: limit*2*mtu saturating at U32_MAX.
func memoryLimitFor(limit, mtu uint32) uint32 {
	m := uint64(limit) * uint64(2*mtu)
	if m > math.MaxUint32 {
		return math.MaxUint32
	}
	return uint32(m)
}

// params is the configuration part of dualpi2_sched_data, in kernel units.
type params struct {
	limit         uint32
	memoryLimit   uint32
	target        uint64 // ns
	tupdate       uint32 // ns
	alpha, beta   uint32 // internal units
	stepThresh    uint32 // ns or packets
	stepInPackets bool
	minQlenStep   uint32
	coupling      uint8
	ecnMask       uint8
	dropEarly     bool
	dropOverload  bool
	splitGSO      bool
	wc, wl        uint8
	creditInit    int32
}

// defaults is dualpi2_reset_default for a device whose psched_mtu is mtu.
func defaults(mtu uint32) params {
	p := params{
		limit:        10000,
		target:       15e6,
		tupdate:      16e6,
		alpha:        ScaleAlphaBeta(41),
		beta:         ScaleAlphaBeta(819),
		stepThresh:   1e6,
		ecnMask:      1, // TC_DUALPI2_ECN_MASK_L4S_ECT: ECT(1) and CE
		coupling:     2,
		dropOverload: true,
		splitGSO:     true,
	}
	p.memoryLimit = memoryLimitFor(p.limit, mtu)
	p.setCProtection(10, mtu)
	return p
}

// setCProtection is dualpi2_calculate_c_protection without the credit reset,
// which the caller does (the kernel resets the credit in the same call).
func (p *params) setCProtection(wc uint8, mtu uint32) {
	p.wc = wc
	p.wl = maxWC - wc
	p.creditInit = int32(mtu) * (int32(p.wc) - int32(p.wl))
}

// ErrInvalid wraps every configuration the kernel would refuse with EINVAL
// (netlink policy or dualpi2_change checks).
var ErrInvalid = errors.New("dualpi2: invalid configuration")

func invalid(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, a...)...)
}

// validate applies dualpi2_policy and the check for both step thresholds.
func validate(c *attrs.DualPI2Attrs) error {
	if len(c.Unknown) > 0 {
		// nla_parse_nested is strict: unknown types or wrong sizes fail.
		return invalid("%d unknown or malformed attributes", len(c.Unknown))
	}
	if c.Limit != nil && *c.Limit < 1 {
		return invalid("limit must be >= 1")
	}
	if c.MemoryLimit != nil && *c.MemoryLimit < 1 {
		return invalid("memory_limit must be >= 1")
	}
	if c.Tupdate != nil && *c.Tupdate < 1 {
		return invalid("tupdate must be >= 1")
	}
	if c.Alpha != nil && (*c.Alpha < 1 || *c.Alpha > alphaBetaMax) {
		return invalid("alpha %d out of [1, %d]", *c.Alpha, alphaBetaMax)
	}
	if c.Beta != nil && (*c.Beta < 1 || *c.Beta > alphaBetaMax) {
		return invalid("beta %d out of [1, %d]", *c.Beta, alphaBetaMax)
	}
	if c.Coupling != nil && *c.Coupling < 1 {
		return invalid("coupling must be >= 1")
	}
	if c.DropOverload != nil && *c.DropOverload > 1 {
		return invalid("drop_overload %d > 1", *c.DropOverload)
	}
	if c.DropEarly != nil && *c.DropEarly > 1 {
		return invalid("drop_early %d > 1", *c.DropEarly)
	}
	if c.CProtection != nil && *c.CProtection > maxWC {
		return invalid("c_protection %d > %d", *c.CProtection, maxWC)
	}
	if c.ECNMask != nil && (*c.ECNMask < 1 || *c.ECNMask > 3) {
		return invalid("ecn_mask %d out of [1, 3]", *c.ECNMask)
	}
	if c.SplitGSO != nil && *c.SplitGSO > 1 {
		return invalid("split_gso %d > 1", *c.SplitGSO)
	}
	if c.StepThreshPkts != nil && c.StepThreshUS != nil {
		return invalid("multiple step thresh attributes")
	}
	return nil
}

// apply is the attribute part of dualpi2_change, in the kernel's order: LIMIT
// recomputes memory_limit, then an explicit MEMORY_LIMIT overrides it.
// It reports whether C_PROTECTION was present (the credit is then reset).
func (p *params) apply(c *attrs.DualPI2Attrs, mtu uint32) (resetCredit bool) {
	if c.Limit != nil {
		p.limit = *c.Limit
		p.memoryLimit = memoryLimitFor(*c.Limit, mtu)
	}
	if c.MemoryLimit != nil {
		p.memoryLimit = *c.MemoryLimit
	}
	if c.Target != nil {
		// u64 ns: no saturation, unlike tupdate and step_thresh.
		p.target = uint64(*c.Target) * 1000
	}
	if c.Tupdate != nil {
		p.tupdate = usToNs(*c.Tupdate)
	}
	if c.Alpha != nil {
		p.alpha = ScaleAlphaBeta(*c.Alpha)
	}
	if c.Beta != nil {
		p.beta = ScaleAlphaBeta(*c.Beta)
	}
	if c.StepThreshPkts != nil {
		p.stepInPackets = true
		p.stepThresh = *c.StepThreshPkts
	} else if c.StepThreshUS != nil {
		p.stepInPackets = false
		p.stepThresh = usToNs(*c.StepThreshUS)
	}
	if c.MinQlenStep != nil {
		p.minQlenStep = *c.MinQlenStep
	}
	if c.Coupling != nil {
		p.coupling = *c.Coupling
	}
	if c.DropOverload != nil {
		p.dropOverload = *c.DropOverload != 0
	}
	if c.DropEarly != nil {
		p.dropEarly = *c.DropEarly != 0
	}
	if c.CProtection != nil {
		p.setCProtection(*c.CProtection, mtu)
		resetCredit = true
	}
	if c.ECNMask != nil {
		p.ecnMask = uint8(*c.ECNMask)
	}
	if c.SplitGSO != nil {
		p.splitGSO = *c.SplitGSO != 0
	}
	return resetCredit
}

// dump is dualpi2_dump: every attribute, in the units netlink carries.
func (p *params) dump() attrs.DualPI2Attrs {
	u32 := func(v uint32) *uint32 { return &v }
	u8 := func(v uint8) *uint8 { return &v }
	b := func(v bool) uint8 {
		if v {
			return 1
		}
		return 0
	}
	do := attrs.DualPI2DropOverload(b(p.dropOverload))
	de := attrs.DualPI2DropEarly(b(p.dropEarly))
	em := attrs.DualPI2ECNMask(p.ecnMask)
	sg := attrs.DualPI2SplitGSO(b(p.splitGSO))
	a := attrs.DualPI2Attrs{
		Limit:        u32(p.limit),
		MemoryLimit:  u32(p.memoryLimit),
		Target:       u32(nsToUs(p.target)),
		Tupdate:      u32(nsToUs(uint64(p.tupdate))),
		Alpha:        u32(UnscaleAlphaBeta(p.alpha)),
		Beta:         u32(UnscaleAlphaBeta(p.beta)),
		MinQlenStep:  u32(p.minQlenStep),
		Coupling:     u8(p.coupling),
		DropOverload: &do,
		DropEarly:    &de,
		CProtection:  u8(p.wc),
		ECNMask:      &em,
		SplitGSO:     &sg,
	}
	if p.stepInPackets {
		a.StepThreshPkts = u32(p.stepThresh)
	} else {
		a.StepThreshUS = u32(nsToUs(uint64(p.stepThresh)))
	}
	return a
}
