// SPDX-License-Identifier: Apache-2.0

// Package exporter exports the statistics of traffic-control qdiscs and
// classes (generic counters for every kind; each kind's own through its
// statistics table: CAKE's per-tin, DualPI2's, htb's tokens and borrows,
// hfsc's periods, drr's deficit ...) as Prometheus/OpenMetrics metrics.
//
// A Collector does one netlink qdisc dump per scrape, then a class dump of
// each device that has a classful qdisc (one that takes classes, or makes
// them as prio does), over a socket it keeps open between scrapes (and
// reopens after an error). The classes of classless kinds (fq_codel's and
// sfq's flows, cake's) are not exported: CAKE's tins are, from the qdisc's
// statistics. A qdisc of a kind gotc does not know, or a message with
// attributes it does not understand, is exported as far as it is understood
// and never fails the scrape: decode problems are counted in
// gotc_exporter_decode_errors_total and the attributes left over in
// gotc_qdisc_unknown_attributes and gotc_class_unknown_attributes.
//
// Options.Include, Exclude and Aggregate keep the number of series under
// control (by device, kind, handle and subtree), and Options.Names adds a
// "name" label, the name of a subscriber say, to what it names.
//
// The qdiscs' and classes' series are written in the text format (or
// OpenMetrics) by the Collector itself, from values kept in reused memory,
// rather than as one client_golang metric per series: at 20,000 classes
// that is what keeps a scrape within a fraction of a second and a few
// allocations per series. The exporter's own metrics (gotc_exporter_*) are
// an ordinary prometheus.Collector in a registry that Handler gathers
// alongside. Metric names: docs/exporter.md.
package exporter

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"

	_ "github.com/gotc/gotc/allkinds"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/netlink"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
)

// Source is what a Collector needs from the kernel. *netlink.Conn is one;
// tests use a fake. A Collector keeps nothing of the messages Dump passes
// it but copies (values, interned kinds), so a Source that is also a
// netlink.ReusingDumper is dumped into reused memory.
type Source interface {
	Dump(ctx context.Context, o netlink.Object, f netlink.DumpFilter, fn func(m *netlink.Msg, decodeErr error) error) error
	LinkNames(ctx context.Context) (map[int32]string, error)
	Close() error
}

// Options configure a Collector. The zero value exports every qdisc and
// class of the caller's network namespace.
type Options struct {
	// NetNS is an open file descriptor of the network namespace to export;
	// 0 means the caller's. Used by the default Dial, which runs again after
	// a failed scrape, so the descriptor must stay open while the Collector
	// is in use.
	NetNS int
	// Filter limits the dumps, for example to one device.
	Filter netlink.DumpFilter
	// Dial opens the netlink socket; nil means netlink.Dial with NetNS. It is
	// called on the first scrape and again after a failed one.
	Dial func() (Source, error)
	// Include, when not empty, exports only the qdiscs and classes that
	// match one of its Matches; Exclude leaves out those that match one of
	// its own.
	Include, Exclude []Match
	// Aggregate exports a subtree as its top alone: what is below a qdisc
	// or class that matches one of these is not exported. The counters of
	// an inner htb or hfsc class, or of a qdisc, count all that went
	// through the subtree.
	Aggregate []Match
	// Names gives names to qdiscs and classes, by device name and handle
	// (a qdisc's major:0, a class's ID), exported as the label "name" (see
	// NamesOf for an apply file's). Nil: no label.
	Names map[NameKey]string
}

// Collector gathers the statistics of qdiscs and classes. It is safe for
// concurrent use: scrapes are serialised on the one socket. It is a
// prometheus.Collector of the exporter's own metrics; Handler serves those
// with the series it writes itself.
type Collector struct {
	dial func() (Source, error)
	opts Options

	mu  sync.Mutex
	src Source
	set objectSet

	// The last scrape's, for Collect.
	health struct {
		sync.Mutex
		duration        time.Duration
		ok              bool
		qdiscs, classes int
	}
	decodeErrors atomic.Uint64
	scrapeErrors atomic.Uint64
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
	c := &Collector{dial: dial, opts: opts}
	c.set.init(&c.opts)
	return c
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

// Describe implements prometheus.Collector: the exporter's own metrics.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range healthDefs {
		ch <- d.desc
	}
}

// Collect implements prometheus.Collector: the exporter's own metrics, as
// of the last scrape.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	h := &c.health
	h.Lock()
	ok := 0.0
	if h.ok {
		ok = 1
	}
	vals := [...]float64{h.duration.Seconds(), ok, float64(h.qdiscs), float64(h.classes),
		float64(c.decodeErrors.Load()), float64(c.scrapeErrors.Load())}
	h.Unlock()
	for i, d := range healthDefs {
		ch <- prometheus.MustNewConstMetric(d.desc, d.typ, vals[i])
	}
}

// Scrape dumps the kernel's qdiscs and classes and writes their series to
// w in format f (the text format, or OpenMetrics without its "# EOF"), as
// Handler does before the exporter's own metrics. It returns how many
// qdiscs and classes it exported and the dump's error: what was dumped
// before an error is written all the same.
func (c *Collector) Scrape(w io.Writer, f expfmt.Format) (qdiscs, classes int, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	start := time.Now()
	err = c.scrape(context.Background())
	if err != nil {
		c.scrapeErrors.Add(1)
	}
	qdiscs, classes = c.set.selectObjects()
	werr := c.set.write(newTextWriter(w, f))
	h := &c.health
	h.Lock()
	h.duration, h.ok, h.qdiscs, h.classes = time.Since(start), err == nil, qdiscs, classes
	h.Unlock()
	if err == nil {
		err = werr
	}
	return qdiscs, classes, err
}

func (c *Collector) scrape(ctx context.Context) error {
	for attempt := 0; ; attempt++ {
		// Nothing of the last scrape is exported again, even when this one
		// cannot dial.
		c.set.reset()
		if c.src == nil {
			src, err := c.dial()
			if err != nil {
				return err
			}
			c.src = src
		}
		err := c.dumpOnce(ctx)
		if err == nil {
			return nil
		}
		// A socket that fails is not trusted again: the next scrape, or
		// the retry below, gets a new one.
		c.closeSource()
		// A socket can go bad between scrapes (a namespace torn down, a
		// receive buffer overrun); if nothing was dumped yet, one retry on
		// a fresh socket keeps that from costing a scrape.
		if len(c.set.objs) > 0 || attempt > 0 {
			return err
		}
	}
}

// dumpOnce dumps the qdiscs, then the classes of each device with a
// classful qdisc, into c.set.
func (c *Collector) dumpOnce(ctx context.Context) error {
	names, err := c.src.LinkNames(ctx)
	if err != nil {
		return err
	}
	s := &c.set
	s.names = names
	dump := netlink.ReusingDumpOf(c.src)
	f := c.opts.Filter
	class := false
	fn := func(m *netlink.Msg, decodeErr error) error {
		if !c.accept(m, decodeErr) {
			return nil
		}
		if !s.add(m, class) {
			c.decodeErrors.Add(1)
		}
		return nil
	}
	if err := dump(ctx, netlink.Qdisc, f, fn); err != nil {
		return err
	}
	class = true
	for _, ifindex := range s.classfulDevices() {
		// The kernel dumps the classes of one device at a time.
		cf := netlink.DumpFilter{Ifindex: ifindex}
		if err := dump(ctx, netlink.Class, cf, fn); err != nil {
			return err
		}
	}
	return nil
}

// accept reports whether a dumped message is exported, counting decode
// errors.
func (c *Collector) accept(m *netlink.Msg, decodeErr error) bool {
	if decodeErr == nil {
		return true
	}
	c.decodeErrors.Add(1)
	// The attributes are decoded up to the malformed one and worth
	// exporting; but a message too short for its tcmsg header leaves m
	// holding the previous message's header, which must not be exported
	// twice.
	if !errors.Is(decodeErr, attrs.ErrTruncated) {
		return false
	}
	// netlink.Dump applies the filter only to messages that decoded.
	f := c.opts.Filter
	return (f.Ifindex == 0 || m.Header.Ifindex == f.Ifindex) && (f.Handle == 0 || m.Header.Handle == f.Handle)
}
