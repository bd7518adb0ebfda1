// SPDX-License-Identifier: Apache-2.0

package exporter

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
)

// MetricsPath is where Serve answers scrapes.
const MetricsPath = "/metrics"

// maxInFlight is how many scrapes may wait: they queue on the one netlink
// socket, and more than a few waiting means a client is misbehaving, so
// further ones get 503 at once (promhttp's MaxRequestsInFlight).
const maxInFlight = 4

// formats are those Handler writes, by preference.
var formats = []expfmt.Format{expfmt.FmtOpenMetrics_1_0_0, expfmt.FmtOpenMetrics_0_0_1, expfmt.FmtText}

// Handler returns an http.Handler that exposes c, and only c, in the
// Prometheus text format or, for clients that ask for it, OpenMetrics.
//
// The registry is private so that one process can run several exporters
// (say, one per network namespace) without their metrics clashing.
func Handler(c *Collector) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	return HandlerFor(c, reg)
}

// HandlerFor returns an http.Handler that writes c's series and then what g
// gathers (c's own metrics, if c is registered there, and any other), as
// promhttp.HandlerFor would with EnableOpenMetrics: the format negotiated
// from the Accept header (text or OpenMetrics; a client asking for protobuf
// gets text), gzip when the client accepts it, at most 4 scrapes at a time
// (503 beyond). A failed dump, or a gather error, still serves what was
// gathered, so one odd qdisc never blanks a whole scrape.
func HandlerFor(c *Collector, g prometheus.Gatherer) http.Handler {
	inFlight := make(chan struct{}, maxInFlight)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case inFlight <- struct{}{}:
			defer func() { <-inFlight }()
		default:
			http.Error(w, fmt.Sprintf("Limit of concurrent requests reached (%d), try again later.", maxInFlight), http.StatusServiceUnavailable)
			return
		}
		f := expfmt.NegotiateAccept(r.Header, formats...)
		w.Header().Set("Content-Type", string(f))
		var out io.Writer = w
		if acceptsGzip(r) {
			w.Header().Set("Content-Encoding", "gzip")
			gz, _ := gzip.NewWriterLevel(w, gzip.BestSpeed)
			defer gz.Close()
			out = gz
		}
		c.Scrape(out, f)
		mfs, _ := g.Gather()
		enc := expfmt.NewEncoder(out, f)
		for _, mf := range mfs {
			if enc.Encode(mf) != nil {
				return
			}
		}
		if closer, ok := enc.(expfmt.Closer); ok {
			closer.Close()
		}
	})
}

// acceptsGzip reports whether the request's Accept-Encoding offers gzip.
func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.TrimSpace(enc) == "gzip" && strings.TrimSpace(q) != "q=0" {
			return true
		}
	}
	return false
}

// Mux returns a ServeMux with c's Handler at MetricsPath and a short index
// page at "/" pointing there.
func Mux(c *Collector) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle(MetricsPath, Handler(c))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<html><head><title>gotc exporter</title></head><body><h1>gotc exporter</h1><p><a href=%q>Metrics</a></p></body></html>\n", MetricsPath)
	})
	return mux
}

// Serve listens on addr (host:port, as for "gotc exporter --listen") and
// serves c until ctx is cancelled, then shuts down gracefully and returns
// nil. It returns the listener's error if addr cannot be used.
func Serve(ctx context.Context, addr string, c *Collector) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return ServeListener(ctx, ln, c)
}

// ServeListener is Serve on a listener the caller opened, for example on
// port 0 to learn the address (ln.Addr()) before serving. It closes ln.
func ServeListener(ctx context.Context, ln net.Listener, c *Collector) error {
	srv := &http.Server{
		Handler: Mux(c),
		// Bounds for slow or stuck clients; a scrape of 20,000 classes
		// takes well under a second.
		ReadHeaderTimeout: 10 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// Let a scrape in progress finish, but not for ever.
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := srv.Shutdown(sctx)
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}
