// SPDX-License-Identifier: Apache-2.0

package fqcodel

import (
	"errors"
	"fmt"

	"github.com/gotc/gotc/attrs"
)

// Constants of the kernel (sch_fq_codel.c, codel.h).
const (
	// codelShift: codel_time_t is ktime_get_ns() >> CODEL_SHIFT.
	codelShift = 10
	// disabledThreshold is CODEL_DISABLED_THRESHOLD (INT_MAX).
	disabledThreshold = 1<<31 - 1
	// quantumMax is FQ_CODEL_QUANTUM_MAX.
	quantumMax = 1 << 20
	// maxFlows is the largest number of flows fq_codel_change accepts.
	maxFlows = 65536
	// DefaultMTU is psched_mtu() of an Ethernet device with MTU 1500.
	DefaultMTU = 1514
)

// usToCodel is fq_codel_change's (us * NSEC_PER_USEC) >> CODEL_SHIFT.
func usToCodel(us uint32) uint32 { return uint32(uint64(us) * 1000 >> codelShift) }

// dumpedToCodel inverts codelToUs: the smallest codel time that dumps as
// us µs, which is the one a request of whole µs leaves (the request's
// (us*1000)>>10 dumps one µs lower at most, and rounding up recovers it).
func dumpedToCodel(us uint32) uint32 {
	return uint32((uint64(us)*1000 + 1<<codelShift - 1) >> codelShift)
}

// codelToUs is codel_time_to_us.
func codelToUs(t uint32) uint32 { return uint32(uint64(t) << codelShift / 1000) }

// params is the configuration part of fq_codel_sched_data and its
// codel_params, in kernel units.
type params struct {
	limit, flows, quantum, dropBatch, memoryLimit uint32
	target, interval, ceThreshold                 uint32 // codel_time_t
	ceSelector, ceMask                            uint8
	ecn                                           bool
	mtu                                           uint32
}

// defaults is fq_codel_init before the options apply.
func defaults(mtu uint32) params {
	return params{limit: 10 * 1024, flows: 1024, quantum: mtu, dropBatch: 64, memoryLimit: 32 << 20,
		target: usToCodel(5000), interval: usToCodel(100000), ceThreshold: disabledThreshold, ecn: true, mtu: mtu}
}

// apply is fq_codel_change on a new qdisc: the options' validation and
// their clamping; toCodel converts the times.
func (p *params) apply(c *attrs.FQCodelAttrs, toCodel func(uint32) uint32) error {
	if c.Flows != nil {
		if *c.Flows == 0 || *c.Flows > maxFlows {
			return fmt.Errorf("fq_codel: flows %d not in 1..%d (EINVAL)", *c.Flows, maxFlows)
		}
		p.flows = *c.Flows
	}
	if c.Quantum != nil && *c.Quantum > quantumMax {
		return errors.New("fq_codel: Invalid quantum (EINVAL)")
	}
	if c.Target != nil {
		p.target = toCodel(*c.Target)
	}
	if c.CEThreshold != nil {
		p.ceThreshold = toCodel(*c.CEThreshold)
	}
	if c.CEThresholdSelector != nil {
		p.ceSelector = *c.CEThresholdSelector
	}
	if c.CEThresholdMask != nil {
		p.ceMask = *c.CEThresholdMask
	}
	if c.Interval != nil {
		p.interval = toCodel(*c.Interval)
	}
	if c.Limit != nil {
		p.limit = *c.Limit
	}
	if c.ECN != nil {
		p.ecn = *c.ECN != 0
	}
	if c.Quantum != nil {
		p.quantum = max(256, *c.Quantum)
	}
	if c.DropBatchSize != nil {
		p.dropBatch = max(1, *c.DropBatchSize)
	}
	if c.MemoryLimit != nil {
		p.memoryLimit = min(1<<31, *c.MemoryLimit)
	}
	return nil
}

// dump is fq_codel_dump.
func (p *params) dump() attrs.FQCodelAttrs {
	u := func(v uint32) *uint32 { return &v }
	b := func(v uint8) *uint8 { return &v }
	ecn := uint32(0)
	if p.ecn {
		ecn = 1
	}
	a := attrs.FQCodelAttrs{Target: u(codelToUs(p.target)), Limit: u(p.limit), Interval: u(codelToUs(p.interval)),
		ECN: u(ecn), Quantum: u(p.quantum), DropBatchSize: u(p.dropBatch), MemoryLimit: u(p.memoryLimit),
		Flows: u(p.flows)}
	if p.ceThreshold != disabledThreshold {
		a.CEThreshold = u(codelToUs(p.ceThreshold))
		a.CEThresholdSelector, a.CEThresholdMask = b(p.ceSelector), b(p.ceMask)
	}
	return a
}
