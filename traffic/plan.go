// SPDX-License-Identifier: Apache-2.0

package traffic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"sort"
	"strings"
)

// Protocols a Flow can send.
const (
	ProtoUDP    = "udp"     // datagrams from a connected UDP socket
	ProtoTCPAck = "tcp-ack" // hand-crafted TCP segments sent through AF_PACKET
	ProtoPcap   = "pcap"    // a capture's packets, rebuilt and sent through AF_PACKET
)

// Limits of what a plan may ask for. The segment limit is the kernel's
// UDP_MAX_SEGMENTS of older kernels (newer ones allow 128); the size limit
// keeps every packet (and every GSO segment) within a 1500-byte MTU, so the
// kernel never fragments.
const (
	MaxSize    = 1500
	MaxGSOSegs = 64
	maxUDPLen  = 65507
)

// Plan is a traffic description: the device whose qdisc is under test, its
// veth peer where a receiver listens, and the flows to send. It is the JSON
// object documented in the package doc.
type Plan struct {
	// Dev is the egress device; its root qdisc sees every packet.
	Dev string `json:"dev"`
	// Netns is the network namespace of Dev: a name under /run/netns or a
	// path; empty means the caller's namespace.
	Netns string `json:"netns,omitempty"`
	// Peer is Dev's veth peer, where the receiver captures; PeerNetns is
	// its namespace (as Netns).
	Peer      string `json:"peer,omitempty"`
	PeerNetns string `json:"peer_netns,omitempty"`
	// PeerMAC is the destination MAC of crafted frames. It is only needed
	// when Peer cannot be looked up (no peer named).
	PeerMAC string `json:"peer_mac,omitempty"`
	// SkipNeigh leaves the neighbour tables alone. By default the tool
	// installs permanent entries on both sides (destinations on Dev,
	// sources on Peer) so that no ARP passes through the qdisc under test.
	SkipNeigh bool `json:"skip_neigh,omitempty"`
	// Flows are sent concurrently on one virtual timeline.
	Flows []Flow `json:"flows"`
}

// Flow is one source of packets: a socket (UDP) or a crafted TCP 4-tuple.
type Flow struct {
	// Name is a free label copied into nothing; it helps reading plans.
	Name  string `json:"name,omitempty"`
	Proto string `json:"proto"`
	// Src is the source address; for UDP it may be empty (the route
	// chooses), for tcp-ack it is required. Dst is always required.
	Src string `json:"src,omitempty"`
	Dst string `json:"dst"`
	// SPort 0 lets the kernel choose an ephemeral port (UDP only).
	SPort uint16 `json:"sport,omitempty"`
	DPort uint16 `json:"dport"`
	// DSCP (0..63) and ECN (0 not-ECT, 1 ECT(1), 2 ECT(0), 3 CE) of every
	// packet, unless DSCPs/ECNs give a per-packet cycle (packet k of the
	// flow uses DSCPs[k%len]).
	DSCP  uint8   `json:"dscp,omitempty"`
	ECN   uint8   `json:"ecn,omitempty"`
	DSCPs []uint8 `json:"dscps,omitempty"`
	ECNs  []uint8 `json:"ecns,omitempty"`
	// Priority and Mark become skb->priority (SO_PRIORITY) and skb->mark
	// (SO_MARK).
	Priority uint32 `json:"priority,omitempty"`
	Mark     uint32 `json:"mark,omitempty"`
	// Size is the IP length of each UDP packet, headers included (of each
	// segment with GSO); the qdisc on a veth sees Size+14. Not used by
	// tcp-ack, whose length follows from its options and payload.
	Size int `json:"size,omitempty"`
	// Count sends, in bursts of Burst back-to-back sends (default 1),
	// the first burst StartUS after the plan's start and the next ones
	// every IntervalUS.
	Count      int   `json:"count"`
	Burst      int   `json:"burst,omitempty"`
	StartUS    int64 `json:"start_us,omitempty"`
	IntervalUS int64 `json:"interval_us,omitempty"`
	// GSOSegs >= 2 makes each UDP send one UDP_SEGMENT super-packet of
	// GSOSegs segments of Size bytes (gso_size = Size - IP and UDP headers).
	GSOSegs int `json:"gso_segs,omitempty"`
	// TCP describes the crafted segments of a tcp-ack flow.
	TCP *TCPSpec `json:"tcp,omitempty"`
	// Pcap is the capture file (pcap or pcapng; a relative path is from
	// the working directory) a pcap flow replays: every packet, rebuilt
	// from its headers with its length, DS field and TCP header, sent
	// StartUS plus its capture time since the first packet's after the
	// plan's start. ParsePlan reads it and sets Count.
	Pcap string `json:"pcap,omitempty"`

	// capture is the pcap flow's packets, as ReadPcap made them.
	capture []Record
}

// TCPSpec is the header sequence of a tcp-ack flow. Packet k carries
// ack = Ack + k*AckStep and, with TS, tsval = TSVal + k*TSValStep; SACK
// blocks are given relative to that packet's ack, so a block [a, b] is
// [ack+a, ack+b) and moves with it (plus k*SACKStep on its end).
type TCPSpec struct {
	// Flags is a string of flag letters: F S R P A U E (ECE) C (CWR) and
	// N (the AE/NS bit in the reserved nibble). Default "A".
	Flags     string      `json:"flags,omitempty"`
	Seq       uint32      `json:"seq,omitempty"`
	Ack       uint32      `json:"ack,omitempty"`
	AckStep   uint32      `json:"ack_step,omitempty"`
	Window    uint16      `json:"win,omitempty"`
	TS        bool        `json:"ts,omitempty"`
	TSVal     uint32      `json:"tsval,omitempty"`
	TSValStep uint32      `json:"tsval_step,omitempty"`
	TSEcr     uint32      `json:"tsecr,omitempty"`
	SACK      [][2]uint32 `json:"sack,omitempty"`
	SACKStep  uint32      `json:"sack_step,omitempty"`
	// Payload bytes after the header (0: a pure ACK).
	Payload int `json:"payload,omitempty"`
}

// ParsePlan decodes and validates a plan; unknown fields are errors so
// that a typo does not silently send different traffic.
func ParsePlan(data []byte) (*Plan, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var p Plan
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("traffic plan: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("traffic plan: trailing data after the object")
	}
	for i := range p.Flows {
		if err := p.Flows[i].loadCapture(); err != nil {
			return nil, fmt.Errorf("traffic plan: flow %d: %w", i, err)
		}
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &p, nil
}

// ReadPlan reads and parses a plan file.
func ReadPlan(path string) (*Plan, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParsePlan(b)
}

// flagBits maps the letters of TCPSpec.Flags to header bits (cake's
// TCPFlags layout: the low byte is the flags byte, bit 8 the AE bit).
var flagBits = map[rune]uint16{
	'F': 0x01, 'S': 0x02, 'R': 0x04, 'P': 0x08, 'A': 0x10, 'U': 0x20,
	'E': 0x40, 'C': 0x80, 'N': 0x100,
}

// ParseTCPFlags turns a flag string ("A", "PA", "AE") into header bits.
func ParseTCPFlags(s string) (uint16, error) {
	if s == "" {
		return 0x10, nil
	}
	var f uint16
	for _, r := range strings.ToUpper(s) {
		b, ok := flagBits[r]
		if !ok {
			return 0, fmt.Errorf("unknown TCP flag %q in %q (use FSRPAUECN)", r, s)
		}
		f |= b
	}
	return f, nil
}

// Validate checks a plan for everything that can be checked without a
// kernel: addresses, ranges, sizes and GSO limits.
func (p *Plan) Validate() error {
	if p.Dev == "" {
		return fmt.Errorf("traffic plan: dev is required")
	}
	if len(p.Flows) == 0 {
		return fmt.Errorf("traffic plan: no flows")
	}
	if p.PeerMAC != "" {
		if _, err := parseMAC(p.PeerMAC); err != nil {
			return fmt.Errorf("traffic plan: peer_mac: %w", err)
		}
	}
	for i := range p.Flows {
		if err := p.Flows[i].validate(); err != nil {
			return fmt.Errorf("traffic plan: flow %d: %w", i, err)
		}
	}
	return nil
}

// loadCapture reads a pcap flow's capture, which must hold only IP
// packets a 1500-byte MTU carries whole, and sets Count. Other flows are
// left alone.
func (f *Flow) loadCapture() error {
	if f.Proto != ProtoPcap {
		return nil
	}
	if f.Pcap == "" {
		return errors.New("a pcap flow needs pcap, the capture's file")
	}
	recs, err := ReadPcapFile(f.Pcap, PcapOptions{})
	if err != nil {
		return err
	}
	for i := range recs {
		r := &recs[i]
		if r.L3 != "ipv4" && r.L3 != "ipv6" {
			return fmt.Errorf("%s: a %s packet: only IP is replayed", f.Pcap, r.L3)
		}
		if r.GSOSegs != 0 || r.Len-ethHdrLen > MaxSize {
			return fmt.Errorf("%s: a %d-byte packet: a replay sends at most %d bytes of IP", f.Pcap, r.Len, ethHdrLen+MaxSize)
		}
		mac := net.HardwareAddr{2, 0, 0, 0, 0, 1}
		if fr, err := replayFrame(r, mac, mac); err != nil || len(fr) != r.Len {
			return fmt.Errorf("%s: the packet captured %d ns after the first cannot be rebuilt (%d bytes of %d: %v)",
				f.Pcap, r.T-recs[0].T, len(fr), r.Len, err)
		}
	}
	f.capture, f.Count = recs, len(recs)
	return nil
}

func (f *Flow) validate() error {
	if f.Proto == ProtoPcap {
		if f.capture == nil {
			return fmt.Errorf("the capture of a pcap flow is read by ParsePlan")
		}
		if f.Src != "" || f.Dst != "" || f.SPort != 0 || f.DPort != 0 || f.Size != 0 || f.GSOSegs != 0 ||
			f.TCP != nil || f.DSCP != 0 || f.ECN != 0 || f.DSCPs != nil || f.ECNs != nil || f.Burst != 0 || f.IntervalUS != 0 {
			return fmt.Errorf("a pcap flow takes its packets from the capture: only pcap, start_us, priority and mark apply")
		}
		return nil
	}
	if f.Pcap != "" {
		return fmt.Errorf("pcap is only for proto %q", ProtoPcap)
	}
	dst, err := netip.ParseAddr(f.Dst)
	if err != nil {
		return fmt.Errorf("dst: %w", err)
	}
	if f.Src != "" {
		src, err := netip.ParseAddr(f.Src)
		if err != nil {
			return fmt.Errorf("src: %w", err)
		}
		if src.Is4() != dst.Is4() {
			return fmt.Errorf("src %s and dst %s are of different families", src, dst)
		}
	}
	if f.DPort == 0 {
		return fmt.Errorf("dport is required")
	}
	if f.DSCP > 63 {
		return fmt.Errorf("dscp %d out of range 0..63", f.DSCP)
	}
	if f.ECN > 3 {
		return fmt.Errorf("ecn %d out of range 0..3", f.ECN)
	}
	for _, d := range f.DSCPs {
		if d > 63 {
			return fmt.Errorf("dscps: %d out of range 0..63", d)
		}
	}
	for _, e := range f.ECNs {
		if e > 3 {
			return fmt.Errorf("ecns: %d out of range 0..3", e)
		}
	}
	if f.Count <= 0 {
		return fmt.Errorf("count must be positive")
	}
	if f.Burst < 0 || f.StartUS < 0 || f.IntervalUS < 0 {
		return fmt.Errorf("burst, start_us and interval_us must not be negative")
	}
	if f.Count > f.burst() && f.IntervalUS == 0 && f.Burst == 0 {
		// Count packets at interval 0 are one burst: say so explicitly
		// rather than guess.
		return fmt.Errorf("count %d with interval_us 0: set burst to send them back-to-back", f.Count)
	}
	hdr := ipHeaderLen(dst.Is4())
	switch f.Proto {
	case ProtoUDP:
		if f.TCP != nil {
			return fmt.Errorf("tcp is only for proto %q", ProtoTCPAck)
		}
		if f.Size < hdr+8 || f.Size > MaxSize {
			return fmt.Errorf("size %d out of range %d..%d (IP length, headers included)", f.Size, hdr+8, MaxSize)
		}
		if f.GSOSegs < 0 || f.GSOSegs == 1 || f.GSOSegs > MaxGSOSegs {
			return fmt.Errorf("gso_segs %d: use 0 (no GSO) or 2..%d", f.GSOSegs, MaxGSOSegs)
		}
		if f.GSOSegs > 1 && f.GSOSegs*(f.Size-hdr-8) > maxUDPLen {
			return fmt.Errorf("gso_segs*payload exceeds %d bytes", maxUDPLen)
		}
		if f.GSOSegs > 1 && f.Size == hdr+8 {
			return fmt.Errorf("GSO needs a payload (size > %d)", hdr+8)
		}
	case ProtoTCPAck:
		if f.Src == "" {
			return fmt.Errorf("src is required for %s", ProtoTCPAck)
		}
		if f.SPort == 0 {
			return fmt.Errorf("sport is required for %s", ProtoTCPAck)
		}
		if f.GSOSegs != 0 || f.Size != 0 {
			return fmt.Errorf("size and gso_segs do not apply to %s (its length follows from tcp)", ProtoTCPAck)
		}
		t := f.TCP
		if t == nil {
			t = &TCPSpec{}
		}
		if _, err := ParseTCPFlags(t.Flags); err != nil {
			return err
		}
		if len(t.SACK) > 4 || (t.TS && len(t.SACK) > 3) {
			return fmt.Errorf("at most 4 SACK blocks, 3 with timestamps (40 bytes of options)")
		}
		if t.Payload < 0 || hdr+20+tcpOptLen(t)+t.Payload > MaxSize {
			return fmt.Errorf("tcp payload %d makes the packet exceed %d bytes", t.Payload, MaxSize)
		}
	default:
		return fmt.Errorf("proto %q: use %q, %q or %q", f.Proto, ProtoUDP, ProtoTCPAck, ProtoPcap)
	}
	return nil
}

func (f *Flow) burst() int {
	if f.Burst <= 0 {
		return 1
	}
	return f.Burst
}

// dsField returns the DS byte (DSCP<<2 | ECN) of the flow's k-th packet.
func (f *Flow) dsField(k int) uint8 {
	d, e := f.DSCP, f.ECN
	if len(f.DSCPs) > 0 {
		d = f.DSCPs[k%len(f.DSCPs)]
	}
	if len(f.ECNs) > 0 {
		e = f.ECNs[k%len(f.ECNs)]
	}
	return d<<2 | e
}

// Slot is one send of the expanded plan: the K-th send of flow Flow, due At
// nanoseconds after the plan's start.
type Slot struct {
	At   int64
	Flow int
	K    int
}

// Schedule expands the plan into its sends in time order. Sends due at the
// same instant keep flow order, then packet order, so a plan replays the
// same way every time.
func (p *Plan) Schedule() []Slot {
	var s []Slot
	for fi := range p.Flows {
		f := &p.Flows[fi]
		b := f.burst()
		for k := 0; k < f.Count; k++ {
			at := (f.StartUS + int64(k/b)*f.IntervalUS) * 1000
			if f.capture != nil {
				at = f.StartUS*1000 + f.capture[k].T - f.capture[0].T
			}
			s = append(s, Slot{At: at, Flow: fi, K: k})
		}
	}
	sort.SliceStable(s, func(i, j int) bool {
		if s[i].At != s[j].At {
			return s[i].At < s[j].At
		}
		if s[i].Flow != s[j].Flow {
			return s[i].Flow < s[j].Flow
		}
		return s[i].K < s[j].K
	})
	return s
}

// Sends is the number of sends (skbs) of the plan.
func (p *Plan) Sends() int {
	n := 0
	for i := range p.Flows {
		n += p.Flows[i].Count
	}
	return n
}

// Segments is the number of packets the plan sends as a qdisc counts them
// (a GSO send counts its segments).
func (p *Plan) Segments() int {
	n := 0
	for i := range p.Flows {
		n += p.Flows[i].Count * max(1, p.Flows[i].GSOSegs)
	}
	return n
}

func ipHeaderLen(v4 bool) int {
	if v4 {
		return 20
	}
	return 40
}

// SinkPort is a UDP port the receiver binds (see NewReceiver).
type SinkPort struct {
	Port uint16
	V4   bool
}

// SinkPorts lists the UDP destination ports of a plan, once each.
func (p *Plan) SinkPorts() []SinkPort {
	var out []SinkPort
	seen := map[SinkPort]bool{}
	for i := range p.Flows {
		f := &p.Flows[i]
		if f.Proto != ProtoUDP {
			continue
		}
		sp := SinkPort{Port: f.DPort, V4: netip.MustParseAddr(f.Dst).Is4()}
		if !seen[sp] {
			seen[sp] = true
			out = append(out, sp)
		}
	}
	return out
}
