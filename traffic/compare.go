// SPDX-License-Identifier: Apache-2.0

package traffic

import (
	"fmt"
	"reflect"
	"strings"
)

// Report compares a send trace with a capture at the peer.
type Report struct {
	Sent         int `json:"sent"`
	SentSegs     int `json:"sent_segs"`
	Received     int `json:"received"`
	ReceivedSegs int `json:"received_segs"`
	Matched      int `json:"matched"`
	// Missing are send indices never captured (dropped, or lost).
	Missing []int `json:"missing,omitempty"`
	// Unexpected are capture indices that match no send (ARP, IPv6
	// housekeeping, replies...): counter pollution.
	Unexpected []int `json:"unexpected,omitempty"`
	// Split counts GSO sends that arrived as separate segments (a qdisc
	// with split-gso segments them; the capture's segments are matched to
	// the send by the tag every segment carries).
	Split int `json:"split"`
	// Reordered counts captures that arrived after a later send.
	Reordered int `json:"reordered"`
	// CEMarked counts sends of ECT(0)/ECT(1) captured as CE.
	CEMarked int `json:"ce_marked"`
	// Mismatched describes other field differences (DSCP rewritten by wash,
	// lengths, TCP fields...), one line per packet.
	Mismatched []string `json:"mismatched,omitempty"`
	// ByECN and ByDSCP count captured IP packets per codepoint.
	ByECN  map[uint8]int `json:"by_ecn"`
	ByDSCP map[uint8]int `json:"by_dscp"`
}

// Exact reports whether the capture is exactly the send trace, in order,
// with every field unchanged (GSO packets may arrive whole or split).
func (r *Report) Exact() bool {
	return r.Matched == r.Sent && r.ReceivedSegs == r.SentSegs && len(r.Missing) == 0 &&
		len(r.Unexpected) == 0 && r.Reordered == 0 && r.CEMarked == 0 && len(r.Mismatched) == 0
}

// matchKey identifies a packet across the veth: the tag for tagged UDP
// payloads, else the header fields the sender chose (duplicates are
// matched first-in first-out). DSCP and ECN are left out because a qdisc
// may rewrite them (wash, CE marks); they are compared after matching.
func matchKey(r *Record) string {
	if r.Proto == protoUDP && r.Tag >= 0 {
		return fmt.Sprintf("tag %d", r.Tag)
	}
	k := fmt.Sprintf("%s %d %v>%v %d>%d len %d", r.L3, r.Proto, r.Src, r.Dst, r.SPort, r.DPort, r.Len)
	if t := r.TCP; t != nil {
		k += fmt.Sprintf(" id %d tcp %x %d %d %d %d %v", r.IPID, t.Flags, t.Seq, t.Ack, t.TSVal, t.TSEcr, t.SACK)
	}
	return k
}

// Compare matches a capture against the send trace that produced it.
func Compare(sent, recv []Record) *Report {
	rep := &Report{Sent: len(sent), Received: len(recv), ByECN: map[uint8]int{}, ByDSCP: map[uint8]int{}}
	queue := map[string][]int{}
	for i := range sent {
		rep.SentSegs += sent[i].Segs()
		k := matchKey(&sent[i])
		queue[k] = append(queue[k], i)
	}
	// segs counts the segments captured of each send; a send is matched
	// when all its segments arrived, whole or split.
	segs := make([]int, len(sent))
	last := -1
	for j := range recv {
		r := &recv[j]
		rep.ReceivedSegs += r.Segs()
		if r.L3 == "ipv4" || r.L3 == "ipv6" {
			rep.ByECN[r.ECN]++
			rep.ByDSCP[r.DSCP]++
		}
		k := matchKey(r)
		q := queue[k]
		if len(q) == 0 {
			rep.Unexpected = append(rep.Unexpected, j)
			continue
		}
		i := q[0]
		s := &sent[i]
		split := s.Segs() > 1 && r.Segs() < s.Segs()
		if split && segs[i]+r.Segs() > s.Segs() {
			rep.Unexpected = append(rep.Unexpected, j)
			continue
		}
		first := segs[i] == 0
		segs[i] += r.Segs()
		if segs[i] >= s.Segs() {
			queue[k] = q[1:]
			rep.Matched++
			if split {
				rep.Split++
			}
		}
		if first {
			if i < last {
				rep.Reordered++
			} else {
				last = i
			}
		}
		if s.ECN != r.ECN && s.ECN != 0 && r.ECN == 3 {
			rep.CEMarked++
		}
		var d string
		if split {
			d = diffSegment(s, r)
		} else {
			d = diff(s, r)
		}
		if d != "" {
			rep.Mismatched = append(rep.Mismatched, fmt.Sprintf("send %d / capture %d: %s", i, j, d))
		}
	}
	for i := range sent {
		if segs[i] < sent[i].Segs() {
			rep.Missing = append(rep.Missing, i)
		}
	}
	return rep
}

// diffSegment compares a segment split off a GSO send with that send:
// same headers, one segment's length and payload.
func diffSegment(s, r *Record) string {
	seg := *s
	n := r.Segs()
	seg.GSOSegs, seg.GSOSize, seg.HdrLen = r.GSOSegs, r.GSOSize, r.HdrLen
	seg.Payload = n * s.GSOSize
	seg.Len = s.HdrLen + seg.Payload
	return diff(&seg, r)
}

// diff lists the fields a capture changed, apart from a CE mark.
func diff(s, r *Record) string {
	var d []string
	add := func(name string, a, b any) {
		if !reflect.DeepEqual(a, b) {
			d = append(d, fmt.Sprintf("%s %v→%v", name, a, b))
		}
	}
	add("len", s.Len, r.Len)
	add("l3", s.L3, r.L3)
	add("proto", s.Proto, r.Proto)
	add("src", s.Src, r.Src)
	add("dst", s.Dst, r.Dst)
	add("sport", s.SPort, r.SPort)
	add("dport", s.DPort, r.DPort)
	add("dscp", s.DSCP, r.DSCP)
	if !(s.ECN != 0 && r.ECN == 3) {
		add("ecn", s.ECN, r.ECN)
	}
	add("payload", s.Payload, r.Payload)
	add("gso_segs", s.Segs(), r.Segs())
	if s.GSOSegs > 1 && r.GSOSegs > 1 {
		add("gso_size", s.GSOSize, r.GSOSize)
	}
	if s.TCP != nil || r.TCP != nil {
		add("tcp", s.TCP, r.TCP)
	}
	return strings.Join(d, ", ")
}
