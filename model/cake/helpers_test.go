// SPDX-License-Identifier: Apache-2.0

package cake

import (
	"testing"

	"github.com/gotc/gotc/attrs"
)

const t0 = int64(10e9) // the model's clock is ktime: start well after boot

func p32(v uint32) *uint32 { return &v }
func p64(v uint64) *uint64 { return &v }

func mustNew(t testing.TB, cfg attrs.CakeAttrs, opts ...Option) *Qdisc {
	t.Helper()
	q, err := New(cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func ip4(a, b, c, d byte) (x [16]byte) {
	x[0], x[1], x[2], x[3] = a, b, c, d
	return
}

// udp4 is an IPv4/UDP packet of ipLen IP bytes on Ethernet.
func udp4(src, dst [16]byte, sport, dport uint16, ipLen uint32) Packet {
	return Packet{
		Len: 14 + ipLen, Truesize: 768 + 14 + ipLen, NetOffset: 14,
		L3: L3IPv4, Proto: 17, Src: src, Dst: dst, SrcPort: sport, DstPort: dport,
	}
}

// tcp4 is an IPv4/TCP packet with payload bytes of data (20+20 headers).
func tcp4(src, dst [16]byte, sport, dport uint16, payload uint32) Packet {
	p := udp4(src, dst, sport, dport, 40+payload)
	p.Proto = 6
	p.TCPFlags = TCPAck
	p.PayloadLen = payload
	return p
}

// gso4 is an IPv4/TCP GSO super-packet of segs segments of mss bytes.
func gso4(src, dst [16]byte, sport, dport uint16, segs, mss uint16) Packet {
	const hdr = 14 + 20 + 20
	p := tcp4(src, dst, sport, dport, uint32(segs)*uint32(mss))
	p.GSOSegs, p.GSOSize, p.HdrLen = segs, mss, hdr
	p.Truesize = p.Len + 1280
	p.SegTruesize = 768 + hdr + uint32(mss)
	return p
}

type tally struct {
	pkts, bytes uint64
	byReason    [5]uint64
}

func sumTins(s Stats) (pk, by, drops, acks, marks, backlog uint64) {
	for _, ts := range s.Cake.TinStats {
		pk += uint64(*ts.SentPackets)
		by += *ts.SentBytes64
		drops += uint64(*ts.DroppedPackets)
		acks += uint64(*ts.AcksDroppedPackets)
		marks += uint64(*ts.ECNMarkedPackets)
		backlog += uint64(*ts.BacklogBytes)
	}
	return
}
