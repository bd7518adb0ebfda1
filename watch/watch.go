// SPDX-License-Identifier: Apache-2.0

// Package watch samples the statistics of traffic-control qdiscs and classes
// at an interval and writes them as JSON lines: one line per qdisc or class
// per sample, each a self-contained JSON object, so that a consumer (jq, a log shipper, a
// plotting script) can process the stream as it comes.
//
// A line carries the sample's time and number, the qdisc's or class's
// identity (a class's line has "class":true and its class ID as "handle"),
// the generic statistics and the kind's own statistics under the keys tc -j
// -s uses (CAKE's "tins" array, DualPI2's "prob", "delay-c", htb's
// "tokens", "borrowed" ...), plus keys for values tc does not print. The
// classes are those of every device with a classful qdisc (htb, hfsc, drr,
// prio ...), dumped after the qdiscs; the flows that fq_codel, sfq and cake
// dump as classes are left out. With Options.Deltas and Options.Rates it also
// carries the counters' change since the qdisc's previous sample, and that
// change per second. Memory stays bounded however long a watch runs: lines
// are written as the dump arrives and only the previous sample of each qdisc
// is kept, for the deltas.
//
// Example line (wrapped here; cake, second sample, deltas on):
//
//	{"time":"2026-01-02T03:04:05.5Z","sample":2,"dev":"eth0","kind":"cake",
//	 "handle":"1:","parent":"root","root":true,"bytes":2000,"packets":20,
//	 "drops":0,"overlimits":0,"requeues":0,"backlog":0,"qlen":0,
//	 "memory_used":0,"memory_limit":4194304,...,"tins":[{"threshold_rate":0,
//	 "sent_bytes":2000,...}],"elapsed":1.0,"deltas":{"bytes":1000,
//	 "packets":10,...,"tins":[{"sent_bytes":1000,...}]}}
package watch

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"time"

	_ "github.com/gotc/gotc/allkinds"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// Source is what a watch needs from the kernel; *netlink.Conn is one. A
// watch keeps nothing of the messages Dump passes it, so a Source that is
// also a netlink.ReusingDumper is dumped into reused memory: a sample of
// 20,000 qdiscs then leaves no garbage.
type Source interface {
	Dump(ctx context.Context, o netlink.Object, f netlink.DumpFilter, fn func(m *netlink.Msg, decodeErr error) error) error
	LinkNames(ctx context.Context) (map[int32]string, error)
}

// Options tune a watch. The zero value writes full samples, without deltas,
// until the context is cancelled.
type Options struct {
	// Samples stops Run after this many samples; 0 means no limit.
	Samples int
	// Deltas adds a "deltas" object: each counter's increase since the
	// qdisc's previous sample. 32-bit kernel counters are taken to wrap; a
	// 64-bit counter that goes down is taken to have been reset (the delta
	// is then its new value), as Prometheus does.
	Deltas bool
	// Rates adds a "rates" object: the deltas divided by the seconds
	// between the two samples.
	Rates bool
	// Now returns the time of a sample; nil means time.Now. For tests.
	Now func() time.Time
}

// Watcher takes samples of the qdiscs of one Source and writes their lines.
// It is not safe for concurrent use.
type Watcher struct {
	src    Source
	filter netlink.DumpFilter
	opts   Options
	out    *bufio.Writer

	n    uint64                          // samples taken
	fn   func(*netlink.Msg, error) error // w.qdisc, bound once: a method value allocates
	line []byte                          // the line being built, reused
	// dump is src's, reusing the memory of each message for the next
	// where src can.
	dump netlink.DumpFunc

	// With deltas or rates, prev holds each qdisc's previous sample;
	// without, seen holds the number of the sample each qdisc was last
	// written in (which is all a repeat within one dump needs), and recs
	// the records of the line being built.
	prev map[qdiscKey]*prevSample
	seen map[qdiscKey]uint64
	recs []statValues

	// Per-sample state, set by Sample for the dump callback: whether the
	// dump is of classes, and the devices with a classful qdisc.
	class    bool
	classful []int32
	now      time.Time
	stamp    []byte // now, as the lines write it
	names    map[int32]string
	err      error
}

type qdiscKey struct {
	ifindex        int32
	handle, parent uint32
	class          bool
}

// New returns a Watcher that writes to out.
func New(src Source, filter netlink.DumpFilter, out io.Writer, opts Options) *Watcher {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	w := &Watcher{
		src:    src,
		filter: filter,
		opts:   opts,
		out:    bufio.NewWriterSize(out, 64<<10),
		line:   make([]byte, 0, 4096),
	}
	if w.keepsPrevious() {
		w.prev = map[qdiscKey]*prevSample{}
	} else {
		w.seen = map[qdiscKey]uint64{}
	}
	w.dump = netlink.ReusingDumpOf(src)
	w.fn = w.qdisc
	return w
}

// keepsPrevious says whether the lines need each qdisc's previous sample.
func (w *Watcher) keepsPrevious() bool { return w.opts.Deltas || w.opts.Rates }

// Run takes a sample at once and then every interval, writing one JSON line
// per qdisc per sample to out, until ctx is cancelled (it then returns nil)
// or opts.Samples samples are written. A failed dump or write ends it with
// that error. Run does not close src.
func Run(ctx context.Context, src Source, filter netlink.DumpFilter, interval time.Duration, out io.Writer, opts Options) error {
	if interval <= 0 {
		return fmt.Errorf("watch: interval %v is not positive", interval)
	}
	w := New(src, filter, out, opts)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if err := ctx.Err(); err != nil {
			return nil
		}
		if err := w.Sample(ctx); err != nil {
			if ctx.Err() != nil {
				return nil // cancelled in the middle of a sample
			}
			return err
		}
		if opts.Samples > 0 && w.n >= uint64(opts.Samples) {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// Sample takes one sample: one dump, one line per qdisc, flushed to the
// writer before it returns. ctx bounds the dump.
func (w *Watcher) Sample(ctx context.Context) error {
	names, err := w.src.LinkNames(ctx)
	if err != nil {
		return fmt.Errorf("watch: listing devices: %w", err)
	}
	w.n++
	w.names = names
	w.now = w.opts.Now()
	w.stamp = w.now.UTC().AppendFormat(w.stamp[:0], time.RFC3339Nano)
	w.err = nil
	w.class, w.classful = false, w.classful[:0]
	err = w.dump(ctx, netlink.Qdisc, w.filter, w.fn)
	w.class = true
	for _, ifindex := range w.classful {
		if err != nil {
			break
		}
		// The kernel dumps the classes of one device at a time.
		err = w.dump(ctx, netlink.Class, netlink.DumpFilter{Ifindex: ifindex}, w.fn)
	}
	if err == nil {
		err = w.err
	}
	// Qdiscs gone since the last sample are forgotten, which is what keeps
	// memory bounded over a long watch.
	for k, p := range w.prev {
		if p.seen != w.n {
			delete(w.prev, k)
		}
	}
	for k, n := range w.seen {
		if n != w.n {
			delete(w.seen, k)
		}
	}
	if ferr := w.out.Flush(); err == nil && ferr != nil {
		err = ferr
	}
	if err != nil {
		return fmt.Errorf("watch: sample %d: %w", w.n, err)
	}
	return nil
}

// qdisc writes the line of one dumped qdisc or class.
func (w *Watcher) qdisc(m *netlink.Msg, decodeErr error) error {
	if k := tckind.LookupQdisc(m.Kind()); k == nil || !k.HasClasses() {
		if w.class {
			return nil // a flow, not a class
		}
	} else if !w.class && !slices.Contains(w.classful, m.Header.Ifindex) {
		w.classful = append(w.classful, m.Header.Ifindex)
	}
	if decodeErr != nil {
		// A message too short for its header leaves m with the previous
		// message's header: nothing of it can be attributed.
		if !errors.Is(decodeErr, attrs.ErrTruncated) {
			return nil
		}
		// netlink.Dump applies the filter only to messages that decoded.
		if f := w.filter; (f.Ifindex != 0 && m.Header.Ifindex != f.Ifindex) || (f.Handle != 0 && m.Header.Handle != f.Handle) {
			return nil
		}
	}
	key := qdiscKey{m.Header.Ifindex, m.Header.Handle, m.Header.Parent, w.class}
	var prev *prevSample
	if w.keepsPrevious() {
		prev = w.prev[key]
		if prev != nil && prev.seen == w.n {
			return nil // a repeat within one dump: the first one stands
		}
	} else if w.seen[key] == w.n {
		return nil
	}
	var cur prevSample
	switch {
	case prev != nil:
		// The records (CAKE's tins) are double-buffered so that a long
		// watch allocates nothing per sample: the new values go to the
		// spare slice while the previous ones are still read for the deltas.
		cur.recs, cur.spare = prev.spare[:0], prev.recs
	case !w.keepsPrevious():
		cur.recs = w.recs[:0]
	}
	b := w.line[:0]
	b = w.appendSample(b, m, decodeErr, prev, &cur)
	b = append(b, '\n')
	w.line = b
	if _, err := w.out.Write(b); err != nil {
		w.err = err
		return err
	}
	if !w.keepsPrevious() {
		w.seen[key] = w.n
		w.recs = cur.recs
		return nil
	}
	cur.seen = w.n
	cur.t = w.now
	if prev == nil {
		prev = &prevSample{}
		w.prev[key] = prev
	}
	*prev = cur
	return nil
}

// prevSample is what is kept of a qdisc's sample for the next one's deltas.
type prevSample struct {
	seen uint64 // number of the sample it is from
	t    time.Time
	gen  tckind.GenericStats
	// table is the kind's statistics table, nil for none; kind and recs
	// hold its fields' and its records' values.
	table *tckind.StatsTable
	kind  statValues
	recs  []statValues
	// spare is the record storage of the sample before, reused for the next.
	spare []statValues
}

// statValues are the values of a statistics table's fields in one sample.
type statValues struct {
	v  [tckind.MaxStats]uint64
	ok uint32 // bit i: v[i] present
}

// appendSample appends the JSON object of one qdisc (without the newline)
// and fills cur with what the next sample's deltas need.
func (w *Watcher) appendSample(b []byte, m *netlink.Msg, decodeErr error, prev, cur *prevSample) []byte {
	b = append(b, `{"time":"`...)
	b = append(b, w.stamp...)
	b = append(b, `","sample":`...)
	b = strconv.AppendUint(b, w.n, 10)
	b = append(b, `,"dev":`...)
	if dev, ok := w.names[m.Header.Ifindex]; ok {
		b = appendString(b, dev)
	} else {
		// As iproute2's ll_index_to_name names a device it cannot find.
		b = append(b, `"if`...)
		b = strconv.AppendInt(b, int64(m.Header.Ifindex), 10)
		b = append(b, '"')
	}
	b = append(b, `,"kind":`...)
	b = appendString(b, m.Kind())
	if w.class {
		b = append(b, `,"class":true,"handle":"`...)
		b = tcfmt.AppendClassID(b, m.Header.Handle)
	} else {
		b = append(b, `,"handle":"`...)
		b = tcfmt.AppendQdiscHandle(b, m.Header.Handle)
	}
	b = append(b, `","parent":"`...)
	b = tcfmt.AppendClassID(b, m.Header.Parent)
	b = append(b, '"')
	if m.Header.Parent == tcfmt.HandleRoot {
		b = append(b, `,"root":true`...) // as tc -j marks a root qdisc
	}

	a := &m.Attrs
	cur.gen = tckind.GenericStatsOf(a)
	for s := range tckind.NumGenericStats {
		if v, ok := cur.gen.Get(s); ok {
			b = appendKey(b, s.Key())
			b = strconv.AppendUint(b, v, 10)
		}
	}

	if k := tckind.LookupQdisc(m.Kind()); k != nil && k.Stats != nil {
		if s := k.Stats.Of(tckind.XstatsOf(a)); s != nil {
			cur.table = k.Stats
			b = appendKindStats(b, k.Stats, s, cur)
		}
	}
	if n := a.UnknownCount(); n > 0 {
		b = appendKey(b, "unknown_attributes")
		b = strconv.AppendInt(b, int64(n), 10)
	}
	if decodeErr != nil {
		b = appendKey(b, "decode_error")
		b = appendString(b, decodeErr.Error())
	}

	if prev != nil && (w.opts.Deltas || w.opts.Rates) {
		secs := w.now.Sub(prev.t).Seconds()
		b = appendKey(b, "elapsed")
		b = appendFloat(b, secs)
		if w.opts.Deltas {
			b = appendKey(b, "deltas")
			b = appendDeltas(b, prev, cur, 0)
		}
		if w.opts.Rates && secs > 0 {
			b = appendKey(b, "rates")
			b = appendDeltas(b, prev, cur, secs)
		}
	}
	return append(b, '}')
}

// appendKindStats appends the members of a kind's statistics s, read
// through its table t, and records their values in cur.
func appendKindStats(b []byte, t *tckind.StatsTable, s any, cur *prevSample) []byte {
	b = appendFields(b, t.Fields, s, &cur.kind, false)
	r := t.Records
	if r == nil {
		return b
	}
	n := r.Len(s)
	if n == 0 {
		return b
	}
	b = appendKey(b, r.Key)
	b = append(b, '[')
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		var sv statValues
		b = append(b, '{')
		b = appendFields(b, r.Fields, r.Record(s, i), &sv, true)
		b = append(b, '}')
		cur.recs = append(cur.recs, sv)
	}
	return append(b, ']')
}

// appendFields appends the present fields of s as JSON members (the first
// without a comma when first) and records their values in sv.
func appendFields(b []byte, fields []tckind.Stat, s any, sv *statValues, first bool) []byte {
	for i := range fields {
		f := &fields[i]
		v, ok := f.Get(s)
		if !ok {
			continue
		}
		sv.v[i], sv.ok = v, sv.ok|1<<i
		if first {
			b = append(b, '"')
			b = append(b, f.Key...)
			b = append(b, `":`...)
			first = false
		} else {
			b = appendKey(b, f.Key)
		}
		switch {
		case f.Unit.Fraction():
			b = appendFloat(b, f.Value(v))
		case f.Signed:
			b = strconv.AppendInt(b, int64(v), 10)
		default:
			b = strconv.AppendUint(b, v, 10)
		}
	}
	return b
}

// appendDeltas appends the object of counter changes from prev to cur: as
// integers when secs is 0, else as rates per second. A counter is included
// only when both samples have it.
func appendDeltas(b []byte, prev, cur *prevSample, secs float64) []byte {
	b = append(b, '{')
	first := true
	put := func(key string, d uint64) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, '"')
		b = append(b, key...)
		b = append(b, `":`...)
		if secs == 0 {
			b = strconv.AppendUint(b, d, 10)
		} else {
			b = appendFloat(b, float64(d)/secs)
		}
	}
	for s := range tckind.NumGenericStats {
		bit := uint32(1) << s
		if s.Counter() && cur.gen.Present&prev.gen.Present&bit != 0 {
			put(s.Key(), delta(prev.gen.Values[s], cur.gen.Values[s], cur.gen.Wide&bit != 0))
		}
	}
	t := cur.table
	if t == nil || t != prev.table {
		return append(b, '}') // no statistics of the kind, or another kind's before
	}
	counters := func(fields []tckind.Stat, p, c *statValues) {
		for j := range fields {
			if f, bit := &fields[j], uint32(1)<<j; f.Counter && p.ok&c.ok&bit != 0 {
				put(f.Key, delta(p.v[j], c.v[j], f.Wide))
			}
		}
	}
	counters(t.Fields, &prev.kind, &cur.kind)
	if n := min(len(cur.recs), len(prev.recs)); n > 0 {
		if !first {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, t.Records.Key...)
		b = append(b, `":[`...)
		for i := range n {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '{')
			first = true
			counters(t.Records.Fields, &prev.recs[i], &cur.recs[i])
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// delta is a counter's increase from prev to cur: modulo 2^32 for a 32-bit
// kernel counter, which wraps; for a 64-bit one a decrease means a reset.
func delta(prev, cur uint64, wide bool) uint64 {
	if !wide {
		return uint64(uint32(cur) - uint32(prev))
	}
	if cur < prev {
		return cur
	}
	return cur - prev
}

func appendKey(b []byte, key string) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	return append(b, '"', ':')
}

// appendFloat appends a JSON number; JSON has no NaN or infinity.
func appendFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, f, 'f', -1, 64)
}

// appendString appends s as a JSON string. Device names and kinds are bytes
// from the kernel, so invalid UTF-8 becomes U+FFFD rather than bad JSON.
func appendString(b []byte, s string) []byte {
	return tcfmt.AppendJSONString(b, s, tcfmt.EscapeValidUTF8)
}
