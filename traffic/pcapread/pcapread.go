// SPDX-License-Identifier: Apache-2.0

// Package pcapread reads capture files for package traffic, with
// gopacket's pcapgo: importing it sets traffic.OpenCapture. It is a
// package of its own because gopacket's initialisation costs every start
// of a program that links it; gotc does not, and hands captures to
// gotc-traffic.
//
//	import _ "github.com/gotc/gotc/traffic/pcapread"
package pcapread

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/google/gopacket"
	"github.com/google/gopacket/pcapgo"
	"github.com/gotc/gotc/traffic"
)

func init() { traffic.OpenCapture = Open }

// maxSnap is the largest frame a capture may hold (libpcap's
// MAXIMUM_SNAPLEN). A record claiming more is malformed, and the bound
// keeps a corrupt length from allocating gigabytes.
const maxSnap = 262144

// maxWire bounds a packet's length on the wire: BIG TCP's 512 KiB GSO
// packets, with room to spare.
const maxWire = 1 << 20

// pcapngMagic starts a pcapng file (its section header block type).
var pcapngMagic = []byte{0x0a, 0x0d, 0x0d, 0x0a}

// packetSource is a pcap or pcapng reader, and the link types of its
// packets. pcapgo keeps a link type in a byte, which cannot hold SLL2's
// 276, so they come from the file's headers: the pcap file header's, or
// for pcapng each packet's interface description (links[n-1] for packet n).
type packetSource struct {
	pcap  *pcapgo.Reader
	ng    *pcapgo.NgReader
	link  uint32
	links []uint32
	n     int // packets read
}

// Open opens b as pcapng or (anything else) pcap. A pcapng file is
// checked for lengths that would make the reader allocate more than the
// file holds, before the reader sees it.
func Open(b []byte) (traffic.CaptureReader, error) {
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

// Next returns the next packet, or io.EOF after the last. A packet cut
// short by the end of the file is an error, as is a panic of the reader on
// a corrupt file.
func (s *packetSource) Next() (pkt traffic.CapturedPacket, err error) {
	s.n++
	data, ci, lt, err := s.next(s.n)
	if err != nil {
		return pkt, err
	}
	return traffic.CapturedPacket{Data: data, Wire: ci.Length, T: ci.Timestamp.UnixNano(), Link: lt}, nil
}

// next reads packet n (the next).
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
