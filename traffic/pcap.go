// SPDX-License-Identifier: Apache-2.0

package traffic

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"slices"
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

// CapturedPacket is one packet of a capture file, as a CaptureReader
// yields it.
type CapturedPacket struct {
	// Data is what the capture kept of the packet; Wire its length on the
	// wire (at least len(Data)).
	Data []byte
	Wire int
	// T is the timestamp in Unix ns; Link the LINKTYPE_* of its interface.
	T    int64
	Link uint32
}

// CaptureReader yields a capture file's packets in the file's order, then
// io.EOF.
type CaptureReader interface {
	Next() (CapturedPacket, error)
}

// OpenCapture opens the bytes of a capture file (pcap or pcapng). Package
// traffic/pcapread sets it: a program that reads captures imports that
// package for its side effect. It is apart because it links gopacket,
// whose initialisation every start of a program linking it pays, and gotc
// itself hands captures to gotc-traffic rather than pay it.
var OpenCapture func(b []byte) (CaptureReader, error)

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

// ReadPcap turns a capture (pcap or pcapng, as tcpdump and Wireshark
// write them; OpenCapture reads the file format) into send records, sorted by time, as
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
	if OpenCapture == nil {
		return nil, errors.New("pcap: this program reads no captures (it does not link package traffic/pcapread)")
	}
	src, err := OpenCapture(b)
	if err != nil {
		return nil, err
	}
	flows := map[flowKey]int{}
	for n := 1; ; n++ {
		pkt, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("pcap: packet %d: %w", n, err)
		}
		rec, err := decodeCaptured(pkt.Data, pkt.Wire, pkt.Link, mtu)
		if err != nil {
			return nil, fmt.Errorf("pcap: packet %d (%d of %d bytes captured): %w", n, len(pkt.Data), pkt.Wire, err)
		}
		rec.T = pkt.T
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
