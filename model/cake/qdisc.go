// SPDX-License-Identifier: Apache-2.0

package cake

import (
	"math"

	"github.com/gotc/gotc/attrs"
)

// Flow states (CAKE_SET_*).
const (
	setNone       uint8 = iota
	setSparse           // in new_flows (or old_flows), counted sparse
	setSparseWait       // in old_flows but still counted sparse
	setBulk
	setDecaying
)

// Flow lists of a tin.
const (
	listNone uint8 = iota
	listNew
	listOld
	listDecaying
)

const nilIdx = -1

// flow is struct cake_flow. Packets live in the Qdisc's entry pool and are
// chained through entry.next; flows are chained into the tin's lists
// through prev/next indices.
type flow struct {
	head, tail int32
	prev, next int16
	list       uint8
	set        uint8
	srchost    uint16
	dsthost    uint16
	deficit    int32
	dropped    uint32
	// acks counts the queued packets that could be dropped by the ACK
	// filter (pureACK): the filter needs one (aggressive) or two such
	// packets ahead of the trigger, so it skips the scan when there are
	// fewer. It fills what was padding before cv.
	acks uint32
	cv   cobaltVars
}

type host struct {
	srcTag, dstTag   uint32
	srcBulk, dstBulk uint16
}

type chain struct{ head, tail int16 }

type heapEntry struct {
	t uint8
	b uint16
}

// tin is struct cake_tin_data.
type tin struct {
	flows       [numQueues]flow
	backlogs    [numQueues]uint32
	tags        [numQueues]uint32
	overflowIdx [numQueues]uint16
	hosts       [numQueues]host
	lists       [4]chain // indexed by listNew/listOld/listDecaying

	flowQuantum uint16
	cp          cobaltParams

	dropOverlimit uint32
	bulk          uint16
	sparse        uint16
	decaying      uint16
	unresponsive  uint16
	maxSkblen     uint32

	timeNext  int64
	rateNs    uint64
	rateBps   uint64
	rateShift uint16

	tinQuantum uint16
	tinDeficit int32
	backlog    uint32
	dropped    uint32
	ecnMark    uint32
	packets    uint32
	bytes      uint64
	ackDrops   uint32

	avgeDelay, peakDelay, baseDelay uint64

	wayDirects, wayHits, wayMisses, wayCollisions uint32
}

func (t *tin) addTail(i int16, l uint8) {
	f := &t.flows[i]
	c := &t.lists[l]
	f.list, f.next, f.prev = l, nilIdx, c.tail
	if c.tail == nilIdx {
		c.head = i
	} else {
		t.flows[c.tail].next = i
	}
	c.tail = i
}

func (t *tin) unlink(i int16) {
	f := &t.flows[i]
	if f.list == listNone {
		return
	}
	c := &t.lists[f.list]
	if f.prev == nilIdx {
		c.head = f.next
	} else {
		t.flows[f.prev].next = f.next
	}
	if f.next == nilIdx {
		c.tail = f.prev
	} else {
		t.flows[f.next].prev = f.prev
	}
	f.list, f.prev, f.next = listNone, nilIdx, nilIdx
}

func (t *tin) moveTail(i int16, l uint8) {
	t.unlink(i)
	t.addTail(i, l)
}

// entry is one queued skb: the packet and its qdisc control block
// (enqueue time and adjusted length, struct cobalt_skb_cb).
type entry struct {
	next int32 // first, with the packet's lengths: dequeue reads these
	adj  uint32
	enq  int64
	pkt  Packet
}

// Verdict is what the enqueue returns to the stack.
type Verdict uint8

// Enqueue verdicts.
const (
	// XmitSuccess is NET_XMIT_SUCCESS: the packet was queued (other
	// flows may have lost packets to the memory limit).
	XmitSuccess Verdict = iota
	// XmitCN is NET_XMIT_CN: the memory limit dropped from the packet's
	// own flow (possibly the packet itself).
	XmitCN
)

// Rand is the source of get_random_u32()/get_random_u16(). The model draws
// u16 values as the low 16 bits of Uint32.
type Rand interface{ Uint32() uint32 }

// Margins are the smallest timing margins (ns) of the model's decisions
// since the last ResetMargins; math.MaxInt64 means no such decision.
//
// Enqueue times come from the trace and are exact, but the kernel runs
// dequeues later than the model does (hrtimer and softirq latency, the
// instructions between enqueue and dequeue). For a decision taken at a
// dequeue the margin is one-sided: how much later the clock could have
// read without changing the outcome. Decisions at enqueue (stale shaper
// state, BLUE increments) and the order of a watchdog expiry and the next
// arrival are two-sided. A replay of a kernel run can be trusted to match
// exactly only if every margin exceeds the kernel's latency (~200 µs is a
// safe bound).
type Margins struct {
	// Shaper: the global shaper (dequeue held back, stale time_next at an
	// idle enqueue), the choice among shaped tins, and watchdog-vs-arrival
	// ordering in Driver/Simulate. This governs overlimits and timing.
	Shaper int64
	// AQM: COBALT's sojourn against its thresholds, now against
	// drop_next, the BLUE timer against target, and the decay check. This
	// governs drops, marks and the flow counts.
	AQM int64
}

// Qdisc is one CAKE instance (struct cake_sched_data plus the generic
// qdisc counters it feeds).
type Qdisc struct {
	p        params
	mtu      uint32
	handle   uint32
	tins     [maxTins]tin
	heap     [numQueues * maxTins]heapEntry
	tinCnt   uint16
	tinIndex *[64]uint8
	tinOrder *[8]uint8

	overflowTimeout uint16
	curTin, curFlow uint16

	rateShift    uint16
	rateNs       uint64
	timeNext     int64
	failsafeNext int64

	bufferUsed, bufferMaxUsed, bufferLimit uint32

	lastPacketTime, avgWindowBegin, lastReconfig int64
	avgPacketInterval, avgWindowBytes, avgPeak   uint64

	avgNetoff                                  uint32
	maxNetlen, maxAdjlen, minNetlen, minAdjlen uint16

	// Generic qdisc counters (sch->q.qlen, sch->qstats, sch->bstats).
	qlen, backlog, drops, overlimits uint32
	sentBytes                        uint64
	sentPackets                      uint32

	// Watchdog: a single hrtimer, reprogrammed by every schedule call.
	wdArmed bool
	wdTime  int64

	pool []entry
	free int32

	rnd      Rand
	rngState uint64
	seed     uint64
	hashFlow func(*Packet) uint32
	hashHost func(L3, *[16]byte) uint32
	dropHook func(now int64, p *Packet, r DropReason)
	margins  Margins
}

// Option configures the model beyond what netlink configures.
type Option func(*Qdisc)

// WithRand replaces the default seeded PRNG for quantum dithering and BLUE.
func WithRand(r Rand) Option { return func(q *Qdisc) { q.rnd = r } }

// WithSeed seeds the default PRNG and the default hashes.
func WithSeed(s uint64) Option {
	return func(q *Qdisc) { q.rngState, q.seed = s, mix64(s^0x9e3779b97f4a7c15) }
}

// WithHasher replaces the flow and host hashes (nil fields keep defaults).
func WithHasher(h Hasher) Option {
	return func(q *Qdisc) { q.hashFlow, q.hashHost = h.Flow, h.Host }
}

// WithMTU sets psched_mtu(dev) = dev->mtu + hard_header_len (default 1514,
// a 1500-byte Ethernet device such as veth).
func WithMTU(m uint32) Option { return func(q *Qdisc) { q.mtu = m } }

// WithHandle sets the qdisc handle (major in the top 16 bits), which
// skb->priority must match to select a tin. The default 0x80010000 is the
// first handle the kernel assigns when none is given.
func WithHandle(h uint32) Option { return func(q *Qdisc) { q.handle = h &^ 0xffff } }

// WithDropHook calls f for every packet the model drops, with the reason.
// The packet is only valid during the call.
func WithDropHook(f func(now int64, p *Packet, r DropReason)) Option {
	return func(q *Qdisc) { q.dropHook = f }
}

// WithCapacity preallocates room for n queued packets (default 4096). The
// pool grows by doubling when exceeded; steady-state operation then
// allocates nothing.
func WithCapacity(n int) Option {
	return func(q *Qdisc) { q.grow(max(n, 1)) }
}

// New creates a CAKE instance as cake_init does: kernel defaults, then the
// attributes present in cfg (cake_change semantics).
func New(cfg attrs.CakeAttrs, opts ...Option) (*Qdisc, error) {
	q := &Qdisc{p: defaultParams(), mtu: 1514, handle: 0x80010000, free: nilIdx}
	WithSeed(1)(q)
	if _, err := q.p.change(&cfg); err != nil {
		return nil, err
	}
	for _, o := range opts {
		o(q)
	}
	if q.pool == nil {
		q.grow(4096)
	}
	for i := range q.tins {
		t := &q.tins[i]
		for l := range t.lists {
			t.lists[l] = chain{nilIdx, nilIdx}
		}
		for j := range t.flows {
			f := &t.flows[j]
			f.head, f.tail, f.prev, f.next = nilIdx, nilIdx, nilIdx, nilIdx
			k := j*maxTins + i
			q.heap[k] = heapEntry{t: uint8(i), b: uint16(j)}
			t.overflowIdx[j] = uint16(k)
		}
	}
	q.reconfigure()
	q.avgPeak = q.p.rateBps
	q.minNetlen, q.minAdjlen = 0xffff, 0xffff
	q.ResetMargins()
	return q, nil
}

// Change applies a "tc qdisc change": only the attributes present in cfg
// change, then the tins are reconfigured (cake_change, cake_reconfigure).
// Counters are kept; packets in tins beyond the new tin count are purged.
func (q *Qdisc) Change(cfg attrs.CakeAttrs) error {
	reset, err := q.p.change(&cfg)
	if err != nil {
		return err
	}
	if reset {
		q.maxNetlen, q.maxAdjlen = 0, 0
		q.minNetlen, q.minAdjlen = 0xffff, 0xffff
	}
	q.reconfigure()
	return nil
}

// Config returns the options as cake_dump reports them.
func (q *Qdisc) Config() attrs.CakeAttrs { return q.p.dump() }

func (q *Qdisc) grow(n int) {
	old := len(q.pool)
	if n <= old {
		return
	}
	np := make([]entry, n)
	copy(np, q.pool)
	q.pool = np
	for i := n - 1; i >= old; i-- {
		q.pool[i].next = q.free
		q.free = int32(i)
	}
}

func (q *Qdisc) alloc() int32 {
	if q.free == nilIdx {
		q.grow(2 * len(q.pool))
	}
	i := q.free
	q.free = q.pool[i].next
	q.pool[i].next = nilIdx
	return i
}

func (q *Qdisc) release(i int32) {
	q.pool[i].next = q.free
	q.free = i
}

func (q *Qdisc) rand32() uint32 {
	if q.rnd != nil {
		return q.rnd.Uint32()
	}
	q.rngState += 0x9e3779b97f4a7c15
	return uint32(mix64(q.rngState) >> 32)
}

// margin records a two-sided margin: a comparison between exact times.
func (q *Qdisc) margin(m *int64, d int64) {

	if d < 0 {
		d = -d
	}
	if d < *m {
		*m = d
	}
}

// late records a one-sided margin: the decision taken at now would flip if
// the kernel's clock ran d ns or more later than the model's (d < 0: it
// cannot flip that way). Dequeues in the kernel only ever run later than
// the model's instants (timer and softirq latency), never earlier.
func (q *Qdisc) late(m *int64, d int64) {

	if d >= 0 && d < *m {
		*m = d
	}
}

// Margins returns the smallest decision margins since ResetMargins.
func (q *Qdisc) Margins() Margins { return q.margins }

// ResetMargins forgets the recorded margins (New starts with none).
func (q *Qdisc) ResetMargins() { q.margins = Margins{math.MaxInt64, math.MaxInt64} }

func (q *Qdisc) schedule(t int64) { q.wdArmed, q.wdTime = true, t }

// NextWakeup returns when the qdisc watchdog fires next, if armed. The
// kernel keeps one hrtimer and reprograms it on every request, so this is
// the latest deadline asked for, not the earliest.
func (q *Qdisc) NextWakeup() (int64, bool) { return q.wdTime, q.wdArmed }

// WatchdogFired disarms the watchdog at time now; the caller then dequeues
// until Dequeue fails, as net_tx_action does.
func (q *Qdisc) WatchdogFired(now int64) {
	q.wdArmed = false
}

func flowHead(f *flow) bool { return f.head != nilIdx }

// dequeueHead removes the head packet of f.
func (q *Qdisc) dequeueHead(f *flow) int32 {
	i := f.head
	if i != nilIdx {
		e := &q.pool[i]
		f.head = e.next
		if f.head == nilIdx {
			f.tail = nilIdx
		}
		e.next = nilIdx
		if pureACK(&e.pkt) {
			f.acks--
		}
	}
	return i
}

func (q *Qdisc) flowAdd(f *flow, i int32) {
	if f.head == nilIdx {
		f.head = i
	} else {
		q.pool[f.tail].next = i
	}
	f.tail = i
	e := &q.pool[i]
	e.next = nilIdx
	if pureACK(&e.pkt) {
		f.acks++
	}
}

// diffserv is cake_handle_diffserv: the DSCP, washed to 0 (keeping ECN)
// if asked.
func diffserv(p *Packet, wash bool) uint8 {
	switch p.L3 {
	case L3IPv4, L3IPv6:
		d := p.DSField >> 2
		if wash && d != 0 {
			p.DSField &= 3
		}
		return d
	case L3ARP:
		return 0x38 // CS7, network control
	}
	return 0
}

// selectTin is cake_select_tin.
func (q *Qdisc) selectTin(p *Packet) uint16 {
	mark := (p.Mark & q.p.fwmarkMask) >> q.p.fwmarkShift
	wash := q.p.rateFlags&flagWash != 0
	var dscp uint8
	if wash {
		dscp = diffserv(p, true)
	}
	minor := p.Priority & 0xffff
	switch {
	case q.p.tinMode == uint8(attrs.CakeDiffservModeBesteffort):
		return 0
	case mark != 0 && mark <= uint32(q.tinCnt):
		return uint16(q.tinOrder[mark-1])
	case p.Priority&^0xffff == q.handle && minor > 0 && minor <= uint32(q.tinCnt):
		return uint16(q.tinOrder[minor-1])
	}
	if !wash {
		dscp = diffserv(p, false)
	}
	t := uint16(q.tinIndex[dscp])
	if t >= q.tinCnt {
		t = 0
	}
	return t
}

// TinOf returns the dump position (0-based, the order of Stats' TinStats)
// of the tin p would be queued in, without changing any state.
func (q *Qdisc) TinOf(p Packet) int {
	t := q.selectTin(&p)
	for i := 0; i < int(q.tinCnt); i++ {
		if uint16(q.tinOrder[i]) == t {
			return i
		}
	}
	return -1
}

func ewma(avg, sample uint64, shift uint) uint64 {
	avg -= avg >> shift
	avg += sample >> shift
	return avg
}

// calcOverhead is cake_calc_overhead, in u32 arithmetic with the u16
// statistics truncating as in the kernel.
func (q *Qdisc) calcOverhead(l, off uint32) uint32 {
	if q.p.rateFlags&flagOverhead != 0 {
		l -= off
	}
	if uint32(q.maxNetlen) < l {
		q.maxNetlen = uint16(l)
	}
	if uint32(q.minNetlen) > l {
		q.minNetlen = uint16(l)
	}
	l += uint32(int32(q.p.overhead))
	if l < uint32(q.p.mpu) {
		l = uint32(q.p.mpu)
	}
	switch q.p.atmMode {
	case uint8(attrs.CakeATMModeATM):
		l = (l + 47) / 48 * 53
	case uint8(attrs.CakeATMModePTM):
		l += (l + 63) / 64
	}
	if uint32(q.maxAdjlen) < l {
		q.maxAdjlen = uint16(l)
	}
	if uint32(q.minAdjlen) > l {
		q.minAdjlen = uint16(l)
	}
	return l
}

// overhead is cake_overhead: the adjusted (on-the-wire) length of p; for
// an unsplit GSO packet, each segment's.
func (q *Qdisc) overhead(p *Packet) uint32 {
	off := uint32(p.NetOffset)
	q.avgNetoff = uint32(ewma(uint64(q.avgNetoff), uint64(off)<<16, 8))
	segs := p.segs()
	if segs == 1 {
		return q.calcOverhead(p.PktLen(), off)
	}
	l := uint32(p.GSOSize) + uint32(p.HdrLen)
	last := p.Len - uint32(p.GSOSize)*(segs-1)
	return q.calcOverhead(l, off)*(segs-1) + q.calcOverhead(last, off)
}

// AdjustedLen returns the adjusted length the shaper would charge for p,
// without changing any state.
func (q *Qdisc) AdjustedLen(p Packet) uint32 {
	save := [5]uint32{q.avgNetoff, uint32(q.maxNetlen), uint32(q.minNetlen), uint32(q.maxAdjlen), uint32(q.minAdjlen)}
	l := q.overhead(&p)
	q.avgNetoff = save[0]
	q.maxNetlen, q.minNetlen = uint16(save[1]), uint16(save[2])
	q.maxAdjlen, q.minAdjlen = uint16(save[3]), uint16(save[4])
	return l
}

// Enqueue is cake_enqueue at time now (ns on CLOCK_MONOTONIC; see the
// package doc on starting well after 0).
func (q *Qdisc) Enqueue(now int64, in *Packet) Verdict {
	// Work on the packet in its pool entry: taking the address of a local
	// copy and handing it to an injected hash would make it escape.
	i0 := q.alloc()
	e0 := &q.pool[i0]
	e0.pkt = *in
	pkt := &e0.pkt
	tinIdx := q.selectTin(pkt)
	t := &q.tins[tinIdx]
	idx := q.hash(t, pkt)
	f := &t.flows[idx]

	// Ensure the shaper state isn't stale.
	if t.backlog == 0 {
		if t.timeNext < now {
			t.timeNext = now
		}
		if q.qlen == 0 {
			// Unshaped, cake_advance_shaper never moves time_next_packet
			// past the last idle enqueue, so it is never ahead of now
			// and this comparison cannot flip: no margin to record.
			if q.rateNs != 0 {
				q.margin(&q.margins.Shaper, q.timeNext-now)
			}
			if q.timeNext < now {
				q.failsafeNext = now
				q.timeNext = now
			} else if q.timeNext > now && q.failsafeNext > now {
				q.overlimits++
				q.schedule(min(q.timeNext, q.failsafeNext))
			}
		}
	}

	l := pkt.PktLen()
	if l > t.maxSkblen {
		t.maxSkblen = l
	}

	if segs := pkt.segs(); segs > 1 && q.p.rateFlags&flagSplitGSO != 0 {
		tmpl := *pkt
		var slen uint32
		ts := tmpl.SegTruesize
		if ts == 0 {
			ts = (tmpl.Truesize + segs - 1) / segs
		}
		for s := uint32(0); s < segs; s++ {
			i := i0
			if s > 0 {
				i = q.alloc()
			}
			e := &q.pool[i]
			e.pkt = tmpl
			e.pkt.GSOSegs, e.pkt.GSOSize = 0, 0
			e.pkt.Truesize, e.pkt.SegTruesize = ts, 0
			pay := uint32(tmpl.GSOSize)
			e.pkt.Len = uint32(tmpl.HdrLen) + pay
			if s == segs-1 {
				e.pkt.Len = tmpl.Len - pay*(segs-1)
				pay = e.pkt.Len - uint32(tmpl.HdrLen)
			}
			e.pkt.Seq = tmpl.Seq + s*uint32(tmpl.GSOSize)
			e.pkt.PayloadLen = pay
			e.enq = now
			e.adj = q.overhead(&e.pkt)
			q.flowAdd(f, i)
			q.qlen++
			slen += e.pkt.Len
			q.bufferUsed += ts
			t.packets++
		}
		t.bytes += uint64(slen)
		t.backlogs[idx] += slen
		t.backlog += slen
		q.backlog += slen
		q.avgWindowBytes += uint64(slen)
	} else {
		e0.enq = now
		e0.adj = q.overhead(pkt)
		truesize := pkt.Truesize
		q.flowAdd(f, i0)
		var ackLen uint32
		ack := int32(nilIdx)
		// ackFilter finds nothing without a pureACK queued (see there).
		if q.p.ackFilter != 0 && f.acks != 0 {
			ack = q.ackFilter(f)
		}
		if ack != nilIdx {
			a := &q.pool[ack]
			t.ackDrops++
			q.drops++
			ackLen = a.pkt.PktLen()
			t.bytes += uint64(ackLen)
			q.bufferUsed += truesize - a.pkt.Truesize
			if q.p.rateFlags&flagIngress != 0 {
				q.advanceShaper(t, a.adj, now, true)
			}
			if q.dropHook != nil {
				q.dropHook(now, &a.pkt, DropAck)
			}
			q.release(ack)
		} else {
			q.qlen++
			q.bufferUsed += truesize
		}
		t.packets++
		t.bytes += uint64(l - ackLen)
		t.backlogs[idx] += l - ackLen
		t.backlog += l - ackLen
		q.backlog += l - ackLen
		q.avgWindowBytes += uint64(l - ackLen)
	}

	if q.overflowTimeout != 0 {
		q.heapifyUp(t.overflowIdx[idx])
	}

	if q.p.rateFlags&flagAutorate == 0 {
		q.avgWindowBytes = 0
		q.lastPacketTime = now
	} else {
		q.autorate(now)
	}

	switch f.set {
	case setNone, setDecaying:
		if f.set == setNone {
			t.addTail(int16(idx), listNew)
		} else {
			t.decaying--
			t.moveTail(int16(idx), listNew)
		}
		f.set = setSparse
		t.sparse++
		f.deficit = q.flowQuantum(t, f)
	case setSparseWait:
		// Empty and counted sparse, but already in the bulk rotation.
		f.set = setBulk
		t.sparse--
		t.bulk++
		t.incSrcHost(f, q.p.flowMode)
		t.incDstHost(f, q.p.flowMode)
	}

	if q.bufferUsed > q.bufferMaxUsed {
		q.bufferMaxUsed = q.bufferUsed
	}
	if q.bufferUsed <= q.bufferLimit {
		return XmitSuccess
	}
	prevQlen := q.qlen
	same := false
	for q.bufferUsed > q.bufferLimit && q.qlen > 0 {
		dt, di, ok := q.drop(now)
		if ok && dt == tinIdx && di == idx {
			same = true
		}
	}
	t.dropOverlimit += prevQlen - q.qlen
	if same {
		return XmitCN
	}
	return XmitSuccess
}

// autorate is the ingress capacity estimate of cake_enqueue, with
// autorate on (Enqueue handles the off case inline).
func (q *Qdisc) autorate(now int64) {
	pi := uint64(now - q.lastPacketTime)
	if pi > 1e9 {
		pi = 1e9
	}
	sh := uint(8)
	if pi > q.avgPacketInterval {
		sh = 2
	}
	q.avgPacketInterval = ewma(q.avgPacketInterval, pi, sh)
	q.lastPacketTime = now
	if pi <= q.avgPacketInterval {
		return
	}
	wi := uint64(now - q.avgWindowBegin)
	if wi == 0 {
		wi = 1 // the kernel would divide by zero; a clock never repeats there
	}
	b := q.avgWindowBytes * 1e9 / wi
	sh = 8
	if b > q.avgPeak {
		sh = 2
	}
	q.avgPeak = ewma(q.avgPeak, b, sh)
	q.avgWindowBytes = 0
	q.avgWindowBegin = now
	// last_reconfig_time is never updated by the kernel: every qualifying
	// packet more than 250 ms after boot reconfigures.
	if now > q.lastReconfig+250e6 {
		q.p.rateBps = q.avgPeak * 15 >> 4
		q.reconfigure()
	}
}

// advanceShaper is cake_advance_shaper.
func (q *Qdisc) advanceShaper(t *tin, adj uint32, now int64, drop bool) uint32 {
	if q.rateNs != 0 {
		tinDur := int64((uint64(adj) * t.rateNs) >> t.rateShift)
		globalDur := int64((uint64(adj) * q.rateNs) >> q.rateShift)
		failsafe := globalDur + globalDur>>1
		if t.timeNext < now {
			t.timeNext += tinDur
		} else if t.timeNext < now+tinDur {
			t.timeNext = now + tinDur
		}
		q.timeNext += globalDur
		if !drop {
			q.failsafeNext += failsafe
		}
	}
	return adj
}

func (q *Qdisc) heapBacklog(i uint32) uint32 {
	e := q.heap[i]
	return q.tins[e.t].backlogs[e.b]
}

func (q *Qdisc) heapSwap(i, j uint32) {
	ii, jj := q.heap[i], q.heap[j]
	q.heap[i], q.heap[j] = jj, ii
	q.tins[ii.t].overflowIdx[ii.b] = uint16(j)
	q.tins[jj.t].overflowIdx[jj.b] = uint16(i)
}

// heapify and heapifyUp maintain the kernel's max-heap of queue backlogs
// over all 8×1024 queues; its exact shape decides which of equally fat
// queues loses a packet, so it is mirrored operation for operation.
func (q *Qdisc) heapify(i16 uint16) {
	const a = numQueues * maxTins
	i := uint32(i16)
	mb := q.heapBacklog(i)
	m := i
	for m < a {
		l := m + m + 1
		r := l + 1
		if l < a {
			if lb := q.heapBacklog(l); lb > mb {
				m, mb = l, lb
			}
		}
		if r < a {
			if rb := q.heapBacklog(r); rb > mb {
				m, mb = r, rb
			}
		}
		if m == i {
			break
		}
		q.heapSwap(i, m)
		i = m
	}
}

func (q *Qdisc) heapifyUp(i16 uint16) {
	i := uint32(i16)
	for i > 0 && i < numQueues*maxTins {
		p := (i - 1) >> 1
		if q.heapBacklog(i) <= q.heapBacklog(p) {
			break
		}
		q.heapSwap(i, p)
		i = p
	}
}

// drop is cake_drop: the head packet of the fattest queue goes.
func (q *Qdisc) drop(now int64) (uint16, uint32, bool) {
	if q.overflowTimeout == 0 {
		for i := numQueues*maxTins/2 - 1; i >= 0; i-- {
			q.heapify(uint16(i))
		}
	}
	q.overflowTimeout = 65535
	top := q.heap[0]
	t := &q.tins[top.t]
	idx := uint32(top.b)
	f := &t.flows[idx]
	i := q.dequeueHead(f)
	if i == nilIdx {
		q.overflowTimeout = 0 // heap has gone wrong: rebuild next time
		return uint16(top.t), idx, false
	}
	if q.queueFull(&f.cv, &t.cp, now) {
		t.unresponsive++
	}
	e := &q.pool[i]
	l := e.pkt.PktLen()
	q.bufferUsed -= e.pkt.Truesize
	t.backlogs[idx] -= l
	t.backlog -= l
	q.backlog -= l
	f.dropped++
	t.dropped++
	if q.p.rateFlags&flagIngress != 0 {
		q.advanceShaper(t, e.adj, now, true)
	}
	q.drops++
	q.qlen--
	if q.dropHook != nil {
		q.dropHook(now, &e.pkt, DropOverlimit)
	}
	q.release(i)
	q.heapify(0)
	return uint16(top.t), idx, true
}

// dequeueOne is cake_dequeue_one on (curTin, curFlow).
func (q *Qdisc) dequeueOne() int32 {
	t := &q.tins[q.curTin]
	return q.dequeueFrom(t, &t.flows[q.curFlow], q.curFlow)
}

// dequeueFrom is cake_dequeue_one on queue idx (f) of tin t, with
// dequeueHead written out (the inliner will not take it).
func (q *Qdisc) dequeueFrom(t *tin, f *flow, idx uint16) int32 {
	i := f.head
	if i == nilIdx {
		return i
	}
	e := &q.pool[i]
	f.head = e.next
	if f.head == nilIdx {
		f.tail = nilIdx
	}
	e.next = nilIdx
	if pureACK(&e.pkt) {
		f.acks--
	}
	l := e.pkt.PktLen()
	idx &= numQueues - 1 // always true; drops the bounds checks
	t.backlogs[idx] -= l
	t.backlog -= l
	q.backlog -= l
	q.bufferUsed -= e.pkt.Truesize
	q.qlen--
	if q.overflowTimeout != 0 {
		q.heapify(t.overflowIdx[idx])
	}
	return i
}

// clearTin is cake_clear_tin: purge a tin's packets (no drop counters).
func (q *Qdisc) clearTin(c uint16) {
	q.curTin = c
	for q.curFlow = 0; q.curFlow < numQueues; q.curFlow++ {
		for i := q.dequeueOne(); i != nilIdx; i = q.dequeueOne() {
			q.release(i)
		}
	}
}

// Dequeue is cake_dequeue at time now. It returns false when the qdisc is
// empty or the shaper holds it back (then NextWakeup tells when to retry).
func (q *Qdisc) Dequeue(now int64) (p Packet, ok bool) {
	i := q.dequeue(now)
	if i == nilIdx {
		return p, false
	}
	e := &q.pool[i]
	p = e.pkt
	p.EnqueuedAt = e.enq
	q.release(i)
	return p, true
}

func (q *Qdisc) dequeue(now int64) int32 {
	t := &q.tins[q.curTin]
	first := true
	ingress := q.p.rateFlags&flagIngress != 0
begin:
	for {
		if q.qlen == 0 {
			return nilIdx
		}
		// Global hard shaper.
		if q.timeNext > now && q.failsafeNext > now {
			next := min(q.timeNext, q.failsafeNext)
			q.late(&q.margins.Shaper, next-now-1)
			q.overlimits++
			q.schedule(next)
			return nilIdx
		}
		if q.rateNs == 0 {
			// Unlimited: WRR over the tins on tin_quantum.
			wrapped, empty := false, true
			for t.tinDeficit < 0 || t.sparse+t.bulk == 0 {
				if t.tinDeficit <= 0 {
					t.tinDeficit += int32(t.tinQuantum)
				}
				if t.sparse+t.bulk != 0 {
					empty = false
				}
				q.curTin++
				if q.curTin >= q.tinCnt {
					q.curTin = 0
					if wrapped {
						if empty {
							return nilIdx
						}
					} else {
						wrapped = true
					}
				}
				t = &q.tins[q.curTin]
			}
		} else {
			// Shaped: the highest-priority tin that is due, else the
			// earliest one.
			tins := q.tins[:q.tinCnt]
			best, bestTime, cands := 0, int64(math.MaxInt64), 0
			for i := range tins {
				b := &tins[i]
				if b.sparse+b.bulk > 0 {
					cands++
					ttp := b.timeNext - now
					if ttp <= 0 || ttp <= bestTime {
						bestTime, best = ttp, i
					}
				}
			}
			if cands > 1 {
				// Only a higher tin becoming due can change the
				// choice when the clock runs later.
				for i := best + 1; i < len(tins); i++ {
					if b := &tins[i]; b.sparse+b.bulk > 0 {
						q.late(&q.margins.Shaper, b.timeNext-now)
					}
				}
			}
			q.curTin = uint16(best)
			t = &q.tins[best]
			if t.sparse+t.bulk == 0 {
				return nilIdx
			}
		}
	retry:
		for {
			l := listDecaying
			if !first || t.lists[listDecaying].head == nilIdx {
				l = listNew
				if t.lists[listNew].head == nilIdx {
					l = listOld
					if t.lists[listOld].head == nilIdx {
						l = listDecaying
						if t.lists[listDecaying].head == nilIdx {
							continue begin
						}
					}
				}
			}
			fi := t.lists[l].head
			q.curFlow = uint16(fi)
			first = false
			f := &t.flows[fi]

			// DRR++ flow isolation.
			if f.deficit <= 0 {
				if f.set == setSparse {
					if flowHead(f) {
						t.sparse--
						t.bulk++
						t.incSrcHost(f, q.p.flowMode)
						t.incDstHost(f, q.p.flowMode)
						f.set = setBulk
					} else {
						// In the bulk rotation for deficit accounting,
						// still counted sparse.
						f.set = setSparseWait
					}
				}
				f.deficit += q.flowQuantum(t, f)
				t.moveTail(fi, listOld)
				continue retry
			}

			for {
				i := q.dequeueFrom(t, f, uint16(fi))
				if i == nilIdx {
					// The queue was empty.
					// cobalt_queue_empty; inline when idle (no BLUE, no
					// CoDel count), the usual case: only dropping clears.
					if f.cv.pDrop == 0 && f.cv.count == 0 {
						f.cv.dropping = false
					} else if q.queueEmpty(&f.cv, &t.cp, now) {
						t.unresponsive--
					}
					if f.cv.pDrop == 0 && f.cv.count == 0 {
						q.late(&q.margins.AQM, f.cv.dropNext-now-1)
					}
					if f.cv.pDrop != 0 || f.cv.count != 0 || now < f.cv.dropNext {
						// Keep it in the flowchain until it decays.
						t.moveTail(fi, listDecaying)
						switch f.set {
						case setBulk:
							t.bulk--
							t.decSrcHost(f, q.p.flowMode)
							t.decDstHost(f, q.p.flowMode)
							t.decaying++
						case setSparse, setSparseWait:
							t.sparse--
							t.decaying++
						}
						f.set = setDecaying
					} else {
						t.unlink(fi)
						switch f.set {
						case setSparse, setSparseWait:
							t.sparse--
						case setBulk:
							t.bulk--
							t.decSrcHost(f, q.p.flowMode)
							t.decDstHost(f, q.p.flowMode)
						default:
							t.decaying--
						}
						f.set = setNone
					}
					continue begin
				}
				e := &q.pool[i]
				var bulk uint32
				if ingress {
					bulk = uint32(t.bulk)
				}
				reason := q.shouldDrop(&f.cv, &t.cp, now, e.enq, &e.pkt, bulk)
				// The last packet of a queue may be marked, never dropped.
				if reason == 0 || !flowHead(f) {
					return q.deliver(now, t, f, i)
				}
				if ingress {
					l := q.advanceShaper(t, e.adj, now, true)
					f.deficit -= int32(l)
					t.tinDeficit -= int32(l)
				}
				f.dropped++
				t.dropped++
				q.drops++
				if q.dropHook != nil {
					q.dropHook(now, &e.pkt, reason)
				}
				q.release(i)
				if ingress {
					continue retry
				}
			}
		}
	}
}

// deliver is the tail of cake_dequeue for a packet that leaves.
func (q *Qdisc) deliver(now int64, t *tin, f *flow, i int32) int32 {
	e := &q.pool[i]
	if f.cv.ecnMarked {
		t.ecnMark++
	}
	q.sentBytes += uint64(e.pkt.PktLen())
	q.sentPackets += e.pkt.segs()

	delay := uint64(now - e.enq)
	t.avgeDelay = ewma(t.avgeDelay, delay, 8)
	sh := uint(8)
	if delay > t.peakDelay {
		sh = 2
	}
	t.peakDelay = ewma(t.peakDelay, delay, sh)
	sh = 8
	if delay < t.baseDelay {
		sh = 2
	}
	t.baseDelay = ewma(t.baseDelay, delay, sh)

	l := q.advanceShaper(t, e.adj, now, false)
	f.deficit -= int32(l)
	t.tinDeficit -= int32(l)

	if q.timeNext > now && q.qlen != 0 {
		q.schedule(min(q.timeNext, q.failsafeNext))
	} else if q.qlen == 0 {
		for c := uint16(0); c < q.tinCnt; c++ {
			if q.tins[c].decaying != 0 {
				q.schedule(now + int64(q.tins[c].cp.target))
				break
			}
		}
	}
	if q.overflowTimeout != 0 {
		q.overflowTimeout--
	}
	return i
}

// Stats is what "tc -s qdisc" reads for a CAKE qdisc.
type Stats struct {
	// Cake is TCA_STATS_APP: the global fields and one TinStats entry per
	// tin in the kernel's dump order, with exactly the fields it sends.
	Cake attrs.CakeStatsAttrs
	// Basic is the generic "Sent" counter (bytes/packets at dequeue, GSO
	// segments counted as packets).
	Basic attrs.GnetStatsBasic
	// Queue is the generic queue counter (requeues are always 0 here).
	Queue attrs.GnetStatsQueue
}

// Stats returns the statistics as cake_dump_stats and the generic qdisc
// dump would report them now.
func (q *Qdisc) Stats() Stats {
	u32 := func(v uint32) *uint32 { return &v }
	u64 := func(v uint64) *uint64 { return &v }
	us := func(ns uint64) *uint32 { return u32(uint32(ns / 1000)) }
	var s Stats
	c := &s.Cake
	c.CapacityEstimate64 = u64(q.avgPeak)
	c.MemoryLimit = u32(q.bufferLimit)
	c.MemoryUsed = u32(q.bufferMaxUsed)
	c.AvgNetoff = u32((q.avgNetoff + 0x8000) >> 16)
	c.MaxNetlen = u32(uint32(q.maxNetlen))
	c.MaxAdjlen = u32(uint32(q.maxAdjlen))
	c.MinNetlen = u32(uint32(q.minNetlen))
	c.MinAdjlen = u32(uint32(q.minAdjlen))
	c.TinStats = make([]attrs.CakeTinStatsAttrs, q.tinCnt)
	for i := range c.TinStats {
		b := &q.tins[q.tinOrder[i]]
		c.TinStats[i] = attrs.CakeTinStatsAttrs{
			ThresholdRate64:    u64(b.rateBps),
			SentBytes64:        u64(b.bytes),
			BacklogBytes:       u32(b.backlog),
			TargetUS:           us(b.cp.target),
			IntervalUS:         us(b.cp.interval),
			SentPackets:        u32(b.packets),
			DroppedPackets:     u32(b.dropped),
			ECNMarkedPackets:   u32(b.ecnMark),
			AcksDroppedPackets: u32(b.ackDrops),
			PeakDelayUS:        us(b.peakDelay),
			AvgDelayUS:         us(b.avgeDelay),
			BaseDelayUS:        us(b.baseDelay),
			WayIndirectHits:    u32(b.wayHits),
			WayMisses:          u32(b.wayMisses),
			WayCollisions:      u32(b.wayCollisions),
			SparseFlows:        u32(uint32(b.sparse) + uint32(b.decaying)),
			BulkFlows:          u32(uint32(b.bulk)),
			UnresponsiveFlows:  u32(uint32(b.unresponsive)),
			MaxSkblen:          u32(b.maxSkblen),
			FlowQuantum:        u32(uint32(b.flowQuantum)),
		}
	}
	s.Basic = attrs.GnetStatsBasic{Bytes: q.sentBytes, Packets: q.sentPackets}
	s.Queue = attrs.GnetStatsQueue{Qlen: q.qlen, Backlog: q.backlog, Drops: q.drops, Overlimits: q.overlimits}
	return s
}

// Qlen returns sch->q.qlen (packets queued, GSO packets count once).
func (q *Qdisc) Qlen() uint32 { return q.qlen }
