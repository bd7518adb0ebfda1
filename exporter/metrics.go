// SPDX-License-Identifier: Apache-2.0

package exporter

import (
	"strings"
	"sync"

	_ "github.com/gotc/gotc/allkinds"
	"github.com/gotc/gotc/tckind"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// Label names. They are listed in sorted order because the label pairs of a
// metric must be sorted by name, and building them in that order once per
// qdisc spares the registry a copy and a sort per sample.
const (
	labelDev    = "dev"
	labelHandle = "handle"
	labelKind   = "kind"
	labelParent = "parent"
)

var (
	qdiscLabels = []string{labelDev, labelHandle, labelKind, labelParent}

	// qdiscLabelNames are shared by every label pair: dto wants *string and
	// the names never change, so one pointer per name serves all samples.
	qdiscLabelNames = func() [6]*string {
		var p [6]*string
		for i := range qdiscLabels {
			p[i] = &qdiscLabels[i]
		}
		return p
	}()
)

// metricDef is one exported metric: its descriptor and whether it counts.
type metricDef struct {
	desc *prometheus.Desc
	typ  prometheus.ValueType
}

// allDefs collects every definition made by newDef, for Describe; the
// kinds' metrics join it in kindDefs.
var allDefs []*metricDef

// newDef defines a metric with the given variable labels. The OpenMetrics
// unit is taken from the name's suffix so that "# UNIT" lines agree with the
// names (OpenMetrics requires the family name to end in its unit).
func newDef(name string, typ prometheus.ValueType, labels []string, help string) *metricDef {
	var opts []prometheus.DescOpt
	family := strings.TrimSuffix(name, "_total")
	for _, u := range []string{"bytes_per_second", "seconds", "bytes"} {
		if strings.HasSuffix(family, "_"+u) {
			opts = append(opts, prometheus.WithUnit(u))
			break
		}
	}
	d := &metricDef{
		desc: prometheus.V2.NewDesc(name, help, prometheus.UnconstrainedLabels(labels), nil, opts...),
		typ:  typ,
	}
	allDefs = append(allDefs, d)
	return d
}

func qdiscCounter(name, help string) *metricDef {
	return newDef(name, prometheus.CounterValue, qdiscLabels, help)
}

func qdiscGauge(name, help string) *metricDef {
	return newDef(name, prometheus.GaugeValue, qdiscLabels, help)
}

// Generic statistics of every qdisc, as tckind.GenericStatsOf reads them.
var (
	mBytes      = qdiscCounter("gotc_qdisc_bytes_total", "Bytes sent by the qdisc (tc's \"Sent N bytes\").")
	mPackets    = qdiscCounter("gotc_qdisc_packets_total", "Packets sent by the qdisc.")
	mDrops      = qdiscCounter("gotc_qdisc_drops_total", "Packets dropped by the qdisc.")
	mOverlimits = qdiscCounter("gotc_qdisc_overlimits_total", "Times the qdisc was over its limit (throttled or shaped).")
	mRequeues   = qdiscCounter("gotc_qdisc_requeues_total", "Packets requeued by the qdisc.")
	mBacklogB   = qdiscGauge("gotc_qdisc_backlog_bytes", "Bytes queued now.")
	mBacklogP   = qdiscGauge("gotc_qdisc_backlog_packets", "Packets queued now (the queue length, tc's qlen).")
	mRateBps    = qdiscGauge("gotc_qdisc_rate_bytes_per_second", "Rate estimate of the qdisc's rate estimator, if it has one.")
	mRatePps    = qdiscGauge("gotc_qdisc_rate_packets_per_second", "Packet rate estimate of the qdisc's rate estimator, if it has one.")
	mUnknown    = qdiscGauge("gotc_qdisc_unknown_attributes", "Netlink attributes of the qdisc's dump that gotc did not understand and did not export.")
)

// genericMetrics are the metrics of tckind's generic statistics, by
// tckind.GenericStat.
var genericMetrics = [tckind.NumGenericStats]*metricDef{
	tckind.GenericBytes:      mBytes,
	tckind.GenericPackets:    mPackets,
	tckind.GenericDrops:      mDrops,
	tckind.GenericOverlimits: mOverlimits,
	tckind.GenericRequeues:   mRequeues,
	tckind.GenericBacklog:    mBacklogB,
	tckind.GenericQlen:       mBacklogP,
	tckind.GenericRate:       mRateBps,
	tckind.GenericPacketRate: mRatePps,
}

// kindMetrics are the metrics of one kind's statistics table, one per
// table field that names a metric (nil for those that do not), and the
// label names of its records' metrics.
type kindMetrics struct {
	fields    []*metricDef
	recFields []*metricDef
	recNames  [6]*string
}

// kindDefs defines the metrics of every registered kind's statistics
// table. Kinds sharing a table (cake and cake_mq) share its metrics.
// It runs once, when the first Collector is made, so that kinds registered
// in any package's init are included.
var kindDefs = sync.OnceValue(func() map[*tckind.StatsTable]*kindMetrics {
	m := map[*tckind.StatsTable]*kindMetrics{}
	for _, k := range tckind.Qdiscs() {
		t := k.Stats
		if t == nil || m[t] != nil {
			continue
		}
		km := &kindMetrics{fields: defsOf(t.Fields, qdiscLabels)}
		if r := t.Records; r != nil {
			labels := append(append([]string{}, qdiscLabels...), r.Label, r.NameLabel)
			km.recFields = defsOf(r.Fields, labels)
			for i := range labels {
				km.recNames[i] = &labels[i]
			}
		}
		m[t] = km
	}
	return m
})

func defsOf(fields []tckind.Stat, labels []string) []*metricDef {
	defs := make([]*metricDef, len(fields))
	for i := range fields {
		f := &fields[i]
		if f.Metric == "" {
			continue
		}
		typ := prometheus.GaugeValue
		if f.Counter {
			typ = prometheus.CounterValue
		}
		defs[i] = newDef(f.Metric, typ, labels, f.Help)
	}
	return defs
}

// The exporter's own health.
var (
	mDecodeErrors = newDef("gotc_exporter_decode_errors_total", prometheus.CounterValue, nil,
		"Dump messages, or parts of them, that did not decode; what did decode is still exported.")
	mScrapeErrors = newDef("gotc_exporter_scrape_errors_total", prometheus.CounterValue, nil,
		"Scrapes whose netlink dump failed (the socket is then reopened).")
	mScrapeOK = newDef("gotc_exporter_scrape_success", prometheus.GaugeValue, nil,
		"1 if the last dump completed, 0 if it failed.")
	mScrapeTime = newDef("gotc_exporter_scrape_duration_seconds", prometheus.GaugeValue, nil,
		"Time the last netlink dump and its conversion took.")
	mQdiscs = newDef("gotc_exporter_qdiscs", prometheus.GaugeValue, nil,
		"Qdiscs exported by the last scrape.")
)

// sample is one exported value. It implements prometheus.Metric directly
// rather than through prometheus.MustNewConstMetric because that builds new
// label pairs (three allocations per label) for every value; here all values
// of a qdisc share one immutable label slice, which the registry's contract
// allows.
type sample struct {
	def    *metricDef
	val    float64
	labels []*dto.LabelPair
}

// Desc implements prometheus.Metric.
func (s *sample) Desc() *prometheus.Desc { return s.def.desc }

// Write implements prometheus.Metric.
func (s *sample) Write(out *dto.Metric) error {
	out.Label = s.labels
	if s.def.typ == prometheus.CounterValue {
		out.Counter = &dto.Counter{Value: &s.val}
	} else {
		out.Gauge = &dto.Gauge{Value: &s.val}
	}
	return nil
}

// labelSet holds the label values and pairs of one qdisc or one tin in a
// single allocation.
type labelSet struct {
	vals  [6]string
	pairs [6]dto.LabelPair
	ptrs  [6]*dto.LabelPair
}

// newLabels returns the sorted label pairs for vals, named by names (in
// sorted order; a qdisc's are the first four of qdiscLabels).
func newLabels(names *[6]*string, vals ...string) []*dto.LabelPair {
	l := &labelSet{}
	for i, v := range vals {
		l.vals[i] = v
		l.pairs[i].Name = names[i]
		l.pairs[i].Value = &l.vals[i]
		l.ptrs[i] = &l.pairs[i]
	}
	return l.ptrs[:len(vals):len(vals)]
}
