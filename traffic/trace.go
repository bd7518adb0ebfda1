// SPDX-License-Identifier: Apache-2.0

package traffic

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/netip"
	"os"
)

// Record is one packet of a trace: a send (what the qdisc under test was
// offered) or a capture at the peer. It is one JSON object per line
// (JSONL); the fields are documented in the package doc.
type Record struct {
	// I is the index in its trace (send order, or arrival order).
	I int `json:"i"`
	// Flow is the plan's flow index (-1 in a capture).
	Flow int `json:"flow"`
	// K is the packet's index within its flow (sends only).
	K int `json:"k,omitempty"`
	// T is CLOCK_MONOTONIC in ns: just before the send syscall, or when the
	// receiver read the frame. Dur is how long the send syscall took, which
	// bounds when the enqueue happened (T <= enqueue <= T+Dur).
	T   int64 `json:"t_ns"`
	Dur int64 `json:"dur_ns,omitempty"`
	// Len is skb->len as the qdisc sees it on a veth: Ethernet header plus
	// IP length; for a GSO packet the whole super-packet (one set of
	// headers). A capture reports the frame length it read.
	Len int `json:"len"`
	// L3 is "ipv4", "ipv6", "arp" or "other"; EtherType is set for
	// "other".
	L3        string     `json:"l3"`
	EtherType uint16     `json:"ethertype,omitempty"`
	Proto     uint8      `json:"proto,omitempty"`
	Src       netip.Addr `json:"src,omitzero"`
	Dst       netip.Addr `json:"dst,omitzero"`
	SPort     uint16     `json:"sport,omitempty"`
	DPort     uint16     `json:"dport,omitempty"`
	DSCP      uint8      `json:"dscp"`
	ECN       uint8      `json:"ecn"`
	// IPID is the IPv4 identification (the tool sets it for crafted
	// packets; the kernel chooses it for UDP sockets).
	IPID uint16 `json:"ip_id,omitempty"`
	// Priority and Mark are skb->priority and skb->mark (sends only: they
	// do not travel in the packet).
	Priority uint32 `json:"priority,omitempty"`
	Mark     uint32 `json:"mark,omitempty"`
	// L4Hash says the sending socket set skb->hash (connected UDP sockets
	// do; packet sockets do not). The value is random per boot: converters
	// give each flow a distinct stand-in.
	L4Hash bool `json:"l4_hash,omitempty"`
	// GSOSegs (>= 2), GSOSize (payload bytes per segment) and HdrLen (bytes
	// from the Ethernet header to the end of the transport header)
	// describe a GSO super-packet.
	GSOSegs int `json:"gso_segs,omitempty"`
	GSOSize int `json:"gso_size,omitempty"`
	HdrLen  int `json:"hdr_len,omitempty"`
	// Payload is the transport payload length (all segments).
	Payload int `json:"payload"`
	// Tag is the send index the tool embedded in a UDP payload (-1: none),
	// so that a capture can be matched to the send trace.
	Tag int `json:"tag"`
	// TCP holds the TCP header fields (proto 6 only).
	TCP *TCPFields `json:"tcp,omitempty"`
	// Err is the send error, if any (ENOBUFS when the qdisc dropped a
	// packet-socket send); the packet was still offered to the qdisc.
	Err string `json:"err,omitempty"`
	// PktType is the capture's sll_pkttype (0 host, 3 otherhost...).
	PktType uint8 `json:"pkttype,omitempty"`
}

// TCPFields are the TCP header fields of a Record, those cake's ACK filter
// reads.
type TCPFields struct {
	// Flags: the flags byte, plus the reserved nibble in bits 8..11.
	Flags  uint16 `json:"flags"`
	Seq    uint32 `json:"seq"`
	Ack    uint32 `json:"ack"`
	Window uint16 `json:"win"`
	HasTS  bool   `json:"ts,omitempty"`
	TSVal  uint32 `json:"tsval,omitempty"`
	TSEcr  uint32 `json:"tsecr,omitempty"`
	// SACK blocks as [start, end).
	SACK [][2]uint32 `json:"sack,omitempty"`
	// OtherOpts: an option other than NOP, EOL, MD5, SACK or timestamps.
	OtherOpts bool `json:"other_opts,omitempty"`
	// otherRoom, when building a frame, adds an experimental option of
	// this many bytes (>= 4): a replay's stand-in for a captured header's
	// other options.
	otherRoom int
}

// Segs is the number of packets the record counts for in a qdisc's
// generic counters (gso_segs, 1 for an ordinary packet).
func (r *Record) Segs() int {
	if r.GSOSegs > 1 {
		return r.GSOSegs
	}
	return 1
}

// WriteTrace writes records as JSONL.
func WriteTrace(w io.Writer, recs []Record) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for i := range recs {
		if err := enc.Encode(&recs[i]); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// WriteTraceFile writes records as JSONL to path.
func WriteTraceFile(path string, recs []Record) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := WriteTrace(f, recs); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ReadTrace reads a JSONL trace. Blank lines are skipped; an unknown field
// is an error (a trace from a newer tool should not be half-read).
func ReadTrace(r io.Reader) ([]Record, error) {
	var recs []Record
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if len(b) == 0 {
			continue
		}
		var rec Record
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&rec); err != nil {
			return nil, fmt.Errorf("trace line %d: %w", line, err)
		}
		recs = append(recs, rec)
	}
	return recs, sc.Err()
}

// ReadTraceFile reads a JSONL trace file.
func ReadTraceFile(path string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadTrace(f)
}

// Enqueued reports whether a sent record reached the qdisc: sends that
// succeeded, and sends the qdisc itself refused (ENOBUFS is how a packet
// socket reports NET_XMIT_DROP). Other errors (EMSGSIZE, ENETUNREACH...)
// fail before the qdisc.
func Enqueued(r *Record) bool {
	return r.Err == "" || r.Err == errNoBufs
}

// errNoBufs is the Err text of an ENOBUFS send (syscall.ENOBUFS.Error()).
const errNoBufs = "no buffer space available"
