package exporter

import (
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// Label names. They are listed in sorted order because the label pairs of a
// metric must be sorted by name, and building them in that order once per
// qdisc spares the registry a copy and a sort per sample.
const (
	labelDev     = "dev"
	labelHandle  = "handle"
	labelKind    = "kind"
	labelParent  = "parent"
	labelTin     = "tin"
	labelTinName = "tin_name"
)

var (
	qdiscLabels = []string{labelDev, labelHandle, labelKind, labelParent}
	tinLabels   = []string{labelDev, labelHandle, labelKind, labelParent, labelTin, labelTinName}

	// labelNamePtrs are shared by every label pair: dto wants *string and the
	// names never change, so one pointer per name serves all samples.
	labelNamePtrs = func() [6]*string {
		var p [6]*string
		for i, n := range tinLabels {
			p[i] = &n
		}
		return p
	}()
)

// metricDef is one exported metric: its descriptor and whether it counts.
type metricDef struct {
	desc *prometheus.Desc
	typ  prometheus.ValueType
}

// allDefs collects every definition made by newDef, for Describe.
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

func tinCounter(name, help string) *metricDef {
	return newDef(name, prometheus.CounterValue, tinLabels, help)
}

func tinGauge(name, help string) *metricDef {
	return newDef(name, prometheus.GaugeValue, tinLabels, help)
}

// Generic statistics of every qdisc (TCA_STATS2 basic and queue, or the
// legacy TCA_STATS when a kernel sends no TCA_STATS2).
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

// CAKE qdisc-level statistics.
var (
	mCakeMemUsed  = qdiscGauge("gotc_cake_memory_used_bytes", "Memory CAKE uses for queued packets.")
	mCakeMemLimit = qdiscGauge("gotc_cake_memory_limit_bytes", "CAKE's memory limit.")
	mCakeCapacity = qdiscGauge("gotc_cake_capacity_estimate_bytes_per_second", "CAKE's estimate of the link capacity (ingress autorate).")
	mCakeMinNet   = qdiscGauge("gotc_cake_min_network_size_bytes", "Smallest network-layer packet size seen.")
	mCakeMaxNet   = qdiscGauge("gotc_cake_max_network_size_bytes", "Largest network-layer packet size seen.")
	mCakeMinAdj   = qdiscGauge("gotc_cake_min_adjusted_size_bytes", "Smallest overhead-adjusted packet size seen.")
	mCakeMaxAdj   = qdiscGauge("gotc_cake_max_adjusted_size_bytes", "Largest overhead-adjusted packet size seen.")
	mCakeNetoff   = qdiscGauge("gotc_cake_avg_network_header_offset_bytes", "Average offset of the network header.")
	mCakeActiveQ  = qdiscGauge("gotc_cake_active_queues", "Active queues (cake_mq).")
)

// CAKE per-tin statistics.
var (
	mTinSentP      = tinCounter("gotc_cake_tin_sent_packets_total", "Packets sent from the tin.")
	mTinSentB      = tinCounter("gotc_cake_tin_sent_bytes_total", "Bytes sent from the tin.")
	mTinDropP      = tinCounter("gotc_cake_tin_dropped_packets_total", "Packets dropped from the tin.")
	mTinDropB      = tinCounter("gotc_cake_tin_dropped_bytes_total", "Bytes dropped from the tin.")
	mTinECNP       = tinCounter("gotc_cake_tin_ecn_marked_packets_total", "Packets of the tin marked CE.")
	mTinECNB       = tinCounter("gotc_cake_tin_ecn_marked_bytes_total", "Bytes of the tin marked CE.")
	mTinAckDropP   = tinCounter("gotc_cake_tin_ack_dropped_packets_total", "ACKs of the tin dropped by the ACK filter.")
	mTinAckDropB   = tinCounter("gotc_cake_tin_ack_dropped_bytes_total", "Bytes of ACKs of the tin dropped by the ACK filter.")
	mTinWayHits    = tinCounter("gotc_cake_tin_way_indirect_hits_total", "Set-associative hash lookups that found their flow in another way.")
	mTinWayMisses  = tinCounter("gotc_cake_tin_way_misses_total", "Set-associative hash lookups that found no queue for their flow.")
	mTinWayCols    = tinCounter("gotc_cake_tin_way_collisions_total", "Set-associative hash collisions (flows sharing a queue).")
	mTinBacklogB   = tinGauge("gotc_cake_tin_backlog_bytes", "Bytes queued in the tin now.")
	mTinBacklogP   = tinGauge("gotc_cake_tin_backlog_packets", "Packets queued in the tin now.")
	mTinThreshold  = tinGauge("gotc_cake_tin_threshold_rate_bytes_per_second", "Rate threshold of the tin.")
	mTinTarget     = tinGauge("gotc_cake_tin_target_seconds", "COBALT target delay of the tin.")
	mTinInterval   = tinGauge("gotc_cake_tin_interval_seconds", "COBALT interval of the tin.")
	mTinPeakDelay  = tinGauge("gotc_cake_tin_peak_delay_seconds", "Peak queueing delay of the tin (decaying).")
	mTinAvgDelay   = tinGauge("gotc_cake_tin_avg_delay_seconds", "Average queueing delay of the tin.")
	mTinBaseDelay  = tinGauge("gotc_cake_tin_base_delay_seconds", "Base (sparse) queueing delay of the tin.")
	mTinSparse     = tinGauge("gotc_cake_tin_sparse_flows", "Sparse flows in the tin now.")
	mTinBulk       = tinGauge("gotc_cake_tin_bulk_flows", "Bulk flows in the tin now.")
	mTinUnresp     = tinGauge("gotc_cake_tin_unresponsive_flows", "Unresponsive flows in the tin now.")
	mTinMaxLen     = tinGauge("gotc_cake_tin_max_packet_size_bytes", "Largest packet seen in the tin (tc's max_len).")
	mTinFlowQuanta = tinGauge("gotc_cake_tin_flow_quantum_bytes", "DRR quantum of the tin's flows.")
)

// DualPI2 statistics (struct tc_dualpi2_xstats).
var (
	mPI2Prob      = qdiscGauge("gotc_dualpi2_probability", "Base marking/drop probability p' as a fraction (0..1).")
	mPI2DelayC    = qdiscGauge("gotc_dualpi2_delay_c_seconds", "Queueing delay of the C (classic) queue's head.")
	mPI2DelayL    = qdiscGauge("gotc_dualpi2_delay_l_seconds", "Queueing delay of the L (L4S) queue's head.")
	mPI2PktsInC   = qdiscCounter("gotc_dualpi2_packets_in_c_total", "Packets enqueued to the C queue.")
	mPI2PktsInL   = qdiscCounter("gotc_dualpi2_packets_in_l_total", "Packets enqueued to the L queue.")
	mPI2Maxq      = qdiscGauge("gotc_dualpi2_maxq_packets", "Largest queue length seen.")
	mPI2ECNMark   = qdiscCounter("gotc_dualpi2_ecn_marked_packets_total", "Packets marked CE (both queues).")
	mPI2StepMarks = qdiscCounter("gotc_dualpi2_step_marked_packets_total", "CE marks by the L queue's step threshold.")
	mPI2Credit    = qdiscGauge("gotc_dualpi2_credit_bytes", "Scheduler credit; positive favours the C queue.")
	mPI2MemUsed   = qdiscGauge("gotc_dualpi2_memory_used_bytes", "Memory (truesize) of the packets held now.")
	mPI2MemMax    = qdiscGauge("gotc_dualpi2_max_memory_used_bytes", "Peak memory used.")
	mPI2MemLimit  = qdiscGauge("gotc_dualpi2_memory_limit_bytes", "Memory limit.")
)

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

// newLabels returns the sorted label pairs for vals, which must be given in
// the order of tinLabels (the first four for a qdisc).
func newLabels(vals ...string) []*dto.LabelPair {
	l := &labelSet{}
	for i, v := range vals {
		l.vals[i] = v
		l.pairs[i].Name = labelNamePtrs[i]
		l.pairs[i].Value = &l.vals[i]
		l.ptrs[i] = &l.pairs[i]
	}
	return l.ptrs[:len(vals):len(vals)]
}
