// SPDX-License-Identifier: Apache-2.0

package traffic

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
)

// EtherTypes and IP protocols the tool builds and decodes.
const (
	etherIPv4 = 0x0800
	etherARP  = 0x0806
	etherIPv6 = 0x86dd
	protoTCP  = 6
	protoUDP  = 17
	ethHdrLen = 14
)

// tagMagic starts a tagged UDP payload: "GOTC" then the send index as a
// big-endian u32. A capture uses it to tell which send a frame is.
var tagMagic = [4]byte{'G', 'O', 'T', 'C'}

// tagLen is the payload prefix a tag needs; shorter payloads are untagged.
const tagLen = 8

// udpPayload returns n payload bytes carrying tag (when n allows). With
// seg > 0 (a GSO payload of seg-byte segments) every segment starts with
// the tag, so that segments a qdisc splits off (split_gso) can still be
// told apart at the peer.
func udpPayload(n, seg, tag int) []byte {
	b := make([]byte, n)
	if tag < 0 {
		return b
	}
	if seg <= 0 {
		seg = n
	}
	for off := 0; n-off >= tagLen; off += seg {
		copy(b[off:], tagMagic[:])
		binary.BigEndian.PutUint32(b[off+4:], uint32(tag))
	}
	return b
}

// readTag returns the tag of a payload, or -1.
func readTag(p []byte) int {
	if len(p) < tagLen || [4]byte(p[:4]) != tagMagic {
		return -1
	}
	return int(binary.BigEndian.Uint32(p[4:8]))
}

// tcpOptLen is the length of the options a TCPSpec produces: NOP NOP TS
// (12 bytes) and NOP NOP SACK (4 + 8 per block), the layout Linux uses.
func tcpOptLen(t *TCPSpec) int {
	n := 0
	if t.TS {
		n += 12
	}
	if len(t.SACK) > 0 {
		n += 4 + 8*len(t.SACK)
	}
	return n
}

// tcpFields returns the header of the flow's k-th crafted segment.
func (f *Flow) tcpFields(k int) TCPFields {
	t := f.TCP
	if t == nil {
		t = &TCPSpec{}
	}
	flags, _ := ParseTCPFlags(t.Flags) // validated
	win := t.Window
	if win == 0 {
		win = 512
	}
	kk := uint32(k)
	h := TCPFields{
		Flags:  flags,
		Seq:    t.Seq,
		Ack:    t.Ack + kk*t.AckStep,
		Window: win,
		HasTS:  t.TS,
	}
	if t.TS {
		h.TSVal = t.TSVal + kk*t.TSValStep
		h.TSEcr = t.TSEcr
	}
	for _, b := range t.SACK {
		h.SACK = append(h.SACK, [2]uint32{h.Ack + b[0], h.Ack + b[1] + kk*t.SACKStep})
	}
	return h
}

// tcpOptions encodes h's options as tcpOptLen describes.
func tcpOptions(h *TCPFields) []byte {
	var o []byte
	if h.HasTS {
		o = append(o, 1, 1, 8, 10)
		o = binary.BigEndian.AppendUint32(o, h.TSVal)
		o = binary.BigEndian.AppendUint32(o, h.TSEcr)
	}
	if len(h.SACK) > 0 {
		o = append(o, 1, 1, 5, byte(2+8*len(h.SACK)))
		for _, b := range h.SACK {
			o = binary.BigEndian.AppendUint32(o, b[0])
			o = binary.BigEndian.AppendUint32(o, b[1])
		}
	}
	if h.otherRoom >= 4 {
		// An experimental option (RFC 4727's 254) filling the room.
		o = append(o, 254, byte(h.otherRoom))
		o = append(o, make([]byte, h.otherRoom-2)...)
	}
	return o
}

// FrameSpec is what BuildTCPFrame needs besides the TCP header.
type FrameSpec struct {
	SrcMAC, DstMAC net.HardwareAddr
	Src, Dst       netip.Addr
	SPort, DPort   uint16
	DSField        uint8
	IPID           uint16
	Payload        int
}

// BuildTCPFrame returns a complete Ethernet frame with an IPv4 or IPv6
// header and a TCP segment, all checksums filled in (nothing offloads
// them for a packet socket).
func BuildTCPFrame(s FrameSpec, h *TCPFields) ([]byte, error) {
	if len(s.SrcMAC) != 6 || len(s.DstMAC) != 6 {
		return nil, errors.New("traffic: frame needs 6-byte MAC addresses")
	}
	if !s.Src.IsValid() || !s.Dst.IsValid() || s.Src.Is4() != s.Dst.Is4() {
		return nil, fmt.Errorf("traffic: bad address pair %v -> %v", s.Src, s.Dst)
	}
	opts := tcpOptions(h)
	if len(opts) > 40 || len(opts)%4 != 0 {
		return nil, fmt.Errorf("traffic: %d bytes of TCP options", len(opts))
	}
	tcpLen := 20 + len(opts) + s.Payload
	tcp := make([]byte, tcpLen)
	binary.BigEndian.PutUint16(tcp[0:], s.SPort)
	binary.BigEndian.PutUint16(tcp[2:], s.DPort)
	binary.BigEndian.PutUint32(tcp[4:], h.Seq)
	binary.BigEndian.PutUint32(tcp[8:], h.Ack)
	doff := uint16((20+len(opts))/4) << 12
	binary.BigEndian.PutUint16(tcp[12:], doff|h.Flags&0x0fff)
	binary.BigEndian.PutUint16(tcp[14:], h.Window)
	copy(tcp[20:], opts)
	return buildIPFrame(s, protoTCP, tcp, 16), nil
}

// buildIPFrame returns an Ethernet frame of s's IPv4 or IPv6 header
// (Linux's: DF, TTL 64) and l4, the transport header and payload of
// protocol proto, whose checksum at byte csumOff of l4 it fills in (-1:
// none). s.Payload is not used: l4 holds it.
func buildIPFrame(s FrameSpec, proto uint8, l4 []byte, csumOff int) []byte {
	v4 := s.Src.Is4()
	var ip []byte
	var eth uint16
	if v4 {
		eth = etherIPv4
		ip = make([]byte, 20)
		ip[0] = 0x45
		ip[1] = s.DSField
		binary.BigEndian.PutUint16(ip[2:], uint16(20+len(l4)))
		binary.BigEndian.PutUint16(ip[4:], s.IPID)
		binary.BigEndian.PutUint16(ip[6:], 0x4000) // DF, as Linux TCP sends
		ip[8] = 64
		ip[9] = proto
		a, b := s.Src.As4(), s.Dst.As4()
		copy(ip[12:], a[:])
		copy(ip[16:], b[:])
		binary.BigEndian.PutUint16(ip[10:], ^csumFold(csumAdd(0, ip)))
	} else {
		eth = etherIPv6
		ip = make([]byte, 40)
		binary.BigEndian.PutUint32(ip[0:], 6<<28|uint32(s.DSField)<<20)
		binary.BigEndian.PutUint16(ip[4:], uint16(len(l4)))
		ip[6] = proto
		ip[7] = 64
		a, b := s.Src.As16(), s.Dst.As16()
		copy(ip[8:], a[:])
		copy(ip[24:], b[:])
	}
	if csumOff >= 0 {
		binary.BigEndian.PutUint16(l4[csumOff:], ^csumFold(csumAdd(pseudoSum(s.Src, s.Dst, proto, len(l4)), l4)))
	}
	f := make([]byte, 0, ethHdrLen+len(ip)+len(l4))
	f = append(f, s.DstMAC...)
	f = append(f, s.SrcMAC...)
	f = binary.BigEndian.AppendUint16(f, eth)
	f = append(f, ip...)
	return append(f, l4...)
}

// csumAdd adds b to a one's-complement running sum (RFC 1071).
func csumAdd(sum uint32, b []byte) uint32 {
	for len(b) >= 2 {
		sum += uint32(binary.BigEndian.Uint16(b))
		b = b[2:]
	}
	if len(b) == 1 {
		sum += uint32(b[0]) << 8
	}
	return sum
}

// csumFold folds a running sum to 16 bits.
func csumFold(sum uint32) uint16 {
	for sum>>16 != 0 {
		sum = sum&0xffff + sum>>16
	}
	return uint16(sum)
}

// pseudoSum is the running sum of the IPv4 or IPv6 pseudo-header.
func pseudoSum(src, dst netip.Addr, proto uint8, l4len int) uint32 {
	var sum uint32
	if src.Is4() {
		a, b := src.As4(), dst.As4()
		sum = csumAdd(sum, a[:])
		sum = csumAdd(sum, b[:])
	} else {
		a, b := src.As16(), dst.As16()
		sum = csumAdd(sum, a[:])
		sum = csumAdd(sum, b[:])
	}
	return sum + uint32(proto) + uint32(l4len)
}

// Decoded is a parsed frame: its Record fields and whether its checksums
// verified (meaningful only for frames with complete checksums: the
// kernel leaves offloaded ones partial on a veth).
type Decoded struct {
	Record
	IPCsumOK, L4CsumOK bool
}

// DecodeFrame parses an Ethernet frame into a Record (Flow -1, no time).
// Non-IP frames are returned with only L3 and EtherType set.
func DecodeFrame(f []byte) (Decoded, error) {
	d := Decoded{Record: Record{Flow: -1, Tag: -1, Len: len(f)}}
	if len(f) < ethHdrLen {
		return d, fmt.Errorf("traffic: %d-byte frame", len(f))
	}
	_, err := decodeL3(&d, binary.BigEndian.Uint16(f[12:]), f[ethHdrLen:])
	return d, err
}

// decodeL3 fills d from the packet p that follows a link header naming
// EtherType et. It returns the length the IP header declares for the
// whole datagram (0 when p is not IP or the header declares none), which
// a truncated capture still knows.
func decodeL3(d *Decoded, et uint16, p []byte) (int, error) {
	var l4 []byte
	declared := 0
	switch et {
	case etherIPv4:
		d.L3 = "ipv4"
		if len(p) < 20 || p[0]>>4 != 4 {
			return 0, errors.New("traffic: short or bad IPv4 header")
		}
		ihl := int(p[0]&15) * 4
		tot := int(binary.BigEndian.Uint16(p[2:]))
		if ihl < 20 || len(p) < ihl {
			return 0, errors.New("traffic: bad IPv4 header length")
		}
		if tot >= ihl {
			declared = tot
			if tot < len(p) {
				p = p[:tot] // drop Ethernet padding
			}
		}
		d.DSCP, d.ECN = p[1]>>2, p[1]&3
		d.IPID = binary.BigEndian.Uint16(p[4:])
		d.Proto = p[9]
		d.Src = netip.AddrFrom4([4]byte(p[12:16]))
		d.Dst = netip.AddrFrom4([4]byte(p[16:20]))
		d.IPCsumOK = csumFold(csumAdd(0, p[:ihl])) == 0xffff
		l4 = p[ihl:]
	case etherIPv6:
		d.L3 = "ipv6"
		if len(p) < 40 || p[0]>>4 != 6 {
			return 0, errors.New("traffic: short or bad IPv6 header")
		}
		tc := uint8(binary.BigEndian.Uint32(p) >> 20)
		d.DSCP, d.ECN = tc>>2, tc&3
		if pl := int(binary.BigEndian.Uint16(p[4:])); pl > 0 {
			declared = 40 + pl
			if declared < len(p) {
				p = p[:declared]
			}
		}
		d.Proto = p[6]
		d.Src = netip.AddrFrom16([16]byte(p[8:24]))
		d.Dst = netip.AddrFrom16([16]byte(p[24:40]))
		d.IPCsumOK = true
		l4 = p[40:]
	case etherARP:
		d.L3 = "arp"
		return declared, nil
	default:
		d.L3 = "other"
		d.EtherType = et
		return declared, nil
	}
	switch d.Proto {
	case protoUDP:
		if len(l4) < 8 {
			return declared, errors.New("traffic: short UDP header")
		}
		d.SPort = binary.BigEndian.Uint16(l4)
		d.DPort = binary.BigEndian.Uint16(l4[2:])
		d.Payload = len(l4) - 8
		d.Tag = readTag(l4[8:])
		d.L4CsumOK = csumFold(csumAdd(pseudoSum(d.Src, d.Dst, protoUDP, len(l4)), l4)) == 0xffff
	case protoTCP:
		if len(l4) < 20 {
			return declared, errors.New("traffic: short TCP header")
		}
		doff := int(l4[12]>>4) * 4
		if doff < 20 || doff > len(l4) {
			return declared, errors.New("traffic: bad TCP data offset")
		}
		d.SPort = binary.BigEndian.Uint16(l4)
		d.DPort = binary.BigEndian.Uint16(l4[2:])
		t := &TCPFields{
			Seq:    binary.BigEndian.Uint32(l4[4:]),
			Ack:    binary.BigEndian.Uint32(l4[8:]),
			Flags:  binary.BigEndian.Uint16(l4[12:]) & 0x0fff,
			Window: binary.BigEndian.Uint16(l4[14:]),
		}
		if err := parseTCPOptions(l4[20:doff], t); err != nil {
			return declared, err
		}
		d.TCP = t
		d.Payload = len(l4) - doff
		d.L4CsumOK = csumFold(csumAdd(pseudoSum(d.Src, d.Dst, protoTCP, len(l4)), l4)) == 0xffff
	}
	return declared, nil
}

// parseTCPOptions reads the options cake's ACK filter distinguishes.
func parseTCPOptions(o []byte, t *TCPFields) error {
	for len(o) > 0 {
		switch o[0] {
		case 0: // EOL
			return nil
		case 1: // NOP
			o = o[1:]
			continue
		}
		if len(o) < 2 || int(o[1]) < 2 || int(o[1]) > len(o) {
			return errors.New("traffic: malformed TCP option")
		}
		kind, body := o[0], o[2:o[1]]
		switch {
		case kind == 8 && len(body) == 8:
			t.HasTS = true
			t.TSVal = binary.BigEndian.Uint32(body)
			t.TSEcr = binary.BigEndian.Uint32(body[4:])
		case kind == 5 && len(body)%8 == 0:
			for ; len(body) >= 8; body = body[8:] {
				t.SACK = append(t.SACK, [2]uint32{binary.BigEndian.Uint32(body), binary.BigEndian.Uint32(body[4:])})
			}
		case kind == 19: // MD5: the ACK filter tolerates it
		default:
			t.OtherOpts = true
		}
		o = o[o[1]:]
	}
	return nil
}

func parseMAC(s string) (net.HardwareAddr, error) {
	m, err := net.ParseMAC(s)
	if err != nil {
		return nil, err
	}
	if len(m) != 6 {
		return nil, fmt.Errorf("%q is not an Ethernet address", s)
	}
	return m, nil
}

// vnetHdrLen is sizeof(struct virtio_net_hdr), which PACKET_VNET_HDR puts
// before each frame: it is how a capture learns that a frame is still a
// GSO super-packet (veth delivers UDP_SEGMENT skbs whole to the peer).
const vnetHdrLen = 10

// decodeCapture parses a virtio_net_hdr and the frame behind it. Malformed
// IP is kept as a record (it is still a packet that arrived).
func decodeCapture(b []byte) (Record, error) {
	if len(b) < vnetHdrLen {
		return Record{}, fmt.Errorf("capture: %d bytes", len(b))
	}
	gsoType := b[1] &^ 0x80 // VIRTIO_NET_HDR_GSO_ECN
	gsoSize := int(binary.NativeEndian.Uint16(b[4:]))
	d, _ := DecodeFrame(b[vnetHdrLen:])
	rec := d.Record
	if gsoType != 0 && gsoSize > 0 {
		hdr := rec.Len - rec.Payload
		rec.GSOSize, rec.HdrLen = gsoSize, hdr
		rec.GSOSegs = (rec.Payload + gsoSize - 1) / gsoSize
	}
	return rec, nil
}
