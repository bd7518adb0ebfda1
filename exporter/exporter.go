// SPDX-License-Identifier: Apache-2.0

// Package exporter exports the statistics of traffic-control qdiscs (generic
// counters for every kind; CAKE's per-tin and DualPI2's own statistics in
// full) as Prometheus/OpenMetrics metrics.
//
// A Collector does one netlink qdisc dump per scrape over a socket it keeps
// open between scrapes (and reopens after an error). A qdisc of a kind gotc
// does not know, or a message with attributes it does not understand, is
// exported as far as it is understood and never fails the scrape: decode
// problems are counted in gotc_exporter_decode_errors_total and the attributes
// left over in gotc_qdisc_unknown_attributes.
//
// Metric names: gotc_qdisc_* (all kinds; labels dev, handle, kind, parent),
// gotc_cake_* and gotc_cake_tin_* (labels plus tin and tin_name),
// gotc_dualpi2_*, and gotc_exporter_* for the exporter's own health. Times are
// in seconds, sizes in bytes, rates in bytes per second, DualPI2's probability
// as a fraction.
package exporter

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	_ "github.com/gotc/gotc/allkinds"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// Source is what a Collector needs from the kernel. *netlink.Conn is one;
// tests use a fake. A Collector keeps nothing of the messages Dump passes
// it but copies (label strings, values), so a Source that is also a
// netlink.ReusingDumper is dumped into reused memory (20 fewer allocations
// per qdisc).
type Source interface {
	Dump(ctx context.Context, o netlink.Object, f netlink.DumpFilter, fn func(m *netlink.Msg, decodeErr error) error) error
	LinkNames(ctx context.Context) (map[int32]string, error)
	Close() error
}

// Options configure a Collector. The zero value exports every qdisc of the
// caller's network namespace.
type Options struct {
	// NetNS is an open file descriptor of the network namespace to export;
	// 0 means the caller's. Used by the default Dial, which runs again after
	// a failed scrape, so the descriptor must stay open while the Collector
	// is in use.
	NetNS int
	// Filter limits the dump, for example to one device.
	Filter netlink.DumpFilter
	// Dial opens the netlink socket; nil means netlink.Dial with NetNS. It is
	// called on the first scrape and again after a failed one.
	Dial func() (Source, error)
}

// Collector is a prometheus.Collector of qdisc statistics. It is safe for
// concurrent use: scrapes are serialised on the one socket.
type Collector struct {
	dial   func() (Source, error)
	filter netlink.DumpFilter

	mu   sync.Mutex
	src  Source
	seen map[qdiscKey]struct{}
	// kinds are the metrics of the kinds' statistics tables.
	kinds map[*tckind.StatsTable]*kindMetrics

	decodeErrors atomic.Uint64
	scrapeErrors atomic.Uint64
}

// qdiscKey identifies a qdisc within one dump.
type qdiscKey struct {
	ifindex        int32
	handle, parent uint32
}

// New returns a Collector; it opens no socket until the first scrape.
func New(opts Options) *Collector {
	dial := opts.Dial
	if dial == nil {
		netns := opts.NetNS
		dial = func() (Source, error) {
			return netlink.Dial(&netlink.Config{NetNS: netns})
		}
	}
	return &Collector{dial: dial, filter: opts.Filter, seen: map[qdiscKey]struct{}{}, kinds: kindDefs()}
}

// Close closes the netlink socket, if one is open. A later scrape opens a
// new one.
func (c *Collector) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closeSource()
}

func (c *Collector) closeSource() error {
	if c.src == nil {
		return nil
	}
	err := c.src.Close()
	c.src = nil
	return err
}

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range allDefs {
		ch <- d.desc
	}
}

// Collect implements prometheus.Collector: one dump, whose qdiscs are sent
// to ch as the kernel's replies arrive, then the exporter's own metrics.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	start := time.Now()
	n, err := c.scrape(context.Background(), ch)
	ok := 1.0
	if err != nil {
		c.scrapeErrors.Add(1)
		ok = 0
	}
	ch <- prometheus.MustNewConstMetric(mScrapeTime.desc, prometheus.GaugeValue, time.Since(start).Seconds())
	ch <- prometheus.MustNewConstMetric(mScrapeOK.desc, prometheus.GaugeValue, ok)
	ch <- prometheus.MustNewConstMetric(mQdiscs.desc, prometheus.GaugeValue, float64(n))
	ch <- prometheus.MustNewConstMetric(mDecodeErrors.desc, prometheus.CounterValue, float64(c.decodeErrors.Load()))
	ch <- prometheus.MustNewConstMetric(mScrapeErrors.desc, prometheus.CounterValue, float64(c.scrapeErrors.Load()))
}

// Scrape does what Collect does for the qdiscs (not the exporter's own
// metrics) and returns how many qdiscs it sent and the dump's error, which
// Collect can only count: for a CLI's one-shot check, say.
func (c *Collector) Scrape(ch chan<- prometheus.Metric) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.scrape(context.Background(), ch)
}

func (c *Collector) scrape(ctx context.Context, ch chan<- prometheus.Metric) (int, error) {
	for attempt := 0; ; attempt++ {
		if c.src == nil {
			src, err := c.dial()
			if err != nil {
				return 0, err
			}
			c.src = src
		}
		n, err := c.dumpOnce(ctx, ch)
		if err == nil {
			return n, nil
		}
		// A socket that fails is not trusted again: the next scrape, or
		// the retry below, gets a new one.
		c.closeSource()
		// A socket can go bad between scrapes (a namespace torn down, a
		// receive buffer overrun); if nothing was exported yet, one retry on
		// a fresh socket keeps that from costing a scrape.
		if n > 0 || attempt > 0 {
			return n, err
		}
	}
}

// dumpOnce exports one dump's qdiscs and returns how many it exported.
func (c *Collector) dumpOnce(ctx context.Context, ch chan<- prometheus.Metric) (int, error) {
	names, err := c.src.LinkNames(ctx)
	if err != nil {
		return 0, err
	}
	clear(c.seen)
	n := 0
	err = netlink.ReusingDumpOf(c.src)(ctx, netlink.Qdisc, c.filter, func(m *netlink.Msg, decodeErr error) error {
		if c.export(ch, m, decodeErr, names) {
			n++
		}
		return nil
	})
	return n, err
}

// export sends the metrics of one dumped qdisc and reports whether it did.
func (c *Collector) export(ch chan<- prometheus.Metric, m *netlink.Msg, decodeErr error, names map[int32]string) bool {
	if decodeErr != nil {
		c.decodeErrors.Add(1)
		// The attributes are decoded up to the malformed one and worth
		// exporting; but a message too short for its tcmsg header leaves m
		// holding the previous message's header, which must not be
		// exported twice.
		if !errors.Is(decodeErr, attrs.ErrTruncated) {
			return false
		}
		// netlink.Dump applies the filter only to messages that decoded.
		if f := c.filter; (f.Ifindex != 0 && m.Header.Ifindex != f.Ifindex) || (f.Handle != 0 && m.Header.Handle != f.Handle) {
			return false
		}
	}
	// A duplicate (a dump restarted by the kernel, a malformed message
	// claiming another's identity) would make the registry fail the whole
	// scrape with "collected before", so only the first is exported.
	key := qdiscKey{m.Header.Ifindex, m.Header.Handle, m.Header.Parent}
	if _, dup := c.seen[key]; dup {
		c.decodeErrors.Add(1)
		return false
	}
	c.seen[key] = struct{}{}

	dev, ok := names[m.Header.Ifindex]
	if !ok {
		// As iproute2's ll_index_to_name names a device it cannot find.
		dev = "if" + strconv.Itoa(int(m.Header.Ifindex))
	}
	var hb, pb [24]byte
	labels := newLabels(&qdiscLabelNames,
		validUTF8(dev),
		string(tcfmt.AppendQdiscHandle(hb[:0], m.Header.Handle)),
		validUTF8(m.Kind()),
		parentString(pb[:0], m.Header.Parent),
	)
	a := &m.Attrs
	samples := make([]sample, 0, 32)
	add := func(d *metricDef, v float64) {
		samples = append(samples, sample{def: d, val: v, labels: labels})
	}

	g := tckind.GenericStatsOf(a)
	for s, d := range genericMetrics {
		if v, ok := g.Get(tckind.GenericStat(s)); ok {
			add(d, float64(v))
		}
	}

	var (
		stats any
		km    *kindMetrics
		t     *tckind.StatsTable
	)
	if k := tckind.LookupQdisc(m.Kind()); k != nil && k.Stats != nil {
		t, km = k.Stats, c.kinds[k.Stats]
		x := tckind.XstatsOf(a)
		if stats = t.Of(x); stats == nil && x.Present() {
			c.decodeErrors.Add(1) // a kind gotc knows sent statistics that did not decode
		}
	}
	if stats != nil && km != nil {
		for i := range t.Fields {
			f := &t.Fields[i]
			if v, ok := f.Get(stats); ok && km.fields[i] != nil {
				add(km.fields[i], f.Value(v))
			}
		}
	}
	add(mUnknown, float64(a.UnknownCount()))

	for i := range samples {
		ch <- &samples[i]
	}
	if stats != nil && km != nil && t.Records != nil {
		exportRecords(ch, labels, t.Records, km, stats)
	}
	return true
}

// exportRecords sends the metrics of a kind's records (CAKE's tins).
func exportRecords(ch chan<- prometheus.Metric, q []*dto.LabelPair, r *tckind.StatRecords, km *kindMetrics, stats any) {
	n := r.Len(stats)
	for i := range n {
		rec := r.Record(stats, i)
		labels := newLabels(&km.recNames, q[0].GetValue(), q[1].GetValue(), q[2].GetValue(), q[3].GetValue(),
			tinIndex(i), r.Name(n, i))
		samples := make([]sample, 0, len(r.Fields))
		for j := range r.Fields {
			f := &r.Fields[j]
			if v, ok := f.Get(rec); ok && km.recFields[j] != nil {
				samples = append(samples, sample{def: km.recFields[j], val: f.Value(v), labels: labels})
			}
		}
		for j := range samples {
			ch <- &samples[j]
		}
	}
}

var tinIndexes = [...]string{"0", "1", "2", "3", "4", "5", "6", "7"}

func tinIndex(i int) string {
	if i < len(tinIndexes) {
		return tinIndexes[i]
	}
	return strconv.Itoa(i)
}

// parentString formats a parent as tc does ("root", "ffff:fff1", "1:2"),
// sparing the common root an allocation.
func parentString(b []byte, parent uint32) string {
	if parent == tcfmt.HandleRoot {
		return "root"
	}
	return string(tcfmt.AppendClassID(b, parent))
}

// validUTF8 keeps a label value valid: the registry rejects, and so fails the
// scrape for, a value that is not UTF-8, and device names are bytes.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strconvQuoteBytes(s)
}

// strconvQuoteBytes turns invalid bytes into \x escapes (as iproute2's JSON
// would not, but as a label must).
func strconvQuoteBytes(s string) string {
	q := strconv.QuoteToASCII(s)
	return q[1 : len(q)-1]
}
