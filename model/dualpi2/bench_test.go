// SPDX-License-Identifier: Apache-2.0

package dualpi2

import (
	"testing"

	"github.com/gotc/gotc/attrs"
)

// BenchmarkDualPI2Mixed measures simulated packets per second: one op is
// one arrival of a mixed load from 1,000 flows (L4S, classic ECT(0) and
// not-ECT, some LLLL/L4S by priority, 64-1514 bytes) offered at 1.1x a
// 1 Gb/s rate link, with its share of the link's dequeues, PI ticks, marks
// and drops. The queues are warmed up to steady state first (PI active,
// ~15 ms of classic queue) so that the measurement sees no growth.
func BenchmarkDualPI2Mixed(b *testing.B) {
	const rate = 125_000_000
	q, err := New(attrs.DualPI2Attrs{}, WithCapacity(8192))
	if err != nil {
		b.Fatal(err)
	}
	s := NewSim(q, RateLink(rate))
	trace := mixedTrace(1<<16, 1000, 1.1*rate, 11, false)
	period := trace[len(trace)-1].Time + Microsecond
	i := 0
	next := func() Arrival {
		a := trace[i&(len(trace)-1)]
		a.Time += Time(i>>16) * period
		i++
		return a
	}
	for j := 0; j < 1_000_000; j++ {
		s.Arrive(next())
	}
	before := q.Stats()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		s.Arrive(next())
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pkts/s")
	after := q.Stats()
	if b.N > 100000 {
		b.Logf("N=%d: sent %d, drops %d, marks %d, prob %.3f, qlen %d", b.N,
			after.Basic.Packets-before.Basic.Packets, after.Queue.Drops-before.Queue.Drops,
			after.Xstats.ECNMark-before.Xstats.ECNMark, float64(after.Xstats.Prob)/MaxProb, after.Queue.Qlen)
	}
}
