// SPDX-License-Identifier: Apache-2.0

package exporter

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"github.com/gotc/gotc/netlink"
	"github.com/prometheus/common/expfmt"
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
// 10,000 qdiscs: turning dumped messages into the exposition.
func BenchmarkCollect10k(b *testing.B) {
	src := benchQdiscs()
	c := New(Options{Dial: func() (Source, error) { return src, nil }})
	text := expfmt.NewFormat(expfmt.TypeTextPlain)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := c.Scrape(io.Discard, text); err != nil {
			b.Fatal(err)
		}
	}
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
	header   http.Header
	n, lines int
}

func (w *countingWriter) Header() http.Header { return w.header }
func (w *countingWriter) WriteHeader(int)     {}
func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += len(p)
	w.lines += bytes.Count(p, []byte("\n")) - bytes.Count(p, []byte("\n#"))
	return len(p), nil
}

var _ io.Writer = (*countingWriter)(nil)

// benchSubscribers is the ISP tree of 20,000 subscribers on one device:
// htb 1: with its class 1:1, a class per subscriber below it, each with an
// fq_codel leaf qdisc (whose flows are not exported).
func benchSubscribers() *replaySource {
	const n = 20000
	h := netlink.MakeHandle
	src := &replaySource{links: map[int32]string{2: "eth0"}}
	src.msgs = append(src.msgs, fakeQdisc(2, h(1, 0), netlink.HandleRoot, "htb", 1, 1))
	src.classes = append(src.classes, htbClass(2, h(1, 1), netlink.HandleRoot, 1))
	for i := range n {
		id := h(1, uint16(i+2))
		src.classes = append(src.classes, htbClass(2, id, h(1, 1), uint32(i)))
		src.msgs = append(src.msgs, fakeQdisc(2, h(uint16(i+2), 0), id, "fq_codel", uint64(i), uint32(i)))
	}
	return src
}

// BenchmarkScrape20kSubscribers is a whole scrape of the 20,000-subscriber
// tree through the HTTP handler (text format, no gzip): 20,001 classes and
// 20,001 qdiscs. It reports the series written, the exposition's bytes and
// the allocations per series.
func BenchmarkScrape20kSubscribers(b *testing.B) {
	benchScrape(b, benchSubscribers(), nil, "")
}

// BenchmarkScrape20kSubscribersGzip is the scrape as Prometheus asks for
// it, compressed (bytes/scrape then counts the compressed bytes).
func BenchmarkScrape20kSubscribersGzip(b *testing.B) {
	benchScrape(b, benchSubscribers(), nil, "gzip")
}

// BenchmarkScrape20kSubscribersNetlink adds the netlink side: the dump's
// messages are encoded once and decoded on every scrape, as from the
// kernel.
func BenchmarkScrape20kSubscribersNetlink(b *testing.B) {
	src := benchSubscribers()
	k := &fakeKernel{links: src.links, msgs: src.msgs, classes: src.classes}
	conn := k.conn()
	benchScrape(b, nil, conn, "")
}

func benchScrape(b *testing.B, replay *replaySource, conn Source, encoding string) {
	if replay != nil {
		conn = replay
	}
	h := Handler(New(Options{Dial: func() (Source, error) { return conn, nil }}))
	req := httptest.NewRequest("GET", MetricsPath, nil)
	w := &countingWriter{header: http.Header{}}
	h.ServeHTTP(w, req) // the first scrape sizes the reused memory
	lines := w.lines
	if encoding != "" {
		req.Header.Set("Accept-Encoding", encoding)
		w = &countingWriter{header: http.Header{}}
		h.ServeHTTP(w, req)
	}
	size := w.n
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	n := 0
	for b.Loop() {
		h.ServeHTTP(&countingWriter{header: http.Header{}}, req)
		n++
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(size), "bytes/scrape")
	b.ReportMetric(float64(lines), "series/scrape")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(n)/float64(lines), "allocs/series")
}
