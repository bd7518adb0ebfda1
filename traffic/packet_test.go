// SPDX-License-Identifier: Apache-2.0

package traffic

import (
	"encoding/binary"
	"net"
	"net/netip"
	"testing"

	"golang.org/x/net/ipv4"
)

// naiveSum is an independent RFC 1071 checksum: sum of 16-bit words with
// end-around carry after each addition. A correct header or segment
// (checksum field included) sums to 0xffff.
func naiveSum(parts ...[]byte) uint16 {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	if len(b)%2 == 1 {
		b = append(b, 0)
	}
	s := uint32(0)
	for i := 0; i < len(b); i += 2 {
		s += uint32(b[i])<<8 | uint32(b[i+1])
		if s > 0xffff {
			s -= 0xffff
		}
	}
	return uint16(s)
}

func TestChecksumKnownVector(t *testing.T) {
	// The IPv4 header of Wikipedia's checksum example: checksum 0xb861.
	h := []byte{0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0, 0, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7}
	if got := ^csumFold(csumAdd(0, h)); got != 0xb861 {
		t.Fatalf("checksum %#x, want 0xb861", got)
	}
}

var (
	macA = net.HardwareAddr{2, 0, 0, 0, 0, 0xa}
	macB = net.HardwareAddr{2, 0, 0, 0, 0, 0xb}
)

func TestBuildTCPFrameIPv4(t *testing.T) {
	h := TCPFields{Flags: 0x150, Seq: 7, Ack: 123456, Window: 512, HasTS: true, TSVal: 99, TSEcr: 42,
		SACK: [][2]uint32{{200000, 201448}, {300000, 301448}}}
	s := FrameSpec{SrcMAC: macA, DstMAC: macB, Src: netip.MustParseAddr("10.0.0.1"), Dst: netip.MustParseAddr("10.0.0.2"),
		SPort: 4002, DPort: 80, DSField: 46<<2 | 1, IPID: 77, Payload: 3}
	f, err := BuildTCPFrame(s, &h)
	if err != nil {
		t.Fatal(err)
	}
	// 14 + 20 + 20 + 12 (NOP NOP TS) + 20 (NOP NOP SACK of 2) + 3.
	if len(f) != 89 {
		t.Fatalf("frame of %d bytes", len(f))
	}
	if string(f[0:6]) != string(macB) || string(f[6:12]) != string(macA) || binary.BigEndian.Uint16(f[12:]) != 0x0800 {
		t.Errorf("Ethernet header % x", f[:14])
	}
	// An independent parser for the IP header.
	ih, err := ipv4.ParseHeader(f[14:])
	if err != nil {
		t.Fatal(err)
	}
	if ih.Len != 20 || ih.TotalLen != 75 || ih.TOS != 46<<2|1 || ih.ID != 77 || ih.Protocol != 6 ||
		ih.TTL != 64 || ih.Flags != ipv4.DontFragment || !ih.Src.Equal(net.IPv4(10, 0, 0, 1)) || !ih.Dst.Equal(net.IPv4(10, 0, 0, 2)) {
		t.Errorf("IPv4 header %+v", ih)
	}
	if naiveSum(f[14:34]) != 0xffff {
		t.Errorf("IPv4 header checksum does not verify")
	}
	tcp := f[34:]
	pseudo := append(append([]byte{}, f[26:34]...), 0, 6, 0, byte(len(tcp)))
	if naiveSum(pseudo, tcp) != 0xffff {
		t.Errorf("TCP checksum does not verify")
	}
	d, err := DecodeFrame(f)
	if err != nil {
		t.Fatal(err)
	}
	if !d.IPCsumOK || !d.L4CsumOK {
		t.Errorf("DecodeFrame checksums %v %v", d.IPCsumOK, d.L4CsumOK)
	}
	if d.L3 != "ipv4" || d.Proto != 6 || d.Src != s.Src || d.Dst != s.Dst || d.SPort != 4002 || d.DPort != 80 ||
		d.DSCP != 46 || d.ECN != 1 || d.IPID != 77 || d.Payload != 3 || d.Len != 89 || d.Tag != -1 {
		t.Errorf("decoded %+v", d.Record)
	}
	if got := *d.TCP; got.Flags != h.Flags || got.Seq != 7 || got.Ack != 123456 || got.Window != 512 ||
		!got.HasTS || got.TSVal != 99 || got.TSEcr != 42 || len(got.SACK) != 2 || got.SACK[1] != h.SACK[1] || got.OtherOpts {
		t.Errorf("decoded TCP %+v", got)
	}
	// A corrupted byte must fail the TCP checksum.
	f[len(f)-1] ^= 1
	if d, _ := DecodeFrame(f); d.L4CsumOK {
		t.Errorf("corrupted segment verified")
	}
}

func TestBuildTCPFrameIPv6(t *testing.T) {
	h := TCPFields{Flags: 0x10, Ack: 1, Window: 100}
	s := FrameSpec{SrcMAC: macA, DstMAC: macB, Src: netip.MustParseAddr("fd00::1"), Dst: netip.MustParseAddr("fd00::2"),
		SPort: 1, DPort: 2, DSField: 10<<2 | 2}
	f, err := BuildTCPFrame(s, &h)
	if err != nil {
		t.Fatal(err)
	}
	if len(f) != 14+40+20 || binary.BigEndian.Uint16(f[12:]) != 0x86dd {
		t.Fatalf("frame % x", f)
	}
	if v := binary.BigEndian.Uint32(f[14:]); v != 6<<28|uint32(10<<2|2)<<20 {
		t.Errorf("version/class/label %#x", v)
	}
	tcp := f[54:]
	pseudo := append(append([]byte{}, f[22:54]...), 0, 0, 0, byte(len(tcp)), 0, 0, 0, 6)
	if naiveSum(pseudo, tcp) != 0xffff {
		t.Errorf("TCP/IPv6 checksum does not verify")
	}
	d, err := DecodeFrame(f)
	if err != nil || !d.L4CsumOK || d.L3 != "ipv6" || d.DSCP != 10 || d.ECN != 2 || d.Src != s.Src || d.TCP.Ack != 1 {
		t.Errorf("decoded %+v %v", d, err)
	}
}

func TestBuildTCPFrameErrors(t *testing.T) {
	h := TCPFields{}
	ok := FrameSpec{SrcMAC: macA, DstMAC: macB, Src: netip.MustParseAddr("10.0.0.1"), Dst: netip.MustParseAddr("10.0.0.2")}
	bad := ok
	bad.DstMAC = nil
	if _, err := BuildTCPFrame(bad, &h); err == nil {
		t.Error("no MAC accepted")
	}
	bad = ok
	bad.Dst = netip.MustParseAddr("::2")
	if _, err := BuildTCPFrame(bad, &h); err == nil {
		t.Error("mixed families accepted")
	}
}

// udpFrame builds an IPv4/UDP frame by hand (with Ethernet padding) to
// test the decoder on what a capture sees.
func udpFrame(payload []byte, pad int) []byte {
	f := make([]byte, 14+20+8, 14+28+len(payload)+pad)
	binary.BigEndian.PutUint16(f[12:], 0x0800)
	ip := f[14:]
	ip[0], ip[1] = 0x45, 0xb9
	binary.BigEndian.PutUint16(ip[2:], uint16(28+len(payload)))
	ip[9] = 17
	copy(ip[12:], []byte{10, 0, 0, 1, 10, 0, 0, 2})
	binary.BigEndian.PutUint16(ip[10:], ^csumFold(csumAdd(0, ip[:20])))
	binary.BigEndian.PutUint16(ip[20:], 4000)
	binary.BigEndian.PutUint16(ip[22:], 5000)
	binary.BigEndian.PutUint16(ip[24:], uint16(8+len(payload)))
	f = append(f, payload...)
	return append(f, make([]byte, pad)...)
}

func TestDecodeUDP(t *testing.T) {
	f := udpFrame(udpPayload(6, 0, 5), 4) // too short for a tag; padded
	d, err := DecodeFrame(f)
	if err != nil {
		t.Fatal(err)
	}
	if d.Proto != 17 || d.SPort != 4000 || d.DPort != 5000 || d.Payload != 6 || d.Tag != -1 || d.DSCP != 46 || d.ECN != 1 || !d.IPCsumOK {
		t.Errorf("decoded %+v", d)
	}
	d, _ = DecodeFrame(udpFrame(udpPayload(100, 0, 12345), 0))
	if d.Tag != 12345 || d.Payload != 100 {
		t.Errorf("tagged payload decoded as %+v", d.Record)
	}
	// The capture path: a virtio_net_hdr saying GSO UDP_L4, gso_size 972.
	vh := make([]byte, vnetHdrLen)
	vh[1] = 5
	binary.NativeEndian.PutUint16(vh[4:], 972)
	r, err := decodeCapture(append(vh, udpFrame(udpPayload(8*972, 972, 3), 0)...))
	if err != nil || r.GSOSegs != 8 || r.GSOSize != 972 || r.HdrLen != 42 || r.Tag != 3 || r.Segs() != 8 {
		t.Errorf("GSO capture %+v %v", r, err)
	}
}

func TestDecodeOther(t *testing.T) {
	arp := make([]byte, 42)
	binary.BigEndian.PutUint16(arp[12:], 0x0806)
	if d, err := DecodeFrame(arp); err != nil || d.L3 != "arp" {
		t.Errorf("ARP decoded as %+v, %v", d, err)
	}
	lldp := make([]byte, 60)
	binary.BigEndian.PutUint16(lldp[12:], 0x88cc)
	if d, err := DecodeFrame(lldp); err != nil || d.L3 != "other" || d.EtherType != 0x88cc {
		t.Errorf("LLDP decoded as %+v, %v", d, err)
	}
	for _, f := range [][]byte{make([]byte, 10), udpFrame(nil, 0)[:30]} {
		if _, err := DecodeFrame(f); err == nil {
			t.Errorf("truncated frame % x decoded", f)
		}
	}
	// Options the ACK filter does not tolerate set OtherOpts; MD5 does not.
	var tf TCPFields
	if err := parseTCPOptions([]byte{19, 18, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0}, &tf); err != nil || tf.OtherOpts {
		t.Errorf("MD5: %+v %v", tf, err)
	}
	if err := parseTCPOptions([]byte{2, 4, 5, 0xb4}, &tf); err != nil || !tf.OtherOpts {
		t.Errorf("MSS: %+v %v", tf, err)
	}
	if err := parseTCPOptions([]byte{8, 30}, &tf); err == nil {
		t.Errorf("overlong option accepted")
	}
}
