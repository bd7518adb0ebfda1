// SPDX-License-Identifier: Apache-2.0

package exporter

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// MetricsPath is where Serve answers scrapes.
const MetricsPath = "/metrics"

// Handler returns an http.Handler that exposes c, and only c, in the
// Prometheus text format or, for clients that ask for it, OpenMetrics.
//
// The registry is private so that one process can run several exporters
// (say, one per network namespace) without their metrics clashing. A gather
// error (which the Collector is built to avoid) still serves what was
// gathered, so one odd qdisc never blanks a whole scrape.
func Handler(c prometheus.Collector) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		EnableOpenMetrics: true,
		ErrorHandling:     promhttp.ContinueOnError,
		// Scrapes queue on the one netlink socket; more than a few waiting
		// means a client is misbehaving, so further ones get 503 at once.
		MaxRequestsInFlight: 4,
	})
}

// Mux returns a ServeMux with c's Handler at MetricsPath and a short index
// page at "/" pointing there.
func Mux(c prometheus.Collector) *http.ServeMux {
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
func Serve(ctx context.Context, addr string, c prometheus.Collector) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return ServeListener(ctx, ln, c)
}

// ServeListener is Serve on a listener the caller opened, for example on
// port 0 to learn the address (ln.Addr()) before serving. It closes ln.
func ServeListener(ctx context.Context, ln net.Listener, c prometheus.Collector) error {
	srv := &http.Server{
		Handler: Mux(c),
		// Bounds for slow or stuck clients; a scrape of thousands of
		// qdiscs takes well under a second.
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
