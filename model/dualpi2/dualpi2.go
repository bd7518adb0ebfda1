// SPDX-License-Identifier: Apache-2.0

package dualpi2

import (
	"fmt"
	"math"

	"github.com/gotc/gotc/attrs"
)

// Time is a point on the model's virtual clock, in nanoseconds (the kernel's
// ktime_get_ns). Only differences matter; the clock may start at 0.
type Time int64

// Durations on the virtual clock.
const (
	Nanosecond  Time = 1
	Microsecond Time = 1000
	Millisecond Time = 1000 * Microsecond
	Second      Time = 1000 * Millisecond
)

// NoMargin is the margin reported when no decision of that kind was taken.
const NoMargin Time = math.MaxInt64

// Class is the kernel's classification result (enum
// dualpi2_classification_results).
type Class uint8

// Classes: C and L4S are subject to the AQM, LLLL is queued in L without
// any mark or drop.
const (
	ClassC    Class = 0 // DUALPI2_C_CLASSIC: C queue
	ClassL4S  Class = 1 // DUALPI2_C_L4S: L queue, scalable marking and step
	ClassLLLL Class = 2 // DUALPI2_C_LLLL: L queue, never marked nor dropped
)

// String names the class as the kernel's enum does.
func (c Class) String() string {
	switch c {
	case ClassC:
		return "C"
	case ClassL4S:
		return "L4S"
	case ClassLLLL:
		return "LLLL"
	}
	return fmt.Sprintf("Class(%d)", uint8(c))
}

// ECN codepoints of the IP header's two ECN bits.
const (
	NotECT uint8 = 0
	ECT1   uint8 = 1
	ECT0   uint8 = 2
	CE     uint8 = 3
)

// Packet is one skb as it reaches the qdisc's enqueue.
//
// For a GSO skb (GSOSize != 0) Len is skb->len of the whole super-packet,
// with the HdrLen bytes of headers present once; the kernel's qdisc_pkt_len
// is then Len + (segs-1)*HdrLen, and segment i has HdrLen + its share of the
// payload. HdrLen counts from the Ethernet header to the end of the
// transport header (42 for IPv4 UDP_SEGMENT).
type Packet struct {
	ID       uint64 // caller's identifier, reported back in events
	Len      uint32 // skb->len, including the Ethernet header
	Truesize uint32 // skb->truesize (calibrated; not derivable from Len)
	Priority uint32 // skb->priority
	ECN      uint8  // ECN bits of the IP header; 0 for non-IP packets
	GSOSize  uint16 // gso_size (payload per segment); 0: not GSO
	HdrLen   uint16 // replicated header bytes per segment (GSO only)
	// SegTruesize is the truesize of each segment that split_gso creates
	// (GSO only; calibrated like Truesize).
	SegTruesize uint32
}

// Segs is the number of segments (gso_segs) of p: 1 when p is not GSO.
func (p *Packet) Segs() uint32 {
	if p.GSOSize == 0 || p.Len <= uint32(p.HdrLen) {
		return 1
	}
	payload := p.Len - uint32(p.HdrLen)
	return (payload + uint32(p.GSOSize) - 1) / uint32(p.GSOSize)
}

// PktLen is qdisc_pkt_len of the whole skb (qdisc_pkt_len_init).
func (p *Packet) PktLen() uint32 {
	return p.Len + (p.Segs()-1)*uint32(p.HdrLen)
}

// Xmit is the code the qdisc's enqueue returns (after NET_XMIT_MASK).
type Xmit uint8

// Enqueue return codes. A drop_early drop returns NET_XMIT_SUCCESS with
// __NET_XMIT_BYPASS, which the stack masks off: the sender sees success.
const (
	XmitSuccess Xmit = 0 // NET_XMIT_SUCCESS
	XmitDrop    Xmit = 1 // NET_XMIT_DROP
)

// Verdict is the result of one Enqueue.
type Verdict struct {
	Code    Xmit   // what the qdisc returns to __dev_xmit_skb
	Queued  uint32 // skbs queued: segments when split, else 0 or 1
	Dropped uint32 // skbs dropped by this enqueue
}

// Fate says what happened to an skb, or why an event was reported.
type Fate uint8

// Fates, with the kernel place that decides each.
const (
	FateQueued     Fate = iota // accepted by dualpi2_enqueue_skb (event), or still queued (outcome)
	FateDelivered              // returned by dequeue
	FateDropLimit              // enqueue: limit or memory_limit; counts in overlimits
	FateDropEarly              // enqueue: must_drop with drop_early
	FateDropPI                 // dequeue: must_drop (drop_early off)
	FateDropStep               // dequeue: step threshold hit a not-ECT L4S packet
	FateDropChange             // dualpi2_change shrinking limit or memory_limit
	FateDropGSO                // skb_gso_segment failure (malformed GSO input)
)

var fateNames = [...]string{"queued", "delivered", "drop-limit", "drop-early", "drop-pi", "drop-step", "drop-change", "drop-gso"}

// String names the fate in lower-case words (drop-limit, ...).
func (f Fate) String() string {
	if int(f) < len(fateNames) {
		return fateNames[f]
	}
	return fmt.Sprintf("Fate(%d)", uint8(f))
}

// Event reports one skb's transition to an observer (see SetObserver).
type Event struct {
	Time     Time
	Fate     Fate
	ID       uint64
	Seg      uint16 // segment index when split_gso split the packet, else 0
	Class    Class
	PktLen   uint32
	Segs     uint16 // packets this skb adds to "Sent" (gso_segs, 1 when split)
	ECN      uint8  // ECN bits at the time of the event (after marks)
	Enqueued Time   // enqueue time (for dequeue-time fates)
}

// Delivered describes a packet returned by Dequeue.
type Delivered struct {
	ID         uint64
	Seg        uint16
	Class      Class
	PktLen     uint32
	Segs       uint16
	ECN        uint8 // ECN bits as the packet leaves (CE if marked)
	Enqueued   Time
	Sojourn    Time
	PIMarked   bool // ecn_mark counted by the PI stage (at enqueue with drop_early)
	StepMarked bool // step_marks counted
	// Dropped counts the skbs this Dequeue call dropped before returning.
	Dropped uint32
}

// Stats is what a kernel dump of the qdisc reports.
type Stats struct {
	Basic  attrs.GnetStatsBasic // bytes and packets at dequeue
	Queue  attrs.GnetStatsQueue // qlen, backlog, drops, overlimits (requeues: 0)
	Xstats attrs.TCDualPI2Xstats
}

// Margins are the smallest timing margins of the decisions the model took,
// so a comparison with a kernel can refuse to judge a run whose outcome a
// few hundred µs of kernel timing could flip. NoMargin: no such decision.
type Margins struct {
	// Step is min |sojourn - step_thresh| over time-based step decisions of
	// packets with apply_step.
	Step Time
	// Tick is the min distance between a must_drop draw and a PI tick at
	// which prob changed to or from a degenerate value (0, MaxProb, or the
	// drop_overload=0 cap), on either side of the tick.
	Tick Time
	// Clamp is, over ticks whose prob ended degenerate, the smallest change
	// of the measured queue delay that would have moved prob off that value
	// (a late kernel timer measures a larger delay).
	Clamp Time
	// Order is the min gap between an arrival and a link dequeue while the
	// queue was non-empty (set by Sim only).
	Order Time
}

// Min is the smallest of the margins.
func (m Margins) Min() Time {
	return min(m.Step, m.Tick, m.Clamp, m.Order)
}

// SafeMargin is the margin below which a model run should not be taken as
// an exact prediction of a kernel run: about the uncertainty of the kernel's
// timing (timer latency, clock reads, the sender's and the qdisc's clocks).
const SafeMargin = 200 * Microsecond

// Exact reports whether every timing-dependent decision was at least
// SafeMargin away from flipping.
func (m Margins) Exact() bool { return m.Min() >= SafeMargin }

func noMargins() Margins { return Margins{NoMargin, NoMargin, NoMargin, NoMargin} }

// entry is one queued skb with the fields of dualpi2_skb_cb.
type entry struct {
	id        uint64
	ts        Time
	pktLen    uint32
	truesize  uint32
	segs      uint16
	seg       uint16
	class     Class
	ecn       uint8
	applyStep bool
	piMarked  bool
}

// ring is a FIFO of entries on a power-of-two circular buffer, so steady
// state queueing does not allocate.
type ring struct {
	buf  []entry
	head int
	n    int
}

func newRing(capacity int) ring {
	c := 16
	for c < capacity {
		c <<= 1
	}
	return ring{buf: make([]entry, c)}
}

func (r *ring) push(e *entry) {
	if r.n == len(r.buf) {
		nb := make([]entry, 2*len(r.buf))
		for i := 0; i < r.n; i++ {
			nb[i] = r.buf[(r.head+i)&(len(r.buf)-1)]
		}
		r.buf, r.head = nb, 0
	}
	r.buf[(r.head+r.n)&(len(r.buf)-1)] = *e
	r.n++
}

// pop removes the head and returns its slot, which stays valid until the
// next push.
func (r *ring) pop() *entry {
	e := &r.buf[r.head]
	r.head = (r.head + 1) & (len(r.buf) - 1)
	r.n--
	return e
}

func (r *ring) front() *entry { return &r.buf[r.head] }

func (r *ring) clear() { r.head, r.n = 0, 0 }

// Qdisc is one dualpi2 instance: configuration, the C and L queues, the
// PI2 controller and every counter the kernel dumps. It is not safe for
// concurrent use; all times passed to it must be non-decreasing.
type Qdisc struct {
	p      params
	mtu    uint32
	handle uint32

	// Queues. The kernel's sch->q.qlen counts both (L packets are added
	// explicitly), and c_len = qlen - qlen(L) is the C queue's length.
	cq, lq ring
	// c_head_ts/l_head_ts as the kernel keeps them: set on enqueue to an
	// unset head, refreshed on dequeue, but not on dualpi2_change drops
	// (which leaves them stale). The kernel encodes "unset" as 0; the model
	// keeps a flag so that the virtual clock may start at 0.
	cHeadTS, lHeadTS   Time
	cHeadSet, lHeadSet bool

	// PI2 state.
	prob       uint32
	lastQdelay uint64
	nextTick   Time
	slack      Time
	now        Time

	credit int32

	// Counters (tc_dualpi2_xstats and the generic ones).
	packetsInC, packetsInL uint32
	maxq                   uint32
	ecnMark, stepMarks     uint32
	memoryUsed, maxMemUsed uint32
	backlog                uint32
	drops, overlimits      uint32
	bytes                  uint64
	packets                uint32

	rnd Rand
	pcg pcgSource

	lastCode Xmit // code of the last dropped segment (Enqueue's result)

	observer func(Event)

	// Margin bookkeeping.
	m               Margins
	lastTick        Time
	lastTickDegen   bool // the last tick changed prob to/from a degenerate value
	lastRoll        Time
	rolledSinceTick bool
	idleMargin      Time // clamp margin of the last tick of an empty qdisc
	idleTick        Time
	idlePending     bool
}

// Option adjusts how New builds a Qdisc.
type Option func(*options)

type options struct {
	mtu      uint32
	handle   uint32
	rnd      Rand
	seed     uint64
	start    Time
	slack    Time
	capacity int
}

// WithMTU sets psched_mtu of the device (MTU + hard header length), which
// the kernel uses for memory_limit, the credit and the 2-MTU backlog floor.
func WithMTU(mtu uint32) Option { return func(o *options) { o.mtu = mtu } }

// WithHandle sets the qdisc handle (major<<16) that skb->priority is matched
// against for priority classification.
func WithHandle(h uint32) Option { return func(o *options) { o.handle = h &^ 0xffff } }

// WithRand replaces the default generator with r for every draw.
func WithRand(r Rand) Option { return func(o *options) { o.rnd = r } }

// WithSeed seeds the default generator (a PCG).
func WithSeed(seed uint64) Option { return func(o *options) { o.seed = seed } }

// WithStart sets the creation time: the PI timer first fires at
// start+tupdate (dualpi2_init arms it from "now").
func WithStart(t Time) Option { return func(o *options) { o.start = t } }

// WithTimerSlack adds d to every PI timer re-arm, to mimic the latency of
// the kernel's soft hrtimer (dualpi2_timer re-arms from the time it runs).
func WithTimerSlack(d Time) Option { return func(o *options) { o.slack = d } }

// WithCapacity preallocates room for n packets in each queue, so that even
// the warm-up does not allocate.
func WithCapacity(n int) Option { return func(o *options) { o.capacity = n } }

// New builds a qdisc as dualpi2_init would from cfg: the kernel defaults,
// then cfg applied with dualpi2_change's semantics. It fails where the
// kernel would refuse cfg.
func New(cfg attrs.DualPI2Attrs, opts ...Option) (*Qdisc, error) {
	o := options{mtu: DefaultMTU, handle: DefaultHandle, seed: 1, capacity: 1024}
	for _, fn := range opts {
		fn(&o)
	}
	if err := validate(&cfg); err != nil {
		return nil, err
	}
	q := &Qdisc{
		p:      defaults(o.mtu),
		mtu:    o.mtu,
		handle: o.handle,
		rnd:    o.rnd,
		slack:  o.slack,
		now:    o.start,
		m:      noMargins(),
	}
	q.p.apply(&cfg, o.mtu)
	q.credit = q.p.creditInit
	q.pcg.pcg.Seed(o.seed, o.seed^0x9e3779b97f4a7c15)
	c := min(o.capacity, int(q.p.limit))
	q.cq, q.lq = newRing(c), newRing(c)
	q.nextTick = o.start + Time(q.p.tupdate)
	q.lastTick = o.start
	return q, nil
}

// Config returns the configuration as a kernel dump shows it (dualpi2_dump):
// every attribute present, gains and times converted back to netlink units.
func (q *Qdisc) Config() attrs.DualPI2Attrs { return q.p.dump() }

// SetObserver registers fn to receive every enqueue, delivery and drop
// (nil: none). Used by Sim to build per-packet outcomes.
func (q *Qdisc) SetObserver(fn func(Event)) { q.observer = fn }

// Now is the latest time the model has seen.
func (q *Qdisc) Now() Time { return q.now }

// Qlen is sch->q.qlen: skbs in both queues.
func (q *Qdisc) Qlen() int { return q.cq.n + q.lq.n }

// Prob is the current base probability p' (pi2_prob), scaled to MaxProb.
func (q *Qdisc) Prob() uint32 { return q.prob }

// Margins returns the smallest timing margins seen so far.
func (q *Qdisc) Margins() Margins { return q.m }

// NextTick is when the PI timer fires next.
func (q *Qdisc) NextTick() Time { return q.nextTick }

// Advance fires the PI timer for every expiry up to and including now. At
// equal times, the model fires the timer before a packet event.
func (q *Qdisc) Advance(now Time) {
	// Small enough to inline: the hot path is two compares and a store.
	if now < q.now || q.nextTick <= now {
		q.fire(now)
		return
	}
	q.now = now
}

// fire checks the clock and runs the timer for every expiry up to now.
func (q *Qdisc) fire(now Time) {
	if now < q.now {
		panic(fmt.Sprintf("dualpi2: time went backwards: %d < %d", now, q.now))
	}
	q.now = now
	for q.nextTick <= now {
		q.tick(q.nextTick)
		period := Time(q.p.tupdate) + q.slack
		if q.nextTick > now || q.cHeadSet || q.lHeadSet || q.prob != 0 || q.lastQdelay != 0 {
			continue
		}
		// Idle and at rest: each further tick computes delta for qdelay 0
		// and last_qdelay 0, which leaves prob at 0 unless -target*alpha
		// wraps positive. Skip those ticks in O(1); their result and margins
		// are those of the tick just computed.
		if (0-int64(q.p.target))*int64(q.p.alpha) > 0 {
			continue
		}
		n := (now - q.nextTick) / period
		q.nextTick += n * period
		q.lastTick = q.nextTick - period
		q.idleTick = q.lastTick
	}
}

// tick is dualpi2_timer/calculate_probability at time t.
func (q *Qdisc) tick(t Time) {
	var qc, ql uint64
	if q.cHeadSet {
		qc = uint64(t - q.cHeadTS)
	}
	if q.lHeadSet {
		ql = uint64(t - q.lHeadTS)
	}
	qdelay := max(qc, ql)

	// Signed 64-bit products that wrap like the kernel's for delay
	// differences beyond ~4.2 s at the largest gains.
	delta := (int64(qdelay) - int64(q.p.target)) * int64(q.p.alpha)
	delta += (int64(qdelay) - int64(q.lastQdelay)) * int64(q.p.beta)
	q.lastQdelay = qdelay

	old := q.prob
	var np uint32
	if delta > 0 {
		// __scale_delta's quotient is added in 64 bits and truncated to
		// u32: the overflow test below misses increments >= 2^32, as in the
		// kernel.
		np = uint32(int64(uint64(delta)/(1<<alphaBetaGranularity)) + int64(old))
		if np < old {
			np = MaxProb
		}
	} else {
		np = uint32(int64(old) - int64((^uint64(delta)+1)/(1<<alphaBetaGranularity)))
		if np > old {
			np = 0
		}
	}
	limit := uint32(MaxProb)
	if !q.p.dropOverload {
		limit = MaxProb / uint32(q.p.coupling)
		np = min(np, limit)
	}
	q.prob = np

	// Margins. raw is the unbounded new prob; a degenerate result is only
	// exact if the delay was far enough from the value that would change it.
	raw := float64(old) + float64(delta)/(1<<alphaBetaGranularity)
	gain := float64(q.p.alpha) + float64(q.p.beta)
	switch {
	case np == 0 && !q.cHeadSet && !q.lHeadSet:
		// Nothing queued: qdelay is exactly 0 however late the kernel's
		// tick runs, unless a packet arrives in between. The margin is
		// settled at the next enqueue, which it grows by the gap.
		q.idleMargin = Time(max(-raw*(1<<alphaBetaGranularity)/gain, 0))
		q.idleTick = t
		q.idlePending = true
	case np == 0:
		q.m.Clamp = min(q.m.Clamp, Time(max(-raw*(1<<alphaBetaGranularity)/gain, 0)))
	case np == limit:
		q.m.Clamp = min(q.m.Clamp, Time(max((raw-float64(limit))*(1<<alphaBetaGranularity)/gain, 0)))
	}
	degen := np != old && (q.degenerate(old) || q.degenerate(np))
	if degen && q.rolledSinceTick {
		q.m.Tick = min(q.m.Tick, t-q.lastRoll)
	}
	q.lastTickDegen = degen
	q.rolledSinceTick = false
	q.lastTick = t
	q.nextTick = t + Time(q.p.tupdate) + q.slack
}

func (q *Qdisc) degenerate(p uint32) bool {
	return p == 0 || p == MaxProb || (!q.p.dropOverload && p == MaxProb/uint32(q.p.coupling))
}

func (q *Qdisc) roll(prob uint32) bool {
	var r uint32
	if q.rnd != nil {
		r = q.rnd.Uint32()
	} else {
		r = q.pcg.uint32()
	}
	return r <= prob
}

// mark is dualpi2_mark: INET_ECN_set_ce succeeds for ECT(0), ECT(1) and CE
// (CE counts again) and fails for not-ECT.
func (q *Qdisc) mark(e *entry) bool {
	if e.ecn == NotECT {
		return false
	}
	e.ecn = CE
	q.ecnMark++
	return true
}

// mustDrop is must_drop: the PI2 stage, which may also mark e.
func (q *Qdisc) mustDrop(e *entry) bool {
	if q.backlog < 2*q.mtu {
		return false
	}
	if q.lastTickDegen {
		q.m.Tick = min(q.m.Tick, q.now-q.lastTick)
	}
	q.lastRoll, q.rolledSinceTick = q.now, true

	prob := q.prob
	lp := uint64(prob) * uint64(q.p.coupling)
	overload := lp > MaxProb
	switch e.class {
	case ClassC:
		// p_C = p'^2: two draws, the second only if the first succeeds
		// (each draw advances the PRNG, as the kernel's two calls do).
		if first := q.roll(prob); first && q.roll(prob) {
			if overload || e.ecn == NotECT {
				return true
			}
			e.piMarked = q.mark(e)
		}
	case ClassL4S:
		if overload {
			if q.p.dropOverload && q.roll(prob) && q.roll(prob) {
				return true
			}
			e.piMarked = q.mark(e)
			return false
		}
		// p_L = k*p'.
		if q.roll(uint32(lp)) {
			if e.ecn == NotECT {
				return true
			}
			e.piMarked = q.mark(e)
		}
	}
	return false
}

func (q *Qdisc) observe(fate Fate, e *entry) {
	q.observer(Event{Time: q.now, Fate: fate, ID: e.id, Seg: e.seg, Class: e.class,
		PktLen: e.pktLen, Segs: e.segs, ECN: e.ecn, Enqueued: e.ts})
}

// classify is dualpi2_skb_classify without tc filters.
func (q *Qdisc) classify(p *Packet) Class {
	if p.ECN&q.p.ecnMask != 0 {
		return ClassL4S
	}
	if p.Priority&^0xffff == q.handle && p.Priority&0xffff <= uint32(ClassLLLL) {
		return Class(p.Priority & 0xffff)
	}
	return ClassC
}

// Enqueue offers p to the qdisc at time now (dualpi2_qdisc_enqueue), after
// firing the PI timer for expiries up to now.
func (q *Qdisc) Enqueue(now Time, p Packet) Verdict {
	q.Advance(now)
	e := entry{id: p.ID, class: q.classify(&p), ecn: p.ECN & 3}
	if p.GSOSize != 0 && q.p.splitGSO {
		if p.Len <= uint32(p.HdrLen) {
			// skb_gso_segment fails: qdisc_drop.
			e.pktLen, e.segs, e.truesize = p.Len, 1, p.Truesize
			q.drops++
			if q.observer != nil {
				q.observe(FateDropGSO, &e)
			}
			return Verdict{Code: XmitDrop, Dropped: 1}
		}
		// Each segment inherits class and ect and goes through the limit
		// and AQM checks alone; the return value is success if any
		// segment was queued, else the last segment's code.
		var v Verdict
		hdr, size := uint32(p.HdrLen), uint32(p.GSOSize)
		rest := p.Len - hdr
		segs := p.Segs()
		for i := uint32(0); i < segs; i++ {
			pay := min(size, rest)
			rest -= pay
			s := e
			s.seg, s.pktLen, s.segs, s.truesize = uint16(i), hdr+pay, 1, p.SegTruesize
			if q.enqueueSkb(&s) {
				v.Queued++
			} else {
				v.Dropped++
				v.Code = q.lastCode
			}
		}
		if v.Queued > 0 {
			v.Code = XmitSuccess
		}
		return v
	}
	e.pktLen, e.segs, e.truesize = p.PktLen(), uint16(p.Segs()), p.Truesize
	if q.enqueueSkb(&e) {
		return Verdict{Code: XmitSuccess, Queued: 1}
	}
	return Verdict{Code: q.lastCode, Dropped: 1}
}

// enqueueSkb is dualpi2_enqueue_skb. It reports whether e was queued; the
// return code of a drop is left in q.lastCode.
func (q *Qdisc) enqueueSkb(e *entry) bool {
	qlen := uint32(q.cq.n + q.lq.n)
	if qlen >= q.p.limit || uint64(q.memoryUsed)+uint64(e.truesize) > uint64(q.p.memoryLimit) {
		q.overlimits++
		q.drops++
		q.lastCode = XmitDrop
		if q.observer != nil {
			q.observe(FateDropLimit, e)
		}
		return false
	}
	if q.p.dropEarly && q.mustDrop(e) {
		q.drops++
		q.lastCode = XmitSuccess // __NET_XMIT_BYPASS is masked off
		if q.observer != nil {
			q.observe(FateDropEarly, e)
		}
		return false
	}
	if q.idlePending {
		q.idlePending = false
		q.m.Clamp = min(q.m.Clamp, q.idleMargin+(q.now-q.idleTick))
	}
	e.ts = q.now
	q.memoryUsed += e.truesize
	q.maxMemUsed = max(q.maxMemUsed, q.memoryUsed)
	q.maxq = max(q.maxq, qlen)
	q.backlog += e.pktLen
	if e.class != ClassC {
		// apply_step looks at qlen(L) before this packet is added.
		e.applyStep = e.class == ClassL4S && uint32(q.lq.n) >= q.p.minQlenStep
		q.packetsInL++
		if !q.lHeadSet {
			q.lHeadTS, q.lHeadSet = e.ts, true
		}
		q.lq.push(e)
	} else {
		q.packetsInC++
		if !q.cHeadSet {
			q.cHeadTS, q.cHeadSet = e.ts, true
		}
		q.cq.push(e)
	}
	if q.observer != nil {
		q.observe(FateQueued, e)
	}
	return true
}

// Dequeue is the qdisc's dequeue at time now (dualpi2_qdisc_dequeue), after
// firing the PI timer for expiries up to now. It returns false when it has
// nothing to send; like the kernel, a dequeue that finds both queues empty
// (possibly after dropping everything) resets the WRR credit.
func (q *Qdisc) Dequeue(now Time) (Delivered, bool) {
	q.Advance(now)
	var dropped uint32
	for {
		// dequeue_packet: the WRR scheduler.
		var e *entry
		var change int32
		cLen := q.cq.n
		if q.lq.n > 0 && (cLen == 0 || q.credit <= 0) {
			e = q.lq.pop()
			if q.lq.n > 0 {
				q.lHeadTS = q.lq.front().ts
			} else {
				q.lHeadTS, q.lHeadSet = 0, false
			}
			if cLen > 0 {
				change = int32(q.p.wc)
			}
		} else if cLen > 0 {
			e = q.cq.pop()
			if q.cq.n > 0 {
				q.cHeadTS = q.cq.front().ts
			} else {
				q.cHeadTS, q.cHeadSet = 0, false
			}
			if q.lq.n > 0 {
				change = -int32(q.p.wl)
			}
		} else {
			q.credit = q.p.creditInit
			return Delivered{Dropped: dropped}, false
		}
		change *= int32(e.pktLen)
		q.memoryUsed -= e.truesize
		// must_drop sees the backlog without this packet.
		q.backlog -= e.pktLen

		if !q.p.dropEarly && q.mustDrop(e) {
			q.drops++
			dropped++
			if q.observer != nil {
				q.observe(FateDropPI, e)
			}
			continue
		}
		stepMarked := false
		if e.class != ClassC && e.applyStep {
			// do_step_aqm.
			var qdelay uint64
			if q.p.stepInPackets {
				qdelay = uint64(q.lq.n)
			} else {
				soj := now - e.ts
				qdelay = uint64(soj)
				d := soj - Time(q.p.stepThresh)
				q.m.Step = min(q.m.Step, max(d, -d))
			}
			if qdelay > uint64(q.p.stepThresh) {
				if e.ecn == NotECT {
					q.drops++
					dropped++
					if q.observer != nil {
						q.observe(FateDropStep, e)
					}
					continue
				}
				if q.mark(e) {
					q.stepMarks++
					stepMarked = true
				}
			}
		}
		q.credit += change
		q.bytes += uint64(e.pktLen)
		q.packets += uint32(e.segs)
		if q.observer != nil {
			q.observe(FateDelivered, e)
		}
		return Delivered{ID: e.id, Seg: e.seg, Class: e.class, PktLen: e.pktLen, Segs: e.segs,
			ECN: e.ecn, Enqueued: e.ts, Sojourn: now - e.ts, PIMarked: e.piMarked,
			StepMarked: stepMarked, Dropped: dropped}, true
	}
}

// Delays is the delay_c/delay_l pair a dump at time now reports: the age
// of each queue's head in µs, 0 when the head is unset. It does not fire
// timers (see StatsAt).
func (q *Qdisc) Delays(now Time) (delayC, delayL uint32) {
	if q.cHeadSet {
		delayC = nsToUs(uint64(now - q.cHeadTS))
	}
	if q.lHeadSet {
		delayL = nsToUs(uint64(now - q.lHeadTS))
	}
	return delayC, delayL
}

// Stats is the dump at the model's current time (Now).
func (q *Qdisc) Stats() Stats {
	dc, dl := q.Delays(q.now)
	return Stats{
		Basic: attrs.GnetStatsBasic{Bytes: q.bytes, Packets: q.packets},
		Queue: attrs.GnetStatsQueue{
			Qlen:       uint32(q.cq.n + q.lq.n),
			Backlog:    q.backlog,
			Drops:      q.drops,
			Overlimits: q.overlimits,
		},
		Xstats: attrs.TCDualPI2Xstats{
			Prob:          q.prob,
			DelayC:        dc,
			DelayL:        dl,
			PacketsInC:    q.packetsInC,
			PacketsInL:    q.packetsInL,
			Maxq:          q.maxq,
			ECNMark:       q.ecnMark,
			StepMarks:     q.stepMarks,
			Credit:        q.credit,
			MemoryUsed:    q.memoryUsed,
			MaxMemoryUsed: q.maxMemUsed,
			MemoryLimit:   q.p.memoryLimit,
		},
	}
}

// StatsAt fires the PI timer up to now, then returns the dump at now.
func (q *Qdisc) StatsAt(now Time) Stats {
	q.Advance(now)
	return q.Stats()
}

// Change applies cfg to a live qdisc at time now as dualpi2_change does,
// including its trimming of the queues to a smaller limit or memory_limit:
// C heads first, then L heads, each counted as a drop (not an overlimit).
// Like the kernel, the trimming leaves c_head_ts/l_head_ts as they were, so
// a queue emptied this way keeps reporting (and feeding the PI) the age of
// a packet it no longer holds until its next dequeue.
func (q *Qdisc) Change(now Time, cfg attrs.DualPI2Attrs) error {
	q.Advance(now)
	if err := validate(&cfg); err != nil {
		return err
	}
	if q.p.apply(&cfg, q.mtu) {
		q.credit = q.p.creditInit
	}
	for uint32(q.cq.n+q.lq.n) > q.p.limit || q.memoryUsed > q.p.memoryLimit {
		var e *entry
		if q.cq.n > 0 {
			e = q.cq.pop()
		} else {
			e = q.lq.pop()
		}
		q.memoryUsed -= e.truesize
		q.backlog -= e.pktLen
		q.drops++
		if q.observer != nil {
			q.observe(FateDropChange, e)
		}
	}
	return nil
}

// Reset is dualpi2_reset (e.g. on carrier loss): both queues are purged
// without counting drops, the xstats counters, prob and the head times are
// zeroed and the credit returns to its initial value. The generic counters
// (bytes, packets, drops, overlimits) and last_qdelay are kept, and the PI
// timer keeps running.
func (q *Qdisc) Reset(now Time) {
	q.Advance(now)
	q.cq.clear()
	q.lq.clear()
	q.backlog = 0
	q.cHeadTS, q.lHeadTS, q.cHeadSet, q.lHeadSet = 0, 0, false, false
	q.prob = 0
	q.packetsInC, q.packetsInL, q.maxq = 0, 0, 0
	q.ecnMark, q.stepMarks = 0, 0
	q.memoryUsed, q.maxMemUsed = 0, 0
	q.credit = q.p.creditInit
}
