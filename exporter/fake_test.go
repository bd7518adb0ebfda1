// SPDX-License-Identifier: Apache-2.0

package exporter

import (
	"context"
	"encoding/binary"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/nlabi"
	"github.com/gotc/gotc/netlink"
	mnl "github.com/mdlayher/netlink"
	"github.com/mdlayher/netlink/nltest"
)

func ptr[T any](v T) *T { return &v }

// qdisc builds a dumped qdisc with generic statistics.
func fakeQdisc(ifindex int32, handle, parent uint32, kind string, bytes uint64, packets uint32) *netlink.Msg {
	m := &netlink.Msg{}
	m.Header.Ifindex = ifindex
	m.Header.Handle = handle
	m.Header.Parent = parent
	m.Header.Info = 1
	m.Attrs.Kind = &kind
	m.Attrs.Stats2 = &attrs.StatsAttrs{
		Basic: &attrs.GnetStatsBasic{Bytes: bytes, Packets: packets},
		Queue: &attrs.GnetStatsQueue{Qlen: 3, Backlog: 4500, Drops: 7, Requeues: 1, Overlimits: 11},
	}
	return m
}

// cakeTin is a tin whose values derive from base, so a test can tell tins
// apart.
func cakeTin(base uint32) attrs.CakeTinStatsAttrs {
	return attrs.CakeTinStatsAttrs{
		SentPackets:        ptr(base + 1),
		SentBytes64:        ptr(uint64(base+2) * 1000),
		DroppedPackets:     ptr(base + 3),
		DroppedBytes64:     ptr(uint64(base + 4)),
		AcksDroppedPackets: ptr(base + 5),
		AcksDroppedBytes64: ptr(uint64(base + 6)),
		ECNMarkedPackets:   ptr(base + 7),
		ECNMarkedBytes64:   ptr(uint64(base + 8)),
		BacklogPackets:     ptr(base + 9),
		BacklogBytes:       ptr(base + 10),
		ThresholdRate64:    ptr(uint64(base+11) * 1000),
		TargetUS:           ptr(uint32(5000)),
		IntervalUS:         ptr(uint32(100000)),
		WayIndirectHits:    ptr(base + 12),
		WayMisses:          ptr(base + 13),
		WayCollisions:      ptr(base + 14),
		PeakDelayUS:        ptr(base + 1500),
		AvgDelayUS:         ptr(base + 250),
		BaseDelayUS:        ptr(base + 20),
		SparseFlows:        ptr(base + 15),
		BulkFlows:          ptr(base + 16),
		UnresponsiveFlows:  ptr(base + 17),
		MaxSkblen:          ptr(uint32(1514)),
		FlowQuantum:        ptr(uint32(1514)),
	}
}

func cakeQdisc(ifindex int32, handle uint32, tins int) *netlink.Msg {
	m := fakeQdisc(ifindex, handle, netlink.HandleRoot, "cake", 123456789, 4321)
	m.Attrs.Options = &attrs.CakeAttrs{BaseRate64: ptr(uint64(12500000))}
	s := &attrs.CakeStatsAttrs{
		CapacityEstimate64: ptr(uint64(12500000)),
		MemoryLimit:        ptr(uint32(4 << 20)),
		MemoryUsed:         ptr(uint32(65536)),
		AvgNetoff:          ptr(uint32(14)),
		MinNetlen:          ptr(uint32(42)),
		MaxNetlen:          ptr(uint32(1514)),
		MinAdjlen:          ptr(uint32(84)),
		MaxAdjlen:          ptr(uint32(1552)),
	}
	for i := range tins {
		s.TinStats = append(s.TinStats, cakeTin(uint32(i*100)))
	}
	m.Attrs.Stats2.App = s
	return m
}

func dualpi2Xstats() *attrs.TCDualPI2Xstats {
	return &attrs.TCDualPI2Xstats{
		Prob:          1 << 31, // about one half
		DelayC:        2500,
		DelayL:        300,
		PacketsInC:    1000,
		PacketsInL:    2000,
		Maxq:          40,
		ECNMark:       55,
		StepMarks:     5,
		Credit:        -1200,
		MemoryUsed:    9000,
		MaxMemoryUsed: 20000,
		MemoryLimit:   30280000,
	}
}

func dualpi2Qdisc(ifindex int32, handle uint32) *netlink.Msg {
	m := fakeQdisc(ifindex, handle, netlink.HandleRoot, "dualpi2", 5000000, 3000)
	m.Attrs.Options = &attrs.DualPI2Attrs{Limit: ptr(uint32(10000))}
	m.Attrs.Stats2.App = dualpi2Xstats()
	m.Attrs.Xstats = dualpi2Xstats()
	return m
}

// fakeKernel answers link and qdisc dumps over nltest with links and msgs,
// so the real netlink decoding (and its errors) is exercised. mangle, if
// set, may alter the qdisc dump's replies.
type fakeKernel struct {
	links   map[int32]string
	msgs    []*netlink.Msg
	classes []*netlink.Msg
	mangle  func([]mnl.Message) []mnl.Message
}

func (k *fakeKernel) conn() *netlink.Conn {
	return netlink.NewConn(nltest.Dial(func(reqs []mnl.Message) ([]mnl.Message, error) {
		req := reqs[0]
		var out []mnl.Message
		switch uint16(req.Header.Type) {
		case nlabi.RTM_GETLINK:
			for idx, name := range k.links {
				b := make([]byte, 16)
				binary.NativeEndian.PutUint32(b[4:], uint32(idx))
				e := attrs.NewEncoder(b)
				e.String(nlabi.IFLA_IFNAME, name)
				out = append(out, reply(req, nlabi.RTM_NEWLINK, e.Bytes()))
			}
		case nlabi.RTM_GETQDISC:
			for _, m := range k.msgs {
				b, err := m.MarshalBinary()
				if err != nil {
					return nil, err
				}
				out = append(out, reply(req, nlabi.RTM_NEWQDISC, b))
			}
			if k.mangle != nil {
				out = k.mangle(out)
			}
		case nlabi.RTM_GETTCLASS:
			ifindex := int32(binary.NativeEndian.Uint32(req.Data[4:]))
			for _, m := range k.classes {
				if m.Header.Ifindex != ifindex {
					continue
				}
				b, err := m.MarshalBinary()
				if err != nil {
					return nil, err
				}
				out = append(out, reply(req, nlabi.RTM_NEWTCLASS, b))
			}
		}
		return append(out, mnl.Message{Header: mnl.Header{Type: mnl.Done, Flags: mnl.Multi, Sequence: req.Header.Sequence}, Data: make([]byte, 4)}), nil
	}))
}

func reply(req mnl.Message, typ uint16, data []byte) mnl.Message {
	return mnl.Message{Header: mnl.Header{Type: mnl.HeaderType(typ), Flags: mnl.Multi, Sequence: req.Header.Sequence}, Data: data}
}

// replaySource replays pre-decoded messages without netlink, to measure the
// exporter's own cost.
type replaySource struct {
	links   map[int32]string
	msgs    []*netlink.Msg
	classes []*netlink.Msg
}

func (r *replaySource) Dump(_ context.Context, o netlink.Object, f netlink.DumpFilter, fn func(*netlink.Msg, error) error) error {
	msgs := r.msgs
	if o == netlink.Class {
		msgs = r.classes
	}
	for _, m := range msgs {
		if f.Ifindex != 0 && m.Header.Ifindex != f.Ifindex {
			continue
		}
		if err := fn(m, nil); err != nil {
			return err
		}
	}
	return nil
}

func (r *replaySource) LinkNames(context.Context) (map[int32]string, error) { return r.links, nil }
func (r *replaySource) Close() error                                        { return nil }

// htbClass builds a dumped htb class whose values derive from base.
func htbClass(ifindex int32, classid, parent uint32, base uint32) *netlink.Msg {
	m := fakeQdisc(ifindex, classid, parent, "htb", uint64(base)*1000, base)
	m.Attrs.Stats2.App = &attrs.TCHTBXstats{Lends: base + 1, Borrows: base + 2, Giants: 0, Tokens: -15625, Ctokens: int32(base)}
	return m
}
