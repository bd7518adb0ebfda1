// SPDX-License-Identifier: Apache-2.0

package traffic

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"slices"

	"github.com/google/gopacket"
	"github.com/google/gopacket/pcapgo"
)

// Link types a capture may use (LINKTYPE_* of the pcap and pcapng formats).
const (
	linkEthernet = 1
	linkRaw      = 101
	linkSLL      = 113
	linkIPv4     = 228
	linkIPv6     = 229
	linkSLL2     = 276
)

// EtherTypes of VLAN tags (802.1Q, 802.1ad, and the old QinQ value).
const (
	etherVLAN   = 0x8100
	etherQinQ   = 0x88a8
	etherQinQv1 = 0x9100
)

// maxSnap is the largest frame a capture may hold (libpcap's
// MAXIMUM_SNAPLEN). A record claiming more is malformed, and the bound
// keeps a corrupt length from allocating gigabytes.
const maxSnap = 262144

// maxWire bounds a packet's length on the wire: BIG TCP's 512 KiB GSO
// packets, with room to spare.
const maxWire = 1 << 20

// pcapngMagic starts a pcapng file (its section header block type).
var pcapngMagic = []byte{0x0a, 0x0d, 0x0d, 0x0a}

// PcapOptions tune ReadPcap.
type PcapOptions struct {
	// MTU is the device MTU the traffic left by (0: 1500). A TCP or UDP
	// packet whose IP length exceeds it is a GSO super-packet, as a capture
	// on the sending host shows TSO/GSO traffic: it is given the segment
	// size a segmentation at this MTU produces.
	MTU int
}

// ReadPcapFile reads a pcap or pcapng capture file; see ReadPcap.
func ReadPcapFile(path string, o PcapOptions) ([]Record, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ReadPcap(b, o)
}

// ReadPcap turns a capture (pcap or pcapng, possibly gzipped pcap, as
// tcpdump and Wireshark write them) into send records, sorted by time, as
// if each captured packet had been offered to a qdisc on an Ethernet
// device at its capture timestamp. Link types: Ethernet (with any number
// of VLAN tags, which are removed as hardware offload removes them before
// the qdisc), Linux cooked SLL and SLL2, and raw IP.
//
// Each record has T (the timestamp, Unix ns), Len (14 plus the IP length
// the header declares, so a capture truncated by its snap length still
// gives the true length), DSCP, ECN, the 5-tuple, Payload, TCP's header
// fields, PktType (SLL's packet type, 4 for outgoing) and Flow: the index
// of its 5-tuple (L3, protocol, addresses, ports) in order of first
// appearance. A TCP or UDP packet larger than the MTU is a GSO
// super-packet (see PcapOptions.MTU). I is the record's index after the
// sort. Anything that cannot be read is an error naming the packet's
// number in the file (from 1).
func ReadPcap(b []byte, o PcapOptions) (recs []Record, err error) {
	mtu := o.MTU
	if mtu == 0 {
		mtu = 1500
	}
	if mtu < 68 || mtu > 65535 {
		return nil, fmt.Errorf("pcap: MTU %d is not within 68..65535", mtu)
	}
	src, err := openCapture(b)
	if err != nil {
		return nil, err
	}
	flows := map[flowKey]int{}
	for n := 1; ; n++ {
		data, ci, linkType, err := src.next(n)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("pcap: packet %d: %w", n, err)
		}
		rec, err := decodeCaptured(data, ci.Length, linkType, mtu)
		if err != nil {
			return nil, fmt.Errorf("pcap: packet %d (%d of %d bytes captured): %w", n, len(data), ci.Length, err)
		}
		rec.T = ci.Timestamp.UnixNano()
		k := flowKey{rec.L3, rec.Proto, rec.Src, rec.Dst, rec.SPort, rec.DPort}
		f, ok := flows[k]
		if !ok {
			f = len(flows)
			flows[k] = f
		}
		rec.Flow = f
		recs = append(recs, rec)
	}
	if len(recs) == 0 {
		return nil, errors.New("pcap: the capture holds no packets")
	}
	// Captures from several interfaces (pcapng) may interleave out of
	// order; the models take arrivals in time order.
	slices.SortStableFunc(recs, func(a, b Record) int { return cmp.Compare(a.T, b.T) })
	for i := range recs {
		recs[i].I = i
	}
	return recs, nil
}

// flowKey is what tells flows apart in a capture.
type flowKey struct {
	l3           string
	proto        uint8
	src, dst     netip.Addr
	sport, dport uint16
}

// packetSource is a pcap or pcapng reader, and the link types of its
// packets. pcapgo keeps a link type in a byte, which cannot hold SLL2's
// 276, so they come from the file's headers: the pcap file header's, or
// for pcapng each packet's interface description (links[n-1] for packet n).
type packetSource struct {
	pcap  *pcapgo.Reader
	ng    *pcapgo.NgReader
	link  uint32
	links []uint32
}

// openCapture opens b as pcapng or (anything else) pcap. A pcapng file is
// checked for lengths that would make the reader allocate more than the
// file holds, before the reader sees it.
func openCapture(b []byte) (*packetSource, error) {
	if bytes.HasPrefix(b, pcapngMagic) {
		links, err := checkPcapng(b)
		if err != nil {
			return nil, err
		}
		r, err := pcapgo.NewNgReader(bytes.NewReader(b), pcapgo.NgReaderOptions{WantMixedLinkType: true})
		if err != nil {
			return nil, fmt.Errorf("pcapng: %w", err)
		}
		return &packetSource{ng: r, links: links}, nil
	}
	if bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
		return nil, errors.New("pcap: a gzipped capture: gunzip it first")
	}
	r, err := pcapgo.NewReader(bytes.NewReader(b))
	if err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			err = errors.New("shorter than a pcap file header")
		}
		return nil, fmt.Errorf("pcap: %w (neither pcap nor pcapng)", err)
	}
	// The header's snap length bounds each record: a corrupt one could
	// claim gigabytes.
	r.SetSnaplen(maxSnap)
	// The reader has checked the magic, so the byte order is the magic's.
	var order binary.ByteOrder = binary.LittleEndian
	if b[0] == 0xa1 {
		order = binary.BigEndian
	}
	return &packetSource{pcap: r, link: order.Uint32(b[20:])}, nil
}

// next returns packet n (the next), its capture information and link
// type, or io.EOF after the last. A packet cut short by the end of the
// file is an error, as is a panic of the reader on a corrupt file.
func (s *packetSource) next(n int) (data []byte, ci gopacket.CaptureInfo, lt uint32, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("corrupt capture (%v)", p)
		}
	}()
	if s.ng != nil {
		data, ci, err = s.ng.ReadPacketData()
		if n <= len(s.links) {
			lt = s.links[n-1]
		}
	} else {
		data, ci, err = s.pcap.ReadPacketData()
		lt = s.link
	}
	if err == io.ErrUnexpectedEOF || (err == io.EOF && data != nil) {
		err = errors.New("cut short by the end of the file")
	}
	switch {
	case err != nil:
	case ci.Length < len(data):
		err = fmt.Errorf("%d bytes captured of a %d-byte packet", len(data), ci.Length)
	case ci.Length > maxWire:
		err = fmt.Errorf("a %d-byte packet is larger than any GSO packet (%d)", ci.Length, maxWire)
	case ci.Timestamp.Year() < 1700 || ci.Timestamp.Year() > 2200:
		// Simple packet blocks carry no timestamp at all.
		err = fmt.Errorf("timestamp %v is not one a model can use", ci.Timestamp)
	}
	return data, ci, lt, err
}

// checkPcapng walks the blocks of a pcapng file and refuses a block longer
// than the rest of the file, or a packet block capturing more than its
// block holds or than maxSnap, or naming an interface its section has not
// described. It returns each packet's link type. It is not a reader:
// pcapgo reads the file; this keeps it from allocating what a corrupt
// length claims, and finds the link types pcapgo cannot hold.
func checkPcapng(b []byte) ([]uint32, error) {
	var (
		order  binary.ByteOrder = binary.LittleEndian
		ifaces []uint32         // the section's interfaces' link types
		links  []uint32
	)
	for off := 0; off < len(b); {
		n := len(links) + 1
		if len(b)-off < 12 {
			return nil, fmt.Errorf("pcapng: %d bytes after the last block", len(b)-off)
		}
		typ := order.Uint32(b[off:])
		if bytes.Equal(b[off:off+4], pcapngMagic) {
			switch binary.LittleEndian.Uint32(b[off+8:]) {
			case 0x1a2b3c4d:
				order = binary.LittleEndian
			case 0x4d3c2b1a:
				order = binary.BigEndian
			default:
				return nil, errors.New("pcapng: section header with a bad byte-order magic")
			}
			typ, ifaces = 0x0a0d0d0a, nil
		}
		l := int(order.Uint32(b[off+4:]))
		if l < 12 || l%4 != 0 || l > len(b)-off {
			return nil, fmt.Errorf("pcapng: block at byte %d has length %d (%d bytes left)", off, l, len(b)-off)
		}
		caplen, room, iface := 0, 0, -1
		switch typ {
		case 0x0a0d0d0a:
			if l < 28 {
				return nil, fmt.Errorf("pcapng: %d-byte section header", l)
			}
		case 6, 2: // enhanced packet, obsolete packet block
			if l < 32 {
				return nil, fmt.Errorf("pcapng: packet %d: %d-byte packet block", n, l)
			}
			caplen, room = int(order.Uint32(b[off+20:])), l-32
			if iface = int(order.Uint32(b[off+8:])); typ == 2 {
				iface = int(order.Uint16(b[off+8:]))
			}
		case 3: // simple packet block: the original length, capped by its room
			if l < 16 {
				return nil, fmt.Errorf("pcapng: packet %d: %d-byte packet block", n, l)
			}
			caplen, room, iface = min(int(order.Uint32(b[off+8:])), l-16), l-16, 0
		case 1: // interface description
			if l < 20 {
				return nil, fmt.Errorf("pcapng: %d-byte interface description", l)
			}
			if err := checkIDBOptions(b[off+16:off+l-4], order); err != nil {
				return nil, err
			}
			ifaces = append(ifaces, uint32(order.Uint16(b[off+8:])))
		}
		if iface >= 0 {
			if iface >= len(ifaces) {
				return nil, fmt.Errorf("pcapng: packet %d: interface %d is not described", n, iface)
			}
			if caplen > room || caplen > maxSnap {
				return nil, fmt.Errorf("pcapng: packet %d: %d bytes captured in a %d-byte block", n, caplen, l)
			}
			links = append(links, ifaces[iface])
		}
		off += l
	}
	return links, nil
}

// checkIDBOptions refuses an interface's timestamp resolution (option 9)
// whose second does not fit in 64 bits of ticks, on which pcapgo would
// divide by zero.
func checkIDBOptions(o []byte, order binary.ByteOrder) error {
	for len(o) >= 4 {
		code, l := order.Uint16(o), int(order.Uint16(o[2:]))
		if code == 0 || 4+l > len(o) {
			return nil
		}
		if code == 9 && l >= 1 {
			r := o[4]
			if (r&0x80 != 0 && r&0x7f > 63) || (r&0x80 == 0 && r > 19) {
				return fmt.Errorf("pcapng: interface timestamp resolution 0x%02x is out of range", r)
			}
		}
		o = o[4+(l+3)&^3:]
	}
	return nil
}

// decodeCaptured makes a record of one captured packet (data, of wire
// length wire bytes) of a link type.
func decodeCaptured(data []byte, wire int, lt uint32, mtu int) (Record, error) {
	var (
		et      uint16
		hdr     int // link header bytes before the EtherType's payload
		pktType uint8
	)
	short := func(what string) error {
		return fmt.Errorf("shorter than its %s", what)
	}
	switch lt {
	case linkEthernet:
		if len(data) < ethHdrLen {
			return Record{}, short("Ethernet header")
		}
		et, hdr = binary.BigEndian.Uint16(data[12:]), ethHdrLen
	case linkSLL:
		if len(data) < 16 {
			return Record{}, short("Linux cooked (SLL) header")
		}
		pktType = uint8(binary.BigEndian.Uint16(data))
		et, hdr = binary.BigEndian.Uint16(data[14:]), 16
	case linkSLL2:
		if len(data) < 20 {
			return Record{}, short("Linux cooked (SLL2) header")
		}
		pktType = data[10]
		et, hdr = binary.BigEndian.Uint16(data), 20
	case linkRaw, linkIPv4, linkIPv6:
		if len(data) < 1 {
			return Record{}, errors.New("empty raw IP packet")
		}
		switch data[0] >> 4 {
		case 4:
			et = etherIPv4
		case 6:
			et = etherIPv6
		default:
			return Record{}, fmt.Errorf("raw IP packet of version %d", data[0]>>4)
		}
	default:
		return Record{}, fmt.Errorf("link type %d is not one of Ethernet (1), Linux SLL (113), SLL2 (276) or raw IP (101, 228, 229)", lt)
	}
	for et == etherVLAN || et == etherQinQ || et == etherQinQv1 {
		if len(data) < hdr+4 {
			return Record{}, short("VLAN tag")
		}
		et, hdr = binary.BigEndian.Uint16(data[hdr+2:]), hdr+4
	}
	d := Decoded{Record: Record{Tag: -1, PktType: pktType}}
	declared, err := decodeL3(&d, et, data[hdr:])
	if err != nil {
		return Record{}, err
	}
	rec := d.Record
	if wire < hdr {
		return Record{}, fmt.Errorf("a %d-byte packet is shorter than its %d-byte link header", wire, hdr)
	}
	rec.Len = ethHdrLen + wire - hdr
	if declared > wire-hdr {
		return Record{}, fmt.Errorf("its IP header declares %d bytes, %d were on the wire", declared, wire-hdr)
	}
	if declared > 0 {
		rec.Len = ethHdrLen + declared
	}
	if rec.Proto != protoTCP && rec.Proto != protoUDP {
		return rec, nil
	}
	// Headers (IP and transport) as captured; the payload is what the IP
	// length leaves, however much of it the capture kept.
	got := len(data) - hdr
	if declared > 0 {
		got = min(got, declared)
	}
	hdrs := got - rec.Payload
	rec.Payload = rec.Len - ethHdrLen - hdrs
	if rec.Len-ethHdrLen > mtu && mtu > hdrs {
		rec.GSOSize = mtu - hdrs
		rec.GSOSegs = (rec.Payload + rec.GSOSize - 1) / rec.GSOSize
		rec.HdrLen = ethHdrLen + hdrs
	}
	return rec, nil
}
