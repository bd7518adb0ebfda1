// SPDX-License-Identifier: Apache-2.0

package traffic_test

import (
	"bytes"
	"encoding/binary"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"

	"github.com/gotc/gotc/traffic"
	_ "github.com/gotc/gotc/traffic/pcapread" // sets traffic.OpenCapture
)

// capPkt is one packet of a test capture: a frame of the capture's link
// type, its time and how many bytes of it the capture keeps (0: all).
type capPkt struct {
	at     time.Duration
	frame  []byte
	snap   int
	iface  int
	length int // the wire length, if not len(frame)
}

var capStart = time.Unix(1_700_000_000, 123_456_000)

// maxSnap is the snap length the test captures declare: libpcap's maximum.
const maxSnap = 262144

func (p capPkt) ci() gopacket.CaptureInfo {
	n := len(p.frame)
	if p.length != 0 {
		n = p.length
	}
	c := len(p.frame)
	if p.snap != 0 {
		c = min(c, p.snap)
	}
	return gopacket.CaptureInfo{Timestamp: capStart.Add(p.at), CaptureLength: c, Length: n, InterfaceIndex: p.iface}
}

// writePcap writes a pcap file with pcapgo's writer.
func writePcap(t testing.TB, lt layers.LinkType, pkts []capPkt) []byte {
	var b bytes.Buffer
	w := pcapgo.NewWriterNanos(&b)
	if err := w.WriteFileHeader(maxSnap, lt); err != nil {
		t.Fatal(err)
	}
	for _, p := range pkts {
		ci := p.ci()
		if err := w.WritePacket(ci, p.frame[:ci.CaptureLength]); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

// writePcapng writes a pcapng file with one interface per link type.
func writePcapng(t testing.TB, lts []layers.LinkType, pkts []capPkt) []byte {
	var b bytes.Buffer
	w, err := pcapgo.NewNgWriterInterface(&b, pcapgo.NgInterface{LinkType: lts[0], SnapLength: maxSnap, TimestampResolution: 9},
		pcapgo.NgWriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, lt := range lts[1:] {
		if _, err := w.AddInterface(pcapgo.NgInterface{LinkType: lt, SnapLength: maxSnap, TimestampResolution: 9}); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range pkts {
		ci := p.ci()
		if err := w.WritePacket(ci, p.frame[:ci.CaptureLength]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// sll2Pcap writes a pcap of link type 276 (which pcapgo's writer cannot
// name: its link type is a byte) from Ethernet frames, by hand.
func sll2Pcap(frames [][]byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, 0xa1b23c4d)
	b = binary.LittleEndian.AppendUint16(b, 2)
	b = binary.LittleEndian.AppendUint16(b, 4)
	b = append(b, make([]byte, 8)...)
	b = binary.LittleEndian.AppendUint32(b, maxSnap)
	b = binary.LittleEndian.AppendUint32(b, traffic.LinkSLL2)
	for i, f := range frames {
		h := make([]byte, 20)
		copy(h, f[12:14]) // protocol
		binary.BigEndian.PutUint32(h[4:], 3)
		binary.BigEndian.PutUint16(h[8:], 1) // ARPHRD_ETHER
		h[10], h[11] = 4, 6                  // PACKET_OUTGOING, address length
		copy(h[12:], f[6:12])
		pkt := append(h, f[14:]...)
		b = binary.LittleEndian.AppendUint32(b, 1_700_000_000)
		b = binary.LittleEndian.AppendUint32(b, uint32(i*1000))
		b = binary.LittleEndian.AppendUint32(b, uint32(len(pkt)))
		b = binary.LittleEndian.AppendUint32(b, uint32(len(pkt)))
		b = append(b, pkt...)
	}
	return b
}

// toSLL makes a Linux cooked (v1) packet of an Ethernet frame.
func toSLL(f []byte, pktType uint16) []byte {
	h := make([]byte, 16)
	binary.BigEndian.PutUint16(h, pktType)
	binary.BigEndian.PutUint16(h[2:], 1)
	binary.BigEndian.PutUint16(h[4:], 6)
	copy(h[6:], f[6:12])
	copy(h[14:], f[12:14])
	return append(h, f[14:]...)
}

// withVLAN inserts an 802.1Q tag (and a second, 802.1ad outer one with
// qinq) into an Ethernet frame.
func withVLAN(f []byte, qinq bool) []byte {
	out := append([]byte{}, f[:12]...)
	if qinq {
		out = append(out, 0x88, 0xa8, 0, 100)
	}
	out = append(out, 0x81, 0x00, 0, 42)
	return append(out, f[12:]...)
}

func tcpFrame(t testing.TB, src, dst string, dsfield uint8, payload int, h traffic.TCPFields) []byte {
	f, err := traffic.BuildTCPFrame(traffic.FrameSpec{SrcMAC: traffic.MacA, DstMAC: traffic.MacB, Src: netip.MustParseAddr(src),
		Dst: netip.MustParseAddr(dst), SPort: 40000, DPort: 443, DSField: dsfield, Payload: payload}, &h)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestReadPcapEthernet(t *testing.T) {
	ack := traffic.TCPFields{Flags: 0x10, Seq: 1, Ack: 5000, Window: 500, HasTS: true, TSVal: 10, TSEcr: 20,
		SACK: [][2]uint32{{7000, 8448}}}
	tcp4 := tcpFrame(t, "10.0.0.1", "10.0.0.2", 46<<2|2, 0, ack)
	bulk6 := tcpFrame(t, "2001:db8::1", "2001:db8::2", 10<<2|1, 1200, traffic.TCPFields{Flags: 0x18, Seq: 9, Ack: 1, Window: 100})
	udp := traffic.UDPFrame(traffic.UDPPayload(30, 0, 7), 0) // 72 bytes, DSCP 46, ECT(1)
	pkts := []capPkt{
		{at: 0, frame: tcp4},
		{at: 2 * time.Millisecond, frame: withVLAN(bulk6, true)},
		{at: 1 * time.Millisecond, frame: withVLAN(udp, false), snap: 14 + 4 + 28 + 2}, // out of order; truncated
		{at: 3 * time.Millisecond, frame: tcp4},
		{at: 4 * time.Millisecond, frame: traffic.UDPFrame(traffic.UDPPayload(6, 0, 0), 10)}, // padded to 60
	}
	for name, file := range map[string][]byte{
		"pcap":   writePcap(t, layers.LinkTypeEthernet, pkts),
		"pcapng": writePcapng(t, []layers.LinkType{layers.LinkTypeEthernet}, pkts),
	} {
		recs, err := traffic.ReadPcap(file, traffic.PcapOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(recs) != 5 {
			t.Fatalf("%s: %d records", name, len(recs))
		}
		t0 := capStart.UnixNano()
		want := []struct {
			t               time.Duration
			l3              string
			len, payload    int
			dscp, ecn, flow int
		}{
			{0, "ipv4", 14 + 20 + 20 + 12 + 12, 0, 46, 2, 0},
			{1 * time.Millisecond, "ipv4", 14 + 28 + 30, 30, 46, 1, 2},
			{2 * time.Millisecond, "ipv6", 14 + 40 + 20 + 1200, 1200, 10, 1, 1},
			{3 * time.Millisecond, "ipv4", 14 + 20 + 20 + 12 + 12, 0, 46, 2, 0},
			{4 * time.Millisecond, "ipv4", 14 + 28 + 6, 6, 46, 1, 2},
		}
		for i, w := range want {
			r := recs[i]
			if r.I != i || r.T != t0+int64(w.t) || r.L3 != w.l3 || r.Len != w.len || r.Payload != w.payload ||
				int(r.DSCP) != w.dscp || int(r.ECN) != w.ecn || r.Flow != w.flow || r.GSOSegs != 0 {
				t.Errorf("%s: record %d: %+v, want %+v", name, i, r, w)
			}
		}
		if tc := recs[0].TCP; tc == nil || tc.Ack != 5000 || tc.Flags != 0x10 || !tc.HasTS || tc.TSVal != 10 ||
			!slices.Equal(tc.SACK, [][2]uint32{{7000, 8448}}) || recs[0].SPort != 40000 || recs[0].DPort != 443 {
			t.Errorf("%s: TCP ACK decoded as %+v %+v", name, recs[0], tc)
		}
		if recs[2].Src != netip.MustParseAddr("2001:db8::1") || recs[2].TCP == nil || recs[2].TCP.Seq != 9 {
			t.Errorf("%s: IPv6 record %+v", name, recs[2])
		}
	}
}

func TestReadPcapCookedAndRaw(t *testing.T) {
	a := tcpFrame(t, "192.0.2.1", "198.51.100.7", 8<<2, 100, traffic.TCPFields{Flags: 0x10, Seq: 1, Ack: 2})
	b := tcpFrame(t, "2001:db8::1", "2001:db8::9", 1, 0, traffic.TCPFields{Flags: 0x10, Seq: 1, Ack: 3})
	check := func(name string, recs []traffic.Record, err error, pktType uint8) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(recs) != 2 || recs[0].L3 != "ipv4" || recs[0].Len != len(a) || recs[0].Payload != 100 || recs[0].DSCP != 8 ||
			recs[1].L3 != "ipv6" || recs[1].Len != len(b) || recs[1].ECN != 1 || recs[1].TCP.Ack != 3 ||
			recs[0].PktType != pktType || recs[0].Flow != 0 || recs[1].Flow != 1 {
			t.Errorf("%s: %+v", name, recs)
		}
	}
	sll := writePcap(t, layers.LinkTypeLinuxSLL, []capPkt{{frame: toSLL(a, 4)}, {at: time.Microsecond, frame: toSLL(b, 4)}})
	recs, err := traffic.ReadPcap(sll, traffic.PcapOptions{})
	check("sll", recs, err, 4)
	recs, err = traffic.ReadPcap(sll2Pcap([][]byte{a, b}), traffic.PcapOptions{})
	check("sll2", recs, err, 4)
	raw := writePcap(t, layers.LinkTypeRaw, []capPkt{{frame: a[14:]}, {at: time.Microsecond, frame: b[14:]}})
	recs, err = traffic.ReadPcap(raw, traffic.PcapOptions{})
	check("raw", recs, err, 0)
	// pcapng, one interface of each kind; the packets say which.
	ng := writePcapng(t, []layers.LinkType{layers.LinkTypeRaw, layers.LinkTypeLinuxSLL},
		[]capPkt{{frame: a[14:]}, {at: time.Microsecond, frame: toSLL(b, 4), iface: 1}})
	recs, err = traffic.ReadPcap(ng, traffic.PcapOptions{})
	check("pcapng", recs, err, 0)
}

func TestReadPcapGSO(t *testing.T) {
	// What tcpdump shows on a TSO sender: one 14+20+32+4344-byte packet.
	h := traffic.TCPFields{Flags: 0x10, Seq: 1, Ack: 1, HasTS: true, TSVal: 1, TSEcr: 1}
	big := tcpFrame(t, "10.0.0.1", "10.0.0.2", 0, 3*1448, h)
	recs, err := traffic.ReadPcap(writePcap(t, layers.LinkTypeEthernet, []capPkt{{frame: big, snap: 96}}), traffic.PcapOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := recs[0]
	if r.Len != len(big) || r.Payload != 3*1448 || r.GSOSegs != 3 || r.GSOSize != 1448 || r.HdrLen != 14+20+32 {
		t.Errorf("GSO packet read as %+v", r)
	}
	// At a 9000-byte MTU it is one ordinary packet.
	recs, _ = traffic.ReadPcap(writePcap(t, layers.LinkTypeEthernet, []capPkt{{frame: big}}), traffic.PcapOptions{MTU: 9000})
	if recs[0].GSOSegs != 0 {
		t.Errorf("jumbo packet read as GSO: %+v", recs[0])
	}
}

func TestReadPcapErrors(t *testing.T) {
	ack := tcpFrame(t, "10.0.0.1", "10.0.0.2", 0, 0, traffic.TCPFields{Flags: 0x10, Seq: 1, Ack: 2})
	good := writePcap(t, layers.LinkTypeEthernet, []capPkt{{frame: ack}, {frame: ack}, {frame: ack}})
	badIP := append([]byte{}, ack...)
	badIP[14] = 0x42 // IPv4 with a header length of 8 bytes
	longIP := append([]byte{}, ack...)
	binary.BigEndian.PutUint16(longIP[16:], 1500)
	ng := writePcapng(t, []layers.LinkType{layers.LinkTypeEthernet}, []capPkt{{frame: ack}, {frame: ack}})
	ngHuge := append([]byte{}, ng...)
	// The second enhanced packet block's captured length, at byte 20 of it.
	second := len(ng) - (32 + len(ack) + 2)
	binary.LittleEndian.PutUint32(ngHuge[second+20:], 0xfffffff0)
	for _, c := range []struct {
		name string
		file []byte
		want string
	}{
		{"empty", nil, "neither pcap nor pcapng"},
		{"text", []byte("not a capture at all, not even close"), "neither pcap nor pcapng"},
		{"gzip", []byte{0x1f, 0x8b, 8, 0}, "gunzip"},
		{"cut", good[:len(good)-10], "packet 3: cut short"},
		{"cut header", good[:len(good)-len(ack)-8], "packet 3: cut short"},
		{"no packets", good[:24], "no packets"},
		{"bad IP", writePcap(t, layers.LinkTypeEthernet, []capPkt{{frame: ack}, {frame: badIP}}), "packet 2 "},
		{"IP longer than the wire", writePcap(t, layers.LinkTypeEthernet, []capPkt{{frame: longIP}}), "packet 1 "},
		{"TCP header cut", writePcap(t, layers.LinkTypeEthernet, []capPkt{{frame: ack, snap: 40}}), "packet 1 (40 of 54 bytes"},
		{"VLAN cut", writePcap(t, layers.LinkTypeEthernet, []capPkt{{frame: withVLAN(ack, false), snap: 15}}), "VLAN tag"},
		{"link type", writePcap(t, layers.LinkTypePPP, []capPkt{{frame: ack}}), "link type 9 "},
		{"raw version", writePcap(t, layers.LinkTypeRaw, []capPkt{{frame: ack}}), "raw IP packet of version 0"},
		{"pcapng cut", ng[:len(ng)-6], "pcapng: block at byte"},
		{"pcapng caplen", ngHuge, "packet 2: 4294967280 bytes captured"},
	} {
		_, err := traffic.ReadPcap(c.file, traffic.PcapOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// FuzzReadPcap reads arbitrary bytes as a capture: an error or records
// that hold together, never a panic or a runaway allocation.
func FuzzReadPcap(f *testing.F) {
	ack := tcpFrame(f, "10.0.0.1", "10.0.0.2", 46<<2|1, 0, traffic.TCPFields{Flags: 0x10, Seq: 1, Ack: 2, HasTS: true})
	big := tcpFrame(f, "2001:db8::1", "2001:db8::2", 0, 3000, traffic.TCPFields{Flags: 0x10})
	f.Add(writePcap(f, layers.LinkTypeEthernet, []capPkt{{frame: ack}, {at: time.Millisecond, frame: withVLAN(big, true), snap: 100}}))
	f.Add(writePcap(f, layers.LinkTypeLinuxSLL, []capPkt{{frame: toSLL(ack, 4)}}))
	f.Add(writePcapng(f, []layers.LinkType{layers.LinkTypeEthernet, layers.LinkTypeRaw},
		[]capPkt{{frame: ack}, {frame: big[14:], iface: 1, snap: 80}}))
	f.Add(sll2Pcap([][]byte{ack}))
	f.Fuzz(func(t *testing.T, b []byte) {
		recs, err := traffic.ReadPcap(b, traffic.PcapOptions{})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "pcap") {
				t.Fatalf("error without its source: %v", err)
			}
			return
		}
		for i, r := range recs {
			if r.I != i || (i > 0 && r.T < recs[i-1].T) || r.Len < traffic.EthHdrLen || r.Payload < 0 || r.Payload > r.Len ||
				(r.GSOSegs != 0 && (r.GSOSegs < 2 || r.GSOSize <= 0 || (r.GSOSegs-1)*r.GSOSize >= r.Payload)) {
				t.Fatalf("record %d does not hold together: %+v", i, r)
			}
		}
	})
}
