// SPDX-License-Identifier: Apache-2.0

package tckind

import "github.com/gotc/gotc/attrs"

// GenericStat names one of the statistics every qdisc and class has, which
// tc -s prints before the kind's own: its "Sent" and "backlog" lines and
// the rate estimator's rate.
type GenericStat uint8

// The generic statistics, in tc's order.
const (
	GenericBytes      GenericStat = iota // bytes sent
	GenericPackets                       // packets sent
	GenericDrops                         // packets dropped
	GenericOverlimits                    // times over the limit (throttled or shaped)
	GenericRequeues                      // packets handed back by the driver
	GenericBacklog                       // bytes queued now
	GenericQlen                          // packets queued now
	GenericRate                          // the rate estimator's bytes per second
	GenericPacketRate                    // the rate estimator's packets per second
	NumGenericStats
)

// genericKeys are tc's JSON keys of the generic statistics.
var genericKeys = [NumGenericStats]string{"bytes", "packets", "drops", "overlimits", "requeues", "backlog", "qlen", "rate", "pps"}

// Key returns tc's JSON key of the statistic ("bytes", "qlen", "pps").
func (s GenericStat) Key() string { return genericKeys[s] }

// Counter reports whether the statistic only grows (wrapping or being
// reset), as the packets sent do; the others, the backlog and the rates,
// are gauges.
func (s GenericStat) Counter() bool { return s <= GenericRequeues }

// GenericStats are the generic statistics of one dumped qdisc or class.
type GenericStats struct {
	// Values holds each statistic by its GenericStat.
	Values [NumGenericStats]uint64
	// Present has bit 1<<s set for each statistic s the dump carried.
	Present uint32
	// Wide has bit 1<<s set for each counter s that is 64 bits wide; the
	// others wrap at 2^32.
	Wide uint32
}

// Get returns statistic s and whether the dump carried it.
func (g *GenericStats) Get(s GenericStat) (uint64, bool) {
	return g.Values[s], g.Present&(1<<s) != 0
}

func (g *GenericStats) set(s GenericStat, v uint64, wide bool) {
	g.Values[s] = v
	g.Present |= 1 << s
	if wide {
		g.Wide |= 1 << s
	}
}

// GenericStatsOf reads a dump's generic statistics as tc does: from
// TCA_STATS2 (its basic, queue and rate estimator blocks, each when
// present), else from the legacy TCA_STATS alone, as older kernels send it
// (which has no requeues; its rate is not read).
func GenericStatsOf(a *attrs.TCAttrs) GenericStats {
	var g GenericStats
	if s := a.Stats2; s != nil {
		if b := s.Basic; b != nil {
			g.set(GenericBytes, b.Bytes, true)
			if s.Pkt64 != nil {
				// The kernel adds PKT64 once the 32-bit count overflows;
				// tc prints it instead of the basic count.
				g.set(GenericPackets, *s.Pkt64, true)
			} else {
				g.set(GenericPackets, uint64(b.Packets), false)
			}
		}
		if q := s.Queue; q != nil {
			g.set(GenericDrops, uint64(q.Drops), false)
			g.set(GenericOverlimits, uint64(q.Overlimits), false)
			g.set(GenericRequeues, uint64(q.Requeues), false)
			g.set(GenericBacklog, uint64(q.Backlog), false)
			g.set(GenericQlen, uint64(q.Qlen), false)
		}
		if r := s.RateEst64; r != nil {
			g.set(GenericRate, r.Bps, false)
			g.set(GenericPacketRate, r.Pps, false)
		} else if r := s.RateEst; r != nil {
			g.set(GenericRate, uint64(r.Bps), false)
			g.set(GenericPacketRate, uint64(r.Pps), false)
		}
	} else if s := a.Stats; s != nil {
		g.set(GenericBytes, s.Bytes, true)
		g.set(GenericPackets, uint64(s.Packets), false)
		g.set(GenericDrops, uint64(s.Drops), false)
		g.set(GenericOverlimits, uint64(s.Overlimits), false)
		g.set(GenericBacklog, uint64(s.Backlog), false)
		g.set(GenericQlen, uint64(s.Qlen), false)
	}
	return g
}
