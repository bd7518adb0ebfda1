// SPDX-License-Identifier: Apache-2.0

package fqcodel

import "math/bits"

// Arrival is one packet of a trace, offered at Time.
type Arrival struct {
	Time   Time
	Packet Packet
}

// Simulate offers trace (sorted by time) to q and drains it. With rate 0
// the device takes every packet at once (a veth): a packet that finds the
// qdisc empty bypasses it when the qdisc allows, else it is enqueued and
// dequeues follow until the qdisc returns nothing. With a rate in bytes/s
// an ideal serializer charged with qdisc_pkt_len pulls packets whenever
// the previous one has left and the qdisc holds any (a parent shaper such
// as HTB, which never lets a leaf be bypassed). It returns the time the
// queue drained.
func Simulate(q *Qdisc, trace []Arrival, rate uint64) Time {
	var free Time // when the serializer can take the next packet
	var rem uint64
	run := func(t Time, incl bool) {
		for q.Qlen() > 0 && (free < t || (incl && free == t)) {
			p, ok := q.Dequeue(free)
			if !ok {
				return
			}
			quo, r := bits.Div64(0, uint64(p.Len)*1e9+rem, rate)
			free, rem = free+Time(quo), r
		}
	}
	end := Time(0)
	for _, a := range trace {
		end = max(end, a.Time)
		if rate == 0 {
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
			continue
		}
		run(a.Time, false)
		if q.Qlen() == 0 && free < a.Time {
			free, rem = a.Time, 0
		}
		q.Enqueue(a.Time, a.Packet)
		run(a.Time, true)
	}
	if rate != 0 {
		run(1<<62, true)
		end = max(end, free)
	}
	return end
}
