// SPDX-License-Identifier: Apache-2.0

package tckind

import (
	"fmt"
	"testing"

	"github.com/gotc/gotc/attrs"
)

// GenericStatsOf reads TCA_STATS2 as tc does, block by block, with PKT64
// over the basic packet count and the 64-bit rate over the older one, and
// the legacy TCA_STATS only without TCA_STATS2.
func TestGenericStatsOf(t *testing.T) {
	basic := &attrs.GnetStatsBasic{Bytes: 1 << 40, Packets: 7}
	queue := &attrs.GnetStatsQueue{Qlen: 3, Backlog: 4500, Drops: 2, Requeues: 1, Overlimits: 9}
	legacy := &attrs.TCStats{Bytes: 100, Packets: 2, Drops: 1, Overlimits: 5, Bps: 80, Pps: 1, Qlen: 1, Backlog: 50}
	pkt64 := uint64(1 << 33)
	const all = 1<<NumGenericStats - 1
	for _, c := range []struct {
		name    string
		a       attrs.TCAttrs
		want    [NumGenericStats]uint64
		present uint32
		wide    uint32
	}{
		{"every block", attrs.TCAttrs{Stats2: &attrs.StatsAttrs{Basic: basic, Queue: queue,
			RateEst: &attrs.GnetStatsRateEst{Bps: 1, Pps: 1}, RateEst64: &attrs.GnetStatsRateEst64{Bps: 1 << 35, Pps: 6}}},
			[NumGenericStats]uint64{1 << 40, 7, 2, 9, 1, 4500, 3, 1 << 35, 6}, all, 1 << GenericBytes},
		{"PKT64", attrs.TCAttrs{Stats2: &attrs.StatsAttrs{Basic: basic, Pkt64: &pkt64}},
			[NumGenericStats]uint64{GenericBytes: 1 << 40, GenericPackets: 1 << 33},
			1<<GenericBytes | 1<<GenericPackets, 1<<GenericBytes | 1<<GenericPackets},
		{"the older rate estimator", attrs.TCAttrs{Stats2: &attrs.StatsAttrs{RateEst: &attrs.GnetStatsRateEst{Bps: 125, Pps: 2}}},
			[NumGenericStats]uint64{GenericRate: 125, GenericPacketRate: 2}, 1<<GenericRate | 1<<GenericPacketRate, 0},
		{"TCA_STATS2 over TCA_STATS", attrs.TCAttrs{Stats2: &attrs.StatsAttrs{Queue: queue}, Stats: legacy},
			[NumGenericStats]uint64{GenericDrops: 2, GenericOverlimits: 9, GenericRequeues: 1, GenericBacklog: 4500, GenericQlen: 3},
			1<<GenericDrops | 1<<GenericOverlimits | 1<<GenericRequeues | 1<<GenericBacklog | 1<<GenericQlen, 0},
		{"TCA_STATS alone", attrs.TCAttrs{Stats: legacy},
			[NumGenericStats]uint64{GenericBytes: 100, GenericPackets: 2, GenericDrops: 1, GenericOverlimits: 5, GenericBacklog: 50, GenericQlen: 1},
			all &^ (1<<GenericRequeues | 1<<GenericRate | 1<<GenericPacketRate), 1 << GenericBytes},
		{"none", attrs.TCAttrs{}, [NumGenericStats]uint64{}, 0, 0},
	} {
		g := GenericStatsOf(&c.a)
		if g.Values != c.want || g.Present != c.present || g.Wide != c.wide {
			t.Errorf("%s: %v present %#x wide %#x, want %v %#x %#x", c.name, g.Values, g.Present, g.Wide, c.want, c.present, c.wide)
		}
		for s := range NumGenericStats {
			if v, ok := g.Get(s); v != c.want[s] || ok != (c.present&(1<<s) != 0) {
				t.Errorf("%s: Get(%s) = %d, %v", c.name, s.Key(), v, ok)
			}
		}
	}
}

// The generic statistics' keys are tc's JSON members; the five that count
// packets and bytes are counters, the backlog and the rates gauges.
func TestGenericStatKeys(t *testing.T) {
	var keys, counters []string
	for s := range NumGenericStats {
		keys = append(keys, s.Key())
		if s.Counter() {
			counters = append(counters, s.Key())
		}
	}
	if got := fmt.Sprint(keys); got != "[bytes packets drops overlimits requeues backlog qlen rate pps]" {
		t.Errorf("keys %s", got)
	}
	if got := fmt.Sprint(counters); got != "[bytes packets drops overlimits requeues]" {
		t.Errorf("counters %s", got)
	}
}
