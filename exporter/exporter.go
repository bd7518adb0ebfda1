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
	"errors"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/qdisc"
	"github.com/gotc/gotc/tcfmt"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// Source is what a Collector needs from the kernel. *netlink.Conn is one;
// tests use a fake.
type Source interface {
	Dump(o netlink.Object, f netlink.DumpFilter, fn func(m *netlink.Msg, decodeErr error) error) error
	LinkNames() (map[int32]string, error)
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
	tins [][]*dto.LabelPair // scratch, reused between qdiscs

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
	return &Collector{dial: dial, filter: opts.Filter, seen: map[qdiscKey]struct{}{}}
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
	n, err := c.scrape(ch)
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
	return c.scrape(ch)
}

func (c *Collector) scrape(ch chan<- prometheus.Metric) (int, error) {
	for attempt := 0; ; attempt++ {
		if c.src == nil {
			src, err := c.dial()
			if err != nil {
				return 0, err
			}
			c.src = src
		}
		n, err := c.dumpOnce(ch)
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
func (c *Collector) dumpOnce(ch chan<- prometheus.Metric) (int, error) {
	names, err := c.src.LinkNames()
	if err != nil {
		return 0, err
	}
	clear(c.seen)
	n := 0
	err = c.src.Dump(netlink.Qdisc, c.filter, func(m *netlink.Msg, decodeErr error) error {
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
	labels := newLabels(
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

	if s := a.Stats2; s != nil {
		if b := s.Basic; b != nil {
			add(mBytes, float64(b.Bytes))
			if s.Pkt64 != nil {
				// The kernel adds PKT64 once the 32-bit count overflows.
				add(mPackets, float64(*s.Pkt64))
			} else {
				add(mPackets, float64(b.Packets))
			}
		}
		if q := s.Queue; q != nil {
			add(mDrops, float64(q.Drops))
			add(mOverlimits, float64(q.Overlimits))
			add(mRequeues, float64(q.Requeues))
			add(mBacklogB, float64(q.Backlog))
			add(mBacklogP, float64(q.Qlen))
		}
		if r := s.RateEst64; r != nil {
			add(mRateBps, float64(r.Bps))
			add(mRatePps, float64(r.Pps))
		} else if r := s.RateEst; r != nil {
			add(mRateBps, float64(r.Bps))
			add(mRatePps, float64(r.Pps))
		}
	} else if s := a.Stats; s != nil {
		// Only the legacy block: tc prints it in that case, and so do we.
		add(mBytes, float64(s.Bytes))
		add(mPackets, float64(s.Packets))
		add(mDrops, float64(s.Drops))
		add(mOverlimits, float64(s.Overlimits))
		add(mBacklogB, float64(s.Backlog))
		add(mBacklogP, float64(s.Qlen))
	}

	var cake *attrs.CakeStatsAttrs
	switch x := kindStats(m.Kind(), a).(type) {
	case *attrs.CakeStatsAttrs:
		cake = x
		opt32 := func(d *metricDef, v *uint32) {
			if v != nil {
				add(d, float64(*v))
			}
		}
		opt32(mCakeMemUsed, x.MemoryUsed)
		opt32(mCakeMemLimit, x.MemoryLimit)
		if x.CapacityEstimate64 != nil {
			add(mCakeCapacity, float64(*x.CapacityEstimate64))
		}
		opt32(mCakeMinNet, x.MinNetlen)
		opt32(mCakeMaxNet, x.MaxNetlen)
		opt32(mCakeMinAdj, x.MinAdjlen)
		opt32(mCakeMaxAdj, x.MaxAdjlen)
		opt32(mCakeNetoff, x.AvgNetoff)
		opt32(mCakeActiveQ, x.ActiveQueues)
	case *attrs.TCDualPI2Xstats:
		add(mPI2Prob, float64(x.Prob)/math.MaxUint32)
		add(mPI2DelayC, usec(x.DelayC))
		add(mPI2DelayL, usec(x.DelayL))
		add(mPI2PktsInC, float64(x.PacketsInC))
		add(mPI2PktsInL, float64(x.PacketsInL))
		add(mPI2Maxq, float64(x.Maxq))
		add(mPI2ECNMark, float64(x.ECNMark))
		add(mPI2StepMarks, float64(x.StepMarks))
		add(mPI2Credit, float64(x.Credit))
		add(mPI2MemUsed, float64(x.MemoryUsed))
		add(mPI2MemMax, float64(x.MaxMemoryUsed))
		add(mPI2MemLimit, float64(x.MemoryLimit))
	case badKindStats:
		c.decodeErrors.Add(1)
	}
	add(mUnknown, float64(a.UnknownCount()))

	for i := range samples {
		ch <- &samples[i]
	}
	if cake != nil {
		c.exportTins(ch, labels, cake.TinStats)
	}
	return true
}

// exportTins sends the per-tin metrics of a CAKE qdisc.
func (c *Collector) exportTins(ch chan<- prometheus.Metric, q []*dto.LabelPair, tins []attrs.CakeTinStatsAttrs) {
	for i := range tins {
		t := &tins[i]
		labels := newLabels(q[0].GetValue(), q[1].GetValue(), q[2].GetValue(), q[3].GetValue(),
			tinIndex(i), qdisc.CakeTinName(len(tins), i))
		samples := make([]sample, 0, 24)
		u32 := func(d *metricDef, v *uint32) {
			if v != nil {
				samples = append(samples, sample{def: d, val: float64(*v), labels: labels})
			}
		}
		u64 := func(d *metricDef, v *uint64) {
			if v != nil {
				samples = append(samples, sample{def: d, val: float64(*v), labels: labels})
			}
		}
		us := func(d *metricDef, v *uint32) {
			if v != nil {
				samples = append(samples, sample{def: d, val: usec(*v), labels: labels})
			}
		}
		u32(mTinSentP, t.SentPackets)
		u64(mTinSentB, t.SentBytes64)
		u32(mTinDropP, t.DroppedPackets)
		u64(mTinDropB, t.DroppedBytes64)
		u32(mTinECNP, t.ECNMarkedPackets)
		u64(mTinECNB, t.ECNMarkedBytes64)
		u32(mTinAckDropP, t.AcksDroppedPackets)
		u64(mTinAckDropB, t.AcksDroppedBytes64)
		u32(mTinWayHits, t.WayIndirectHits)
		u32(mTinWayMisses, t.WayMisses)
		u32(mTinWayCols, t.WayCollisions)
		u32(mTinBacklogB, t.BacklogBytes)
		u32(mTinBacklogP, t.BacklogPackets)
		u64(mTinThreshold, t.ThresholdRate64)
		us(mTinTarget, t.TargetUS)
		us(mTinInterval, t.IntervalUS)
		us(mTinPeakDelay, t.PeakDelayUS)
		us(mTinAvgDelay, t.AvgDelayUS)
		us(mTinBaseDelay, t.BaseDelayUS)
		u32(mTinSparse, t.SparseFlows)
		u32(mTinBulk, t.BulkFlows)
		u32(mTinUnresp, t.UnresponsiveFlows)
		u32(mTinMaxLen, t.MaxSkblen)
		u32(mTinFlowQuanta, t.FlowQuantum)
		for j := range samples {
			ch <- &samples[j]
		}
	}
}

// badKindStats marks statistics of a kind gotc knows that did not decode.
type badKindStats struct{}

// kindStats returns the kind's own statistics: *attrs.CakeStatsAttrs,
// *attrs.TCDualPI2Xstats, nil for none or a kind gotc does not know, or
// badKindStats when a kind gotc knows sent statistics that did not decode.
func kindStats(kind string, a *attrs.TCAttrs) any {
	x := qdisc.XstatsOf(a)
	if s, ok := x.Cake(); ok {
		return s
	}
	if s, ok := x.DualPI2(); ok {
		return s
	}
	if x.Present() && knownKind(kind) {
		return badKindStats{}
	}
	return nil
}

func knownKind(kind string) bool {
	return kind == "cake" || kind == "cake_mq" || kind == "dualpi2"
}

var tinIndexes = [...]string{"0", "1", "2", "3", "4", "5", "6", "7"}

func tinIndex(i int) string {
	if i < len(tinIndexes) {
		return tinIndexes[i]
	}
	return strconv.Itoa(i)
}

func usec(v uint32) float64 { return float64(v) / 1e6 }

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
