// SPDX-License-Identifier: Apache-2.0

package agent

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics are the agent's counters, a prometheus.Collector of its own
// (exporter.Serve serves it).
type Metrics struct {
	passes, failures                     *prometheus.CounterVec
	applies, driftsFound, driftsRepaired prometheus.Counter
	requests                             prometheus.Counter
	lastSuccess, refused, devices        prometheus.Gauge
}

// NewMetrics makes the agent's metrics, all at zero.
func NewMetrics() *Metrics {
	m := &Metrics{
		passes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gotc_agent_passes_total",
			Help: "Passes of the reconciler, by what started them: start, file (a change of the file, after the settle time) or resync (the timer).",
		}, []string{"trigger"}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gotc_agent_failures_total",
			Help: "Passes that failed, by reason: read (the file cannot be read), bad_file (refused before anything was sent), kernel (a refused request or a state that cannot be read), labels (the node's labels cannot be read).",
		}, []string{"reason"}),
		applies: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "gotc_agent_applies_total",
			Help: "Contents of the file brought in force: a new file, or this node's part of it, applied.",
		}),
		driftsFound: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "gotc_agent_drifts_found_total",
			Help: "Resyncs that found the kernel's state differing from the file in force.",
		}),
		driftsRepaired: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "gotc_agent_drifts_repaired_total",
			Help: "Drifts brought back to the file in force.",
		}),
		requests: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "gotc_agent_requests_sent_total",
			Help: "Change requests sent to the kernel, undo requests included.",
		}),
		lastSuccess: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "gotc_agent_last_success_timestamp_seconds",
			Help: "When the kernel was last found or brought in the state of the file as it is now (0: never).",
		}),
		refused: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "gotc_agent_file_refused",
			Help: "1 while the file as it is now is refused and the last good one is kept in force, 0 otherwise.",
		}),
		devices: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "gotc_agent_devices",
			Help: "Devices this node owns in the file in force.",
		}),
	}
	for _, t := range []string{triggerStart, triggerFile, triggerResync} {
		m.passes.WithLabelValues(t)
	}
	for _, r := range []string{failRead, failBadFile, failKernel, failLabels} {
		m.failures.WithLabelValues(r)
	}
	return m
}

func (m *Metrics) all() []prometheus.Collector {
	return []prometheus.Collector{m.passes, m.failures, m.applies, m.driftsFound, m.driftsRepaired,
		m.requests, m.lastSuccess, m.refused, m.devices}
}

// Describe implements prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range m.all() {
		c.Describe(ch)
	}
}

// Collect implements prometheus.Collector.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	for _, c := range m.all() {
		c.Collect(ch)
	}
}

// Handler serves the metrics in Prometheus's text or OpenMetrics format,
// as the agent's /metrics.
func (m *Metrics) Handler() http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(m)
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{EnableOpenMetrics: true})
}
