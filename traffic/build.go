// SPDX-License-Identifier: Apache-2.0

package traffic

import (
	"encoding/binary"
	"net"
	"net/netip"
)

// endpoint is what the sender learned of a flow's socket: the source
// address and port the kernel chose when the plan left them open.
type endpoint struct {
	src   netip.Addr
	sport uint16
}

// buildSends expands a plan into its schedule, one record template per
// send (everything but the times) and the bytes each send writes: the UDP
// payload, or the whole crafted frame of a tcp-ack send.
func buildSends(p *Plan, eps []endpoint, srcMAC, dstMAC net.HardwareAddr) ([]Slot, []Record, [][]byte) {
	slots := p.Schedule()
	recs := make([]Record, len(slots))
	bufs := make([][]byte, len(slots))
	for i, sl := range slots {
		f := &p.Flows[sl.Flow]
		if f.capture != nil {
			// loadCapture built each frame once: neither fails.
			bufs[i], _ = replayFrame(&f.capture[sl.K], srcMAC, dstMAC)
			d, _ := DecodeFrame(bufs[i])
			r := d.Record
			r.I, r.Flow, r.K, r.Priority, r.Mark = i, sl.Flow, sl.K, f.Priority, f.Mark
			recs[i] = r
			continue
		}
		ep := eps[sl.Flow]
		ds := f.dsField(sl.K)
		dst := netip.MustParseAddr(f.Dst)
		v4 := dst.Is4()
		r := Record{
			I: i, Flow: sl.Flow, K: sl.K, Proto: protoUDP, Src: ep.src, Dst: dst,
			SPort: ep.sport, DPort: f.DPort, DSCP: ds >> 2, ECN: ds & 3,
			Priority: f.Priority, Mark: f.Mark, Tag: -1, L3: "ipv6",
		}
		if v4 {
			r.L3 = "ipv4"
		}
		ih := ipHeaderLen(v4)
		if f.Proto == ProtoUDP {
			seg := f.Size - ih - 8
			r.Payload = seg
			if f.GSOSegs > 1 {
				r.Payload = seg * f.GSOSegs
				r.GSOSegs, r.GSOSize, r.HdrLen = f.GSOSegs, seg, ethHdrLen+ih+8
			}
			r.Len = ethHdrLen + ih + 8 + r.Payload
			r.L4Hash = true // a connected socket's txhash
			if seg >= tagLen {
				r.Tag = i
			}
			bufs[i] = udpPayload(r.Payload, r.GSOSize, r.Tag)
		} else {
			h := f.tcpFields(sl.K)
			r.Proto = protoTCP
			r.TCP = &h
			r.Payload = f.TCP.payload()
			if v4 {
				r.IPID = uint16(i) // lets a capture tell duplicate ACKs apart
			}
			frame, err := BuildTCPFrame(FrameSpec{
				SrcMAC: srcMAC, DstMAC: dstMAC, Src: ep.src, Dst: dst,
				SPort: f.SPort, DPort: f.DPort, DSField: ds, IPID: r.IPID, Payload: r.Payload,
			}, &h)
			if err != nil {
				panic(err) // a validated plan with resolved MACs cannot fail
			}
			r.Len = len(frame)
			bufs[i] = frame
		}
		recs[i] = r
	}
	return slots, recs, bufs
}

// replayFrame rebuilds a captured packet as a frame of the same length:
// its addresses, ports, DS field, IPv4 ID, TCP header (an option the
// capture had besides timestamps and SACK becomes an experimental option
// of the same room, so that CAKE's ACK filter treats it alike) and as
// much zero payload as the length needs.
func replayFrame(r *Record, srcMAC, dstMAC net.HardwareAddr) ([]byte, error) {
	s := FrameSpec{SrcMAC: srcMAC, DstMAC: dstMAC, Src: r.Src, Dst: r.Dst, SPort: r.SPort, DPort: r.DPort,
		DSField: r.DSCP<<2 | r.ECN, IPID: r.IPID}
	l4len := r.Len - ethHdrLen - ipHeaderLen(r.L3 == "ipv4")
	switch {
	case r.Proto == protoTCP && r.TCP != nil:
		h := *r.TCP
		h.OtherOpts = false
		opts := len(tcpOptions(&h))
		// The captured header's room for options, less what tcpOptions
		// writes, holds the options it does not (MSS, window scale...).
		if room := l4len - r.Payload - 20 - opts; r.TCP.OtherOpts && room >= 4 {
			h.otherRoom = room
		}
		s.Payload = max(0, l4len-20-len(tcpOptions(&h)))
		return BuildTCPFrame(s, &h)
	case r.Proto == protoUDP && l4len >= 8:
		l4 := make([]byte, l4len)
		binary.BigEndian.PutUint16(l4, r.SPort)
		binary.BigEndian.PutUint16(l4[2:], r.DPort)
		binary.BigEndian.PutUint16(l4[4:], uint16(l4len))
		return buildIPFrame(s, protoUDP, l4, 6), nil
	}
	return buildIPFrame(s, r.Proto, make([]byte, max(l4len, 0)), -1), nil
}

// DryRun returns the trace a plan would produce if every send left exactly
// on time: T is the planned offset from the plan's start (ns) and, for UDP
// flows that leave src or sport to the kernel, those fields stay empty. It
// needs no kernel, so tests and model-only studies can use the same plans.
func DryRun(p *Plan) ([]Record, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	eps := make([]endpoint, len(p.Flows))
	for i := range p.Flows {
		f := &p.Flows[i]
		if f.Src != "" {
			eps[i].src = netip.MustParseAddr(f.Src)
		}
		eps[i].sport = f.SPort
	}
	mac := net.HardwareAddr{2, 0, 0, 0, 0, 1}
	slots, recs, _ := buildSends(p, eps, mac, mac)
	for i := range recs {
		recs[i].T = slots[i].At
	}
	return recs, nil
}

// payload is a flow's TCP payload size; 0 for a flow without TCP.
func (t *TCPSpec) payload() int {
	if t == nil {
		return 0
	}
	return t.Payload
}
