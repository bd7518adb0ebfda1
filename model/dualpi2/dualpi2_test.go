// SPDX-License-Identifier: Apache-2.0

package dualpi2

import (
	"math"
	"testing"

	"github.com/gotc/gotc/attrs"
)

// truesize is an arbitrary calibrated truesize for the test packets.
const truesize = 2304

func pkt(id uint64, l uint32, ecn uint8) Packet {
	return Packet{ID: id, Len: l, Truesize: truesize, ECN: ecn}
}

// frozen returns options that keep the PI timer from firing during a test
// at times below ~4 s, and make every draw fail unless prob is MaxProb.
func frozen() attrs.DualPI2Attrs {
	return attrs.DualPI2Attrs{Tupdate: u32(math.MaxUint32)}
}

// TestClassification checks dualpi2_skb_classify: the ECN mask first, then
// skb->priority against the handle, else C.
func TestClassification(t *testing.T) {
	for _, tc := range []struct {
		mask uint8
		ecn  uint8
		prio uint32
		want Class
	}{
		{1, NotECT, 0, ClassC},
		{1, ECT1, 0, ClassL4S},
		{1, ECT0, 0, ClassC},
		{1, CE, 0, ClassL4S}, // CE always goes to L with mask 1
		{2, ECT1, 0, ClassC},
		{2, ECT0, 0, ClassL4S},
		{2, CE, 0, ClassL4S}, // mask 2 matches ECT(0) and CE
		{3, ECT1, 0, ClassL4S},
		{3, ECT0, 0, ClassL4S},
		{3, NotECT, 0, ClassC},
		{1, NotECT, 0x10000, ClassC},
		{1, NotECT, 0x10001, ClassL4S},
		{1, NotECT, 0x10002, ClassLLLL},
		{1, NotECT, 0x10003, ClassC}, // minor >= 3: no match, no filters
		{1, NotECT, 0x20001, ClassC}, // another major
		{1, ECT0, 0x10002, ClassLLLL},
		{1, ECT1, 0x10002, ClassL4S}, // the mask wins over the priority
	} {
		m := attrs.DualPI2ECNMask(tc.mask)
		q := mustNew(t, attrs.DualPI2Attrs{ECNMask: &m})
		p := pkt(1, 100, tc.ecn)
		p.Priority = tc.prio
		if got := q.classify(&p); got != tc.want {
			t.Errorf("mask %d ecn %d prio %#x: %v, want %v", tc.mask, tc.ecn, tc.prio, got, tc.want)
		}
		q.Enqueue(0, p)
		x := q.Stats().Xstats
		if inL := x.PacketsInL == 1; inL != (tc.want != ClassC) || x.PacketsInC+x.PacketsInL != 1 {
			t.Errorf("mask %d ecn %d prio %#x: in_c %d in_l %d", tc.mask, tc.ecn, tc.prio, x.PacketsInC, x.PacketsInL)
		}
	}
	// The handle is configurable.
	q := mustNew(t, attrs.DualPI2Attrs{}, WithHandle(0x80010000))
	p := pkt(1, 100, NotECT)
	p.Priority = 0x80010002
	if got := q.classify(&p); got != ClassLLLL {
		t.Errorf("handle 8001: %v", got)
	}
}

// TestCreditReset checks the WRR credit: the initial value, its changes,
// and its reset by a dequeue that finds both queues empty.
func TestCreditReset(t *testing.T) {
	q := mustNew(t, frozen(), WithRand(Const(math.MaxUint32)))
	if c := q.Stats().Xstats.Credit; c != -121120 {
		t.Fatalf("initial credit %d", c)
	}
	q.Enqueue(0, pkt(1, 1000, ECT1))
	q.Enqueue(0, pkt(2, 500, NotECT))
	q.Enqueue(0, pkt(3, 1000, ECT1))
	// Credit <= 0: L first, +wc*len because C is non-empty.
	d, _ := q.Dequeue(0)
	if d.ID != 1 || q.credit != -121120+10*1000 {
		t.Fatalf("after L: id %d credit %d", d.ID, q.credit)
	}
	d, _ = q.Dequeue(0)
	if d.ID != 3 || q.credit != -121120+2*10*1000 {
		t.Fatalf("after L: id %d credit %d", d.ID, q.credit)
	}
	// L empty: C without credit change.
	d, _ = q.Dequeue(0)
	if d.ID != 2 || q.credit != -101120 {
		t.Fatalf("after C: id %d credit %d", d.ID, q.credit)
	}
	if _, ok := q.Dequeue(0); ok {
		t.Fatal("dequeue from empty")
	}
	if c := q.Stats().Xstats.Credit; c != -121120 {
		t.Errorf("credit after empty dequeue %d, want -121120", c)
	}
	// With a positive credit C goes first and pays wl*len while L waits.
	q2 := mustNew(t, attrs.DualPI2Attrs{CProtection: u8(90), Tupdate: u32(math.MaxUint32)})
	q2.Enqueue(0, pkt(1, 1000, ECT1))
	q2.Enqueue(0, pkt(2, 500, NotECT))
	d, _ = q2.Dequeue(0)
	if d.ID != 2 || q2.credit != 1514*80-10*500 {
		t.Errorf("wc 90: id %d credit %d", d.ID, q2.credit)
	}
}

// TestCProtectionShares saturates both queues with mixed sizes and checks
// that C gets wc% of the dequeued bytes (within 0.5 percentage points).
func TestCProtectionShares(t *testing.T) {
	sizes := []uint32{64, 300, 576, 1000, 1514}
	for _, wc := range []uint8{0, 10, 25, 50, 90, 100} {
		q := mustNew(t, attrs.DualPI2Attrs{CProtection: u8(wc), Tupdate: u32(math.MaxUint32),
			StepThreshUS: u32(math.MaxUint32), Limit: u32(100000)}, WithRand(Const(math.MaxUint32)))
		id := uint64(0)
		fill := func() {
			for q.cq.n < 200 {
				id++
				q.Enqueue(0, pkt(id, sizes[id%5], NotECT))
			}
			for q.lq.n < 200 {
				id++
				q.Enqueue(0, pkt(id, sizes[(id*3)%5], ECT1))
			}
		}
		var cBytes, lBytes uint64
		for i := 0; i < 100000; i++ {
			fill()
			d, _ := q.Dequeue(0)
			if d.Class == ClassC {
				cBytes += uint64(d.PktLen)
			} else {
				lBytes += uint64(d.PktLen)
			}
		}
		share := float64(cBytes) / float64(cBytes+lBytes)
		if want := float64(wc) / 100; math.Abs(share-want) > 0.005 {
			t.Errorf("wc %d: C share %.4f, want %.2f", wc, share, want)
		}
	}
}

// TestLimits checks the packet limit and the memory limit: drop, drops++,
// overlimits++, NET_XMIT_DROP, nothing else counted.
func TestLimits(t *testing.T) {
	q := mustNew(t, attrs.DualPI2Attrs{Limit: u32(5)})
	for i := uint64(0); i < 7; i++ {
		p := pkt(i, 100, ECT1*uint8(i%2))
		v := q.Enqueue(0, p)
		if want := i < 5; (v.Queued == 1) != want || (v.Code == XmitDrop) == want {
			t.Errorf("packet %d: %+v", i, v)
		}
	}
	st := q.Stats()
	if st.Queue.Qlen != 5 || st.Queue.Drops != 2 || st.Queue.Overlimits != 2 || st.Queue.Backlog != 500 {
		t.Errorf("queue stats %+v", st.Queue)
	}
	if x := st.Xstats; x.PacketsInC+x.PacketsInL != 5 || x.Maxq != 4 || x.MemoryUsed != 5*truesize {
		t.Errorf("xstats %+v", x)
	}

	q = mustNew(t, attrs.DualPI2Attrs{MemoryLimit: u32(10000)})
	for i := uint64(0); i < 6; i++ {
		q.Enqueue(0, pkt(i, 100, NotECT))
	}
	st = q.Stats()
	if st.Queue.Qlen != 4 || st.Queue.Drops != 2 || st.Queue.Overlimits != 2 ||
		st.Xstats.MemoryUsed != 4*truesize || st.Xstats.MaxMemoryUsed != 4*truesize {
		t.Errorf("memlimit: %+v %+v", st.Queue, st.Xstats)
	}
	for {
		if _, ok := q.Dequeue(0); !ok {
			break
		}
	}
	if x := q.Stats().Xstats; x.MemoryUsed != 0 || x.MaxMemoryUsed != 4*truesize {
		t.Errorf("after drain: used %d max %d", x.MemoryUsed, x.MaxMemoryUsed)
	}
}

// TestDropEarlyVsDequeue forces every draw to succeed (Const(0)) with prob
// at 1/4: C not-ECT packets are dropped at enqueue with drop_early, at
// dequeue otherwise, and only while the backlog is >= 2 MTU.
func TestDropEarlyVsDequeue(t *testing.T) {
	for _, early := range []uint8{0, 1} {
		de := attrs.DualPI2DropEarly(early)
		cfg := frozen()
		cfg.DropEarly = &de
		q := mustNew(t, cfg, WithRand(Const(0)))
		q.prob = MaxProb / 4
		var enqDrops uint32
		for i := uint64(0); i < 5; i++ {
			enqDrops += q.Enqueue(0, pkt(i, 1514, NotECT)).Dropped
		}
		var sent []uint64
		var deqDrops uint32
		for {
			d, ok := q.Dequeue(0)
			deqDrops += d.Dropped
			if !ok {
				break
			}
			sent = append(sent, d.ID)
		}
		st := q.Stats()
		if early == 1 {
			// Packets 2, 3, 4 find a backlog of 2 MTU: dropped at enqueue.
			if enqDrops != 3 || deqDrops != 0 || len(sent) != 2 || st.Xstats.PacketsInC != 2 {
				t.Errorf("early: enq %d deq %d sent %v in_c %d", enqDrops, deqDrops, sent, st.Xstats.PacketsInC)
			}
		} else {
			// Pops 0, 1, 2 leave >= 2 MTU behind: dropped; 3 and 4 pass.
			if enqDrops != 0 || deqDrops != 3 || len(sent) != 2 || sent[0] != 3 || st.Xstats.PacketsInC != 5 {
				t.Errorf("dequeue: enq %d deq %d sent %v in_c %d", enqDrops, deqDrops, sent, st.Xstats.PacketsInC)
			}
		}
		if st.Queue.Drops != 3 || st.Queue.Overlimits != 0 || st.Basic.Packets != 2 {
			t.Errorf("early=%d: %+v %+v", early, st.Queue, st.Basic)
		}
	}
	// ECT packets are marked instead, at enqueue with drop_early (the CE
	// mark travels through the queue).
	de := attrs.DualPI2DropEarly(1)
	cfg := frozen()
	cfg.DropEarly = &de
	q := mustNew(t, cfg, WithRand(Const(0)))
	q.prob = MaxProb / 4
	for i := uint64(0); i < 3; i++ {
		q.Enqueue(0, pkt(i, 1514, ECT0))
	}
	if q.ecnMark != 1 || q.cq.buf[2].ecn != CE || !q.cq.buf[2].piMarked {
		t.Errorf("early mark: ecn_mark %d entry %+v", q.ecnMark, q.cq.buf[2])
	}
}

// TestDegenerateRand documents dualpi2_roll's "draw <= prob": a zero draw
// succeeds even at prob 0, a maximal draw only at MaxProb.
func TestDegenerateRand(t *testing.T) {
	run := func(r Rand, prob uint32) (marks uint32) {
		q := mustNew(t, frozen(), WithRand(r))
		q.prob = prob
		for i := uint64(0); i < 3; i++ {
			q.Enqueue(0, pkt(i, 1514, ECT1))
		}
		q.Dequeue(0)
		return q.ecnMark
	}
	if m := run(Const(0), 0); m != 1 {
		t.Errorf("draw 0, prob 0: %d marks, want 1", m)
	}
	if m := run(Const(math.MaxUint32), MaxProb/2-1); m != 0 {
		t.Errorf("draw max, prob < max: %d marks, want 0", m)
	}
	if m := run(Const(math.MaxUint32), MaxProb/2); m != 0 {
		// k*p = MaxProb-1: not overload, and the roll fails.
		t.Errorf("draw max, k*p = max-1: %d marks, want 0", m)
	}
	if m := run(Const(math.MaxUint32), MaxProb/2+1); m != 1 {
		// Overload: L4S packets are marked without a draw.
		t.Errorf("overload: %d marks, want 1", m)
	}
}

// binomial checks got against n draws of probability p with a 4σ bound.
func binomial(t *testing.T, name string, got, n int, p float64) {
	t.Helper()
	mean := float64(n) * p
	sd := math.Sqrt(float64(n) * p * (1 - p))
	if math.Abs(float64(got)-mean) > 4*sd+1 {
		t.Errorf("%s: %d of %d, want %.1f ± %.1f (4σ)", name, got, n, mean, 4*sd)
	} else {
		t.Logf("%s: %d of %d, expected %.1f ± %.1f (4σ)", name, got, n, mean, 4*sd)
	}
}

// TestCouplingRFC9332 holds prob fixed and checks, over many dequeues that
// each make exactly one must_drop decision, that L4S packets are marked
// with p_L = k·p', classic ECT packets marked and classic not-ECT packets
// dropped with p_C = p'^2, LLLL never, and the overload rules.
func TestCouplingRFC9332(t *testing.T) {
	const n = 200000
	type result struct{ marks, drops int }
	seed := uint64(42)
	run := func(cfg attrs.DualPI2Attrs, prob uint32, ecn uint8, prio uint32) result {
		seed++ // independent draws for each run
		q := mustNew(t, cfg, WithSeed(seed))
		q.prob = prob
		var r result
		id := uint64(0)
		for i := 0; i < n; i++ {
			// Three packets queued: the first pop leaves exactly 2 MTU,
			// so each Dequeue makes one decision (a drop leaves 1 MTU).
			for q.Qlen() < 3 {
				id++
				p := pkt(id, 1514, ecn)
				p.Priority = prio
				q.Enqueue(0, p)
			}
			d, _ := q.Dequeue(0)
			r.drops += int(d.Dropped)
			if d.PIMarked {
				r.marks++
			}
		}
		return r
	}
	pp := func(prob uint32) float64 { return (float64(prob) + 1) / (1 << 32) }
	cfg := frozen()
	for _, prob := range []uint32{MaxProb / 10, MaxProb / 4} {
		p := pp(prob)
		r := run(cfg, prob, ECT1, 0)
		binomial(t, "L4S marks (k=2)", r.marks, n, 2*p)
		if r.drops != 0 {
			t.Errorf("L4S ECT drops %d", r.drops)
		}
		r = run(cfg, prob, ECT0, 0)
		binomial(t, "C ECT(0) marks", r.marks, n, p*p)
		r = run(cfg, prob, NotECT, 0)
		binomial(t, "C not-ECT drops", r.drops, n, p*p)
		r = run(cfg, prob, NotECT, 0x10001)
		binomial(t, "L4S-by-priority not-ECT drops", r.drops, n, 2*p)
		r = run(cfg, prob, ECT0, 0x10002)
		if r.marks != 0 || r.drops != 0 {
			t.Errorf("LLLL: %+v", r)
		}
	}
	// k = 3.
	cfg3 := frozen()
	cfg3.Coupling = u8(3)
	binomial(t, "L4S marks (k=3)", run(cfg3, MaxProb/5, ECT1, 0).marks, n, 3*pp(MaxProb/5))

	// Overload (k·p' > 1): drop_overload drops L4S with p'^2 and marks the
	// rest; C ECT packets are dropped instead of marked.
	prob := uint32(MaxProb / 10 * 7)
	p := pp(prob)
	r := run(cfg, prob, ECT1, 0)
	binomial(t, "overload L4S drops", r.drops, n, p*p)
	binomial(t, "overload L4S marks", r.marks, n, 1-p*p)
	r = run(cfg, prob, ECT0, 0)
	binomial(t, "overload C ECT drops", r.drops, n, p*p)
	if r.marks != 0 {
		t.Errorf("overload C ECT marks %d", r.marks)
	}
	do := attrs.DualPI2DropOverload(0)
	cfg.DropOverload = &do
	r = run(cfg, prob, ECT1, 0)
	if r.drops != 0 || r.marks != n {
		t.Errorf("overload without drop_overload: %+v, want all marked", r)
	}
}

// TestStepTime checks the time step threshold: strict ">", a CE mark
// counted in ecn_mark and step_marks, CE re-marked and counted, not-ECT L4S
// dropped, LLLL untouched.
func TestStepTime(t *testing.T) {
	q := mustNew(t, frozen(), WithRand(Const(math.MaxUint32)))
	q.Enqueue(0, pkt(1, 100, ECT1))
	q.Enqueue(0, pkt(2, 100, ECT1))
	q.Enqueue(0, pkt(3, 100, CE))
	np := pkt(4, 100, NotECT)
	np.Priority = 0x10001
	q.Enqueue(0, np)
	ll := pkt(5, 100, ECT0)
	ll.Priority = 0x10002
	q.Enqueue(0, ll)
	q.Enqueue(0, pkt(6, 100, ECT1))

	d, _ := q.Dequeue(Millisecond) // sojourn == thresh: no mark
	if d.ID != 1 || d.StepMarked || d.ECN != ECT1 {
		t.Errorf("at thresh: %+v", d)
	}
	if m := q.Margins().Step; m != 0 {
		t.Errorf("step margin %d, want 0", m)
	}
	d, _ = q.Dequeue(Millisecond + 1)
	if d.ID != 2 || !d.StepMarked || d.ECN != CE {
		t.Errorf("above thresh: %+v", d)
	}
	d, _ = q.Dequeue(2 * Millisecond)
	if d.ID != 3 || !d.StepMarked {
		t.Errorf("CE: %+v", d)
	}
	d, _ = q.Dequeue(2 * Millisecond) // not-ECT L4S dropped, LLLL sent
	if d.ID != 5 || d.Dropped != 1 || d.StepMarked || d.ECN != ECT0 {
		t.Errorf("not-ECT/LLLL: %+v", d)
	}
	x := q.Stats()
	if x.Xstats.StepMarks != 2 || x.Xstats.ECNMark != 2 || x.Queue.Drops != 1 {
		t.Errorf("stats %+v %+v", x.Xstats, x.Queue)
	}
}

// TestStepPackets checks the packet step threshold (qlen(L) after the pop
// > thresh) and min_qlen_step (apply_step decided from qlen(L) before the
// packet was queued).
func TestStepPackets(t *testing.T) {
	q := mustNew(t, attrs.DualPI2Attrs{StepThreshPkts: u32(2), Tupdate: u32(math.MaxUint32)},
		WithRand(Const(math.MaxUint32)))
	for i := uint64(0); i < 5; i++ {
		q.Enqueue(0, pkt(i, 100, ECT1))
	}
	var marked []uint64
	for {
		d, ok := q.Dequeue(Second) // time does not matter in packet mode
		if !ok {
			break
		}
		if d.StepMarked {
			marked = append(marked, d.ID)
		}
	}
	if len(marked) != 2 || marked[0] != 0 || marked[1] != 1 {
		t.Errorf("packet step marks %v, want [0 1]", marked)
	}

	q = mustNew(t, attrs.DualPI2Attrs{MinQlenStep: u32(3), Tupdate: u32(math.MaxUint32)},
		WithRand(Const(math.MaxUint32)))
	for i := uint64(0); i < 5; i++ {
		q.Enqueue(0, pkt(i, 100, ECT1))
	}
	marked = marked[:0]
	for {
		d, ok := q.Dequeue(2 * Millisecond)
		if !ok {
			break
		}
		if d.StepMarked {
			marked = append(marked, d.ID)
		}
	}
	if len(marked) != 2 || marked[0] != 3 || marked[1] != 4 {
		t.Errorf("min_qlen_step 3 marks %v, want [3 4]", marked)
	}
}

// TestGSO checks split vs not split: per-segment lengths with the header
// replicated, counters per skb, "Sent" packets per segment either way, and
// a limit that accepts only some segments.
func TestGSO(t *testing.T) {
	g := Packet{ID: 9, Len: 42 + 9500, HdrLen: 42, GSOSize: 1000, Truesize: 20000, SegTruesize: 2304, ECN: ECT1}
	if g.Segs() != 10 || g.PktLen() != 9542+9*42 {
		t.Fatalf("segs %d pkt_len %d", g.Segs(), g.PktLen())
	}
	q := mustNew(t, frozen(), WithRand(Const(math.MaxUint32)))
	v := q.Enqueue(0, g)
	st := q.Stats()
	if v.Queued != 10 || st.Queue.Qlen != 10 || st.Queue.Backlog != 9920 ||
		st.Xstats.PacketsInL != 10 || st.Xstats.MemoryUsed != 10*2304 || st.Xstats.Maxq != 9 {
		t.Errorf("split: %+v %+v %+v", v, st.Queue, st.Xstats)
	}
	var lens []uint32
	for {
		d, ok := q.Dequeue(0)
		if !ok {
			break
		}
		lens = append(lens, d.PktLen)
		if d.Segs != 1 || d.ID != 9 {
			t.Errorf("segment %+v", d)
		}
	}
	if len(lens) != 10 || lens[0] != 1042 || lens[9] != 542 {
		t.Errorf("segment lengths %v", lens)
	}
	if b := q.Stats().Basic; b.Packets != 10 || b.Bytes != 9920 {
		t.Errorf("split sent %+v", b)
	}

	sg := attrs.DualPI2SplitGSO(0)
	cfg := frozen()
	cfg.SplitGSO = &sg
	q = mustNew(t, cfg, WithRand(Const(math.MaxUint32)))
	v = q.Enqueue(0, g)
	st = q.Stats()
	if v.Queued != 1 || st.Queue.Qlen != 1 || st.Queue.Backlog != 9920 ||
		st.Xstats.PacketsInL != 1 || st.Xstats.MemoryUsed != 20000 {
		t.Errorf("no split: %+v %+v %+v", v, st.Queue, st.Xstats)
	}
	q.Dequeue(0)
	if b := q.Stats().Basic; b.Packets != 10 || b.Bytes != 9920 {
		t.Errorf("no split sent %+v", b)
	}

	// Limit 3: the first three segments fit, seven are dropped one by one;
	// the enqueue still returns success.
	q = mustNew(t, attrs.DualPI2Attrs{Limit: u32(3)})
	v = q.Enqueue(0, g)
	st = q.Stats()
	if v.Code != XmitSuccess || v.Queued != 3 || v.Dropped != 7 || st.Queue.Drops != 7 || st.Queue.Overlimits != 7 {
		t.Errorf("partial: %+v %+v", v, st.Queue)
	}
	// All segments dropped: the last segment's code.
	q.Enqueue(0, g)
	if v = q.Enqueue(0, g); v.Code != XmitDrop || v.Queued != 0 {
		t.Errorf("all dropped: %+v", v)
	}
}

// TestPITimer checks the timer schedule and calculate_probability's integer
// arithmetic against values computed by hand, the idle behaviour and the
// drop_overload=0 cap.
func TestPITimer(t *testing.T) {
	q := mustNew(t, attrs.DualPI2Attrs{})
	q.Enqueue(0, pkt(1, 100, NotECT)) // a head that never leaves
	q.Advance(16*Millisecond - 1)
	if q.Prob() != 0 {
		t.Fatal("timer fired before init+tupdate")
	}
	q.Advance(16 * Millisecond)
	// delta = (16e6-15e6)*44 + (16e6-0)*879 = 14108e6; /64.
	if q.Prob() != 220437500 {
		t.Errorf("tick 1: prob %d, want 220437500", q.Prob())
	}
	q.Advance(32 * Millisecond)
	// delta = 17e6*44 + 16e6*879 = 14812e6; /64 = 231437500.
	if q.Prob() != 451875000 {
		t.Errorf("tick 2: prob %d, want 451875000", q.Prob())
	}
	if dc, dl := q.Delays(32*Millisecond + 1500*Microsecond); dc != 33500 || dl != 0 {
		t.Errorf("delays %d %d", dc, dl)
	}
	// Once the queue is empty prob decays back to exactly 0 and stays.
	q.Dequeue(32 * Millisecond)
	q.Advance(10 * Second)
	if q.Prob() != 0 {
		t.Errorf("idle prob %d", q.Prob())
	}
	// An idle qdisc's prob stays 0 unless a packet is queued at a tick
	// with an age of about target*alpha/(alpha+beta) (0.715 ms): a packet
	// 100 µs after the last idle tick leaves a margin of 0.815 ms.
	q = mustNew(t, attrs.DualPI2Attrs{})
	q.Advance(10 * Second) // the last tick is at exactly 10 s
	if m := q.Margins().Clamp; m != NoMargin {
		t.Errorf("clamp margin %v before any packet", m)
	}
	q.Enqueue(10*Second+100*Microsecond, pkt(1, 100, NotECT))
	if m := q.Margins().Clamp; m != 15*Millisecond*44/(44+879)+100*Microsecond {
		t.Errorf("idle clamp margin %v, want 15ms*44/923 + 100µs", m)
	}

	// Timer slack: re-armed from the (late) run time.
	q = mustNew(t, attrs.DualPI2Attrs{}, WithTimerSlack(50*Microsecond), WithStart(Second))
	q.Advance(Second + 16*Millisecond)
	if q.NextTick() != Second+32*Millisecond+50*Microsecond {
		t.Errorf("next tick %d", q.NextTick())
	}

	// drop_overload 0 caps prob at MaxProb/k. Gains are chosen so that no
	// tick adds 2^32 or more (see TestPITruncation).
	do := attrs.DualPI2DropOverload(0)
	q = mustNew(t, attrs.DualPI2Attrs{DropOverload: &do, Coupling: u8(3), Alpha: u32(2000), Target: u32(1000)})
	q.Enqueue(0, pkt(1, 100, NotECT))
	q.Advance(64 * Millisecond)
	if q.Prob() != MaxProb/3 {
		t.Errorf("capped prob %d, want %d", q.Prob(), MaxProb/3)
	}
	// With drop_overload it saturates at MaxProb.
	q = mustNew(t, attrs.DualPI2Attrs{Alpha: u32(2000), Target: u32(1000)})
	q.Enqueue(0, pkt(1, 100, NotECT))
	q.Advance(64 * Millisecond)
	if q.Prob() != MaxProb {
		t.Errorf("saturated prob %d", q.Prob())
	}
	if m := q.Margins().Clamp; m == NoMargin {
		t.Errorf("no clamp margin at saturation")
	}
}

// TestPITruncation checks that a prob increment >= 2^32 is truncated to 32
// bits before the kernel's overflow test, as calculate_probability does.
func TestPITruncation(t *testing.T) {
	q := mustNew(t, attrs.DualPI2Attrs{Beta: u32(alphaBetaMax), Alpha: u32(1), Target: u32(0), Tupdate: u32(1000000)})
	q.Enqueue(0, pkt(1, 100, NotECT))
	q.Advance(Second) // qdelay 1 s, last 0
	delta := uint64(1e9)*uint64(ScaleAlphaBeta(1)) + uint64(1e9)*uint64(ScaleAlphaBeta(alphaBetaMax))
	want := uint32(delta / 64) // truncated, and >= old prob 0, so kept
	if q.Prob() != want {
		t.Errorf("prob %d, want truncated %d", q.Prob(), want)
	}
}

// TestChangeAndReset checks dualpi2_change's trimming (C heads first,
// drops not overlimits), its stale head time, and dualpi2_reset.
func TestChangeAndReset(t *testing.T) {
	q := mustNew(t, frozen(), WithRand(Const(math.MaxUint32)))
	for i := uint64(0); i < 4; i++ {
		q.Enqueue(0, pkt(i, 100, ECT1*uint8(i%2))) // C, L, C, L
	}
	if err := q.Change(Millisecond, attrs.DualPI2Attrs{Limit: u32(1)}); err != nil {
		t.Fatal(err)
	}
	st := q.Stats()
	if st.Queue.Qlen != 1 || q.lq.n != 1 || q.cq.n != 0 || st.Queue.Drops != 3 || st.Queue.Overlimits != 0 ||
		st.Queue.Backlog != 100 || st.Xstats.MemoryUsed != truesize {
		t.Errorf("after change: %+v %+v", st.Queue, st.Xstats)
	}
	// The C queue is empty but its head time was not cleared.
	if dc, _ := q.Delays(3 * Millisecond); dc != 3000 {
		t.Errorf("stale delay_c %d, want 3000", dc)
	}
	if err := q.Change(Millisecond, attrs.DualPI2Attrs{StepThreshPkts: u32(1), StepThreshUS: u32(1)}); err == nil {
		t.Error("both step thresholds accepted")
	}
	q.Reset(4 * Millisecond)
	st = q.Stats()
	if st.Queue.Qlen != 0 || st.Queue.Drops != 3 || st.Xstats.PacketsInC != 0 || st.Xstats.DelayC != 0 ||
		st.Xstats.Credit != -121120 || st.Xstats.MaxMemoryUsed != 0 {
		t.Errorf("after reset: %+v %+v", st.Queue, st.Xstats)
	}
}
