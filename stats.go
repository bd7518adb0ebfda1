// SPDX-License-Identifier: Apache-2.0

package gotc

import (
	"context"

	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tckind"
)

// Stats are a qdisc's or class's statistics, as tc -s shows them.
type Stats struct {
	// Kind is the qdisc's kind.
	Kind string
	// Bytes and Packets are what was sent.
	Bytes, Packets uint64
	// Drops, Overlimits and Requeues count packets dropped, held back by
	// a shaper, and handed back by the driver.
	Drops, Overlimits, Requeues uint32
	// Backlog and Qlen are what is queued now, in bytes and packets.
	Backlog, Qlen uint32
	// Xstats are the qdisc's or class's own statistics of its kind,
	// typed (*attrs.CakeStatsAttrs, *attrs.TCDualPI2Xstats for qdiscs;
	// *attrs.TCHTBXstats, *attrs.TCHFSCStats, *attrs.TCDRRStats for
	// classes ...); nil for a kind without a statistics table.
	Xstats any
	// Table reads Xstats' fields by name, units and Prometheus metric for
	// any kind (the kind's tckind.StatsTable); nil for a kind without one.
	Table *tckind.StatsTable
}

// QdiscStats reads the statistics of the qdisc of dev at parent (Root,
// Ingress or a class).
func (c *Client) QdiscStats(ctx context.Context, dev string, parent uint32) (Stats, error) {
	return c.stats(ctx, netlink.Qdisc, dev, parent, 0)
}

// ClassStats reads the statistics of the class classID of dev.
func (c *Client) ClassStats(ctx context.Context, dev string, classID uint32) (Stats, error) {
	return c.stats(ctx, netlink.Class, dev, 0, classID)
}

func (c *Client) stats(ctx context.Context, o netlink.Object, dev string, parent, handle uint32) (Stats, error) {
	ifindex, err := c.conn.LinkIndex(ctx, dev)
	if err != nil {
		return Stats{}, err
	}
	var m netlink.Msg
	m.Header.Ifindex, m.Header.Parent, m.Header.Handle = ifindex, parent, handle
	got, err := c.conn.Get(ctx, o, &m)
	if err != nil {
		return Stats{}, err
	}
	return statsOf(got), nil
}

// statsOf reads a dumped qdisc's or class's statistics: the generic ones
// as tc does (tckind.GenericStatsOf; those absent are 0), and its kind's
// own through the kind's table, which reads what a qdisc or a class of the
// kind carries.
func statsOf(m *netlink.Msg) Stats {
	g := tckind.GenericStatsOf(&m.Attrs)
	u32 := func(s tckind.GenericStat) uint32 { return uint32(g.Values[s]) }
	s := Stats{
		Kind:       m.Kind(),
		Bytes:      g.Values[tckind.GenericBytes],
		Packets:    g.Values[tckind.GenericPackets],
		Drops:      u32(tckind.GenericDrops),
		Overlimits: u32(tckind.GenericOverlimits),
		Requeues:   u32(tckind.GenericRequeues),
		Backlog:    u32(tckind.GenericBacklog),
		Qlen:       u32(tckind.GenericQlen),
	}
	if k := tckind.LookupQdisc(s.Kind); k != nil && k.Stats != nil {
		if s.Xstats = k.Stats.Of(tckind.XstatsOf(&m.Attrs)); s.Xstats != nil {
			s.Table = k.Stats
		}
	}
	return s
}
