// SPDX-License-Identifier: Apache-2.0

package exporter

import (
	"strings"
	"sync"

	_ "github.com/gotc/gotc/allkinds"
	"github.com/gotc/gotc/tckind"
	"github.com/prometheus/client_golang/prometheus"
)

// metricDef is one exported metric family.
type metricDef struct {
	name, help string
	counter    bool
	// headers are the family's # lines in the text format and in
	// OpenMetrics, made once.
	text, om []byte
}

// units are the OpenMetrics units a name may end in (before any _total):
// OpenMetrics requires a family's name to end in its unit.
var units = []string{"bytes_per_second", "seconds", "bytes"}

// newDef defines a metric family.
func newDef(name string, counter bool, help string) *metricDef {
	d := &metricDef{name: name, help: help, counter: counter}
	typ, family := "gauge", name
	if counter {
		typ, family = "counter", strings.TrimSuffix(name, "_total")
	}
	var unit string
	for _, u := range units {
		if strings.HasSuffix(family, "_"+u) {
			unit = u
			break
		}
	}
	d.text = []byte("# HELP " + name + " " + escapeHelp(help, false) + "\n# TYPE " + name + " " + typ + "\n")
	om := "# HELP " + family + " " + escapeHelp(help, true) + "\n# TYPE " + family + " " + typ + "\n"
	if unit != "" {
		om += "# UNIT " + family + " " + unit + "\n"
	}
	d.om = []byte(om)
	return d
}

// escapeHelp escapes a help text: backslashes and newlines, and for
// OpenMetrics double quotes too.
func escapeHelp(s string, om bool) string {
	r := strings.NewReplacer(`\`, `\\`, "\n", `\n`)
	if om {
		r = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)
	}
	return r.Replace(s)
}

// genericDefs are the metrics of the generic statistics of qdiscs (labels
// dev, handle, kind, parent) and classes (dev, class, kind, parent), by
// tckind.GenericStat, and of the attributes left over.
type genericDefs struct {
	stats   [tckind.NumGenericStats]*metricDef
	unknown *metricDef
}

// newGenericDefs defines the generic metrics of qdiscs or classes: the
// names are gotc_<what>_bytes_total ...
func newGenericDefs(what, thing string) *genericDefs {
	p := "gotc_" + what + "_"
	return &genericDefs{
		stats: [tckind.NumGenericStats]*metricDef{
			tckind.GenericBytes:      newDef(p+"bytes_total", true, "Bytes sent by the "+thing+" (tc's \"Sent N bytes\")."),
			tckind.GenericPackets:    newDef(p+"packets_total", true, "Packets sent by the "+thing+"."),
			tckind.GenericDrops:      newDef(p+"drops_total", true, "Packets dropped by the "+thing+"."),
			tckind.GenericOverlimits: newDef(p+"overlimits_total", true, "Times the "+thing+" was over its limit (throttled or shaped)."),
			tckind.GenericRequeues:   newDef(p+"requeues_total", true, "Packets requeued by the "+thing+"."),
			tckind.GenericBacklog:    newDef(p+"backlog_bytes", false, "Bytes queued now."),
			tckind.GenericQlen:       newDef(p+"backlog_packets", false, "Packets queued now (the queue length, tc's qlen)."),
			tckind.GenericRate:       newDef(p+"rate_bytes_per_second", false, "Rate estimate of the "+thing+"'s rate estimator, if it has one."),
			tckind.GenericPacketRate: newDef(p+"rate_packets_per_second", false, "Packet rate estimate of the "+thing+"'s rate estimator, if it has one."),
		},
		unknown: newDef(p+"unknown_attributes", false, "Netlink attributes of the "+thing+"'s dump that gotc did not understand and did not export."),
	}
}

var (
	qdiscDefs = newGenericDefs("qdisc", "qdisc")
	classDefs = newGenericDefs("class", "class")
)

// kindMetrics are the metrics of one kind's statistics table, one per
// table field that names a metric (nil for those that do not), and of its
// records' fields.
type kindMetrics struct {
	fields, recFields []*metricDef
}

// kindDefs defines the metrics of every registered kind's statistics
// table. Kinds sharing a table (cake and cake_mq) share its metrics.
// It runs on the first scrape, so that kinds registered in any package's
// init are included.
var kindDefs = sync.OnceValue(func() map[*tckind.StatsTable]*kindMetrics {
	m := map[*tckind.StatsTable]*kindMetrics{}
	for _, k := range tckind.Qdiscs() {
		t := k.Stats
		if t == nil || m[t] != nil {
			continue
		}
		km := &kindMetrics{fields: defsOf(t.Fields)}
		if r := t.Records; r != nil {
			km.recFields = defsOf(r.Fields)
		}
		m[t] = km
	}
	return m
})

func defsOf(fields []tckind.Stat) []*metricDef {
	defs := make([]*metricDef, len(fields))
	for i := range fields {
		if f := &fields[i]; f.Metric != "" {
			defs[i] = newDef(f.Metric, f.Counter, f.Help)
		}
	}
	return defs
}

// healthMetric is one of the exporter's own metrics, which go through
// the registry.
type healthMetric struct {
	name string
	desc *prometheus.Desc
	typ  prometheus.ValueType
}

func healthDef(name string, typ prometheus.ValueType, help string, opts ...prometheus.DescOpt) healthMetric {
	return healthMetric{name, prometheus.V2.NewDesc(name, help, prometheus.UnconstrainedLabels(nil), nil, opts...), typ}
}

// healthDefs are the exporter's own metrics, in the order Collect sends
// them.
var healthDefs = []healthMetric{
	healthDef("gotc_exporter_scrape_duration_seconds", prometheus.GaugeValue,
		"Time the last scrape's netlink dumps and their exposition took.", prometheus.WithUnit("seconds")),
	healthDef("gotc_exporter_scrape_success", prometheus.GaugeValue, "1 if the last scrape's dumps completed, 0 if one failed."),
	healthDef("gotc_exporter_qdiscs", prometheus.GaugeValue, "Qdiscs exported by the last scrape."),
	healthDef("gotc_exporter_classes", prometheus.GaugeValue, "Classes exported by the last scrape."),
	healthDef("gotc_exporter_decode_errors_total", prometheus.CounterValue,
		"Dump messages, or parts of them, that did not decode; what did decode is still exported."),
	healthDef("gotc_exporter_scrape_errors_total", prometheus.CounterValue,
		"Scrapes whose netlink dump failed (the socket is then reopened)."),
}
