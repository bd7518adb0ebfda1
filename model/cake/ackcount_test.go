// SPDX-License-Identifier: Apache-2.0

package cake

import (
	"math/rand/v2"
	"testing"

	"github.com/gotc/gotc/attrs"
)

// checkAckCounts verifies flow.acks, which lets the ACK filter skip its
// scan: it must equal the number of pureACK packets queued in the flow.
func checkAckCounts(t *testing.T, q *Qdisc, step int) {
	t.Helper()
	for ti := range q.tins {
		tn := &q.tins[ti]
		for fi := range tn.flows {
			f := &tn.flows[fi]
			var n uint32
			for i := f.head; i != nilIdx; i = q.pool[i].next {
				if pureACK(&q.pool[i].pkt) {
					n++
				}
			}
			if n != f.acks {
				t.Fatalf("step %d: tin %d flow %d: acks %d, %d pure ACKs queued", step, ti, fi, f.acks, n)
			}
		}
	}
}

// TestAckCountInvariant runs ACK-heavy mixed traffic through every path
// that queues or removes packets (ACK filter, AQM and memory-limit drops,
// GSO splitting, a tin purge on Change) and checks the per-flow counts.
func TestAckCountInvariant(t *testing.T) {
	for _, mode := range []attrs.CakeAckFilter{attrs.CakeAckFilterFilter, attrs.CakeAckFilterAggressive} {
		af := mode
		split := uint32(1)
		dm := attrs.CakeDiffservModeDiffserv4
		q := mustNew(t, attrs.CakeAttrs{BaseRate64: p64(2e6), AckFilter: &af, Memory: p32(200000), SplitGSO: &split, DiffservMode: &dm})
		r := rand.New(rand.NewPCG(uint64(mode), 3))
		acks := make([]uint32, 40)
		now := t0
		for step := 0; step < 20000; step++ {
			f := r.IntN(len(acks))
			src, dst := ip4(10, 0, byte(f%5), 1), ip4(10, 1, 0, 2)
			var p Packet
			switch r.IntN(5) {
			case 0:
				p = tcp4(src, dst, uint16(1000+f), 443, uint32(r.IntN(1448)))
			case 1:
				p = gso4(src, dst, uint16(1000+f), 443, uint16(2+r.IntN(3)), 1448)
			default:
				acks[f] += uint32(r.IntN(3000))
				p = tcp4(src, dst, uint16(1000+f), 443, 0)
				p.Ack = acks[f]
				switch r.IntN(8) {
				case 0:
					p.TCPFlags |= TCPEce
				case 1:
					p.OtherOpts = true
				case 2:
					p.NumSACK = 1
					p.SACK[0] = SACKBlock{Start: p.Ack + 100, End: p.Ack + 1000}
				}
			}
			p.DSField = uint8(r.IntN(64)) << 2
			q.Enqueue(now, &p)
			for n := r.IntN(3); n > 0; n-- {
				q.Dequeue(now)
			}
			now += int64(r.IntN(400000))
			if step == 10000 {
				be := attrs.CakeDiffservModeBesteffort
				if err := q.Change(attrs.CakeAttrs{DiffservMode: &be}); err != nil {
					t.Fatal(err)
				}
			}
			if step%97 == 0 {
				checkAckCounts(t, q, step)
			}
		}
		checkAckCounts(t, q, -1)
		_, _, drops, ackDrops, _, _ := sumTins(q.Stats())
		if ackDrops == 0 || drops == 0 {
			t.Fatalf("mode %d: drops %d, ACK drops %d: not exercised", mode, drops, ackDrops)
		}
	}
}
