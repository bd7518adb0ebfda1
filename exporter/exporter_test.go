// SPDX-License-Identifier: Apache-2.0

package exporter

import (
	"context"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/netlink"
	mnl "github.com/mdlayher/netlink"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// testKernel is the dump of the main test: a CAKE qdisc with three tins, a
// DualPI2 qdisc, an sfq qdisc (a kind gotc does not know) with raw options
// and an unknown top-level attribute, an fq_codel qdisc of an unnamed device
// whose last attribute is truncated, a message too short for its header, and
// a repeat of the CAKE qdisc.
func testKernel() *fakeKernel {
	sfq := fakeQdisc(4, 0x100000, netlink.MakeHandle(1, 1), "sfq", 777, 7)
	sfq.Attrs.Options = attrs.TCOptionsMsgRaw{0, 0, 0, 0, 1, 2, 3, 4}
	sfq.Attrs.Unknown = []attrs.Attribute{{Type: 250, Data: []byte{1, 2, 3, 4}}}
	trunc := fakeQdisc(5, 0x80010000, netlink.HandleIngress, "fq_codel", 999, 9)
	return &fakeKernel{
		links: map[int32]string{2: "eth0", 3: "wan0", 4: "veth1"},
		msgs:  []*netlink.Msg{cakeQdisc(2, 0x10000, 3), dualpi2Qdisc(3, 0x20000), sfq, trunc},
		mangle: func(out []mnl.Message) []mnl.Message {
			// An attribute header claiming 64 bytes with 4 left.
			out[3].Data = append(out[3].Data, 64, 0, 99, 0, 1, 2, 3, 4)
			short := out[0]
			short.Data = []byte{0, 0, 0, 0, 9, 0, 0, 0}
			return append(out, short, out[0])
		},
	}
}

// scrape fetches url with the given Accept header and returns the body and
// content type.
func scrape(t *testing.T, url, accept string) (string, string) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %s: %s", resp.Status, body)
	}
	return string(body), resp.Header.Get("Content-Type")
}

func parse(t *testing.T, body string) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, body)
	}
	return mfs
}

// value returns the value of the sample of family name whose labels include
// want, failing the test unless there is exactly one.
func value(t *testing.T, mfs map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	t.Helper()
	mf := mfs[name]
	if mf == nil {
		t.Fatalf("no metric %s", name)
	}
	var found []*dto.Metric
next:
	for _, m := range mf.GetMetric() {
		got := map[string]string{}
		for _, l := range m.GetLabel() {
			got[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if got[k] != v {
				continue next
			}
		}
		found = append(found, m)
	}
	if len(found) != 1 {
		t.Fatalf("%s%v: %d samples", name, want, len(found))
	}
	switch mf.GetType() {
	case dto.MetricType_COUNTER:
		return found[0].GetCounter().GetValue()
	case dto.MetricType_GAUGE:
		return found[0].GetGauge().GetValue()
	}
	return found[0].GetUntyped().GetValue()
}

func labelsOf(dev, handle, kind, parent string) map[string]string {
	return map[string]string{"dev": dev, "handle": handle, "kind": kind, "parent": parent}
}

func with(l map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range l {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

func TestScrapeOverHTTP(t *testing.T) {
	k := testKernel()
	dials := 0
	c := New(Options{Dial: func() (Source, error) { dials++; return k.conn(), nil }})
	defer c.Close()
	srv := httptest.NewServer(Mux(c))
	defer srv.Close()
	if !strings.HasPrefix(srv.URL, "http://127.0.0.1:") {
		t.Fatalf("server at %s", srv.URL)
	}

	body, ctype := scrape(t, srv.URL+MetricsPath, "")
	if !strings.HasPrefix(ctype, "text/plain") {
		t.Errorf("content type %q", ctype)
	}
	mfs := parse(t, body)

	cake := labelsOf("eth0", "1:", "cake", "root")
	for _, tc := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"gotc_qdisc_bytes_total", cake, 123456789},
		{"gotc_qdisc_packets_total", cake, 4321},
		{"gotc_qdisc_drops_total", cake, 7},
		{"gotc_qdisc_overlimits_total", cake, 11},
		{"gotc_qdisc_requeues_total", cake, 1},
		{"gotc_qdisc_backlog_bytes", cake, 4500},
		{"gotc_qdisc_backlog_packets", cake, 3},
		{"gotc_qdisc_unknown_attributes", cake, 0},
		{"gotc_cake_memory_used_bytes", cake, 65536},
		{"gotc_cake_memory_limit_bytes", cake, 4 << 20},
		{"gotc_cake_capacity_estimate_bytes_per_second", cake, 12500000},
		{"gotc_cake_min_network_size_bytes", cake, 42},
		{"gotc_cake_max_network_size_bytes", cake, 1514},
		{"gotc_cake_min_adjusted_size_bytes", cake, 84},
		{"gotc_cake_max_adjusted_size_bytes", cake, 1552},
		{"gotc_cake_avg_network_header_offset_bytes", cake, 14},

		{"gotc_cake_tin_sent_packets_total", with(cake, "tin", "0", "tin_name", "Bulk"), 1},
		{"gotc_cake_tin_sent_packets_total", with(cake, "tin", "1", "tin_name", "Best Effort"), 101},
		{"gotc_cake_tin_sent_packets_total", with(cake, "tin", "2", "tin_name", "Voice"), 201},
		{"gotc_cake_tin_sent_bytes_total", with(cake, "tin", "1"), 102000},
		{"gotc_cake_tin_dropped_packets_total", with(cake, "tin", "1"), 103},
		{"gotc_cake_tin_dropped_bytes_total", with(cake, "tin", "1"), 104},
		{"gotc_cake_tin_ack_dropped_packets_total", with(cake, "tin", "1"), 105},
		{"gotc_cake_tin_ecn_marked_packets_total", with(cake, "tin", "2"), 207},
		{"gotc_cake_tin_backlog_packets", with(cake, "tin", "2"), 209},
		{"gotc_cake_tin_backlog_bytes", with(cake, "tin", "2"), 210},
		{"gotc_cake_tin_threshold_rate_bytes_per_second", with(cake, "tin", "2"), 211000},
		{"gotc_cake_tin_way_indirect_hits_total", with(cake, "tin", "0"), 12},
		{"gotc_cake_tin_way_misses_total", with(cake, "tin", "0"), 13},
		{"gotc_cake_tin_way_collisions_total", with(cake, "tin", "0"), 14},
		{"gotc_cake_tin_target_seconds", with(cake, "tin", "0"), 0.005},
		{"gotc_cake_tin_interval_seconds", with(cake, "tin", "0"), 0.1},
		{"gotc_cake_tin_peak_delay_seconds", with(cake, "tin", "1"), 0.0016},
		{"gotc_cake_tin_avg_delay_seconds", with(cake, "tin", "1"), 0.00035},
		{"gotc_cake_tin_base_delay_seconds", with(cake, "tin", "1"), 0.00012},
		{"gotc_cake_tin_sparse_flows", with(cake, "tin", "1"), 115},
		{"gotc_cake_tin_bulk_flows", with(cake, "tin", "1"), 116},
		{"gotc_cake_tin_unresponsive_flows", with(cake, "tin", "1"), 117},
		{"gotc_cake_tin_max_packet_size_bytes", with(cake, "tin", "1"), 1514},
		{"gotc_cake_tin_flow_quantum_bytes", with(cake, "tin", "1"), 1514},
	} {
		if got := value(t, mfs, tc.name, tc.labels); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s%v = %v, want %v", tc.name, tc.labels, got, tc.want)
		}
	}
	if n := len(mfs["gotc_cake_tin_sent_packets_total"].GetMetric()); n != 3 {
		t.Errorf("%d tins exported", n)
	}

	pi2 := labelsOf("wan0", "2:", "dualpi2", "root")
	for _, tc := range []struct {
		name string
		want float64
	}{
		{"gotc_qdisc_bytes_total", 5000000},
		{"gotc_dualpi2_probability", float64(1<<31) / math.MaxUint32},
		{"gotc_dualpi2_delay_c_seconds", 0.0025},
		{"gotc_dualpi2_delay_l_seconds", 0.0003},
		{"gotc_dualpi2_packets_in_c_total", 1000},
		{"gotc_dualpi2_packets_in_l_total", 2000},
		{"gotc_dualpi2_maxq_packets", 40},
		{"gotc_dualpi2_ecn_marked_packets_total", 55},
		{"gotc_dualpi2_step_marked_packets_total", 5},
		{"gotc_dualpi2_credit_bytes", -1200},
		{"gotc_dualpi2_memory_used_bytes", 9000},
		{"gotc_dualpi2_max_memory_used_bytes", 20000},
		{"gotc_dualpi2_memory_limit_bytes", 30280000},
	} {
		if got := value(t, mfs, tc.name, pi2); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s = %v, want %v", tc.name, got, tc.want)
		}
	}

	// The unknown kind: generic statistics, and its unknown attribute
	// counted, with nothing kind-specific.
	sfq := labelsOf("veth1", "10:", "sfq", "1:1")
	if got := value(t, mfs, "gotc_qdisc_bytes_total", sfq); got != 777 {
		t.Errorf("sfq bytes %v", got)
	}
	if got := value(t, mfs, "gotc_qdisc_backlog_packets", sfq); got != 3 {
		t.Errorf("sfq qlen %v", got)
	}
	if got := value(t, mfs, "gotc_qdisc_unknown_attributes", sfq); got != 1 {
		t.Errorf("sfq unknown attributes %v", got)
	}

	// The truncated message: what decoded is exported, under iproute2's
	// name for a device it cannot name.
	fq := labelsOf("if5", "8001:", "fq_codel", "ffff:fff1")
	if got := value(t, mfs, "gotc_qdisc_bytes_total", fq); got != 999 {
		t.Errorf("truncated message bytes %v", got)
	}

	// Kind metrics only for their kinds.
	for _, name := range []string{"gotc_cake_memory_used_bytes", "gotc_dualpi2_probability"} {
		if n := len(mfs[name].GetMetric()); n != 1 {
			t.Errorf("%s: %d samples", name, n)
		}
	}
	if n := len(mfs["gotc_qdisc_bytes_total"].GetMetric()); n != 4 {
		t.Errorf("%d qdiscs exported", n)
	}
	for name, want := range map[string]float64{
		"gotc_exporter_decode_errors_total": 3, // truncated, short, duplicate
		"gotc_exporter_scrape_errors_total": 0,
		"gotc_exporter_scrape_success":      1,
		"gotc_exporter_qdiscs":              4,
	} {
		if got := value(t, mfs, name, nil); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}

	// OpenMetrics for clients that ask, with units and the end marker.
	om, ctype := scrape(t, srv.URL+MetricsPath, "application/openmetrics-text;version=1.0.0")
	if !strings.HasPrefix(ctype, "application/openmetrics-text") {
		t.Errorf("OpenMetrics content type %q", ctype)
	}
	for _, want := range []string{
		"# TYPE gotc_qdisc_bytes counter\n",
		"# UNIT gotc_qdisc_bytes bytes\n",
		"# UNIT gotc_cake_tin_peak_delay_seconds seconds\n",
		`gotc_cake_tin_sent_packets_total{dev="eth0",handle="1:",kind="cake",parent="root",tin="1",tin_name="Best Effort"} 101` + "\n",
	} {
		if !strings.Contains(om, want) {
			t.Errorf("OpenMetrics output lacks %q", want)
		}
	}
	if !strings.HasSuffix(om, "# EOF\n") {
		t.Error("OpenMetrics output does not end in # EOF")
	}

	// The socket stays open between scrapes; the decode-error counter
	// accumulates.
	mfs = parse(t, func() string { b, _ := scrape(t, srv.URL+MetricsPath, ""); return b }())
	if got := value(t, mfs, "gotc_exporter_decode_errors_total", nil); got != 9 {
		t.Errorf("decode errors after 3 scrapes = %v", got)
	}
	if dials != 1 {
		t.Errorf("%d dials for 3 scrapes", dials)
	}
}

func TestConcurrentScrapes(t *testing.T) {
	k := testKernel()
	c := New(Options{Dial: func() (Source, error) { return k.conn(), nil }})
	defer c.Close()
	srv := httptest.NewServer(Handler(c))
	defer srv.Close()
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 3 {
				body, _ := scrape(t, srv.URL, "")
				if !strings.Contains(body, `gotc_exporter_scrape_success 1`) {
					t.Error("a scrape failed")
				}
			}
		})
	}
	wg.Wait()
}

// flakySource fails as told, to exercise reconnection.
type flakySource struct {
	replaySource
	failLinks, failDump bool
	closed              *int
}

var errSocket = errors.New("socket broke")

func (f *flakySource) LinkNames(context.Context) (map[int32]string, error) {
	if f.failLinks {
		return nil, errSocket
	}
	return f.links, nil
}

func (f *flakySource) Dump(ctx context.Context, o netlink.Object, flt netlink.DumpFilter, fn func(*netlink.Msg, error) error) error {
	if err := f.replaySource.Dump(ctx, o, flt, fn); err != nil {
		return err
	}
	if f.failDump {
		return errSocket
	}
	return nil
}

func (f *flakySource) Close() error { *f.closed++; return nil }

// gather scrapes c through its Handler and parses the text format.
func gather(t *testing.T, c *Collector) map[string]*dto.MetricFamily {
	t.Helper()
	rec := httptest.NewRecorder()
	Handler(c).ServeHTTP(rec, httptest.NewRequest("GET", MetricsPath, nil))
	return parse(t, rec.Body.String())
}

func TestReconnect(t *testing.T) {
	links := map[int32]string{2: "eth0"}
	msgs := []*netlink.Msg{cakeQdisc(2, 0x10000, 1)}
	closed := 0
	// Dial 1: a socket that went bad before the scrape (retried at once);
	// dial 2: one that fails mid-dump; dial 3: a good one.
	plan := []*flakySource{
		{replaySource{links: links, msgs: msgs}, true, false, &closed},
		{replaySource{links: links, msgs: msgs}, false, true, &closed},
		{replaySource{links: links, msgs: msgs}, false, false, &closed},
	}
	dials := 0
	c := New(Options{Dial: func() (Source, error) {
		if dials == len(plan) {
			return nil, errSocket
		}
		dials++
		return plan[dials-1], nil
	}})

	mfs := gather(t, c)
	if dials != 2 || closed != 2 {
		t.Fatalf("after scrape 1: %d dials, %d closed", dials, closed)
	}
	if got := value(t, mfs, "gotc_exporter_scrape_success", nil); got != 0 {
		t.Errorf("failed dump reported as success")
	}
	if got := value(t, mfs, "gotc_exporter_scrape_errors_total", nil); got != 1 {
		t.Errorf("scrape errors %v", got)
	}
	// What arrived before the failure is still exported.
	if got := value(t, mfs, "gotc_qdisc_bytes_total", nil); got != 123456789 {
		t.Errorf("bytes %v", got)
	}

	mfs = gather(t, c)
	if dials != 3 || value(t, mfs, "gotc_exporter_scrape_success", nil) != 1 {
		t.Errorf("scrape 2: %d dials, success %v", dials, value(t, mfs, "gotc_exporter_scrape_success", nil))
	}
	if err := c.Close(); err != nil || closed != 3 {
		t.Errorf("close: %v, %d closed", err, closed)
	}

	// With the kernel gone, a scrape reports failure but still answers.
	mfs = gather(t, c)
	if value(t, mfs, "gotc_exporter_scrape_success", nil) != 0 || value(t, mfs, "gotc_exporter_scrape_errors_total", nil) != 2 {
		t.Error("dial failure not reported")
	}
	if mfs["gotc_qdisc_bytes_total"] != nil {
		t.Error("a failed dial exported the last scrape's qdiscs")
	}
}

func TestPedanticRegistryAndDescribe(t *testing.T) {
	// The pedantic registry checks the exporter's own metrics against
	// their descriptors; the parser refuses a family written twice.
	k := testKernel()
	c := New(Options{Dial: func() (Source, error) { return k.conn(), nil }})
	defer c.Close()
	mfs := gather(t, c)
	if len(mfs) < 50 {
		t.Errorf("only %d families", len(mfs))
	}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	own, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan *prometheus.Desc, 20)
	c.Describe(ch)
	close(ch)
	if len(ch) != len(healthDefs) || len(own) != len(healthDefs) {
		t.Errorf("described %d, defined %d, gathered %d", len(ch), len(healthDefs), len(own))
	}
}

func TestFilterAppliesToUndecodableMessages(t *testing.T) {
	k := testKernel()
	c := New(Options{Filter: netlink.DumpFilter{Ifindex: 2}, Dial: func() (Source, error) { return k.conn(), nil }})
	defer c.Close()
	mfs := gather(t, c)
	for _, m := range mfs["gotc_qdisc_bytes_total"].GetMetric() {
		if m.GetLabel()[0].GetValue() != "eth0" {
			t.Errorf("filtered dump exported %v", m.GetLabel())
		}
	}
}

func TestInvalidUTF8DeviceName(t *testing.T) {
	src := &replaySource{
		links: map[int32]string{2: "bad\xffname", 3: "bad\xfename"},
		msgs:  []*netlink.Msg{fakeQdisc(2, 0x10000, netlink.HandleRoot, "fq", 1, 1), fakeQdisc(3, 0x10000, netlink.HandleRoot, "fq", 2, 2)},
	}
	c := New(Options{Dial: func() (Source, error) { return src, nil }})
	mfs := gather(t, c)
	if got := value(t, mfs, "gotc_qdisc_bytes_total", map[string]string{"dev": `bad\xffname`}); got != 1 {
		t.Errorf("bytes %v", got)
	}
}

func TestServeStopsOnCancel(t *testing.T) {
	src := &replaySource{links: map[int32]string{2: "eth0"}, msgs: []*netlink.Msg{cakeQdisc(2, 0x10000, 1)}}
	c := New(Options{Dial: func() (Source, error) { return src, nil }})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ServeListener(ctx, ln, c) }()
	body, _ := scrape(t, "http://"+ln.Addr().String()+MetricsPath, "")
	if !strings.Contains(body, "gotc_cake_tin_sent_packets_total") {
		t.Error("no tin metrics served")
	}
	index, _ := scrape(t, "http://"+ln.Addr().String()+"/", "")
	if !strings.Contains(index, MetricsPath) {
		t.Error("index page lacks the metrics link")
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve returned %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not stop")
	}
	if err := Serve(context.Background(), "256.0.0.1:1", c); err == nil {
		t.Error("Serve accepted a bad address")
	}
}

func TestKnownKindWithUndecodableStats(t *testing.T) {
	m := fakeQdisc(2, 0x10000, netlink.HandleRoot, "cake", 5, 5)
	m.Attrs.Stats2.App = attrs.StatsAppMsgRaw{1, 2, 3}
	src := &replaySource{links: map[int32]string{2: "eth0"}, msgs: []*netlink.Msg{m}}
	c := New(Options{Dial: func() (Source, error) { return src, nil }})
	mfs := gather(t, c)
	if value(t, mfs, "gotc_qdisc_bytes_total", nil) != 5 || value(t, mfs, "gotc_exporter_decode_errors_total", nil) != 1 {
		t.Error("generic stats not exported or decode error not counted")
	}
	if mfs["gotc_cake_memory_used_bytes"] != nil {
		t.Error("cake metrics from undecodable stats")
	}
}
