// SPDX-License-Identifier: Apache-2.0

package cake

// The ACK filter (cake_ack_filter and its helpers), run after each
// non-split enqueue with the new packet at the tail of its flow.

// after and before compare TCP sequence numbers modulo 2^32.
func after(a, b uint32) bool  { return int32(b-a) < 0 }
func before(a, b uint32) bool { return int32(a-b) < 0 }

// mayDrop is cake_tcph_may_drop: the candidate carries nothing but a pure
// ACK (ECE/CWR are judged separately) and options the filter understands,
// with timestamps not newer than the trigger's.
func mayDrop(c *Packet, tsval, tsecr uint32) bool {
	if c.TCPFlags&0x0F3F != TCPAck {
		return false
	}
	if c.OtherOpts {
		return false
	}
	if c.HasTS && (after(c.TSVal, tsval) || after(c.TSEcr, tsecr)) {
		return false
	}
	return true
}

// sackCompare is cake_tcph_sack_compare(a, b): -1 if a SACKs something b
// does not (or a carries a DSACK), 1 if b SACKs strictly more, else 0.
func sackCompare(a, b *Packet) int {
	na, nb := int(min(a.NumSACK, 4)), int(min(b.NumSACK, 4))
	switch {
	case na > 0 && nb == 0:
		return -1
	case nb > 0 && na == 0:
		return 1
	case na == 0 && nb == 0:
		return 0
	}
	var bytesA, bytesB uint32
	first := true
	for i := 0; i < na; i++ {
		sa, ea := a.SACK[i].Start, a.SACK[i].End
		if before(sa, a.Ack) {
			return -1 // DSACK: never drop it
		}
		bytesA += ea - sa
		found := false
		for j := 0; j < nb; j++ {
			sb, eb := b.SACK[j].Start, b.SACK[j].End
			if first {
				bytesB += eb - sb
			}
			if !after(sb, sa) && !before(eb, ea) {
				found = true
				if !first {
					break
				}
			}
		}
		if !found {
			return -1
		}
		first = false
	}
	if bytesB > bytesA {
		return 1
	}
	return 0
}

const eceCwr = TCPEce | TCPCwr

// pureACK is what every ACK the filter may drop satisfies whatever the
// trigger: a TCP packet passing the trigger-independent part of mayDrop
// with no payload. Flows count their queued pureACK packets (flow.acks).
func pureACK(p *Packet) bool {
	return p.TCPFlags&0x0F3F == TCPAck && p.PayloadLen == 0 && !p.OtherOpts && p.isTCP()
}

// ackFilter returns the pool index of an ACK to drop from f (unlinked), or
// nilIdx.
func (q *Qdisc) ackFilter(f *flow) int32 {
	aggressive := q.p.ackFilter == 2 // CAKE_ACK_AGGRESSIVE
	if f.head == f.tail {
		return nilIdx
	}
	trig := &q.pool[f.tail].pkt
	if !trig.isTCP() {
		return nilIdx
	}
	var tsval, tsecr uint32
	if trig.HasTS {
		tsval, tsecr = trig.TSVal, trig.TSEcr
	}
	if trig.TCPFlags&(TCPAck|TCPSyn) != TCPAck {
		return nilIdx
	}
	// The scan below returns an ACK only after finding two eligible ones
	// (one in aggressive mode), and every eligible ACK is a pureACK: with
	// fewer pureACK packets ahead of the trigger its result is nilIdx.
	ahead := f.acks
	if pureACK(trig) {
		ahead--
	}
	if ahead == 0 || (ahead == 1 && !aggressive) {
		return nilIdx
	}
	elig, eligPrev := int32(nilIdx), int32(nilIdx)
	var eligFlags uint16
	numFound := 0
	prev := int32(nilIdx)
	found := false
	for c := f.head; c != nilIdx && c != f.tail; prev, c = c, q.pool[c].next {
		cp := &q.pool[c].pkt
		if !cp.isTCP() || cp.L3 != trig.L3 || cp.SrcPort != trig.SrcPort || cp.DstPort != trig.DstPort {
			continue
		}
		if cp.L3 == L3IPv4 {
			if [4]byte(cp.Src[:4]) != [4]byte(trig.Src[:4]) || [4]byte(cp.Dst[:4]) != [4]byte(trig.Dst[:4]) {
				continue
			}
		} else if cp.Src != trig.Src || cp.Dst != trig.Dst {
			continue
		}
		// A change of ECE/CWR since the held candidate carries
		// information: stop considering that one.
		if elig != nilIdx && cp.TCPFlags&eceCwr != eligFlags {
			elig, eligPrev = nilIdx, nilIdx
			numFound--
		}
		if !mayDrop(cp, tsval, tsecr) || cp.PayloadLen != 0 || after(cp.Ack, trig.Ack) {
			continue
		}
		sc := sackCompare(cp, trig)
		if sc < 0 || (cp.Ack == trig.Ack && sc == 0) {
			continue
		}
		if elig == nilIdx {
			elig, eligPrev = c, prev
			eligFlags = cp.TCPFlags & eceCwr
		}
		if numFound > 0 {
			found = true
			break
		}
		numFound++
	}
	if !found {
		// Aggressive mode also drops a lone eligible ACK right before
		// the trigger with the same ECN flags.
		if !(elig != nilIdx && aggressive && q.pool[elig].next == f.tail &&
			eligFlags == trig.TCPFlags&eceCwr) {
			return nilIdx
		}
	}
	if eligPrev != nilIdx {
		q.pool[eligPrev].next = q.pool[elig].next
	} else {
		f.head = q.pool[elig].next
	}
	q.pool[elig].next = nilIdx
	f.acks-- // elig passed mayDrop with no payload: a pureACK
	return elig
}
