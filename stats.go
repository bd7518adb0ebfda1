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
	// Xstats are a qdisc's own statistics of its kind, typed
	// (*attrs.CakeStatsAttrs, *attrs.TCDualPI2Xstats, ...); nil for a
	// kind without a statistics table, and for classes.
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
	return statsOf(got, o == netlink.Class), nil
}

// statsOf reads a dumped qdisc's or class's statistics: TCA_STATS2 as tc
// prefers it, else the older TCA_STATS.
func statsOf(m *netlink.Msg, class bool) Stats {
	s := Stats{Kind: m.Kind()}
	if st := m.Attrs.Stats2; st != nil {
		if b := st.Basic; b != nil {
			s.Bytes, s.Packets = b.Bytes, uint64(b.Packets)
		}
		if st.Pkt64 != nil {
			s.Packets = *st.Pkt64
		}
		if q := st.Queue; q != nil {
			s.Drops, s.Overlimits, s.Requeues, s.Backlog, s.Qlen = q.Drops, q.Overlimits, q.Requeues, q.Backlog, q.Qlen
		}
	} else if st := m.Attrs.Stats; st != nil {
		s.Bytes, s.Packets, s.Drops, s.Overlimits, s.Backlog, s.Qlen = st.Bytes, uint64(st.Packets), st.Drops, st.Overlimits, st.Backlog, st.Qlen
	}
	// The kinds' tables describe a qdisc's statistics; a class's own
	// (htb's tokens, cake's tins as classes) have none yet.
	if k := tckind.LookupQdisc(s.Kind); !class && k != nil && k.Stats != nil {
		if s.Xstats = k.Stats.Of(tckind.XstatsOf(&m.Attrs)); s.Xstats != nil {
			s.Table = k.Stats
		}
	}
	return s
}
