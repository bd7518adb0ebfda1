// SPDX-License-Identifier: Apache-2.0

package cake

// L3 is the network protocol of a packet as skb_protocol() reports it.
type L3 uint8

// Network protocols the model distinguishes. The kernel reads the DSCP only
// from IPv4 and IPv6 headers, maps ARP to CS7 and everything else to 0.
const (
	L3Other L3 = iota
	L3IPv4
	L3IPv6
	L3ARP
)

// TCP flag bits of Packet.TCPFlags. The low byte is the TCP flags byte; bits
// 8..11 hold the header's reserved nibble (which includes AccECN's AE bit):
// the ACK filter refuses to drop an ACK with any of them set.
const (
	TCPFin uint16 = 0x01
	TCPSyn uint16 = 0x02
	TCPRst uint16 = 0x04
	TCPPsh uint16 = 0x08
	TCPAck uint16 = 0x10
	TCPUrg uint16 = 0x20
	TCPEce uint16 = 0x40
	TCPCwr uint16 = 0x80
)

// ECN codepoints of the low two bits of Packet.DSField.
const (
	NotECT uint8 = 0
	ECT1   uint8 = 1
	ECT0   uint8 = 2
	CE     uint8 = 3
)

// SACKBlock is one TCP SACK block (start and end sequence numbers).
type SACKBlock struct{ Start, End uint32 }

// Packet is one skb as the qdisc sees it at enqueue. It is flat (no pointers)
// so that the model can copy it into its preallocated rings without
// allocating, and carries only what sch_cake.c reads.
type Packet struct {
	// Len is skb->len: on an Ethernet device (veth) the 14-byte header plus
	// the IP datagram, without FCS. For a GSO super-packet it is the whole
	// skb (one set of headers plus all payload).
	Len uint32
	// Truesize is skb->truesize, charged against the memory limit. It cannot
	// be derived from Len: calibrate it (see the package doc).
	Truesize uint32
	// SegTruesize is the truesize of each segment when CAKE splits this GSO
	// packet; 0 means Truesize/GSOSegs rounded up.
	SegTruesize uint32

	// NetOffset is skb_network_offset(): 14 on Ethernet.
	NetOffset uint16
	// HdrLen is, for GSO packets, the bytes from the start of the skb to the
	// end of the transport header (14+20+20 for IPv4/TCP without options,
	// 14+20+8 for IPv4/UDP): qdisc_pkt_len_init and cake_overhead use it.
	HdrLen uint16
	// GSOSegs and GSOSize describe a GSO super-packet (segments, payload
	// bytes per segment); GSOSegs <= 1 is an ordinary packet.
	GSOSegs uint16
	GSOSize uint16

	L3 L3
	// Proto is the IP protocol (6 TCP, 17 UDP, ...).
	Proto uint8
	// DSField is the IPv4 TOS / IPv6 traffic class byte: DSCP<<2 | ECN.
	// The model rewrites it (wash, CE marking) on the way through.
	DSField uint8
	// L4Hash is skb->l4_hash: the socket set skb->hash (connected sockets),
	// and flows-type modes use SKBHash instead of dissecting the packet.
	L4Hash  bool
	SKBHash uint32

	// Src and Dst are the IP addresses; IPv4 uses the first 4 bytes.
	Src, Dst         [16]byte
	SrcPort, DstPort uint16

	// Priority is skb->priority, Mark is skb->mark.
	Priority uint32
	Mark     uint32

	// TCP header fields, read by the ACK filter (L3 IPv4/IPv6, Proto 6).
	TCPFlags   uint16
	Seq, Ack   uint32
	TSVal      uint32
	TSEcr      uint32
	HasTS      bool
	NumSACK    uint8
	OtherOpts  bool // any option but NOP, EOL, MD5, SACK, timestamp
	PayloadLen uint32
	SACK       [4]SACKBlock

	// ID is an opaque tag for the caller (flow number, sequence, ...); the
	// model carries it through untouched.
	ID uint64

	// EnqueuedAt is set by the model: the enqueue time (ns) of the packet
	// returned by Dequeue, so that callers can compute its sojourn time.
	EnqueuedAt int64
}

// segs returns qdisc_pkt_segs(): 1 for an ordinary packet.
func (p *Packet) segs() uint32 {
	if p.GSOSegs <= 1 {
		return 1
	}
	return uint32(p.GSOSegs)
}

// PktLen returns qdisc_pkt_len(): skb->len plus, for GSO, the headers of
// every segment but the first (qdisc_pkt_len_init in net/core/dev.c). This
// is the length every CAKE byte counter uses.
func (p *Packet) PktLen() uint32 {
	s := p.segs()
	if s == 1 {
		return p.Len
	}
	return p.Len + (s-1)*uint32(p.HdrLen)
}

func (p *Packet) isTCP() bool {
	return (p.L3 == L3IPv4 || p.L3 == L3IPv6) && p.Proto == 6
}

// setCE is INET_ECN_set_ce(): ECT(0)/ECT(1) become CE, CE stays CE (and
// counts as marked), not-ECT and non-IP cannot be marked.
func (p *Packet) setCE() bool {
	if p.L3 != L3IPv4 && p.L3 != L3IPv6 {
		return false
	}
	switch p.DSField & 3 {
	case NotECT:
		return false
	default:
		p.DSField |= CE
		return true
	}
}
