// SPDX-License-Identifier: Apache-2.0

package cake

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/gotc/gotc/attrs"
)

// ack is a pure ACK of one connection (client → server).
func ack(n uint32) Packet {
	p := tcp4(ip4(10, 0, 0, 1), ip4(10, 0, 0, 2), 40000, 443, 0)
	p.Ack = n
	p.HasTS, p.TSVal, p.TSEcr = true, n, n
	return p
}

func TestAckFilter(t *testing.T) {
	run := func(mode attrs.CakeAckFilter, pkts ...Packet) (dropped []uint32, qlen uint32, s Stats) {
		q := mustNew(t, attrs.CakeAttrs{AckFilter: &mode})
		q.dropHook = func(now int64, p *Packet, r DropReason) { dropped = append(dropped, p.Ack) }
		// Enqueue only: nothing leaves, as behind a busy shaper.
		for i := range pkts {
			q.Enqueue(t0, &pkts[i])
		}
		return dropped, q.Qlen(), q.Stats()
	}
	normal, aggressive := attrs.CakeAckFilterFilter, attrs.CakeAckFilterAggressive

	// Three growing ACKs: normal mode needs two eligible ACKs ahead of
	// the trigger and drops the older; aggressive drops each predecessor.
	d, n, s := run(normal, ack(1000), ack(2000), ack(3000))
	if !reflect.DeepEqual(d, []uint32{1000}) || n != 2 {
		t.Errorf("normal: dropped %v qlen %d", d, n)
	}
	be := s.Cake.TinStats[1]
	if *be.AcksDroppedPackets != 1 || s.Queue.Drops != 1 || *be.DroppedPackets != 0 ||
		*be.SentPackets != 3 || *be.SentBytes64 != 3*54 || *be.BacklogBytes != 2*54 {
		t.Errorf("normal stats: acks %d drops %d pkts %d bytes %d backlog %d", *be.AcksDroppedPackets,
			s.Queue.Drops, *be.SentPackets, *be.SentBytes64, *be.BacklogBytes)
	}
	d, n, _ = run(aggressive, ack(1000), ack(2000), ack(3000))
	if !reflect.DeepEqual(d, []uint32{1000, 2000}) || n != 1 {
		t.Errorf("aggressive: dropped %v qlen %d", d, n)
	}

	// Data between the ACKs: aggressive mode only drops an ACK directly
	// ahead of the trigger.
	data := tcp4(ip4(10, 0, 0, 1), ip4(10, 0, 0, 2), 40000, 443, 100)
	data.Ack = 1500
	if d, _, _ = run(aggressive, ack(1000), data, ack(2000)); len(d) != 0 {
		t.Errorf("aggressive with data between: dropped %v", d)
	}
	if d, _, _ = run(normal, ack(1000), data, ack(2000), ack(3000)); !reflect.DeepEqual(d, []uint32{1000}) {
		t.Errorf("normal with data: dropped %v", d)
	}

	// ECE changes: the held ACK is released.
	e := ack(2000)
	e.TCPFlags |= TCPEce
	if d, _, _ = run(normal, ack(1000), e, ack(3000)); len(d) != 0 {
		t.Errorf("ECE change: dropped %v", d)
	}
	// A newer timestamp than the trigger's, or an unknown option, or a
	// SYN trigger, protects.
	late := ack(1000)
	late.TSVal = 5000
	if d, _, _ = run(aggressive, late, ack(2000)); len(d) != 0 {
		t.Errorf("newer tsval: dropped %v", d)
	}
	opt := ack(1000)
	opt.OtherOpts = true
	if d, _, _ = run(aggressive, opt, ack(2000)); len(d) != 0 {
		t.Errorf("unknown option: dropped %v", d)
	}
	syn := ack(2000)
	syn.TCPFlags |= TCPSyn
	if d, _, _ = run(aggressive, ack(1000), syn); len(d) != 0 {
		t.Errorf("SYN trigger: dropped %v", d)
	}
	// The same cumulative ACK is droppable only if the trigger SACKs more.
	s1, s2 := ack(1000), ack(1000)
	s2.NumSACK, s2.SACK[0] = 1, SACKBlock{2000, 3000}
	if d, _, _ = run(aggressive, s1, s2); !reflect.DeepEqual(d, []uint32{1000}) {
		t.Errorf("more SACK: dropped %v", d)
	}
	if d, _, _ = run(aggressive, s2, s1); len(d) != 0 {
		t.Errorf("less SACK: dropped %v", d)
	}
	dsack := ack(1000)
	dsack.NumSACK, dsack.SACK[0] = 1, SACKBlock{500, 600} // below ack: DSACK
	t2 := ack(2000)
	t2.NumSACK, t2.SACK[0] = 1, SACKBlock{0, 4000}
	if d, _, _ = run(aggressive, dsack, t2); len(d) != 0 {
		t.Errorf("DSACK: dropped %v", d)
	}
	// The reverse direction is a different 4-tuple.
	rev := ack(1000)
	rev.Src, rev.Dst, rev.SrcPort, rev.DstPort = rev.Dst, rev.Src, rev.DstPort, rev.SrcPort
	if d, _, _ = run(aggressive, rev, ack(2000)); len(d) != 0 {
		t.Errorf("reverse direction: dropped %v", d)
	}
}

// source is a closed-loop bulk sender: it keeps depth packets of its own
// in the qdisc, replacing each one that leaves or is dropped.
type source struct {
	pkt     Packet
	depth   int
	bytes   uint64
	host    int
	pending int
}

// runSources drives srcs through q for dur ns on the immediate link.
func runSources(q *Qdisc, srcs []*source, dur int64, tick int64) {
	byID := map[uint64]*source{}
	for i, s := range srcs {
		s.pkt.ID = uint64(i)
		byID[uint64(i)] = s
	}
	q.dropHook = func(now int64, p *Packet, r DropReason) { byID[p.ID].pending++ }
	d := Driver{Q: q, Link: Link{Deliver: func(now int64, p *Packet) {
		s := byID[p.ID]
		s.bytes += uint64(p.PktLen())
		s.pending++
	}}}
	for _, s := range srcs {
		s.pending = s.depth
	}
	for now := t0; now < t0+dur; now += tick {
		d.AdvanceTo(now)
		for _, s := range srcs {
			for ; s.pending > 0; s.pending-- {
				p := s.pkt
				d.Send(now, &p)
			}
		}
	}
}

// TestHostFairnessTripleIsolate: under a 10 Mbit/s shaper, host A runs one
// flow and host B eight; triple-isolate shares per host (about half each),
// plain flow fairness gives A a ninth.
func TestHostFairnessTripleIsolate(t *testing.T) {
	for _, c := range []struct {
		mode  attrs.CakeFlowMode
		share float64 // A's expected share
	}{
		{attrs.CakeFlowModeTriple, 0.5},
		{attrs.CakeFlowModeDualSrc, 0.5},
		{attrs.CakeFlowModeFlows, 1.0 / 9},
	} {
		mode := c.mode
		be := attrs.CakeDiffservModeBesteffort
		q := mustNew(t, attrs.CakeAttrs{BaseRate64: p64(1250000), FlowMode: &mode, DiffservMode: &be})
		var srcs []*source
		a := &source{pkt: tcp4(ip4(10, 0, 0, 1), ip4(10, 9, 0, 1), 5000, 80, 1460), depth: 4, host: 0}
		srcs = append(srcs, a)
		for i := 0; i < 8; i++ {
			srcs = append(srcs, &source{pkt: tcp4(ip4(10, 0, 0, 2), ip4(10, 9, 0, 2), 6000+uint16(i), 80, 1460), depth: 4, host: 1})
		}
		runSources(q, srcs, 5e9, 1e6)
		var hb [2]uint64
		for _, s := range srcs {
			hb[s.host] += s.bytes
		}
		share := float64(hb[0]) / float64(hb[0]+hb[1])
		total := float64(hb[0]+hb[1]) / 5
		if share < c.share*0.9 || share > c.share*1.1 {
			t.Errorf("%v: host A share %.3f, want %.3f", c.mode, share, c.share)
		}
		if total < 1250000*0.97 || total > 1250000*1.01 {
			t.Errorf("%v: throughput %.0f B/s", c.mode, total)
		}
		t.Logf("%v: host A share %.3f, %0.f B/s", c.mode, share, total)
	}
}

// TestReplayDeterminism: the same trace and seed give the same statistics;
// margins are reported.
func TestReplayDeterminism(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var trace []Arrival
	now := t0
	for i := 0; i < 5000; i++ {
		now += int64(r.IntN(200e3))
		p := udp4(ip4(10, 0, 0, byte(r.IntN(4))), ip4(10, 1, 0, 1), uint16(r.IntN(30)), 53, uint32(28+r.IntN(1400)))
		p.DSField = uint8(r.IntN(64))<<2 | uint8(r.IntN(4))
		trace = append(trace, Arrival{now, p})
	}
	run := func() (Stats, Margins) {
		q := mustNew(t, attrs.CakeAttrs{BaseRate64: p64(2500000)}, WithSeed(42))
		Simulate(q, trace, Link{})
		return q.Stats(), q.Margins()
	}
	s1, m1 := run()
	s2, m2 := run()
	if !reflect.DeepEqual(s1, s2) || m1 != m2 {
		t.Fatal("replay differs")
	}
	if s1.Queue.Qlen != 0 || m1.Shaper <= 0 || m1.AQM <= 0 {
		t.Fatalf("qlen %d margins %+v", s1.Queue.Qlen, m1)
	}
	t.Logf("margins: shaper %d ns, aqm %d ns", m1.Shaper, m1.AQM)
}

// TestRandInjection: a Rand that always returns 0 removes the dithering
// (deficit = quantum - 1 for a full quantum) and never fires BLUE.
type zeroRand struct{}

func (zeroRand) Uint32() uint32 { return 0 }

type maxRand struct{}

func (maxRand) Uint32() uint32 { return ^uint32(0) }

func TestRandInjection(t *testing.T) {
	for _, c := range []struct {
		r    Rand
		want int32
	}{{zeroRand{}, 1513}, {maxRand{}, 1514}} {
		q := mustNew(t, attrs.CakeAttrs{}, WithRand(c.r))
		p := udp4(ip4(10, 0, 0, 1), ip4(10, 0, 0, 2), 1, 2, 100)
		q.Enqueue(t0, &p)
		f := &q.tins[0].flows[q.hash(&q.tins[0], &p)]
		if f.deficit != c.want {
			t.Errorf("deficit %d want %d", f.deficit, c.want)
		}
	}
}
