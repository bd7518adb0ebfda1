// SPDX-License-Identifier: Apache-2.0

package watch

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/netlink"
)

// replay dumps pre-decoded messages, so the benchmark measures the watch's
// own work (netlink decoding is the netlink package's).
type replay struct {
	links map[int32]string
	msgs  []*netlink.Msg
	step  uint64
}

func (r *replay) LinkNames(context.Context) (map[int32]string, error) { return r.links, nil }

func (r *replay) Dump(_ context.Context, _ netlink.Object, _ netlink.DumpFilter, fn func(*netlink.Msg, error) error) error {
	r.step++
	for _, m := range r.msgs {
		m.Attrs.Stats2.Basic.Bytes += r.step // counters advance between samples
		if err := fn(m, nil); err != nil {
			return err
		}
	}
	return nil
}

// benchSource is 10,000 qdiscs on 10,000 devices: a third CAKE (three tins,
// every tin attribute), a third DualPI2, a third fq_codel.
func benchSource() *replay {
	k := &advancingKernel{}
	r := &replay{links: map[int32]string{}}
	for i := range 10000 {
		idx := int32(i + 1)
		r.links[idx] = fmt.Sprintf("veth%d", i)
		var m *netlink.Msg
		switch i % 3 {
		case 0:
			m = k.msgs(1)[0]
			s := m.Attrs.Stats2.App.(*attrs.CakeStatsAttrs)
			for t := range s.TinStats {
				s.TinStats[t] = fullTin(uint32(t))
			}
		case 1:
			m = k.msgs(1)[1]
		default:
			m = generic(idx, 0x10000, netlink.HandleRoot, "fq_codel", 1)
		}
		m.Header.Ifindex = idx
		r.msgs = append(r.msgs, m)
	}
	return r
}

func fullTin(b uint32) attrs.CakeTinStatsAttrs {
	u := func(v uint32) *uint32 { return &v }
	w := func(v uint64) *uint64 { return &v }
	return attrs.CakeTinStatsAttrs{
		SentPackets: u(b), SentBytes64: w(1), DroppedPackets: u(b), DroppedBytes64: w(2),
		AcksDroppedPackets: u(b), AcksDroppedBytes64: w(3), ECNMarkedPackets: u(b), ECNMarkedBytes64: w(4),
		BacklogPackets: u(b), BacklogBytes: u(b), ThresholdRate64: w(5), TargetUS: u(5000), IntervalUS: u(100000),
		WayIndirectHits: u(b), WayMisses: u(b), WayCollisions: u(b), PeakDelayUS: u(b), AvgDelayUS: u(b),
		BaseDelayUS: u(b), SparseFlows: u(b), BulkFlows: u(b), UnresponsiveFlows: u(b), MaxSkblen: u(1514), FlowQuantum: u(1514),
	}
}

type counter struct{ n int }

func (c *counter) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }

// BenchmarkSample10k is one watch sample of 10,000 qdiscs, with deltas and
// rates, in the steady state (every qdisc seen before).
func BenchmarkSample10k(b *testing.B) {
	for _, opts := range []Options{{}, {Deltas: true, Rates: true}} {
		b.Run(fmt.Sprintf("deltas=%v", opts.Deltas), func(b *testing.B) {
			src := benchSource()
			out := &counter{}
			w := New(src, netlink.DumpFilter{}, out, opts)
			// Two samples fill both tin buffers of every qdisc: what
			// follows is the steady state of a long watch.
			for range 2 {
				if err := w.Sample(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			start := out.n
			for b.Loop() {
				if err := w.Sample(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(out.n-start)/float64(b.N), "bytes/sample")
		})
	}
}

var _ io.Writer = (*counter)(nil)
