// SPDX-License-Identifier: Apache-2.0

package cake

// COBALT (CoDel + BLUE) as in sch_cake.c: cobalt_should_drop,
// cobalt_queue_full, cobalt_queue_empty, with the kernel's fixed-point
// inverse square root.

type cobaltParams struct {
	interval uint64 // ns
	target   uint64 // ns
	mtuTime  uint64 // ns to send one MTU at the tin's rate
	pInc     uint32
	pDec     uint32
}

type cobaltVars struct {
	count      uint32
	recInvSqrt uint32 // Q0.32; 0 until the first count change (see package doc)
	dropNext   int64
	blueTimer  int64
	pDrop      uint32
	dropping   bool
	ecnMarked  bool
}

// invSqrtCache is the kernel's inv_sqrt_cache: 1/sqrt(count) in Q0.32 for
// count < 16, computed there with eight Newton steps.
var invSqrtCache = [16]uint32{
	^uint32(0), ^uint32(0), 3037000500, 2479700525,
	2147483647, 1920767767, 1753413056, 1623345051,
	1518500250, 1431655765, 1358187914, 1294981364,
	1239850263, 1191209601, 1147878294, 1108955788,
}

// newtonStep is cobalt_newton_step: one Newton iteration of
// invsqrt' = invsqrt/2 * (3 - count*invsqrt²) in the kernel's integer steps.
func (v *cobaltVars) newtonStep() {
	inv := uint64(v.recInvSqrt)
	inv2 := (inv * inv) >> 32
	val := (uint64(3) << 32) - uint64(v.count)*inv2
	val >>= 2 // the kernel shifts first to avoid overflowing the multiply
	val = (val * inv) >> (32 - 2 + 1)
	v.recInvSqrt = uint32(val)
}

func (v *cobaltVars) invSqrt() {
	if v.count < uint32(len(invSqrtCache)) {
		v.recInvSqrt = invSqrtCache[v.count]
	} else {
		v.newtonStep()
	}
}

// control is cobalt_control: t + interval/sqrt(count). reciprocal_scale
// takes a u32, so the interval is truncated to 32 bits as in the kernel.
func control(t int64, interval uint64, rec uint32) int64 {
	return t + int64((uint64(uint32(interval))*uint64(rec))>>32)
}

// queueFull is cobalt_queue_full, called when the memory limit drops a
// packet from this flow. It reports BLUE going from quiescent to active.
func (q *Qdisc) queueFull(v *cobaltVars, p *cobaltParams, now int64) bool {
	up := false
	d := now - v.blueTimer
	q.margin(&q.margins.AQM, d-int64(p.target))
	if d > int64(p.target) {
		up = v.pDrop == 0
		v.pDrop += p.pInc
		if v.pDrop < p.pInc {
			v.pDrop = ^uint32(0)
		}
		v.blueTimer = now
	}
	v.dropping = true
	v.dropNext = now
	if v.count == 0 {
		v.count = 1
	}
	return up
}

// queueEmpty is cobalt_queue_empty, called when dequeue finds the flow
// empty. It reports BLUE going from active to quiescent.
func (q *Qdisc) queueEmpty(v *cobaltVars, p *cobaltParams, now int64) bool {
	down := false
	if v.pDrop != 0 {
		d := now - v.blueTimer
		q.late(&q.margins.AQM, int64(p.target)-d)
		if d > int64(p.target) {
			if v.pDrop < p.pDec {
				v.pDrop = 0
			} else {
				v.pDrop -= p.pDec
			}
			v.blueTimer = now
			down = v.pDrop == 0
		}
	}
	v.dropping = false
	if v.count != 0 {
		q.late(&q.margins.AQM, v.dropNext-now-1)
		if now-v.dropNext >= 0 {
			v.count--
			v.invSqrt()
			v.dropNext = control(v.dropNext, p.interval, v.recInvSqrt)
		}
	}
	return down
}

// DropReason is why the model dropped a packet, as WithDropHook's hook is
// told it.
type DropReason uint8

// Why the model dropped a packet.
const (
	DropCongested DropReason = iota + 1 // COBALT/CoDel (SKB_DROP_REASON_QDISC_CONGESTED)
	DropFlood                           // BLUE (SKB_DROP_REASON_CAKE_FLOOD)
	DropOverlimit                       // memory limit, fattest queue (cake_drop)
	DropAck                             // ACK filter
)

// shouldDrop is cobalt_should_drop for a packet enqueued at enq and
// dequeued now. It returns 0 to deliver, or the drop reason.
func (q *Qdisc) shouldDrop(v *cobaltVars, p *cobaltParams, now, enq int64, pkt *Packet, bulkFlows uint32) DropReason {
	var reason DropReason
	sojourn := uint64(now - enq)
	schedule := now - v.dropNext
	thr := max(p.target, p.mtuTime*uint64(bulkFlows)*2, p.mtuTime*4)
	over := sojourn > thr
	if !over {
		q.late(&q.margins.AQM, int64(thr-sojourn))
	}
	nextDue := v.count != 0 && schedule >= 0
	if v.count != 0 {
		q.late(&q.margins.AQM, -schedule-1)
	}
	v.ecnMarked = false

	if over {
		if !v.dropping {
			v.dropping = true
			v.dropNext = control(now, p.interval, v.recInvSqrt)
		}
		if v.count == 0 {
			v.count = 1
		}
	} else if v.dropping {
		v.dropping = false
	}

	if nextDue && v.dropping {
		v.ecnMarked = pkt.setCE()
		if !v.ecnMarked {
			reason = DropCongested
		}
		v.count++
		if v.count == 0 {
			v.count--
		}
		v.invSqrt()
		v.dropNext = control(v.dropNext, p.interval, v.recInvSqrt)
		schedule = now - v.dropNext
	} else {
		for nextDue {
			v.count--
			v.invSqrt()
			v.dropNext = control(v.dropNext, p.interval, v.recInvSqrt)
			schedule = now - v.dropNext
			nextDue = v.count != 0 && schedule >= 0
		}
	}

	// BLUE: no ECN, on purpose; one random draw only while p_drop > 0.
	if v.pDrop != 0 && reason == 0 && q.rand32() < v.pDrop {
		reason = DropFlood
	}

	// drop_next doubles as an activity timeout.
	if v.count == 0 {
		v.dropNext = now + int64(p.interval)
	} else if schedule > 0 && reason == 0 {
		v.dropNext = now
	}
	return reason
}
