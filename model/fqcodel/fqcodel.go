// SPDX-License-Identifier: Apache-2.0

package fqcodel

import (
	"math"

	"github.com/gotc/gotc/attrs"
)

// Time is a virtual CLOCK_MONOTONIC instant in ns.
type Time = int64

// NoMargin is a margin when no timing decision was taken.
const NoMargin = math.MaxInt64

// ECN codepoints (the low two bits of the DS field).
const (
	NotECT = 0
	ECT1   = 1
	ECT0   = 2
	CE     = 3
)

// Packet is one skb as fq_codel's enqueue sees it.
type Packet struct {
	ID uint64
	// Len is qdisc_pkt_len (for GSO, with the segments' headers).
	Len uint32
	// Truesize is skb->truesize, what memory_limit counts unless Wmem.
	Truesize uint32
	// Wmem says the skb is charged to the write memory of the socket
	// that sent it (is_skb_wmem: a local sender's, until the device frees
	// it): fq_codel then leaves it out of memory_usage, as the socket's
	// send buffer bounds it already.
	Wmem bool
	// IP says the packet is IPv4 or IPv6: only those carry a DS field that
	// INET_ECN_set_ce and skb_get_dsfield read.
	IP bool
	// DSField is the TOS / traffic class byte, ECN in its low two bits.
	DSField uint8
	// Priority is skb->priority.
	Priority uint32
	// Flow stands for the kernel's random flow hash when Priority does not
	// select a flow: the flow is Flow modulo the number of flows.
	Flow uint32
}

// Fate is what became of a packet.
type Fate uint8

// Fates.
const (
	// FateDelivered: dequeued (or bypassed) to the device.
	FateDelivered Fate = iota
	// FateDropCodel: dropped by CoDel at dequeue.
	FateDropCodel
	// FateDropOverlimit: dropped by fq_codel_drop (limit or memory).
	FateDropOverlimit
)

// Event reports a packet's fate at Time; Marked says CE was set on it
// (by CoDel or ce_threshold) before delivery.
type Event struct {
	Time    Time
	Packet  *Packet
	Arrived Time
	Flow    int
	Fate    Fate
	Marked  bool
}

// codelVars is struct codel_vars.
type codelVars struct {
	count, lastcount uint32
	dropping         bool
	recInvSqrt       uint16
	firstAboveTime   uint32
	dropNext, ldelay uint32
}

type entry struct {
	p       Packet
	mem     uint32 // what it adds to memory_usage (codel_skb_cb's mem_usage)
	enq     uint32 // codel_time_t of enqueue
	arrived Time
	marked  bool
}

// list says which of the qdisc's lists a flow is on.
type list uint8

const (
	onNone list = iota
	onNew
	onOld
)

type flow struct {
	q       []entry
	backlog uint32
	deficit int32
	on      list
	cv      codelVars
}

// Stats is what a dump reports.
type Stats struct {
	Basic  attrs.GnetStatsBasic
	Queue  attrs.GnetStatsQueue
	Xstats attrs.TCFQCodelQdStats
}

// Qdisc is one fq_codel instance.
type Qdisc struct {
	p                  params
	handle             uint32
	flows              []flow
	newFlows, oldFlows []int
	qlen, backlog      uint32
	memoryUsage        uint32
	bytes, packets     uint64
	drops              uint32
	maxpacket          uint32
	ecnMark, ceMark    uint32
	dropOverlimit      uint32
	dropOvermemory     uint32
	newFlowCount       uint32
	margin             int64
	hook               func(Event)
}

// New returns an fq_codel with cfg applied to the kernel's defaults, on
// a device whose psched_mtu is mtu (0: DefaultMTU), with handle (major in
// the upper 16 bits) for the priority classification. dumped says cfg is
// a dump of a live qdisc: its times, which the dump rounds down to µs, are
// taken as the codel times that dump them.
func New(cfg attrs.FQCodelAttrs, mtu, handle uint32, dumped bool) (*Qdisc, error) {
	if mtu == 0 {
		mtu = DefaultMTU
	}
	p := defaults(mtu)
	toCodel := usToCodel
	if dumped {
		toCodel = dumpedToCodel
	}
	if err := p.apply(&cfg, toCodel); err != nil {
		return nil, err
	}
	return &Qdisc{p: p, handle: handle &^ 0xffff, flows: make([]flow, p.flows), margin: NoMargin}, nil
}

// Config is fq_codel_dump.
func (q *Qdisc) Config() attrs.FQCodelAttrs { return q.p.dump() }

// SetHook sets the function that learns every packet's fate.
func (q *Qdisc) SetHook(fn func(Event)) { q.hook = fn }

// Qlen is sch->q.qlen.
func (q *Qdisc) Qlen() int { return int(q.qlen) }

// Margin is the smallest distance (ns) by which a timing comparison of
// CoDel went the way it did, NoMargin if none was taken.
func (q *Qdisc) Margin() int64 { return q.margin }

// CanBypass says the qdisc has TCQ_F_CAN_BYPASS (limit >= 1): a packet
// that finds it empty skips it.
func (q *Qdisc) CanBypass() bool { return q.p.limit >= 1 }

// Bypass is __dev_xmit_skb's bypass of an empty qdisc: the packet is
// counted and sent.
func (q *Qdisc) Bypass(now Time, p Packet) {
	q.bytes += uint64(p.Len)
	q.packets++
	q.report(Event{Time: now, Packet: &p, Arrived: now, Flow: -1, Fate: FateDelivered})
}

func (q *Qdisc) report(ev Event) {
	if q.hook != nil {
		q.hook(ev)
	}
}

// classify is fq_codel_classify without filters; see the package doc.
func (q *Qdisc) classify(p *Packet) int {
	if p.Priority&^0xffff == q.handle {
		if m := p.Priority & 0xffff; m > 0 && m <= q.p.flows {
			return int(m - 1)
		}
	}
	return int(p.Flow % q.p.flows)
}

// FlowOf is the flow index classify picks for p.
func (q *Qdisc) FlowOf(p *Packet) int { return q.classify(p) }

// Enqueue is fq_codel_enqueue at now.
func (q *Qdisc) Enqueue(now Time, p Packet) {
	idx := q.classify(&p)
	f := &q.flows[idx]
	e := entry{p: p, enq: uint32(now >> codelShift), arrived: now}
	if !p.Wmem {
		e.mem = p.Truesize
	}
	f.q = append(f.q, e)
	f.backlog += p.Len
	q.backlog += p.Len
	if f.on == onNone {
		f.on = onNew
		q.newFlows = append(q.newFlows, idx)
		q.newFlowCount++
		f.deficit = int32(q.p.quantum)
	}
	q.memoryUsage += e.mem
	memoryLimited := q.memoryUsage > q.p.memoryLimit
	q.qlen++
	if q.qlen <= q.p.limit && !memoryLimited {
		return
	}
	before := q.qlen
	q.dropFattest(now)
	n := before - q.qlen
	q.dropOverlimit += n
	if memoryLimited {
		q.dropOvermemory += n
	}
}

// dropFattest is fq_codel_drop.
func (q *Qdisc) dropFattest(now Time) {
	var maxBacklog uint32
	idx := 0
	for i := range q.flows {
		if q.flows[i].backlog > maxBacklog {
			maxBacklog, idx = q.flows[i].backlog, i
		}
	}
	threshold := maxBacklog >> 1
	f := &q.flows[idx]
	var n, length uint32
	for {
		e := f.pop()
		length += e.p.Len
		q.memoryUsage -= e.mem
		q.report(Event{Time: now, Packet: &e.p, Arrived: e.arrived, Flow: idx, Fate: FateDropOverlimit})
		n++
		if n >= q.p.dropBatch || length >= threshold {
			break
		}
	}
	f.cv.count += n
	f.backlog -= length
	q.drops += n
	q.backlog -= length
	q.qlen -= n
}

func (f *flow) pop() entry {
	e := f.q[0]
	f.q = f.q[1:]
	if len(f.q) == 0 {
		f.q = f.q[:0:0]
	}
	return e
}

// dequeueFunc is fq_codel's dequeue_func.
func (q *Qdisc) dequeueFunc(f *flow) *entry {
	if len(f.q) == 0 {
		return nil
	}
	e := f.pop()
	f.backlog -= e.p.Len
	q.memoryUsage -= e.mem
	q.qlen--
	q.backlog -= e.p.Len
	return &e
}

// Dequeue is fq_codel_dequeue at now; false when it returns nothing.
func (q *Qdisc) Dequeue(now Time) (Packet, bool) {
	for {
		head := &q.newFlows
		if len(*head) == 0 {
			head = &q.oldFlows
			if len(*head) == 0 {
				return Packet{}, false
			}
		}
		idx := (*head)[0]
		f := &q.flows[idx]
		if f.deficit <= 0 {
			f.deficit += int32(q.p.quantum)
			*head = (*head)[1:]
			f.on = onOld
			q.oldFlows = append(q.oldFlows, idx)
			continue
		}
		e := q.codelDequeue(now, idx)
		if e == nil {
			*head = (*head)[1:]
			if head == &q.newFlows && len(q.oldFlows) > 0 {
				f.on = onOld
				q.oldFlows = append(q.oldFlows, idx)
			} else {
				f.on = onNone
			}
			continue
		}
		q.bytes += uint64(e.p.Len)
		q.packets++
		f.deficit -= int32(e.p.Len)
		q.report(Event{Time: now, Packet: &e.p, Arrived: e.arrived, Flow: idx, Fate: FateDelivered, Marked: e.marked})
		return e.p, true
	}
}

// Stats is fq_codel's dump of its statistics.
func (q *Qdisc) Stats() Stats {
	return Stats{
		Basic: attrs.GnetStatsBasic{Bytes: q.bytes, Packets: uint32(q.packets)},
		Queue: attrs.GnetStatsQueue{Qlen: q.qlen, Backlog: q.backlog, Drops: q.drops},
		Xstats: attrs.TCFQCodelQdStats{Maxpacket: q.maxpacket, DropOverlimit: q.dropOverlimit, ECNMark: q.ecnMark,
			NewFlowCount: q.newFlowCount, NewFlowsLen: uint32(len(q.newFlows)), OldFlowsLen: uint32(len(q.oldFlows)),
			CEMark: q.ceMark, MemoryUsage: q.memoryUsage, DropOvermemory: q.dropOvermemory},
	}
}

// XstatsMsg is Stats' tc_fq_codel_xstats as the kernel sends it (type 0,
// the qdisc's statistics in the union).
func (s Stats) XstatsMsg() attrs.TCFQCodelXstats {
	var x attrs.TCFQCodelXstats
	copy(x.Union[:], s.Xstats.Append(nil))
	return x
}
