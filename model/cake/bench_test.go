// SPDX-License-Identifier: Apache-2.0

package cake

import (
	"math/rand/v2"
	"testing"

	"github.com/gotc/gotc/attrs"
)

// BenchmarkCakeMixed: 1,000 flows (bulk TCP data, pure ACKs with the ACK
// filter on, UDP of random sizes and DSCPs over the diffserv3 tins) from 50
// source hosts, triple-isolate, shaped at 10 Gbit/s with ~3,000 packets
// queued. Each op offers one packet (Enqueue) and dequeues back down to
// 3,000 queued packets, advancing the clock to the watchdog when the
// shaper holds back: ns/op is the cost of one simulated packet through the
// qdisc, and allocs/op must be 0.
func BenchmarkCakeMixed(b *testing.B) {
	af := attrs.CakeAckFilterFilter
	q, err := New(attrs.CakeAttrs{BaseRate64: p64(1250000000), AckFilter: &af}, WithCapacity(8192))
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	const nflows = 1000
	pkts := make([]Packet, 8192)
	acks := make([]uint32, nflows)
	for i := range pkts {
		f := r.IntN(nflows)
		src := ip4(10, 0, byte(f%50), 1)
		dst := ip4(10, 1, byte(f/50), 2)
		var p Packet
		switch f % 3 {
		case 0:
			p = tcp4(src, dst, uint16(1024+f), 443, 1448)
		case 1:
			acks[f] += 2896
			p = tcp4(src, dst, uint16(1024+f), 443, 0)
			p.Ack = acks[f]
		default:
			p = udp4(src, dst, uint16(1024+f), 53, uint32(28+r.IntN(1400)))
			p.DSField = uint8(r.IntN(64)) << 2
		}
		pkts[i] = p
	}
	now := t0
	// Fill to a steady backlog of ~3,000 packets.
	for i := 0; i < 3000; i++ {
		q.Enqueue(now, &pkts[i%len(pkts)])
	}
	// Each step offers one packet and dequeues down to the backlog
	// target (ACK-filter and AQM drops make that sometimes zero dequeues).
	const backlog = 3000
	step := func(i int) {
		q.Enqueue(now, &pkts[i&(len(pkts)-1)])
		for q.Qlen() > backlog {
			if _, ok := q.Dequeue(now); ok {
				continue
			}
			w, armed := q.NextWakeup()
			if !armed {
				return
			}
			q.WatchdogFired(w)
			now = w
		}
	}
	for i := 0; i < 100000; i++ { // reach steady state (flow states, heap)
		step(i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		step(i)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pkts/s")
	s := q.Stats()
	if s.Queue.Qlen < backlog {
		b.Fatalf("backlog fell to %d", s.Queue.Qlen)
	}
	var active uint32
	for _, ts := range s.Cake.TinStats {
		active += *ts.SparseFlows + *ts.BulkFlows
	}
	b.ReportMetric(float64(active), "flows")
}
