// SPDX-License-Identifier: Apache-2.0

package exporter

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gotc/gotc/netlink"
	"github.com/prometheus/client_golang/prometheus"
)

// benchQdiscs is 10,000 qdiscs on 10,000 devices: a third CAKE (diffserv3,
// three tins), a third DualPI2, a third fq_codel (a kind gotc does not know:
// generic statistics only).
func benchQdiscs() *replaySource {
	const n = 10000
	src := &replaySource{links: map[int32]string{}}
	for i := range n {
		idx := int32(i + 1)
		src.links[idx] = fmt.Sprintf("veth%d", i)
		var m *netlink.Msg
		switch i % 3 {
		case 0:
			m = cakeQdisc(idx, 0x10000, 3)
		case 1:
			m = dualpi2Qdisc(idx, 0x10000)
		default:
			m = fakeQdisc(idx, 0x10000, netlink.HandleRoot, "fq_codel", 1, 1)
		}
		src.msgs = append(src.msgs, m)
	}
	return src
}

// BenchmarkCollect10k measures the exporter's own work for one scrape of
// 10,000 qdiscs: turning dumped messages into metrics.
func BenchmarkCollect10k(b *testing.B) {
	src := benchQdiscs()
	c := New(Options{Dial: func() (Source, error) { return src, nil }})
	b.ReportAllocs()
	samples := 0
	for b.Loop() {
		ch := make(chan prometheus.Metric, 1024)
		done := make(chan int)
		go func() {
			n := 0
			for range ch {
				n++
			}
			done <- n
		}()
		c.Collect(ch)
		close(ch)
		samples = <-done
	}
	b.ReportMetric(float64(samples), "samples/scrape")
}

// BenchmarkScrape10k is a whole scrape of 10,000 qdiscs through the HTTP
// handler: collect, the registry's gather (checks, sorting), and encoding in
// the text format.
func BenchmarkScrape10k(b *testing.B) {
	src := benchQdiscs()
	h := Handler(New(Options{Dial: func() (Source, error) { return src, nil }}))
	req := httptest.NewRequest("GET", MetricsPath, nil)
	b.ReportAllocs()
	size := 0
	for b.Loop() {
		w := &countingWriter{header: http.Header{}}
		h.ServeHTTP(w, req)
		size = w.n
	}
	b.ReportMetric(float64(size), "bytes/scrape")
}

// BenchmarkScrape10kNetlink adds the netlink side: the dump's messages are
// encoded once and decoded on every scrape, as from the kernel.
func BenchmarkScrape10kNetlink(b *testing.B) {
	src := benchQdiscs()
	k := &fakeKernel{links: src.links, msgs: src.msgs}
	conn := k.conn()
	h := Handler(New(Options{Dial: func() (Source, error) { return conn, nil }}))
	req := httptest.NewRequest("GET", MetricsPath, nil)
	b.ReportAllocs()
	for b.Loop() {
		h.ServeHTTP(&countingWriter{header: http.Header{}}, req)
	}
}

// countingWriter is an http.ResponseWriter that only counts, so the
// benchmark does not measure a growing buffer.
type countingWriter struct {
	header http.Header
	n      int
}

func (w *countingWriter) Header() http.Header { return w.header }
func (w *countingWriter) WriteHeader(int)     {}
func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += len(p)
	return len(p), nil
}

var _ io.Writer = (*countingWriter)(nil)
