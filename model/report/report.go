// SPDX-License-Identifier: Apache-2.0

// Package report turns a prediction's per-packet outcomes (package
// predict) into what a person asks of a capture run through a model: per
// queue (CAKE tin, DualPI2 queue), per traffic class and per flow, the
// delay percentiles, drops, ECN marks and throughput; as text, as JSON,
// and drawn (Plot).
package report

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/model/predict"
	"github.com/gotc/gotc/qdisc"
	"github.com/gotc/gotc/traffic"
)

// Delay is a set of queueing-delay percentiles (nearest rank) of the
// delivered packets, in milliseconds.
type Delay struct {
	P50 float64 `json:"p50_ms"`
	P95 float64 `json:"p95_ms"`
	P99 float64 `json:"p99_ms"`
	Max float64 `json:"max_ms"`
}

// Group is the outcome of a set of packets: a queue, a traffic class or a
// flow. A GSO packet the qdisc split counts once per segment.
type Group struct {
	Name string `json:"name"`
	// Packets and Bytes are what was offered.
	Packets int   `json:"packets"`
	Bytes   int64 `json:"bytes"`
	// Sent, Drops and Marks count packets delivered, dropped, and
	// delivered with CE set by the qdisc.
	Sent  int   `json:"sent"`
	Drops int   `json:"drops"`
	Marks int   `json:"ecn_marks"`
	Delay Delay `json:"delay"`
	// Throughput is the bits delivered per second over the whole run
	// (first arrival to last departure).
	Throughput float64 `json:"throughput_bps"`
	// NIC is the group's passage through the NIC below the qdisc, when
	// the prediction has one (nil otherwise).
	NIC *Wire `json:"nic,omitempty"`
}

// Wire is what a group's packets did in the NIC below the qdisc
// (predict.Config.NIC): how many left it and, for those, the delay from
// their arrival at the qdisc to their last bit on the wire (the wait in
// the qdisc and in the NIC's queue, and their own serialization), in
// milliseconds.
type Wire struct {
	Sent  int   `json:"sent"`
	Bytes int64 `json:"sent_bytes"`
	Delay Delay `json:"delay"`
}

// NIC describes the NIC below the qdisc.
type NIC struct {
	// Rate is the line rate in bits per second; BQL the byte queue limit.
	Rate uint64 `json:"rate_bps"`
	BQL  uint32 `json:"bql_bytes"`
}

// Flow is a Group for one 5-tuple.
type Flow struct {
	Group
	Proto uint8  `json:"proto"`
	Src   string `json:"src"`
	Dst   string `json:"dst"`
	SPort uint16 `json:"sport,omitempty"`
	DPort uint16 `json:"dport,omitempty"`
	// Class is the traffic class of the flow's first packet.
	Class string `json:"class"`
}

// Point is one delivered packet: when it left the queue (s from the first
// arrival) and how long it waited (ms).
type Point struct{ T, Delay float64 }

// Report is the answer for one run.
type Report struct {
	Kind string `json:"kind"`
	// Span is the run's length in seconds, first arrival to last
	// departure.
	Span  float64 `json:"span_s"`
	Total Group   `json:"total"`
	// Queues are the CAKE tins or the DualPI2 queues (C, L), in the dump's
	// order.
	Queues []Group `json:"queues"`
	// Classes are the traffic classes (ClassOf), in Classes' order, those
	// that occur.
	Classes []Group `json:"classes"`
	// Flows are every flow, largest (in bytes) first.
	Flows []Flow `json:"flows"`
	// NIC is the NIC below the qdisc, if the prediction has one: every
	// group then has its NIC figures.
	NIC *NIC `json:"nic,omitempty"`

	// What plots draw: per queue the delivered packets in time order,
	// per class the sorted delays.
	queueSeries  [][]Point
	classDelays  [][]float64
	classPresent []string
}

// Classes are the traffic classes a report distinguishes.
var Classes = []string{"TCP data", "TCP ACK", "UDP", "ICMP", "other"}

// ClassOf returns the traffic class of a record: TCP with payload, TCP
// without (pure ACKs, SYNs...), UDP, ICMP (v4 and v6) or other.
func ClassOf(r *traffic.Record) string {
	switch {
	case r.L3 != "ipv4" && r.L3 != "ipv6":
		return "other"
	case r.Proto == 6 && r.Payload > 0:
		return "TCP data"
	case r.Proto == 6:
		return "TCP ACK"
	case r.Proto == 17:
		return "UDP"
	case r.Proto == 1 || r.Proto == 58:
		return "ICMP"
	}
	return "other"
}

// QueueNames names the queues of a prediction: CAKE's tins as tc's
// statistics table heads them, DualPI2's C and L queues, or the names the
// prediction gives (fq_codel's one set of flows).
func QueueNames(res *predict.Result) []string {
	if res.Queues != nil {
		return res.Queues
	}
	if s, ok := res.Attrs.Stats2.App.(*attrs.CakeStatsAttrs); ok {
		n := len(s.TinStats)
		names := make([]string, n)
		for i := range names {
			names[i] = qdisc.CakeTinName(n, i)
		}
		return names
	}
	return []string{"C", "L"}
}

// acc accumulates a Group.
type acc struct {
	g      Group
	delays []float64
	// nic says the prediction has a NIC; wire accumulates the group's
	// Wire, wireDelays its delays.
	nic        bool
	wire       Wire
	wireDelays []float64
}

func (a *acc) add(o *predict.Outcome) {
	if o.Sent != 0 {
		a.wire.Sent++
		a.wire.Bytes += int64(o.Len)
		a.wireDelays = append(a.wireDelays, float64(o.Sent-o.Arrived)/1e6)
	}
	a.g.Packets++
	a.g.Bytes += int64(o.Len)
	switch {
	case o.Dropped:
		a.g.Drops++
	case o.Done != 0:
		a.g.Sent++
		a.delays = append(a.delays, float64(o.Done-o.Arrived)/1e6)
		a.g.Throughput += float64(o.Len) * 8
	}
	if o.Marked {
		a.g.Marks++
	}
}

// finish sorts the delays, fills the percentiles and turns the bits into
// bits per second over span seconds.
func (a *acc) finish(span float64) Group {
	a.g.Delay = percentiles(a.delays)
	if a.nic {
		w := a.wire
		w.Delay = percentiles(a.wireDelays)
		a.g.NIC = &w
	}
	if span > 0 {
		a.g.Throughput /= span
	} else {
		a.g.Throughput = 0
	}
	return a.g
}

// percentiles sorts delays and returns their percentiles.
func percentiles(delays []float64) Delay {
	slices.Sort(delays)
	d := Delay{P50: rank(delays, 0.50), P95: rank(delays, 0.95), P99: rank(delays, 0.99)}
	if n := len(delays); n > 0 {
		d.Max = delays[n-1]
	}
	return d
}

// rank is the nearest-rank percentile q of sorted values (0 if none).
func rank(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(i, 0)]
}

// New builds the report of a prediction made from trace. Outcomes name
// their records by I; one whose record trace lacks counts in the totals
// and its queue only.
func New(kind string, trace []traffic.Record, res *predict.Result) *Report {
	names := QueueNames(res)
	r := &Report{Kind: kind}
	nic := res.NIC != nil
	if nic {
		r.NIC = &NIC{Rate: res.NIC.Rate * 8, BQL: res.NIC.BQL}
	}
	total := acc{nic: nic}
	queues := make([]acc, len(names))
	r.queueSeries = make([][]Point, len(names))
	classes := make([]acc, len(Classes))
	for i := range queues {
		queues[i].nic = nic
	}
	for i := range classes {
		classes[i].nic = nic
	}
	flows := map[int]*acc{}
	first, last := int64(math.MaxInt64), int64(math.MinInt64)
	for i := range res.Outcomes {
		o := &res.Outcomes[i]
		first = min(first, o.Arrived)
		last = max(last, o.Arrived, o.Done)
	}
	byI := make(map[int]*traffic.Record, len(trace))
	for i := range trace {
		byI[trace[i].I] = &trace[i]
	}
	for i := range res.Outcomes {
		o := &res.Outcomes[i]
		total.add(o)
		if o.Queue >= 0 && o.Queue < len(queues) {
			queues[o.Queue].add(o)
			if !o.Dropped && o.Done != 0 {
				r.queueSeries[o.Queue] = append(r.queueSeries[o.Queue],
					Point{T: float64(o.Done-first) / 1e9, Delay: float64(o.Done-o.Arrived) / 1e6})
			}
		}
		rec := byI[o.I]
		if rec == nil {
			continue
		}
		classes[slices.Index(Classes, ClassOf(rec))].add(o)
		f := flows[rec.Flow]
		if f == nil {
			f = &acc{nic: nic}
			flows[rec.Flow] = f
		}
		f.add(o)
	}
	if len(res.Outcomes) > 0 {
		r.Span = float64(last-first) / 1e9
	}
	r.Total = total.finish(r.Span)
	r.Total.Name = "total"
	for i := range queues {
		g := queues[i].finish(r.Span)
		g.Name = names[i]
		r.Queues = append(r.Queues, g)
		slices.SortFunc(r.queueSeries[i], func(a, b Point) int { return cmp.Compare(a.T, b.T) })
	}
	for i := range classes {
		if classes[i].g.Packets == 0 {
			continue
		}
		g := classes[i].finish(r.Span)
		g.Name = Classes[i]
		r.Classes = append(r.Classes, g)
		r.classDelays = append(r.classDelays, classes[i].delays)
		r.classPresent = append(r.classPresent, Classes[i])
	}
	// A flow is described by its first record.
	seen := map[int]bool{}
	for i := range trace {
		rec := &trace[i]
		a := flows[rec.Flow]
		if a == nil || seen[rec.Flow] {
			continue
		}
		seen[rec.Flow] = true
		g := a.finish(r.Span)
		g.Name = flowName(rec)
		fl := Flow{Group: g, Proto: rec.Proto, SPort: rec.SPort, DPort: rec.DPort, Class: ClassOf(rec)}
		if rec.Src.IsValid() {
			fl.Src, fl.Dst = rec.Src.String(), rec.Dst.String()
		}
		r.Flows = append(r.Flows, fl)
	}
	slices.SortStableFunc(r.Flows, func(a, b Flow) int { return cmp.Compare(b.Bytes, a.Bytes) })
	return r
}

// flowName is a flow's 5-tuple as tcpdump writes it: "tcp 10.0.0.1.40000 >
// 10.0.0.2.443".
func flowName(r *traffic.Record) string {
	if !r.Src.IsValid() {
		if r.L3 == "other" {
			return fmt.Sprintf("ethertype 0x%04x", r.EtherType)
		}
		return r.L3
	}
	proto := map[uint8]string{1: "icmp", 6: "tcp", 17: "udp", 58: "icmp6"}[r.Proto]
	if proto == "" {
		proto = fmt.Sprintf("proto %d", r.Proto)
	}
	if r.Proto == 6 || r.Proto == 17 {
		return fmt.Sprintf("%s %s.%d > %s.%d", proto, r.Src, r.SPort, r.Dst, r.DPort)
	}
	return fmt.Sprintf("%s %s > %s", proto, r.Src, r.Dst)
}

// TopFlows is how many flows WriteText lists.
const TopFlows = 10

// WriteText writes the report as tables: queues, traffic classes, and the
// TopFlows largest flows.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s over %.3f s: %d packets, %d sent, %d dropped, %d ECN-marked\n",
		r.Kind, r.Span, r.Total.Packets, r.Total.Sent, r.Total.Drops, r.Total.Marks)
	table(&b, "queue", r.Queues)
	table(&b, "class", r.Classes)
	n := min(len(r.Flows), TopFlows)
	flows := make([]Group, n)
	for i := range n {
		flows[i] = r.Flows[i].Group
	}
	head := "flow"
	if len(r.Flows) > n {
		head = fmt.Sprintf("flow (largest %d of %d)", n, len(r.Flows))
	}
	table(&b, head, flows)
	if r.NIC != nil {
		// The NIC stage as tc would show a qdisc's: what it sent, then
		// the delays to the wire of the same groups.
		fmt.Fprintf(&b, "\nnic rate %s bql %db\n Sent %d bytes %d pkt\n", tcword.RateWord(r.NIC.Rate/8), r.NIC.BQL,
			r.Total.NIC.Bytes, r.Total.NIC.Sent)
		wireTable(&b, "queue, arrival to wire", r.Queues)
		wireTable(&b, "class, arrival to wire", r.Classes)
		wireTable(&b, head+", arrival to wire", flows)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// wireTable writes the NIC figures of groups under a header naming their
// kind.
func wireTable(b *strings.Builder, what string, gs []Group) {
	wid := len(what)
	for _, g := range gs {
		wid = max(wid, len(g.Name))
	}
	fmt.Fprintf(b, "\n%-*s %8s %10s %8s %8s %8s %8s\n", wid, what, "sent", "bytes", "p50 ms", "p95 ms", "p99 ms", "max ms")
	for _, g := range gs {
		w := g.NIC
		fmt.Fprintf(b, "%-*s %8d %10d %8.3f %8.3f %8.3f %8.3f\n", wid, g.Name,
			w.Sent, w.Bytes, w.Delay.P50, w.Delay.P95, w.Delay.P99, w.Delay.Max)
	}
}

// table writes groups under a header naming their kind.
func table(b *strings.Builder, what string, gs []Group) {
	wid := len(what)
	for _, g := range gs {
		wid = max(wid, len(g.Name))
	}
	fmt.Fprintf(b, "\n%-*s %8s %8s %6s %6s %8s %8s %8s %8s %9s\n", wid, what,
		"packets", "sent", "drops", "marks", "p50 ms", "p95 ms", "p99 ms", "max ms", "Mbit/s")
	for _, g := range gs {
		fmt.Fprintf(b, "%-*s %8d %8d %6d %6d %8.3f %8.3f %8.3f %8.3f %9.3f\n", wid, g.Name,
			g.Packets, g.Sent, g.Drops, g.Marks, g.Delay.P50, g.Delay.P95, g.Delay.P99, g.Delay.Max, g.Throughput/1e6)
	}
}
