// SPDX-License-Identifier: Apache-2.0

package cake

import "math"

// Arrival is one packet offered to the qdisc at time At (ns).
type Arrival struct {
	At  int64
	Pkt Packet
}

// Link describes the device below the qdisc. Without a NIC it is the
// "immediate" device (veth without XDP/GRO, which never returns
// NETDEV_TX_BUSY): every enqueue is followed by dequeues until the qdisc
// returns nothing, as __dev_xmit_skb → __qdisc_run does, and every
// watchdog expiry (hrtimer → __netif_schedule → net_tx_action) runs the
// same loop. The kernel yields after 64 packets (dev_tx_weight) and
// resumes in softirq a little later; the model dequeues them all at the
// same instant. With a NIC the loop also stops while BQL has the NIC's
// queue stopped, and each completion that restarts it runs the loop.
type Link struct {
	// Deliver, if set, receives every packet the device takes, with the
	// time it was dequeued.
	Deliver func(now int64, p *Packet)
	// Until bounds the watchdog wakeups (and NIC completions) served
	// after the last arrival; 0 serves them until nothing is left.
	Until int64
	// NIC, if set, is a BQL-limited device queue below the qdisc. Its
	// completions are the model's own events, exact by construction: they
	// take no part in the timing margins.
	NIC *NIC
}

// Driver feeds a Qdisc the way the immediate link does, for callers that
// generate traffic in reaction to departures (closed-loop sources).
type Driver struct {
	Q    *Qdisc
	Link Link
}

// drain dequeues at now until the qdisc returns nothing or the NIC's
// queue is stopped.
func (d *Driver) drain(now int64) {
	nic := d.Link.NIC
	for nic == nil || !nic.stopped {
		p, ok := d.Q.Dequeue(now)
		if !ok {
			return
		}
		if d.Link.Deliver != nil {
			d.Link.Deliver(now, &p)
		}
		if nic != nil {
			nic.push(now, &p)
		}
	}
}

// Next returns the time of the next event the driver serves by itself (a
// watchdog expiry or a NIC completion), if there is one: for callers whose
// sources react to departures.
func (d *Driver) Next() (int64, bool) {
	w, armed := d.Q.NextWakeup()
	if nic := d.Link.NIC; nic != nil {
		if c, busy := nic.next(); busy && (!armed || c <= w) {
			return c, true
		}
	}
	return w, armed
}

// AdvanceTo serves every watchdog expiry and NIC completion at or before
// t, in time order (a completion first when both fall at one instant).
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
		if nic := d.Link.NIC; nic != nil {
			if c, busy := nic.next(); busy && c <= t && (!armed || c <= w) {
				d.drain(nic.complete())
				continue
			}
		}
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
// the watchdog and the NIC up to link.Until (or until nothing is left). A recorded
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
		w, ok := d.Next()
		if !ok {
			return
		}
		d.AdvanceTo(w)
	}
}
