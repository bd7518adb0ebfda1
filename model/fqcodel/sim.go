// SPDX-License-Identifier: Apache-2.0

package fqcodel

// Arrival is one packet of a trace, offered at Time.
type Arrival struct {
	Time   Time
	Packet Packet
}

// Link is what takes packets from the qdisc.
type Link struct {
	// Rate is in bytes/s; 0 is a device that takes every packet at once
	// (a veth), below which an empty qdisc is bypassed.
	Rate uint64
	// Burst is the depth in bytes of the token bucket that meters Rate,
	// as HTB's class burst (and cburst, equal) meters a leaf: a packet
	// may leave while the bucket holds any tokens, and takes its
	// transmission time (qdisc_pkt_len at Rate) from them; the bucket
	// refills at Rate up to Burst's transmission time and starts full. 0
	// is an ideal serializer: a packet leaves when the previous one has.
	Burst uint32
}

// Result is what Simulate reports besides the qdisc's own state.
type Result struct {
	// End is when the queue drained (the last arrival on an immediate
	// link).
	End Time
	// Order is the smallest gap in ns between an arrival and an event of
	// the link's timer whose order the model took as given: a dequeue
	// that the timer drives (not the one the arrival's own send makes)
	// before or after the arrival, or the instant the bucket refilled to
	// zero before an arrival that found the qdisc empty. A kernel whose
	// timer fires later than that may see the two the other way round
	// (NoMargin: no such pair, as on an immediate link).
	Order int64
}

// bucket is the token bucket of a rated Link, in ns of transmission time
// (HTB's tokens and t_c).
type bucket struct {
	rate         uint64
	depth, level int64 // buffer, tokens
	at           Time  // when level was last brought up to date
}

// cost is the transmission time of n bytes (psched_l2t_ns, without the
// kernel's rounding of the rate's reciprocal).
func (b *bucket) cost(n uint64) int64 { return int64(n * 1e9 / b.rate) }

// ready is the first instant at which the bucket holds tokens.
func (b *bucket) ready() Time { return b.at + max(0, -b.level) }

// take charges a packet of n bytes sent at t (htb_accnt_tokens).
func (b *bucket) take(t Time, n uint32) {
	b.level = min(b.depth, b.level+(t-b.at)) - b.cost(uint64(n))
	b.at = t
}

// Simulate offers trace (sorted by time) to q below link and drains it.
// On an immediate link (rate 0) a packet that finds the qdisc empty
// bypasses it when the qdisc allows, else it is enqueued and dequeues
// follow until the qdisc returns nothing. Below a rate the link's token
// bucket pulls packets whenever it holds tokens and the qdisc holds
// packets (a parent shaper such as HTB, which never lets a leaf be
// bypassed); at equal times an arrival comes before the link's dequeue.
func Simulate(q *Qdisc, trace []Arrival, link Link) Result {
	res := Result{Order: NoMargin}
	if link.Rate == 0 {
		for _, a := range trace {
			res.End = max(res.End, a.Time)
			if q.Qlen() == 0 && q.CanBypass() {
				q.Bypass(a.Time, a.Packet)
				continue
			}
			q.Enqueue(a.Time, a.Packet)
			for {
				if _, ok := q.Dequeue(a.Time); !ok {
					break
				}
			}
		}
		return res
	}
	if len(trace) == 0 {
		return res
	}
	b := bucket{rate: link.Rate, at: trace[0].Time}
	b.depth = b.cost(uint64(link.Burst))
	b.level = b.depth
	// from is when the qdisc last became non-empty (or the last dequeue):
	// the link dequeues no earlier. timerAt is the last dequeue the link's
	// timer drove (none yet).
	var from Time
	timerAt := Time(-1)
	run := func(t Time, incl bool) {
		for q.Qlen() > 0 {
			at := max(b.ready(), from)
			if at > t || (at == t && !incl) {
				return
			}
			p, ok := q.Dequeue(at)
			if !ok {
				return // everything left was dropped
			}
			b.take(at, p.Len)
			from, res.End = at, at
			if !incl {
				timerAt = at
			}
		}
	}
	for _, a := range trace {
		run(a.Time, false)
		if timerAt >= 0 {
			res.Order = min(res.Order, a.Time-timerAt)
		}
		switch ready := b.ready(); {
		case q.Qlen() > 0 || ready > a.Time:
			res.Order = min(res.Order, max(ready, from)-a.Time)
		case ready > b.at:
			// The bucket refilled from below zero before this arrival:
			// the kernel's timer notices that (HTB's class mode changes)
			// and a packet that arrives before the timer fires waits
			// for it.
			res.Order = min(res.Order, a.Time-ready)
		}
		from = a.Time
		res.End = max(res.End, a.Time)
		q.Enqueue(a.Time, a.Packet)
		run(a.Time, true)
	}
	run(1<<62, false)
	return res
}
