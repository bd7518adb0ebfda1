// SPDX-License-Identifier: Apache-2.0

package fqcodel

import (
	"math"
	"testing"

	"github.com/gotc/gotc/attrs"
)

func u32(v uint32) *uint32 { return &v }
func u8(v uint8) *uint8    { return &v }

func mustNew(t *testing.T, c attrs.FQCodelAttrs) *Qdisc {
	t.Helper()
	q, err := New(c, 0, 0x10000, false)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// pin returns a packet that fq_codel_classify puts in flow minor-1 of
// qdisc 1:.
func pin(id uint64, minor, size uint32, ecn uint8) Packet {
	return Packet{ID: id, Len: size, Truesize: 768, IP: true, DSField: ecn, Priority: 0x10000 | minor}
}

func TestConfig(t *testing.T) {
	q := mustNew(t, attrs.FQCodelAttrs{})
	d := q.Config()
	// fq_codel_init's defaults, target and interval through codel_time_t.
	if *d.Limit != 10240 || *d.Flows != 1024 || *d.Quantum != 1514 || *d.Target != 4999 || *d.Interval != 99999 ||
		*d.MemoryLimit != 32<<20 || *d.ECN != 1 || *d.DropBatchSize != 64 || d.CEThreshold != nil {
		t.Errorf("defaults: %+v", d)
	}
	q = mustNew(t, attrs.FQCodelAttrs{Quantum: u32(100), DropBatchSize: u32(0), MemoryLimit: u32(math.MaxUint32),
		Target: u32(1), CEThreshold: u32(1000), CEThresholdSelector: u8(1), CEThresholdMask: u8(3)})
	d = q.Config()
	if *d.Quantum != 256 || *d.DropBatchSize != 1 || *d.MemoryLimit != 1<<31 || *d.Target != 0 ||
		*d.CEThreshold != 999 || *d.CEThresholdSelector != 1 || *d.CEThresholdMask != 3 {
		t.Errorf("clamps: %+v", d)
	}
	for _, c := range []attrs.FQCodelAttrs{{Flows: u32(0)}, {Flows: u32(65537)}, {Quantum: u32(1<<20 + 1)}} {
		if _, err := New(c, 0, 0, false); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}

// TestNewtonStep: one step per count increment, as CoDel's dropping state
// takes them, undershoots from 1 at count 2 (one Newton step from a poor
// start gives 0x8001, about 0.5) and then converges to within a few percent of
// 1/sqrt(count).
func TestNewtonStep(t *testing.T) {
	v := codelVars{count: 1, recInvSqrt: ^uint16(0)}
	for v.count < 5000 {
		v.count++
		v.newtonStep()
		got := float64(v.recInvSqrt) / 65536
		want := 1 / math.Sqrt(float64(v.count))
		if v.count == 2 && v.recInvSqrt != 0x8001 {
			t.Fatalf("count 2: rec_inv_sqrt %#x, want 0x8001 (worked by hand)", v.recInvSqrt)
		}
		if v.count >= 16 && math.Abs(got-want)/want > 0.05 {
			t.Fatalf("count %d: rec_inv_sqrt %.5f, 1/sqrt %.5f", v.count, got, want)
		}
	}
	// The control law: interval/sqrt(count) after t.
	if got := controlLaw(1000, 97656, v.recInvSqrt); got < 1000+97656/71 || got > 1000+97656/70 {
		t.Errorf("control law at count 5000: %d", got)
	}
	if got := controlLaw(math.MaxUint32, 10, ^uint16(0)); got != 8 {
		t.Errorf("control law wraps: %d", got)
	}
}

func TestBypassOnImmediateLink(t *testing.T) {
	q := mustNew(t, attrs.FQCodelAttrs{})
	var tr []Arrival
	for i := range 10 {
		tr = append(tr, Arrival{Time: Time(i) * 1000, Packet: pin(uint64(i), 1, 100, 0)})
	}
	Simulate(q, tr, Link{})
	s := q.Stats()
	if s.Basic.Packets != 10 || s.Basic.Bytes != 1000 || s.Xstats.NewFlowCount != 0 || s.Xstats.Maxpacket != 0 {
		t.Errorf("bypass: %+v", s)
	}
}

// TestBatchDrop: over the limit, fq_codel_drop empties half of the
// fattest flow's byte backlog from its head, whichever flow the new
// packet joined.
func TestBatchDrop(t *testing.T) {
	q := mustNew(t, attrs.FQCodelAttrs{Limit: u32(10)})
	var dropped []uint64
	q.SetHook(func(ev Event) {
		if ev.Fate == FateDropOverlimit {
			dropped = append(dropped, ev.Packet.ID)
		}
	})
	for i := range 8 {
		q.Enqueue(0, pin(uint64(i), 3, 100, 0))
	}
	for i := 8; i < 11; i++ {
		q.Enqueue(0, pin(uint64(i), 1, 100, 0))
	}
	s := q.Stats()
	if len(dropped) != 4 || dropped[0] != 0 || dropped[3] != 3 {
		t.Errorf("dropped %v, want 0..3 (half of flow 2's 800 bytes)", dropped)
	}
	if s.Queue.Qlen != 7 || s.Queue.Drops != 4 || s.Xstats.DropOverlimit != 4 || s.Xstats.DropOvermemory != 0 ||
		s.Xstats.NewFlowCount != 2 || s.Xstats.NewFlowsLen != 2 || s.Queue.Backlog != 700 || q.flows[2].cv.count != 4 {
		t.Errorf("stats %+v count %d", s, q.flows[2].cv.count)
	}
	// drop_batch_size bounds the batch; memory_limit triggers it too.
	q = mustNew(t, attrs.FQCodelAttrs{DropBatchSize: u32(2), MemoryLimit: u32(768 * 6)})
	for i := range 7 {
		q.Enqueue(0, pin(uint64(i), 1, 100, 0))
	}
	s = q.Stats()
	if s.Queue.Qlen != 5 || s.Xstats.DropOvermemory != 2 || s.Xstats.MemoryUsage != 5*768 {
		t.Errorf("memory: %+v", s)
	}
}

// TestDRR: new flows go first; a flow out of credit moves to old_flows.
func TestDRR(t *testing.T) {
	q := mustNew(t, attrs.FQCodelAttrs{Quantum: u32(300)})
	for i := range 4 {
		q.Enqueue(0, pin(uint64(i), 1, 200, 0))
	}
	q.Enqueue(0, pin(10, 2, 200, 0))
	q.Enqueue(0, pin(11, 2, 200, 0))
	var order []uint64
	for {
		p, ok := q.Dequeue(0)
		if !ok {
			break
		}
		order = append(order, p.ID)
	}
	// Flow 1: 0, 1 (deficit 300-400 < 0), then flow 2: 10, 11; flow 1
	// gets 300 more: 2, 3; flow 2 empty.
	want := []uint64{0, 1, 10, 11, 2, 3}
	for i := range want {
		if i >= len(order) || order[i] != want[i] {
			t.Fatalf("order %v, want %v", order, want)
		}
	}
	if s := q.Stats(); s.Xstats.NewFlowsLen != 0 || s.Xstats.OldFlowsLen != 0 || s.Xstats.Maxpacket != 200 {
		t.Errorf("after draining: %+v", s.Xstats)
	}
}

// standing offers one flow at twice a 1 Mbit/s link's rate for 2 s: a
// standing queue CoDel must act on.
func standing(t *testing.T, c attrs.FQCodelAttrs, ecn uint8) (Stats, int, int) {
	q := mustNew(t, c)
	delivered, dropped := 0, 0
	q.SetHook(func(ev Event) {
		if ev.Fate == FateDelivered {
			delivered++
		} else {
			dropped++
		}
	})
	var tr []Arrival
	for i := range 333 {
		tr = append(tr, Arrival{Time: 1e9 + Time(i)*6_000_000, Packet: pin(uint64(i), 1, 1500, ecn)})
	}
	Simulate(q, tr, Link{Rate: 125_000 / 2})
	s := q.Stats()
	if delivered+dropped != 333 || int(s.Basic.Packets) != delivered || int(s.Queue.Drops) != dropped {
		t.Errorf("conservation: %d delivered, %d dropped, stats %+v", delivered, dropped, s)
	}
	return s, delivered, dropped
}

func TestCoDel(t *testing.T) {
	s, _, dropped := standing(t, attrs.FQCodelAttrs{}, NotECT)
	if dropped == 0 || s.Xstats.ECNMark != 0 || s.Xstats.DropOverlimit != 0 {
		t.Errorf("not-ECT: %d dropped, %+v", dropped, s.Xstats)
	}
	s, _, dropped = standing(t, attrs.FQCodelAttrs{}, ECT0)
	if dropped != 0 || s.Xstats.ECNMark == 0 {
		t.Errorf("ECT(0): %d dropped, %+v", dropped, s.Xstats)
	}
	s, _, dropped = standing(t, attrs.FQCodelAttrs{ECN: u32(0)}, ECT0)
	if dropped == 0 || s.Xstats.ECNMark != 0 {
		t.Errorf("noecn: %d dropped, %+v", dropped, s.Xstats)
	}
}

func TestCEThreshold(t *testing.T) {
	s, _, _ := standing(t, attrs.FQCodelAttrs{CEThreshold: u32(1000), Target: u32(10_000_000)}, ECT1)
	if s.Xstats.CEMark == 0 || s.Xstats.ECNMark != 0 {
		t.Errorf("ce_threshold: %+v", s.Xstats)
	}
	// A selector that the DS field does not match marks nothing.
	s, _, _ = standing(t, attrs.FQCodelAttrs{CEThreshold: u32(1000), Target: u32(10_000_000),
		CEThresholdSelector: u8(2), CEThresholdMask: u8(3)}, ECT1)
	if s.Xstats.CEMark != 0 {
		t.Errorf("selector 2/3 on ECT(1): %+v", s.Xstats)
	}
}

// TestDumpRoundTrip: a model built from a live qdisc's dump (times rounded
// down to µs) holds the codel times of the request that made it, so it
// dumps the same again.
func TestDumpRoundTrip(t *testing.T) {
	for us := uint32(0); us < 300_000; us += 97 {
		a := mustNew(t, attrs.FQCodelAttrs{Target: u32(us), Interval: u32(us + 1), CEThreshold: u32(us + 2)})
		b, err := New(a.Config(), 0, 0, true)
		if err != nil {
			t.Fatal(err)
		}
		if a.p != b.p {
			t.Fatalf("%d µs: request %+v, from its dump %+v", us, a.p, b.p)
		}
	}
}

// TestTokenBucket: below a rate with a burst, as HTB meters a leaf, a
// packet leaves while the bucket holds tokens (even none left over), so
// a full bucket lets a burst through before the rate paces; the order
// margin is the gap between an arrival and the timer's dequeue it could
// swap with.
func TestTokenBucket(t *testing.T) {
	q := mustNew(t, attrs.FQCodelAttrs{})
	var done []Time
	q.SetHook(func(ev Event) { done = append(done, ev.Time) })
	const t0, ms = 1e9, 1e6
	var tr []Arrival
	for i := range 5 {
		tr = append(tr, Arrival{Time: t0 + Time(i)*ms, Packet: pin(uint64(i), 1, 1000, NotECT)})
	}
	// 1000 bytes at 125000 B/s take 8 ms; the bucket holds 16 ms.
	res := Simulate(q, tr, Link{Rate: 125_000, Burst: 2000})
	want := []Time{t0, t0 + ms, t0 + 2*ms, t0 + 8*ms, t0 + 16*ms}
	for i := range want {
		if i >= len(done) || done[i] != want[i] {
			t.Fatalf("dequeues at %v, want %v", done, want)
		}
	}
	// Packet 3 waits for the bucket (due at 8 ms), packet 4 arrives 4 ms
	// before that dequeue.
	if res.End != t0+16*ms || res.Order != 4*ms {
		t.Errorf("end %d, order margin %d", res.End, res.Order)
	}
	// Without a burst the link is an ideal serializer.
	q = mustNew(t, attrs.FQCodelAttrs{})
	done = nil
	q.SetHook(func(ev Event) { done = append(done, ev.Time) })
	Simulate(q, tr, Link{Rate: 125_000})
	want = []Time{t0, t0 + 8*ms, t0 + 16*ms, t0 + 24*ms, t0 + 32*ms}
	for i := range want {
		if i >= len(done) || done[i] != want[i] {
			t.Fatalf("no burst: dequeues at %v, want %v", done, want)
		}
	}
}

// TestWmemNotCounted: an skb a local socket's write memory holds adds
// nothing to memory_usage, so memory_limit never drops it; one that does
// not (a forwarded packet) is counted.
func TestWmemNotCounted(t *testing.T) {
	for _, wmem := range []bool{false, true} {
		q := mustNew(t, attrs.FQCodelAttrs{MemoryLimit: u32(2000)})
		for i := range 4 {
			p := pin(uint64(i), 1, 1000, NotECT)
			p.Wmem = wmem
			q.Enqueue(1e9, p)
		}
		s := q.Stats()
		if wmem && (s.Xstats.DropOvermemory != 0 || s.Xstats.MemoryUsage != 0 || s.Queue.Qlen != 4) {
			t.Errorf("socket-owned: %+v %+v", s.Queue, s.Xstats)
		}
		if !wmem && (s.Xstats.DropOvermemory == 0 || s.Xstats.MemoryUsage > 2000) {
			t.Errorf("forwarded: %+v %+v", s.Queue, s.Xstats)
		}
	}
}
