// SPDX-License-Identifier: Apache-2.0

package predict

import (
	"fmt"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/model/fqcodel"
	"github.com/gotc/gotc/traffic"
)

// FQCodelPacket converts one record into the packet fq_codel's enqueue
// sees. The flow stand-in for the kernel's random hash is the record's
// flow (its socket); see package fqcodel on what that assumes.
func FQCodelPacket(r *traffic.Record, o *ModelOptions) fqcodel.Packet {
	p := fqcodel.Packet{ID: uint64(r.I), Len: uint32(r.Len), Priority: r.Priority, Flow: uint32(r.Flow)}
	if r.GSOSegs > 1 {
		p.Len += uint32(r.GSOSegs-1) * uint32(r.HdrLen)
	}
	if r.L3 == "ipv4" || r.L3 == "ipv6" {
		p.IP = true
		p.DSField = r.DSCP<<2 | r.ECN&3
	}
	p.Truesize, _ = o.truesize(r)
	// Every packet of a trace or capture is taken as sent by a local
	// socket (gotc-traffic's UDP and packet sockets, a host's own
	// uplink), whose skbs fq_codel leaves out of its memory_usage.
	p.Wmem = true
	return p
}

// runFQCodel predicts an fq_codel qdisc; it is the kind's entry in models.
func runFQCodel(cfg Config, trace []traffic.Record, mo *ModelOptions, handle, mtu uint32, res *Result) error {
	var c attrs.FQCodelAttrs
	switch o := cfg.Options.(type) {
	case nil:
	case *attrs.FQCodelAttrs:
		c = *o
	default:
		return fmt.Errorf("predict: fq_codel options of type %T", cfg.Options)
	}
	q, err := fqcodel.New(c, mtu, handle, cfg.Dumped)
	if err != nil {
		return fmt.Errorf("predict: %w", err)
	}
	arr := make([]fqcodel.Arrival, 0, len(trace))
	for i := range trace {
		if traffic.Enqueued(&trace[i]) {
			arr = append(arr, fqcodel.Arrival{Time: mo.at(&trace[i]), Packet: FQCodelPacket(&trace[i], mo)})
		}
	}
	q.SetHook(func(ev fqcodel.Event) {
		res.Outcomes = append(res.Outcomes, Outcome{I: int(ev.Packet.ID), Len: int(ev.Packet.Len),
			Arrived: ev.Arrived - cfg.Offset, Done: ev.Time - cfg.Offset,
			Dropped: ev.Fate != fqcodel.FateDelivered, Marked: ev.Marked})
	})
	sim := fqcodel.Simulate(q, arr, fqcodel.Link{Rate: cfg.Rate, Burst: cfg.Burst})
	s := q.Stats()
	conf := q.Config()
	res.Attrs.Options = &conf
	basic, queue, x := s.Basic, s.Queue, s.XstatsMsg()
	x2 := x
	res.Attrs.Stats2 = &attrs.StatsAttrs{Basic: &basic, Queue: &queue, App: &x}
	res.Attrs.Xstats = &x2
	res.Margins = Margins{Names: []string{"codel", "order"}, NS: []int64{q.Margin(), sim.Order}}
	res.Queues = []string{"flows"}
	return nil
}
