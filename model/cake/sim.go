// SPDX-License-Identifier: Apache-2.0

package cake

import "math"

// Arrival is one packet offered to the qdisc at time At (ns).
type Arrival struct {
	At  int64
	Pkt Packet
}

// Link describes the device below the qdisc. Only the "immediate" device
// (veth without XDP/GRO, which never returns NETDEV_TX_BUSY) is modelled:
// every enqueue is followed by dequeues until the qdisc returns nothing, as
// __dev_xmit_skb → __qdisc_run does, and every watchdog expiry (hrtimer →
// __netif_schedule → net_tx_action) runs the same loop. The kernel yields
// after 64 packets (dev_tx_weight) and resumes in softirq a little later;
// the model dequeues them all at the same instant.
type Link struct {
	// Deliver, if set, receives every packet the device takes, with the
	// time it was dequeued.
	Deliver func(now int64, p *Packet)
	// Until bounds the watchdog wakeups served after the last arrival;
	// 0 serves them until the watchdog stays disarmed.
	Until int64
}

// Driver feeds a Qdisc the way the immediate link does, for callers that
// generate traffic in reaction to departures (closed-loop sources).
type Driver struct {
	Q    *Qdisc
	Link Link
}

// drain dequeues at now until the qdisc returns nothing.
func (d *Driver) drain(now int64) {
	for {
		p, ok := d.Q.Dequeue(now)
		if !ok {
			return
		}
		if d.Link.Deliver != nil {
			d.Link.Deliver(now, &p)
		}
	}
}

// AdvanceTo serves every watchdog expiry at or before t, in time order.
func (d *Driver) AdvanceTo(t int64) {
	d.advance(t)
}

// advance serves the watchdog up to t and returns the last expiry served
// that found packets queued (or MinInt64). An expiry on an empty qdisc
// changes nothing (cake_dequeue returns at once when qlen is 0, before
// touching any state), so its order against an arrival cannot matter: the
// decaying-flow timer an unshaped CAKE arms after draining is such an expiry.
func (d *Driver) advance(t int64) int64 {
	last := int64(math.MinInt64)
	for {
		w, armed := d.Q.NextWakeup()
		if !armed || w > t {
			return last
		}
		d.Q.WatchdogFired(w)
		if d.Q.Qlen() > 0 {
			last = w
		}
		d.drain(w)
	}
}

// Send serves the watchdog up to now, then enqueues p and drains. Deliver
// must not call Send (the kernel's qdisc is not re-entrant either).
func (d *Driver) Send(now int64, p *Packet) Verdict {
	q := d.Q
	// A kernel timer due at or before now could fire after the arrival
	// (one due later cannot fire earlier).
	if last := d.advance(now); last != math.MinInt64 {
		q.margin(&q.margins.Shaper, now-last)
	}
	v := d.Q.Enqueue(now, p)
	d.drain(now)
	return v
}

// Simulate replays trace (sorted by time) through q on link and then serves
// the watchdog up to link.Until (or until it stays disarmed). A recorded
// trace of enqueue times therefore replays exactly; Margins tells how close
// its timing-dependent decisions were.
func Simulate(q *Qdisc, trace []Arrival, link Link) {
	d := Driver{Q: q, Link: link}
	for i := range trace {
		d.Send(trace[i].At, &trace[i].Pkt)
	}
	if link.Until != 0 {
		d.AdvanceTo(link.Until)
		return
	}
	for {
		w, armed := q.NextWakeup()
		if !armed {
			return
		}
		d.AdvanceTo(w)
	}
}
