// SPDX-License-Identifier: Apache-2.0

package cake

import (
	"errors"
	"math/bits"

	"github.com/gotc/gotc/attrs"
)

// Kernel constants (sch_cake.c, pkt_sched.h).
const (
	numQueues = 1024 // CAKE_QUEUES
	setWays   = 8    // CAKE_SET_WAYS
	maxTins   = 8    // CAKE_MAX_TINS
	flowMask  = 63   // CAKE_FLOW_MASK
	flowNAT   = 64   // CAKE_FLOW_NAT_FLAG

	flowSrcIP = 1 // CAKE_FLOW_SRC_IP
	flowDstIP = 2 // CAKE_FLOW_DST_IP
	flowFlows = 4 // CAKE_FLOW_FLOWS
	flowDual  = flowFlows | flowSrcIP
	flowDualD = flowFlows | flowDstIP

	flagOverhead = 1 << 0 // CAKE_FLAG_OVERHEAD
	flagAutorate = 1 << 1 // CAKE_FLAG_AUTORATE_INGRESS
	flagIngress  = 1 << 2 // CAKE_FLAG_INGRESS
	flagWash     = 1 << 3 // CAKE_FLAG_WASH
	flagSplitGSO = 1 << 4 // CAKE_FLAG_SPLIT_GSO

	defaultLimit = 10240 // sch->limit set by cake_init, in packets
)

// DSCP → tin index tables (sch_cake.c). The tin index is the internal one;
// tinOrder maps dump position (and fwmark/priority minor-1) to it.
var (
	tablePrecedence = [64]uint8{
		0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
		2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3,
		4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 5,
		6, 6, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7, 7, 7,
	}
	tableDiffserv8 = [64]uint8{
		2, 0, 1, 2, 4, 2, 2, 2, 1, 2, 1, 2, 1, 2, 1, 2,
		5, 2, 4, 2, 4, 2, 4, 2, 3, 2, 3, 2, 3, 2, 3, 2,
		6, 2, 3, 2, 3, 2, 3, 2, 6, 2, 2, 2, 6, 2, 6, 2,
		7, 2, 2, 2, 2, 2, 2, 2, 7, 2, 2, 2, 2, 2, 2, 2,
	}
	tableDiffserv4 = [64]uint8{
		0, 1, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0,
		2, 0, 2, 0, 2, 0, 2, 0, 2, 0, 2, 0, 2, 0, 2, 0,
		3, 0, 2, 0, 2, 0, 2, 0, 3, 0, 0, 0, 3, 0, 3, 0,
		3, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0,
	}
	tableDiffserv3 = [64]uint8{
		0, 1, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0,
		2, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0,
	}
	tableBesteffort [64]uint8

	normalOrder = [8]uint8{0, 1, 2, 3, 4, 5, 6, 7}
	bulkOrder   = [8]uint8{1, 0, 2, 3}
)

// quantumDiv is 65535/host_load, with [0] = 65535 (u16 of ~0), as cake_init
// fills it.
var quantumDiv = func() (d [numQueues + 1]uint16) {
	d[0] = 0xffff
	for i := 1; i <= numQueues; i++ {
		d[i] = uint16(65535 / i)
	}
	return
}()

// params is the configuration part of cake_sched_data, in the kernel's
// field widths so that truncation on change matches (tin_mode is a u8,
// rate_overhead an s16, rate_mpu a u16...).
type params struct {
	rateBps     uint64
	tinMode     uint8
	flowMode    uint8
	ackFilter   uint8
	atmMode     uint8
	rateFlags   uint16
	overhead    int16
	mpu         uint16
	interval    uint64 // µs ("rtt")
	target      uint64 // µs
	bufConfig   uint32 // TCA_CAKE_MEMORY
	fwmarkMask  uint32
	fwmarkShift uint16
}

// defaultParams is what cake_init sets before applying the netlink options.
func defaultParams() params {
	return params{
		tinMode:   uint8(attrs.CakeDiffservModeDiffserv3),
		flowMode:  uint8(attrs.CakeFlowModeTriple),
		interval:  100000,
		target:    5000,
		rateFlags: flagSplitGSO,
	}
}

// change applies cake_change: only attributes present change anything.
// It reports whether the overhead/raw attributes asked for the length
// statistics to be reset.
func (p *params) change(c *attrs.CakeAttrs) (resetLen bool, err error) {
	if len(c.Unknown) != 0 {
		// The kernel's policy rejects malformed known attributes and
		// ignores unknown types; we cannot tell which, so refuse.
		return false, errors.New("cake: unknown or malformed attributes in configuration")
	}
	if c.NAT != nil {
		p.flowMode &^= flowNAT
		if *c.NAT != 0 {
			p.flowMode |= flowNAT
		}
	}
	if c.BaseRate64 != nil {
		p.rateBps = *c.BaseRate64
	}
	if c.DiffservMode != nil {
		p.tinMode = uint8(*c.DiffservMode)
	}
	flags := p.rateFlags
	if c.Wash != nil {
		flags = setFlag(flags, flagWash, *c.Wash != 0)
	}
	if c.FlowMode != nil {
		p.flowMode = p.flowMode&flowNAT | uint8(uint32(*c.FlowMode)&flowMask)
	}
	if c.ATM != nil {
		p.atmMode = uint8(*c.ATM)
	}
	if c.Overhead != nil {
		p.overhead = int16(*c.Overhead)
		flags |= flagOverhead
		resetLen = true
	}
	if c.Raw != nil {
		flags &^= flagOverhead
		resetLen = true
	}
	if c.MPU != nil {
		p.mpu = uint16(*c.MPU)
	}
	if c.RTT != nil {
		p.interval = uint64(max(*c.RTT, 1))
	}
	if c.Target != nil {
		p.target = uint64(max(*c.Target, 1))
	}
	if c.Autorate != nil {
		flags = setFlag(flags, flagAutorate, *c.Autorate != 0)
	}
	if c.Ingress != nil {
		flags = setFlag(flags, flagIngress, *c.Ingress != 0)
	}
	if c.AckFilter != nil {
		p.ackFilter = uint8(*c.AckFilter)
	}
	if c.Memory != nil {
		p.bufConfig = *c.Memory
	}
	if c.SplitGSO != nil {
		flags = setFlag(flags, flagSplitGSO, *c.SplitGSO != 0)
	}
	if c.Fwmark != nil {
		p.fwmarkMask = *c.Fwmark
		p.fwmarkShift = 0
		if p.fwmarkMask != 0 {
			p.fwmarkShift = uint16(bits.TrailingZeros32(p.fwmarkMask))
		}
	}
	p.rateFlags = flags
	return resetLen, nil
}

func setFlag(f, bit uint16, on bool) uint16 {
	if on {
		return f | bit
	}
	return f &^ bit
}

// dump is cake_dump: every attribute, as the kernel sends it.
func (p *params) dump() attrs.CakeAttrs {
	u32 := func(v uint32) *uint32 { return &v }
	rate := p.rateBps
	dm := attrs.CakeDiffservMode(p.tinMode)
	atm := attrs.CakeATMMode(p.atmMode)
	fm := attrs.CakeFlowMode(p.flowMode & flowMask)
	af := attrs.CakeAckFilter(p.ackFilter)
	// The kernel puts the s16 overhead with nla_put_u32, sign-extended.
	ov := int32(p.overhead)
	// The kernel sends TCA_CAKE_RAW (a u32 0) only when the overhead flag
	// is clear.
	var raw *uint32
	if p.rateFlags&flagOverhead == 0 {
		raw = u32(0)
	}
	return attrs.CakeAttrs{
		BaseRate64:   &rate,
		FlowMode:     &fm,
		RTT:          u32(uint32(p.interval)),
		Target:       u32(uint32(p.target)),
		Memory:       u32(p.bufConfig),
		Autorate:     u32(b2u(p.rateFlags&flagAutorate != 0)),
		Ingress:      u32(b2u(p.rateFlags&flagIngress != 0)),
		AckFilter:    &af,
		NAT:          u32(b2u(p.flowMode&flowNAT != 0)),
		DiffservMode: &dm,
		Wash:         u32(b2u(p.rateFlags&flagWash != 0)),
		Overhead:     &ov,
		Raw:          raw,
		ATM:          &atm,
		MPU:          u32(uint32(p.mpu)),
		SplitGSO:     u32(b2u(p.rateFlags&flagSplitGSO != 0)),
		Fwmark:       u32(p.fwmarkMask),
	}
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// setRate is cake_set_rate: the per-tin shaper and COBALT parameters.
func (t *tin) setRate(rate uint64, mtu uint32, targetNs, rttNs uint64) {
	const minRate = 64
	var shift uint16
	var rateNs uint64
	t.flowQuantum = 1514
	if rate != 0 {
		t.flowQuantum = uint16(max(min(rate>>12, 1514), 300))
		shift = 34
		rateNs = (uint64(1e9) << shift) / max(minRate, rate)
		for rateNs>>34 != 0 {
			rateNs >>= 1
			shift--
		}
	}
	t.rateBps = rate
	t.rateNs = rateNs
	t.rateShift = shift
	byteTargetNs := (uint64(mtu) * rateNs) >> shift
	t.cp.target = max(byteTargetNs*3/2, targetNs)
	// u64 arithmetic as in the kernel: target >= targetNs, so no wrap.
	t.cp.interval = max(rttNs+t.cp.target-targetNs, t.cp.target*2)
	t.cp.mtuTime = byteTargetNs
	t.cp.pInc = 1 << 24
	t.cp.pDec = 1 << 20
}

// reconfigure is cake_reconfigure (with cake_config_*).
func (q *Qdisc) reconfigure() {
	p := &q.p
	tgt, rtt := p.target*1000, p.interval*1000
	rate := p.rateBps
	ft := 0 // the tin whose rate the global shaper uses (always 0)
	switch p.tinMode {
	case uint8(attrs.CakeDiffservModeBesteffort):
		q.tinCnt = 1
		q.tinIndex = &tableBesteffort
		q.tinOrder = &normalOrder
		q.tins[0].setRate(rate, q.mtu, tgt, rtt)
		q.tins[0].tinQuantum = 65535
	case uint8(attrs.CakeDiffservModePrecedence), uint8(attrs.CakeDiffservModeDiffserv8):
		q.tinCnt = 8
		q.tinIndex = &tablePrecedence
		if p.tinMode == uint8(attrs.CakeDiffservModeDiffserv8) {
			q.tinIndex = &tableDiffserv8
		}
		q.tinOrder = &normalOrder
		quantum := uint32(256)
		for i := 0; i < 8; i++ {
			q.tins[i].setRate(rate, q.mtu, tgt, rtt)
			q.tins[i].tinQuantum = uint16(max(quantum, 1))
			rate = rate * 7 >> 3
			quantum = quantum * 7 >> 3
		}
	case uint8(attrs.CakeDiffservModeDiffserv4):
		q.tinCnt = 4
		q.tinIndex = &tableDiffserv4
		q.tinOrder = &bulkOrder
		q.tins[0].setRate(rate, q.mtu, tgt, rtt)
		q.tins[1].setRate(rate>>4, q.mtu, tgt, rtt)
		q.tins[2].setRate(rate>>1, q.mtu, tgt, rtt)
		q.tins[3].setRate(rate>>2, q.mtu, tgt, rtt)
		q.tins[0].tinQuantum = 1024
		q.tins[1].tinQuantum = 1024 >> 4
		q.tins[2].tinQuantum = 1024 >> 1
		q.tins[3].tinQuantum = 1024 >> 2
	default: // diffserv3, and any unknown mode
		q.tinCnt = 3
		q.tinIndex = &tableDiffserv3
		q.tinOrder = &bulkOrder
		q.tins[0].setRate(rate, q.mtu, tgt, rtt)
		q.tins[1].setRate(rate>>4, q.mtu, tgt, rtt)
		q.tins[2].setRate(rate>>2, q.mtu, tgt, rtt)
		q.tins[0].tinQuantum = 1024
		q.tins[1].tinQuantum = 1024 >> 4
		q.tins[2].tinQuantum = 1024 >> 2
	}
	for c := q.tinCnt; c < maxTins; c++ {
		q.clearTin(c)
		q.tins[c].cp.mtuTime = q.tins[ft].cp.mtuTime
	}
	q.rateNs = q.tins[ft].rateNs
	q.rateShift = q.tins[ft].rateShift

	switch {
	case p.bufConfig != 0:
		q.bufferLimit = p.bufConfig
	case p.rateBps != 0:
		t := p.rateBps * p.interval / (1000000 / 4)
		q.bufferLimit = max(uint32(t), 4<<20)
	default:
		q.bufferLimit = ^uint32(0)
	}
	q.bufferLimit = min(q.bufferLimit, max(defaultLimit*q.mtu, p.bufConfig))
}
