// SPDX-License-Identifier: Apache-2.0

package predict

import (
	"github.com/gotc/gotc/model/cake"
	"github.com/gotc/gotc/model/dualpi2"
	"github.com/gotc/gotc/traffic"
)

// The conversion of package traffic's send records into the models' input
// lives here, beside its one user, so that traffic (the sender and capture)
// does not depend on the models.

// What a record's frame is built with (package traffic sends Ethernet frames
// on a veth): CAKE's network offset and TCP's IP protocol number.
const (
	ethHdrLen = 14
	protoTCP  = 6
)

// ModelOptions tune how a send trace becomes model arrivals. The zero value
// is usable: arrivals at the send syscall's start, truesize 0.
type ModelOptions struct {
	// Truesize returns skb->truesize of a record (and of each segment the
	// qdisc splits it into). It cannot be derived from the length: calibrate
	// it on the target kernel (see the models' docs). Nil leaves 0, so the
	// memory counters of a model will not match the kernel's.
	Truesize func(r *traffic.Record) (truesize, segTruesize uint32)
	// AtEnd takes the end of the send syscall (T+Dur) as the enqueue time
	// instead of its start. The kernel enqueues somewhere in between; Dur
	// is the uncertainty to compare with the models' margins.
	AtEnd bool
	// Offset is added to every time (e.g. to rebase a trace).
	Offset int64
}

func (o *ModelOptions) at(r *traffic.Record) int64 {
	t := r.T + o.Offset
	if o.AtEnd {
		t += r.Dur
	}
	return t
}

func (o *ModelOptions) truesize(r *traffic.Record) (uint32, uint32) {
	if o == nil || o.Truesize == nil {
		return 0, 0
	}
	return o.Truesize(r)
}

// FlowHash is the stand-in for skb->hash that converters give the packets
// of flow f when the socket set one (traffic.Record.L4Hash). The kernel's value is
// random per boot; only "one socket, one hash" matters to CAKE's flow
// partition, so any distinct non-zero value per flow will do.
func FlowHash(f int) uint32 {
	h := uint32(f+1) * 0x9e3779b1
	if h == 0 {
		h = 1
	}
	return h
}

// CakePacket converts one record into the packet CAKE's enqueue sees on a
// veth (network offset 14). Its ID is the record's index.
func CakePacket(r *traffic.Record, o *ModelOptions) cake.Packet {
	p := cake.Packet{
		Len:       uint32(r.Len),
		NetOffset: ethHdrLen,
		Proto:     r.Proto,
		DSField:   r.DSCP<<2 | r.ECN,
		SrcPort:   r.SPort,
		DstPort:   r.DPort,
		Priority:  r.Priority,
		Mark:      r.Mark,
		ID:        uint64(r.I),
	}
	p.Truesize, p.SegTruesize = o.truesize(r)
	switch r.L3 {
	case "ipv4":
		p.L3 = cake.L3IPv4
		a, b := r.Src.As4(), r.Dst.As4()
		copy(p.Src[:], a[:])
		copy(p.Dst[:], b[:])
	case "ipv6":
		p.L3 = cake.L3IPv6
		p.Src, p.Dst = r.Src.As16(), r.Dst.As16()
	case "arp":
		p.L3 = cake.L3ARP
		p.DSField = 0
	default:
		p.L3 = cake.L3Other
		p.DSField = 0
	}
	if r.GSOSegs > 1 {
		p.GSOSegs = uint16(r.GSOSegs)
		p.GSOSize = uint16(r.GSOSize)
		p.HdrLen = uint16(r.HdrLen)
	}
	if r.L4Hash {
		p.L4Hash = true
		p.SKBHash = FlowHash(r.Flow)
	}
	if t := r.TCP; t != nil && r.Proto == protoTCP {
		p.TCPFlags = t.Flags
		p.Seq, p.Ack = t.Seq, t.Ack
		p.HasTS, p.TSVal, p.TSEcr = t.HasTS, t.TSVal, t.TSEcr
		p.OtherOpts = t.OtherOpts
		p.PayloadLen = uint32(r.Payload)
		n := min(len(t.SACK), len(p.SACK))
		p.NumSACK = uint8(n)
		for i := 0; i < n; i++ {
			p.SACK[i] = cake.SACKBlock{Start: t.SACK[i][0], End: t.SACK[i][1]}
		}
	}
	return p
}

// CakeArrivals converts a send trace into cake.Simulate's input. Records
// with a send error other than a qdisc drop were never enqueued and are
// skipped (see traffic.Enqueued).
func CakeArrivals(recs []traffic.Record, o *ModelOptions) []cake.Arrival {
	if o == nil {
		o = &ModelOptions{}
	}
	out := make([]cake.Arrival, 0, len(recs))
	for i := range recs {
		if !traffic.Enqueued(&recs[i]) {
			continue
		}
		out = append(out, cake.Arrival{At: o.at(&recs[i]), Pkt: CakePacket(&recs[i], o)})
	}
	return out
}

// DualPI2Packet converts one record into the packet DualPI2's enqueue sees.
// Non-IP packets carry ECN 0, as the model requires.
func DualPI2Packet(r *traffic.Record, o *ModelOptions) dualpi2.Packet {
	p := dualpi2.Packet{
		ID:       uint64(r.I),
		Len:      uint32(r.Len),
		Priority: r.Priority,
	}
	if r.L3 == "ipv4" || r.L3 == "ipv6" {
		p.ECN = r.ECN
	}
	if r.GSOSegs > 1 {
		p.GSOSize = uint16(r.GSOSize)
		p.HdrLen = uint16(r.HdrLen)
	}
	p.Truesize, p.SegTruesize = o.truesize(r)
	return p
}

// DualPI2Arrivals converts a send trace into dualpi2.Simulate's input.
// The model's clock may start at 0, but its PI timer runs from the qdisc's
// creation: pass that instant to dualpi2.WithStart in the trace's time base
// (or rebase with Offset).
func DualPI2Arrivals(recs []traffic.Record, o *ModelOptions) []dualpi2.Arrival {
	if o == nil {
		o = &ModelOptions{}
	}
	out := make([]dualpi2.Arrival, 0, len(recs))
	for i := range recs {
		if !traffic.Enqueued(&recs[i]) {
			continue
		}
		out = append(out, dualpi2.Arrival{Time: dualpi2.Time(o.at(&recs[i])), Packet: DualPI2Packet(&recs[i], o)})
	}
	return out
}
