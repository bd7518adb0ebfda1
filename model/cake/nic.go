// SPDX-License-Identifier: Apache-2.0

package cake

// NIC is a device queue below the qdisc, as a real Ethernet NIC has: a
// transmit ring that the driver fills from the qdisc and that drains at
// line rate, with its bytes in flight bounded by BQL (byte queue limits).
// The stack stops the queue once the bytes in flight exceed Limit
// (netdev_tx_sent_queue after each packet, so one packet may overshoot)
// and restarts it, running the qdisc again, from the completion that
// brings them back to Limit or below. The limit is fixed: DQL adapts it
// to the driver's completion batching (interrupt coalescing), which the
// model has no measure of, so the caller gives the value it settles at.
//
// A GSO super-packet enters the ring as one unit, as a TSO NIC takes it,
// and completes when its last segment has left. The driver reports every
// segment's frame to BQL (headers replicated) and each frame occupies
// the wire for its bytes plus Ethernet's 24 (preamble, FCS, gap).
// Completions are not batched: each frame completes when its last bit
// has left.
type NIC struct {
	// Rate is the line rate in bytes/s.
	Rate uint64
	// Limit is BQL's limit in bytes.
	Limit uint32
	// Sent, if set, receives each packet when its last bit has left.
	Sent func(now int64, p *Packet)

	ring     []Packet // queued in the NIC, head on the wire
	headEnd  int64    // when the head's last bit leaves
	inflight uint32   // bytes queued to the NIC and not yet completed
	stopped  bool
}

// ethWireExtra is what each Ethernet frame adds on the wire beyond its
// header and payload: preamble and start delimiter (8), FCS (4) and the
// inter-frame gap (12).
const ethWireExtra = 24

// FrameBytes is what the driver reports to BQL for p: every segment's
// Ethernet frame (a TSO super-packet with its headers replicated).
func FrameBytes(p *Packet) uint32 {
	if p.GSOSegs > 1 {
		return p.Len + uint32(p.GSOSegs-1)*uint32(p.HdrLen)
	}
	return p.Len
}

// wireNs is how long the frames of p occupy the wire.
func (n *NIC) wireNs(p *Packet) int64 {
	segs := uint64(max(p.GSOSegs, 1))
	return int64((uint64(FrameBytes(p)) + ethWireExtra*segs) * 1e9 / n.Rate)
}

// push queues p, taken from the qdisc at now, and stops the queue when
// BQL's limit is exceeded.
func (n *NIC) push(now int64, p *Packet) {
	if len(n.ring) == 0 {
		n.headEnd = now + n.wireNs(p)
	}
	n.ring = append(n.ring, *p)
	n.inflight += FrameBytes(p)
	n.stopped = n.inflight > n.Limit
}

// next returns when the head frame completes, if one is queued.
func (n *NIC) next() (int64, bool) { return n.headEnd, len(n.ring) > 0 }

// complete finishes the head frame at its end time and returns that time.
func (n *NIC) complete() int64 {
	now, p := n.headEnd, n.ring[0]
	n.ring = n.ring[1:]
	n.inflight -= FrameBytes(&p)
	if len(n.ring) > 0 {
		n.headEnd = now + n.wireNs(&n.ring[0])
	}
	if n.stopped && n.inflight <= n.Limit {
		n.stopped = false
	}
	if n.Sent != nil {
		n.Sent(now, &p)
	}
	return now
}

// Inflight is the bytes queued in the NIC and not yet completed.
func (n *NIC) Inflight() uint32 { return n.inflight }
