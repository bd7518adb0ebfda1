// SPDX-License-Identifier: Apache-2.0

package fqcodel

// recInvSqrtShift is REC_INV_SQRT_SHIFT: rec_inv_sqrt keeps the top 16
// bits of a Q0.32 fraction.
const recInvSqrtShift = 32 - 16

// The kernel's wrapping comparisons of codel_time_t.
func after(a, b uint32) bool   { return int32(a-b) > 0 }
func afterEq(a, b uint32) bool { return int32(a-b) >= 0 }
func before(a, b uint32) bool  { return int32(a-b) < 0 }

// near records how close a comparison of a and b (codel_time_t) came to
// the other outcome: one unit of codel time is 1024 ns, and truncation
// loses up to one unit.
func (q *Qdisc) near(a, b uint32) {
	d := int64(int32(a - b))
	if d < 0 {
		d = -d
	}
	q.margin = min(q.margin, max(0, d-1)<<codelShift)
}

// newtonStep is codel_Newton_step: one Newton iteration of
// 1/sqrt(count) in Q0.32 with the kernel's truncations.
func (v *codelVars) newtonStep() {
	invsqrt := uint32(v.recInvSqrt) << recInvSqrtShift
	invsqrt2 := uint32(uint64(invsqrt) * uint64(invsqrt) >> 32)
	val := (uint64(3) << 32) - uint64(v.count)*uint64(invsqrt2)
	val >>= 2
	val = (val * uint64(invsqrt)) >> (32 - 2 + 1)
	v.recInvSqrt = uint16(val >> recInvSqrtShift)
}

// controlLaw is codel_control_law: t + interval/sqrt(count).
func controlLaw(t, interval uint32, recInvSqrt uint16) uint32 {
	return t + uint32(uint64(interval)*uint64(uint32(recInvSqrt)<<recInvSqrtShift)>>32)
}

// shouldDrop is codel_should_drop.
func (q *Qdisc) shouldDrop(e *entry, v *codelVars, now uint32) bool {
	if e == nil {
		v.firstAboveTime = 0
		return false
	}
	v.ldelay = now - e.enq
	q.maxpacket = max(q.maxpacket, e.p.Len)
	if q.backlog <= q.p.mtu {
		v.firstAboveTime = 0
		return false
	}
	q.near(v.ldelay, q.p.target)
	if before(v.ldelay, q.p.target) {
		v.firstAboveTime = 0
		return false
	}
	if v.firstAboveTime == 0 {
		v.firstAboveTime = now + q.p.interval
		return false
	}
	q.near(now, v.firstAboveTime)
	return after(now, v.firstAboveTime)
}

// setCE is INET_ECN_set_ce: it succeeds on an ECN-capable IP packet.
func setCE(e *entry) bool {
	if !e.p.IP || e.p.DSField&3 == NotECT {
		return false
	}
	if e.p.DSField&3 != CE {
		e.p.DSField |= CE
		e.marked = true
	}
	return true
}

// drop is drop_func: the packet is freed and counted.
func (q *Qdisc) drop(e *entry, idx int, now Time) {
	q.drops++
	q.report(Event{Time: now, Packet: &e.p, Arrived: e.arrived, Flow: idx, Fate: FateDropCodel})
}

// codelDequeue is codel_dequeue on flow idx at now.
func (q *Qdisc) codelDequeue(nowNs Time, idx int) *entry {
	f := &q.flows[idx]
	v := &f.cv
	e := q.dequeueFunc(f)
	if e == nil {
		v.dropping = false
		return nil
	}
	now := uint32(nowNs >> codelShift)
	drop := q.shouldDrop(e, v, now)
	if v.dropping {
		if !drop {
			v.dropping = false
		} else {
			q.near(now, v.dropNext)
			for v.dropping && afterEq(now, v.dropNext) {
				v.count++
				v.newtonStep()
				if q.p.ecn && setCE(e) {
					q.ecnMark++
					v.dropNext = controlLaw(v.dropNext, q.p.interval, v.recInvSqrt)
					break
				}
				q.drop(e, idx, nowNs)
				e = q.dequeueFunc(f)
				if !q.shouldDrop(e, v, now) {
					v.dropping = false
				} else {
					v.dropNext = controlLaw(v.dropNext, q.p.interval, v.recInvSqrt)
					q.near(now, v.dropNext)
				}
			}
		}
	} else if drop {
		if q.p.ecn && setCE(e) {
			q.ecnMark++
		} else {
			q.drop(e, idx, nowNs)
			e = q.dequeueFunc(f)
			q.shouldDrop(e, v, now)
		}
		v.dropping = true
		delta := v.count - v.lastcount
		reuse := false
		if delta > 1 {
			q.near(now-v.dropNext, 16*q.p.interval)
			reuse = before(now-v.dropNext, 16*q.p.interval)
		}
		if reuse {
			v.count = delta
			v.newtonStep()
		} else {
			v.count = 1
			v.recInvSqrt = ^uint16(0)
		}
		v.lastcount = v.count
		v.dropNext = controlLaw(now, q.p.interval, v.recInvSqrt)
	}
	if e != nil && q.p.ceThreshold != disabledThreshold {
		q.near(v.ldelay, q.p.ceThreshold)
		if after(v.ldelay, q.p.ceThreshold) {
			set := true
			if q.p.ceMask != 0 {
				set = e.p.IP && e.p.DSField&q.p.ceMask == q.p.ceSelector
			}
			if set && setCE(e) {
				q.ceMark++
			}
		}
	}
	return e
}
