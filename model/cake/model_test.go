// SPDX-License-Identifier: Apache-2.0

package cake

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gotc/gotc/attrs"
)

func TestOverheadArithmetic(t *testing.T) {
	atm, ptm := attrs.CakeATMModeATM, attrs.CakeATMModePTM
	ip100 := udp4(ip4(10, 0, 0, 1), ip4(10, 0, 0, 2), 1, 2, 100) // skb->len 114
	for _, c := range []struct {
		name           string
		cfg            attrs.CakeAttrs
		pkt            Packet
		netlen, adjlen uint32
	}{
		// raw (default): the whole skb, Ethernet header included.
		{"raw", attrs.CakeAttrs{}, ip100, 114, 114},
		// "atm overhead 44": 114-14 = 100, +44 = 144, 3 cells = 159.
		{"atm overhead 44", attrs.CakeAttrs{ATM: &atm, Overhead: ptrI32(44)}, ip100, 100, 159},
		// "conservative" = atm overhead 48: 148 → 4 cells.
		{"conservative", attrs.CakeAttrs{ATM: &atm, Overhead: ptrI32(48)}, ip100, 100, 212},
		// PTM: one byte per started 64: 100 → 102.
		{"ptm overhead 0", attrs.CakeAttrs{ATM: &ptm, Overhead: ptrI32(0)}, ip100, 100, 102},
		// "ethernet" = overhead 38 mpu 84: a 28-byte IP packet → 84.
		{"ethernet mpu", attrs.CakeAttrs{Overhead: ptrI32(38), MPU: p32(84)},
			udp4(ip4(1, 1, 1, 1), ip4(2, 2, 2, 2), 1, 2, 28), 28, 84},
		// Negative overhead is u32 arithmetic.
		{"overhead -4", attrs.CakeAttrs{Overhead: ptrI32(-4)}, ip100, 100, 96},
		// Raw mode with an overhead value: the value applies, no -14.
		{"raw overhead 10", attrs.CakeAttrs{Overhead: ptrI32(10), Raw: p32(0)}, ip100, 114, 124},
	} {
		q := mustNew(t, c.cfg)
		if got := q.AdjustedLen(c.pkt); got != c.adjlen {
			t.Errorf("%s: adjusted %d want %d", c.name, got, c.adjlen)
		}
		q.Enqueue(t0, &c.pkt)
		s := q.Stats().Cake
		if *s.MinNetlen != c.netlen || *s.MaxNetlen != c.netlen || *s.MinAdjlen != c.adjlen || *s.MaxAdjlen != c.adjlen {
			t.Errorf("%s: net %d/%d adj %d/%d want %d %d", c.name, *s.MinNetlen, *s.MaxNetlen,
				*s.MinAdjlen, *s.MaxAdjlen, c.netlen, c.adjlen)
		}
	}

	// Unsplit GSO: every segment but the last is gso_size + headers.
	q := mustNew(t, attrs.CakeAttrs{SplitGSO: p32(0), Overhead: ptrI32(0), ATM: &atm})
	g := gso4(ip4(1, 1, 1, 1), ip4(2, 2, 2, 2), 1, 2, 3, 1000)
	g.Len -= 500 // last segment carries 500 bytes
	// segments: IP 1040,1040,540 → cells 22,22,12 → 53×56
	if got := q.AdjustedLen(g); got != 53*(22+22+12) {
		t.Errorf("GSO adjusted %d", got)
	}
	if got := g.PktLen(); got != 14+40+2500+2*54 {
		t.Errorf("GSO pkt_len %d", got)
	}

	// avg_netoff: EWMA (shift 8) of 14<<16, dumped rounded.
	q = mustNew(t, attrs.CakeAttrs{})
	p := ip100
	q.Enqueue(t0, &p)
	if got := *q.Stats().Cake.AvgNetoff; got != 0 {
		t.Errorf("avg_netoff after one packet %d", got)
	}
	for i := 0; i < 2000; i++ {
		q.Enqueue(t0, &p)
	}
	if got := *q.Stats().Cake.AvgNetoff; got != 14 {
		t.Errorf("avg_netoff converged to %d", got)
	}
}

func TestShaperSpacingAndOverlimits(t *testing.T) {
	q := mustNew(t, attrs.CakeAttrs{BaseRate64: p64(1000000)}) // 1 byte/µs
	var dep []int64
	link := Link{Deliver: func(now int64, p *Packet) { dep = append(dep, now) }}
	var trace []Arrival
	for i := 0; i < 3; i++ {
		trace = append(trace, Arrival{t0, udp4(ip4(10, 0, 0, 1), ip4(10, 0, 0, 2), 1, 2, 986)}) // 1000 B
	}
	Simulate(q, trace, link)
	want := []int64{t0, t0 + 1e6, t0 + 2e6}
	if len(dep) != 3 || dep[0] != want[0] || dep[1] != want[1] || dep[2] != want[2] {
		t.Fatalf("departures %v want %v", dep, want)
	}
	// 1 blocked idle enqueue + 3 blocked dequeues (2nd enqueue, 3rd
	// enqueue, after the 2nd departure).
	if s := q.Stats(); s.Queue.Overlimits != 4 || s.Basic.Packets != 3 || s.Basic.Bytes != 3000 {
		t.Fatalf("overlimits %d sent %d/%d", s.Queue.Overlimits, s.Basic.Packets, s.Basic.Bytes)
	}

	// Unshaped on an immediate link: nothing ever waits.
	q = mustNew(t, attrs.CakeAttrs{})
	for i := range trace {
		trace[i].At = t0 + int64(i)
	}
	Simulate(q, trace, Link{})
	if s := q.Stats(); s.Queue.Overlimits != 0 || s.Queue.Qlen != 0 || s.Basic.Packets != 3 {
		t.Fatalf("unshaped %+v", s.Queue)
	}
}

// TestConservation: every enqueued packet is delivered, dropped or still
// queued, per packet and per byte, under random mixed load with a shaper,
// a small memory limit, the ACK filter and unsplit GSO.
func TestConservation(t *testing.T) {
	af := attrs.CakeAckFilterAggressive
	for _, split := range []uint32{0, 1} {
		q := mustNew(t, attrs.CakeAttrs{BaseRate64: p64(2000000), Memory: p32(300000), AckFilter: &af, SplitGSO: p32(split)},
			WithDropHook(nil))
		var got tally
		var dropped tally
		q.dropHook = func(now int64, p *Packet, r DropReason) {
			dropped.pkts++
			dropped.bytes += uint64(p.PktLen())
			dropped.byReason[r]++
		}
		d := Driver{Q: q, Link: Link{Deliver: func(now int64, p *Packet) {
			got.pkts++
			got.bytes += uint64(p.PktLen())
		}}}
		r := rand.New(rand.NewPCG(1, 2))
		var inPkts, inBytes uint64
		now := t0
		acks := make([]uint32, 8)
		for i := 0; i < 20000; i++ {
			now += int64(r.IntN(400000))
			fl := uint16(r.IntN(40))
			var p Packet
			switch r.IntN(4) {
			case 0:
				p = udp4(ip4(10, 0, 0, byte(fl%5)), ip4(10, 1, 0, 1), fl, 53, uint32(28+r.IntN(1400)))
				p.DSField = uint8(r.IntN(64)) << 2
			case 1:
				p = gso4(ip4(10, 0, 0, 1), ip4(10, 1, 0, 2), 80, fl, uint16(2+r.IntN(10)), 1448)
			default:
				a := fl % 8
				acks[a] += uint32(r.IntN(3000))
				p = tcp4(ip4(10, 0, 0, 9), ip4(10, 1, 0, 3), 1000+uint16(a), 443, 0)
				p.Ack = acks[a]
			}
			split := p.segs() > 1 && q.p.rateFlags&flagSplitGSO != 0
			if split {
				inPkts += uint64(p.segs())
			} else {
				inPkts++
			}
			inBytes += uint64(p.PktLen())
			d.Send(now, &p)
		}
		s := q.Stats()
		pk, by, drops, ackDrops, _, backlog := sumTins(s)
		if pk != inPkts || by != inBytes {
			t.Errorf("split=%d: tin counters %d/%d, offered %d/%d", split, pk, by, inPkts, inBytes)
		}
		if got.pkts+dropped.pkts+uint64(s.Queue.Qlen) != inPkts {
			t.Errorf("split=%d: sent %d + dropped %d + qlen %d != %d", split, got.pkts, dropped.pkts, s.Queue.Qlen, inPkts)
		}
		if got.bytes+dropped.bytes+uint64(s.Queue.Backlog) != inBytes || backlog != uint64(s.Queue.Backlog) {
			t.Errorf("split=%d: bytes %d + %d + %d != %d", split, got.bytes, dropped.bytes, s.Queue.Backlog, inBytes)
		}
		if uint64(s.Queue.Drops) != drops+ackDrops || dropped.pkts != drops+ackDrops || ackDrops != dropped.byReason[DropAck] {
			t.Errorf("split=%d: qdisc drops %d, tin drops %d + acks %d, hook %d", split, s.Queue.Drops, drops, ackDrops, dropped.pkts)
		}
		if dropped.byReason[DropOverlimit] == 0 || ackDrops == 0 {
			t.Errorf("split=%d: the load should overflow and filter ACKs: %v", split, dropped.byReason)
		}
		if *s.Cake.MemoryUsed < 300000 {
			t.Errorf("memory_used %d never reached the limit", *s.Cake.MemoryUsed)
		}
		t.Logf("split=%d: sent %d dropped %v qlen %d overlimits %d", split, got.pkts, dropped.byReason, s.Queue.Qlen, s.Queue.Overlimits)
	}
}

func TestMemoryLimitDropsFattest(t *testing.T) {
	// Shaped slowly so nothing leaves after the first packet.
	q := mustNew(t, attrs.CakeAttrs{BaseRate64: p64(1000), Memory: p32(20000)})
	var reasons []DropReason
	q.dropHook = func(now int64, p *Packet, r DropReason) { reasons = append(reasons, r) }
	a := udp4(ip4(10, 0, 0, 1), ip4(10, 0, 0, 2), 1, 2, 1000)
	a.Truesize = 2000
	b := a
	b.SrcPort = 3
	var v Verdict
	for i := 0; i < 3; i++ {
		v = q.Enqueue(t0, &b)
	}
	for i := 0; i < 7; i++ {
		v = q.Enqueue(t0, &a) // 10 × 2000 = 20000: at the limit, no drop yet
	}
	if v != XmitSuccess || len(reasons) != 0 {
		t.Fatalf("drops at the limit: %v", reasons)
	}
	v = q.Enqueue(t0, &a) // over: one of a's packets goes
	if v != XmitCN || len(reasons) != 1 || reasons[0] != DropOverlimit {
		t.Fatalf("verdict %v drops %v", v, reasons)
	}
	v = q.Enqueue(t0, &b) // b is smaller than a: a still loses, not b
	if v != XmitSuccess || len(reasons) != 2 {
		t.Fatalf("verdict %v drops %v", v, reasons)
	}
	s := q.Stats()
	be := s.Cake.TinStats[1]
	if s.Queue.Drops != 2 || *be.DroppedPackets != 2 || *be.UnresponsiveFlows != 1 ||
		s.Queue.Qlen != 10 || *s.Cake.MemoryUsed != 22000 {
		t.Fatalf("drops %d tin %d unresponsive %d qlen %d memused %d", s.Queue.Drops, *be.DroppedPackets,
			*be.UnresponsiveFlows, s.Queue.Qlen, *s.Cake.MemoryUsed)
	}
	f := &q.tins[0].flows[q.hash(&q.tins[0], &a)]
	if f.cv.pDrop != 1<<24 || f.dropped != 2 {
		t.Fatalf("BLUE p_drop %d (one increment per target), dropped %d", f.cv.pDrop, f.dropped)
	}
}

func TestWayAccounting(t *testing.T) {
	// Every flow hashes to queue 1 with a different tag.
	h := Hasher{Flow: func(p *Packet) uint32 { return 1 + uint32(p.SrcPort)*numQueues }}
	fm := attrs.CakeFlowModeFlows
	q := mustNew(t, attrs.CakeAttrs{FlowMode: &fm, BaseRate64: p64(1000)}, WithHasher(h))
	pk := func(port uint16) *Packet {
		p := udp4(ip4(10, 0, 0, 1), ip4(10, 0, 0, 2), port, 9, 100)
		return &p
	}
	for port := uint16(0); port < 8; port++ {
		q.Enqueue(t0, pk(port))
	}
	be := &q.tins[0]
	if be.wayMisses != 8 || be.wayCollisions != 0 || be.wayHits != 0 {
		t.Fatalf("misses %d collisions %d hits %d", be.wayMisses, be.wayCollisions, be.wayHits)
	}
	q.Enqueue(t0, pk(0)) // direct: it owns queue 1
	q.Enqueue(t0, pk(3)) // found at way offset 3 of its set
	if be.wayHits != 1 || be.wayDirects != 1 {
		t.Fatalf("hits %d directs %d", be.wayHits, be.wayDirects)
	}
	// A 9th flow finds no idle way: it shares queue 1 and takes its tag,
	// so flow 0 then collides too.
	q.Enqueue(t0, pk(8))
	q.Enqueue(t0, pk(0))
	if be.wayCollisions != 2 || be.wayMisses != 8 {
		t.Fatalf("collisions %d", be.wayCollisions)
	}
	s := q.Stats().Cake.TinStats[1]
	if *s.WayMisses != 8 || *s.WayCollisions != 2 || *s.WayIndirectHits != 1 || *s.SparseFlows != 8 {
		t.Fatalf("dumped %d %d %d sparse %d", *s.WayMisses, *s.WayCollisions, *s.WayIndirectHits, *s.SparseFlows)
	}
}

func TestDefaultHashPartition(t *testing.T) {
	q := mustNew(t, attrs.CakeAttrs{})
	a := tcp4(ip4(10, 0, 0, 1), ip4(10, 0, 0, 2), 1234, 80, 0)
	b := tcp4(ip4(10, 0, 0, 2), ip4(10, 0, 0, 1), 80, 1234, 0)
	if q.flowHash(&a) != q.flowHash(&b) {
		t.Error("flow hash not symmetric")
	}
	c := a
	c.SrcPort++
	if q.flowHash(&a) == q.flowHash(&c) {
		t.Error("ports ignored")
	}
	// Connected sockets: skb->hash decides in flows modes.
	a.L4Hash, a.SKBHash = true, 77
	if got := q.hash(&q.tins[0], &a); got != 77 {
		t.Errorf("skb hash queue %d", got)
	}
	// hosts mode: one queue per unordered address pair.
	fm := attrs.CakeFlowModeHosts
	q = mustNew(t, attrs.CakeAttrs{FlowMode: &fm})
	a.L4Hash = false
	if q.hash(&q.tins[0], &a) != q.hash(&q.tins[0], &b) || q.hash(&q.tins[0], &a) != q.hash(&q.tins[0], &c) {
		t.Error("hosts mode splits a host pair")
	}
}

func TestCobaltInvSqrt(t *testing.T) {
	v := cobaltVars{count: 15, recInvSqrt: invSqrtCache[15]}
	for c := uint32(16); c < 5000; c++ {
		v.count = c
		v.newtonStep()
		want := math.Exp2(32) / math.Sqrt(float64(c))
		if rel := math.Abs(float64(v.recInvSqrt)-want) / want; rel > 0.002 {
			t.Fatalf("count %d: %d vs %.0f", c, v.recInvSqrt, want)
		}
	}
	// The cache is 1/sqrt in Q0.32 (within rounding of eight steps).
	for c := 2; c < 16; c++ {
		want := math.Exp2(32) / math.Sqrt(float64(c))
		if math.Abs(float64(invSqrtCache[c])-want) > 2 {
			t.Errorf("cache[%d] = %d, want %.0f", c, invSqrtCache[c], want)
		}
	}
}

// TestCobaltMarksECT: one flow offered twice the shaper rate. ECT packets
// are CE-marked, never dropped; not-ECT packets are dropped instead. The
// initial rec_inv_sqrt of 0 makes the packet right after the first
// over-target one a signal.
func TestCobaltMarksECT(t *testing.T) {
	for _, ecn := range []uint8{ECT0, NotECT} {
		q := mustNew(t, attrs.CakeAttrs{BaseRate64: p64(125000)}) // 1 Mbit/s
		// over_target needs sojourn above target and 4 MTU times.
		target := int64(max(q.tins[0].cp.target, 4*q.tins[0].cp.mtuTime))
		firstOver, signalled := -1, -1
		n := 0
		d := Driver{Q: q, Link: Link{Deliver: func(now int64, p *Packet) {
			if firstOver < 0 && now-p.EnqueuedAt > target {
				firstOver = n
			}
			if signalled < 0 && p.DSField&3 == CE {
				signalled = n
			}
			n++
		}}}
		var drops []int
		q.dropHook = func(now int64, p *Packet, r DropReason) {
			if r == DropCongested && len(drops) == 0 {
				drops = append(drops, n)
			}
		}
		for i := 0; i < 400; i++ {
			p := udp4(ip4(10, 0, 0, 1), ip4(10, 0, 0, 2), 1, 2, 1486)
			p.DSField = ecn
			d.Send(t0+int64(i)*6e6, &p) // 1500 B every 6 ms = 2 Mbit/s
		}
		d.AdvanceTo(t0 + 10e9)
		s := q.Stats()
		be := s.Cake.TinStats[1]
		if ecn == ECT0 {
			if *be.ECNMarkedPackets == 0 || *be.DroppedPackets != 0 {
				t.Errorf("ECT: marks %d drops %d", *be.ECNMarkedPackets, *be.DroppedPackets)
			}
			if firstOver < 0 || signalled != firstOver+1 {
				t.Errorf("first over-target packet %d, first CE %d", firstOver, signalled)
			}
		} else {
			if *be.ECNMarkedPackets != 0 || *be.DroppedPackets == 0 || len(drops) == 0 || drops[0] != firstOver+1 {
				t.Errorf("not-ECT: marks %d drops %d first drop before packet %v, first over %d",
					*be.ECNMarkedPackets, *be.DroppedPackets, drops, firstOver)
			}
		}
		t.Logf("ecn=%d: marks %d drops %d peak %dus avg %dus", ecn, *be.ECNMarkedPackets, *be.DroppedPackets, *be.PeakDelayUS, *be.AvgDelayUS)
	}
}
