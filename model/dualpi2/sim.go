// SPDX-License-Identifier: Apache-2.0

package dualpi2

import (
	"math"
	"math/bits"
)

// LinkKind says how the device pulls packets from the qdisc.
type LinkKind uint8

// Link kinds.
const (
	// LinkImmediate dequeues after every enqueue until the qdisc returns
	// nothing, like __dev_xmit_skb on a root qdisc of a device that never
	// pushes back (veth without XDP or GRO). The final empty dequeue resets
	// the WRR credit, so it is back at its initial value after each packet.
	LinkImmediate LinkKind = iota
	// LinkRate is an ideal serializer at Rate bytes/s charged with
	// qdisc_pkt_len, standing for a parent shaper such as HTB: it dequeues
	// as soon as the previous packet has been serialized, and only while
	// the qdisc holds packets (HTB only calls an active leaf).
	LinkRate
)

// Link describes the consumer of the qdisc.
type Link struct {
	Kind LinkKind
	Rate uint64 // bytes per second, for LinkRate
}

// Immediate is a LinkImmediate link.
func Immediate() Link { return Link{Kind: LinkImmediate} }

// RateLink is a LinkRate link at bytesPerSecond.
func RateLink(bytesPerSecond uint64) Link { return Link{Kind: LinkRate, Rate: bytesPerSecond} }

// Arrival is one packet of a trace, offered at Time.
type Arrival struct {
	Time   Time
	Packet Packet
}

// Sim drives a Qdisc with a Link, one arrival at a time, without allocating.
// At equal times the order is: PI timer, arrival, link dequeue.
type Sim struct {
	q     *Qdisc
	link  Link
	free  Time   // when the link can take the next packet
	rem   uint64 // remainder (ns*rate units) of serialization times
	last  Time   // time of the last link dequeue
	order Time
}

// NewSim returns a driver for q on link. q's observer is left alone.
func NewSim(q *Qdisc, link Link) *Sim {
	if link.Kind == LinkRate && link.Rate == 0 {
		panic("dualpi2: LinkRate needs a non-zero rate")
	}
	return &Sim{q: q, link: link, free: q.now, last: math.MinInt64, order: NoMargin}
}

// Qdisc returns the driven qdisc.
func (s *Sim) Qdisc() *Qdisc { return s.q }

// Margins returns the qdisc's margins with Order from the link schedule.
func (s *Sim) Margins() Margins {
	m := s.q.Margins()
	m.Order = s.order
	return m
}

// Arrive runs the link up to a.Time, then offers a.Packet.
func (s *Sim) Arrive(a Arrival) Verdict {
	q := s.q
	if s.link.Kind == LinkImmediate {
		v := q.Enqueue(a.Time, a.Packet)
		for {
			if _, ok := q.Dequeue(a.Time); !ok {
				break
			}
		}
		return v
	}
	s.run(a.Time, false)
	if q.Qlen() > 0 {
		// A dequeue and this arrival could swap in a kernel whose clocks
		// differ by less than these gaps.
		s.order = min(s.order, s.free-a.Time)
		if s.last != math.MinInt64 {
			s.order = min(s.order, a.Time-s.last)
		}
	} else if s.free < a.Time {
		s.free, s.rem = a.Time, 0
	}
	v := q.Enqueue(a.Time, a.Packet)
	s.run(a.Time, true)
	return v
}

// Drain runs the link until the qdisc is empty and returns the time of the
// last dequeue (or the current time if there was nothing to send).
func (s *Sim) Drain() Time {
	if s.link.Kind == LinkImmediate {
		return s.q.now
	}
	s.run(math.MaxInt64, true)
	return s.q.now
}

// run performs the link's dequeues due before t (or at t if incl).
func (s *Sim) run(t Time, incl bool) {
	q := s.q
	for q.Qlen() > 0 && (s.free < t || (incl && s.free == t)) {
		at := s.free
		s.last = at
		d, ok := q.Dequeue(at)
		if !ok {
			// Everything left was dropped: the link stays idle.
			return
		}
		// One DIV for quotient and remainder: this is the driver's
		// hottest instruction.
		quo, rem := bits.Div64(0, uint64(d.PktLen)*1e9+s.rem, s.link.Rate)
		s.free, s.rem = at+Time(quo), rem
	}
}

// Outcome is the final fate of one skb of a trace (one per segment when
// split_gso split the packet).
type Outcome struct {
	ID      uint64
	Seg     uint16
	Class   Class
	Fate    Fate
	PktLen  uint32
	Segs    uint16
	ECNIn   uint8 // ECN bits as offered
	ECNOut  uint8 // ECN bits as delivered (or when dropped)
	Arrived Time
	Done    Time // delivery or drop time; for FateQueued, unset
}

// Result is what Simulate returns.
type Result struct {
	Stats    Stats     // dump at End
	Outcomes []Outcome // in order of arrival, segments in order
	Margins  Margins
	End      Time // time of the last event (the queue drained)
}

// Simulate offers trace (sorted by time) to q through link, drains the
// queue, and reports every skb's outcome and the dump at the end. Packet
// IDs must be unique among packets queued at the same time. It installs its
// own observer on q for the duration of the run.
func Simulate(q *Qdisc, trace []Arrival, link Link) Result {
	type key struct {
		id  uint64
		seg uint16
	}
	var (
		out     []Outcome
		pending = map[key]int{}
		cur     Arrival
	)
	prev := q.observer
	defer q.SetObserver(prev)
	q.SetObserver(func(ev Event) {
		k := key{ev.ID, ev.Seg}
		if ev.Fate == FateQueued {
			pending[k] = len(out)
			out = append(out, Outcome{ID: ev.ID, Seg: ev.Seg, Class: ev.Class, Fate: FateQueued,
				PktLen: ev.PktLen, Segs: ev.Segs, ECNIn: cur.Packet.ECN & 3, ECNOut: ev.ECN,
				Arrived: ev.Time})
			return
		}
		if i, ok := pending[k]; ok && ev.Fate != FateDropLimit && ev.Fate != FateDropEarly && ev.Fate != FateDropGSO {
			delete(pending, k)
			o := &out[i]
			o.Fate, o.ECNOut, o.Done = ev.Fate, ev.ECN, ev.Time
			return
		}
		out = append(out, Outcome{ID: ev.ID, Seg: ev.Seg, Class: ev.Class, Fate: ev.Fate,
			PktLen: ev.PktLen, Segs: ev.Segs, ECNIn: cur.Packet.ECN & 3, ECNOut: ev.ECN,
			Arrived: ev.Time, Done: ev.Time})
	})
	s := NewSim(q, link)
	for _, a := range trace {
		cur = a
		s.Arrive(a)
	}
	end := s.Drain()
	return Result{Stats: q.StatsAt(end), Outcomes: out, Margins: s.Margins(), End: end}
}
