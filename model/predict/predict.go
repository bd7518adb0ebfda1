// SPDX-License-Identifier: Apache-2.0

// Package predict runs a reference model (model/cake, model/dualpi2,
// model/fqcodel) on a
// recorded send trace (package traffic's format) and returns what a kernel
// dump of the qdisc would hold: an attrs.TCAttrs with the kind, the options
// as the model dumps them and the TCA_STATS2 statistics, so that the CLI's
// printer shows a prediction exactly like "tc -s qdisc show" shows the live
// qdisc. It also returns the model's timing margins: how close its
// timing-dependent decisions came to going the other way.
//
// The qdisc is taken to be the root qdisc of a veth (every enqueue is
// followed by dequeues until the qdisc returns nothing), which is how the
// traffic tool and the model tests run it, unless Config says what drains
// it: a rate (and burst) for a DualPI2 or fq_codel leaf of a shaper, or a
// NIC below CAKE.
package predict

import (
	"errors"
	"fmt"
	"math"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/model/cake"
	"github.com/gotc/gotc/model/dualpi2"
	"github.com/gotc/gotc/traffic"
)

// Kinds the package can predict.
const (
	KindCake    = "cake"
	KindDualPI2 = "dualpi2"
	KindFQCodel = "fq_codel"
)

// model is one kind's registration: how to run it and what it takes.
type model struct {
	run func(cfg Config, trace []traffic.Record, mo *ModelOptions, handle, mtu uint32, res *Result) error
	// rate says the model takes Config.Rate (a device rate below it).
	rate bool
}

// models are the kinds the package predicts, by name.
var models = map[string]model{
	KindCake:    {run: runCake},
	KindDualPI2: {run: runDualPI2, rate: true},
	KindFQCodel: {run: runFQCodel, rate: true},
}

// Kinds lists the supported kinds.
var Kinds = []string{KindCake, KindDualPI2, KindFQCodel}

// TakesRate says a kind's model runs below a device rate (Config.Rate);
// one that shapes by itself (CAKE) does not.
func TakesRate(kind string) bool { return models[kind].rate }

// SafeMargin is the smallest timing margin at which a prediction of the
// timing-dependent counters is taken as exact: about the kernel's timing
// uncertainty (timer and softirq latency, clock reads), as both models'
// documentation states.
const SafeMargin = 200_000 // ns

// NoMargin is a margin of a category in which the model took no
// timing-dependent decision.
const NoMargin = math.MaxInt64

// DefaultHandle is the handle a prediction reports when the caller names
// none: the kernel's first automatic handle, 8001:.
const DefaultHandle = 0x80010000

// handleRoot is TC_H_ROOT, the parent of a root qdisc.
const handleRoot = 0xffffffff

// Truesize returns skb->truesize of a send and of each GSO segment the
// qdisc may split it into.
type Truesize func(r *traffic.Record) (truesize, segTruesize uint32)

// ConstTruesize is a Truesize that gives every skb (and every segment) the
// same value: what a single calibration from memory_used provides.
func ConstTruesize(n uint32) Truesize {
	return func(r *traffic.Record) (uint32, uint32) {
		if r.GSOSegs > 1 {
			return n * uint32(r.GSOSegs), n
		}
		return n, 0
	}
}

// Config says what to predict.
type Config struct {
	// Kind is "cake", "dualpi2" or "fq_codel".
	Kind string
	// Options are the qdisc's options as a request or a dump carries them
	// (*attrs.CakeAttrs, *attrs.DualPI2Attrs or *attrs.FQCodelAttrs; nil:
	// the defaults). They
	// are applied to the kernel's defaults as the kind's init does.
	Options attrs.TCOptionsMsg
	// Dumped says Options are a live qdisc's dump rather than a request:
	// a kind whose dump rounds its values (fq_codel's times) recovers the
	// configuration that dumps them.
	Dumped bool
	// Handle is the qdisc's handle (0: DefaultHandle); CAKE and DualPI2
	// compare skb->priority's major with it.
	Handle uint32
	// Parent and Ifindex are only reported (0: root, ifindex 0).
	Parent  uint32
	Ifindex int32
	// MTU is psched_mtu(dev) = MTU + hard header (0: 1514, a veth).
	MTU uint32
	// Truesize calibrates skb->truesize (nil: KernelTruesize).
	Truesize Truesize
	// AtEnd takes the end of each send syscall as its enqueue instant
	// rather than its start (the kernel enqueues in between).
	AtEnd bool
	// Offset is added to every trace time. Traces of a real run are in
	// CLOCK_MONOTONIC and need none; a dry-run trace starts at 0 and should
	// be moved well past it (the models' timers start at 0, as the
	// kernel's do at boot).
	Offset int64
	// Start is when a DualPI2 qdisc was created, in trace time: its PI
	// timer runs from then (0: one second before the first send).
	Start int64
	// At is when the dump is taken, in trace time (0: when the qdisc
	// drained after the last send). DualPI2's PI timer runs until then.
	At int64
	// Seed seeds the models' random draws (0: the models' default).
	Seed uint64
	// Rate is the rate in bytes/s at which the device below a DualPI2 or
	// fq_codel qdisc takes packets (an ideal serializer, as a parent
	// shaper such as HTB is; 0: a device that takes every packet at once,
	// a veth).
	// CAKE shapes by itself and takes no Rate.
	Rate uint64
	// Burst is the depth in bytes of the token bucket that meters Rate
	// for fq_codel, as an HTB class's burst meters its leaf (0: an ideal
	// serializer); see fqcodel.Link. DualPI2's link has none.
	Burst uint32
	// NIC, if set, puts a BQL-limited NIC below a CAKE qdisc, a real
	// Ethernet device rather than a veth (other kinds refuse it): the
	// qdisc then holds what the NIC's queue refuses, and each Outcome
	// says when its last bit left.
	NIC *NIC
}

// NIC is a device queue below the qdisc: see cake.NIC.
type NIC struct {
	// Rate is the line rate in bytes/s; BQL the byte queue limit.
	Rate uint64
	BQL  uint32
}

// Outcome is what became of one packet of the trace, or of one segment
// of a GSO packet the qdisc split.
type Outcome struct {
	// I is the record's index in the trace.
	I int
	// Queue is the CAKE tin (its position in the dump's tins) or the
	// DualPI2 queue (0 C, 1 L).
	Queue int
	// Len is qdisc_pkt_len: the bytes the qdisc counts.
	Len int
	// Arrived and Done are the enqueue and the dequeue (or drop) instants,
	// in trace time (ns). Done is 0 for a packet still queued at the end.
	Arrived, Done int64
	// Dropped says the qdisc dropped it; Marked that it set CE on it.
	Dropped, Marked bool
	// Sent is when its last bit left the NIC (Config.NIC; 0 without a
	// NIC, or for a packet dropped or not yet sent).
	Sent int64
}

// Margins are a prediction's timing margins by category, in ns (NoMargin:
// no decision of that category). See the models' Margins types for what
// each category governs.
type Margins struct {
	Names []string
	NS    []int64
}

// Min is the smallest margin (NoMargin if none).
func (m Margins) Min() int64 {
	v := int64(NoMargin)
	for _, n := range m.NS {
		v = min(v, n)
	}
	return v
}

// Result is a prediction.
type Result struct {
	// Header and Attrs are the qdisc as a dump would carry it: Kind,
	// Options (the model's dump of its configuration) and Stats2 (Basic,
	// Queue, App); for DualPI2 also the legacy Xstats, as the kernel sends
	// both.
	Header attrs.TCMsg
	Attrs  attrs.TCAttrs
	// Margins are the model's timing margins.
	Margins Margins
	// Sends is the number of trace records offered to the qdisc, and
	// MaxSendDur the longest send syscall among them (ns): the enqueue
	// instant is only known within it.
	Sends      int
	MaxSendDur int64
	// Outcomes are the packets' fates, one per packet or segment (in the
	// order the model reports them, not necessarily the trace's).
	Outcomes []Outcome
	// Queues names the queues Outcome.Queue indexes, for a kind whose
	// dump does not name them (nil: CAKE's tins or DualPI2's C and L).
	Queues []string
	// NIC is the NIC below the qdisc (Config.NIC), nil without one.
	NIC *NIC
}

// Run predicts the statistics of cfg's qdisc after the sends of trace.
func Run(cfg Config, trace []traffic.Record) (*Result, error) {
	if len(trace) == 0 {
		return nil, errors.New("predict: empty trace")
	}
	// Only CAKE's model has the NIC stage: another kind must refuse it
	// rather than run as if on a veth.
	if cfg.NIC != nil && cfg.Kind != KindCake {
		return nil, fmt.Errorf("predict: a NIC below %s is not modelled (only below cake)", cfg.Kind)
	}
	ts := cfg.Truesize
	if ts == nil {
		ts = KernelTruesize
	}
	mo := &ModelOptions{Truesize: ts, AtEnd: cfg.AtEnd, Offset: cfg.Offset}
	handle := cfg.Handle
	if handle == 0 {
		handle = DefaultHandle
	}
	mtu := cfg.MTU
	if mtu == 0 {
		mtu = 1514
	}
	res := &Result{Header: attrs.TCMsg{Ifindex: cfg.Ifindex, Handle: handle, Parent: cfg.Parent}}
	if res.Header.Parent == 0 {
		res.Header.Parent = handleRoot
	}
	for i := range trace {
		if traffic.Enqueued(&trace[i]) {
			res.Sends++
			res.MaxSendDur = max(res.MaxSendDur, trace[i].Dur)
		}
	}
	kind := cfg.Kind
	res.Attrs.Kind = &kind
	// Options given as bytes (a kind gotc does not decode, or a caller's
	// own encoding) are decoded for the models.
	if o, ok := cfg.Options.(attrs.TCOptionsMsgRaw); ok {
		cfg.Options = attrs.DecodeTCOptionsMsg(kind, o)
	}
	m, ok := models[cfg.Kind]
	if !ok {
		return nil, fmt.Errorf("predict: no model of qdisc kind %q (have %v)", cfg.Kind, Kinds)
	}
	if err := m.run(cfg, trace, mo, handle, mtu, res); err != nil {
		return nil, err
	}
	return res, nil
}

func runCake(cfg Config, trace []traffic.Record, mo *ModelOptions, handle, mtu uint32, res *Result) error {
	var c attrs.CakeAttrs
	switch o := cfg.Options.(type) {
	case nil:
	case *attrs.CakeAttrs:
		c = *o
	default:
		return fmt.Errorf("predict: cake options of type %T", cfg.Options)
	}
	opts := []cake.Option{cake.WithHandle(handle), cake.WithMTU(mtu)}
	if cfg.Seed != 0 {
		opts = append(opts, cake.WithSeed(cfg.Seed))
	}
	if cfg.Rate != 0 {
		return errors.New("predict: cake shapes by itself (its bandwidth): a device rate below it is not modelled")
	}
	arr := CakeArrivals(trace, mo)
	// A packet's tin is decided at enqueue, from the packet as offered
	// (the model rewrites DSField on the way through); Marked compares
	// the ECN field as offered with the one delivered.
	tins := make(map[uint64]int, len(arr))
	ecnIn := make(map[uint64]uint8, len(arr))
	out := func(now int64, p *cake.Packet, dropped bool) {
		at := p.EnqueuedAt
		if at == 0 {
			at = now // refused at enqueue: never queued
		}
		res.Outcomes = append(res.Outcomes, Outcome{I: int(p.ID), Queue: tins[p.ID], Len: int(p.PktLen()),
			Arrived: at - cfg.Offset, Done: now - cfg.Offset, Dropped: dropped,
			Marked: !dropped && p.DSField&3 == cake.CE && ecnIn[p.ID] != cake.CE})
	}
	opts = append(opts, cake.WithDropHook(func(now int64, p *cake.Packet, _ cake.DropReason) { out(now, p, true) }))
	q, err := cake.New(c, opts...)
	if err != nil {
		return fmt.Errorf("predict: cake: %w", err)
	}
	for i := range arr {
		tins[arr[i].Pkt.ID] = q.TinOf(arr[i].Pkt)
		ecnIn[arr[i].Pkt.ID] = arr[i].Pkt.DSField & 3
	}
	link := cake.Link{Deliver: func(now int64, p *cake.Packet) { out(now, p, false) }}
	if cfg.At != 0 {
		// Serve the watchdog up to the dump (a shaped queue may still be
		// draining when the dump is taken).
		link.Until = cfg.At + cfg.Offset
	}
	if n := cfg.NIC; n != nil {
		res.NIC = n
		// Outcomes are made at the dequeue: the NIC's completions come
		// later, in order, one per dequeued packet.
		var pos []int
		link.Deliver = func(now int64, p *cake.Packet) {
			pos = append(pos, len(res.Outcomes))
			out(now, p, false)
		}
		link.NIC = &cake.NIC{Rate: n.Rate, Limit: n.BQL, Sent: func(now int64, p *cake.Packet) {
			res.Outcomes[pos[0]].Sent = now - cfg.Offset
			pos = pos[1:]
		}}
	}
	cake.Simulate(q, arr, link)
	s := q.Stats()
	conf := q.Config()
	res.Attrs.Options = &conf
	basic, queue, app := s.Basic, s.Queue, s.Cake
	res.Attrs.Stats2 = &attrs.StatsAttrs{Basic: &basic, Queue: &queue, App: &app}
	m := q.Margins()
	res.Margins = Margins{Names: []string{"shaper", "aqm"}, NS: []int64{m.Shaper, m.AQM}}
	return nil
}

func runDualPI2(cfg Config, trace []traffic.Record, mo *ModelOptions, handle, mtu uint32, res *Result) error {
	var c attrs.DualPI2Attrs
	switch o := cfg.Options.(type) {
	case nil:
	case *attrs.DualPI2Attrs:
		c = *o
	default:
		return fmt.Errorf("predict: dualpi2 options of type %T", cfg.Options)
	}
	start := cfg.Start
	if start == 0 {
		// Unknown creation time: any phase of the PI timer is as good as
		// another, and the margins say whether the phase mattered.
		start = trace[0].T - 1_000_000_000
	}
	opts := []dualpi2.Option{dualpi2.WithHandle(handle), dualpi2.WithMTU(mtu),
		dualpi2.WithStart(dualpi2.Time(start + cfg.Offset))}
	if cfg.Seed != 0 {
		opts = append(opts, dualpi2.WithSeed(cfg.Seed))
	}
	if cfg.Burst != 0 {
		return errors.New("predict: dualpi2: a burst of the rate below it is not modelled (its link is an ideal serializer)")
	}
	q, err := dualpi2.New(c, opts...)
	if err != nil {
		return fmt.Errorf("predict: dualpi2: %w", err)
	}
	link := dualpi2.Immediate()
	if cfg.Rate != 0 {
		link = dualpi2.RateLink(cfg.Rate)
	}
	r := dualpi2.Simulate(q, DualPI2Arrivals(trace, mo), link)
	for _, o := range r.Outcomes {
		queue := 0
		if o.Class != dualpi2.ClassC {
			queue = 1
		}
		oc := Outcome{I: int(o.ID), Queue: queue, Len: int(o.PktLen), Arrived: int64(o.Arrived) - cfg.Offset,
			Dropped: o.Fate != dualpi2.FateDelivered && o.Fate != dualpi2.FateQueued,
			Marked:  o.Fate == dualpi2.FateDelivered && o.ECNOut == dualpi2.CE && o.ECNIn != dualpi2.CE}
		if o.Fate != dualpi2.FateQueued {
			oc.Done = int64(o.Done) - cfg.Offset
		}
		res.Outcomes = append(res.Outcomes, oc)
	}
	s := r.Stats
	if cfg.At != 0 && dualpi2.Time(cfg.At+cfg.Offset) > r.End {
		s = q.StatsAt(dualpi2.Time(cfg.At + cfg.Offset))
	}
	conf := q.Config()
	res.Attrs.Options = &conf
	basic, queue, x := s.Basic, s.Queue, s.Xstats
	x2 := x
	res.Attrs.Stats2 = &attrs.StatsAttrs{Basic: &basic, Queue: &queue, App: &x}
	res.Attrs.Xstats = &x2
	m := r.Margins
	res.Margins = Margins{Names: []string{"step", "tick", "clamp", "order"},
		NS: []int64{int64(m.Step), int64(m.Tick), int64(m.Clamp), int64(m.Order)}}
	return nil
}
