// SPDX-License-Identifier: Apache-2.0

//go:build linux

// Command peers does one task of selftests/bench's peers phase through one
// library, in a process of its own, and prints how long the task took (in
// nanoseconds, from after the library's socket is open to the last answer)
// and what it saw or did, for the bench to check before the time counts:
//
//	peers -lib LIB -task TASK [flags]
//
// LIB is gotc (gotc's library and, for scrape, its exporter package),
// vishvananda (github.com/vishvananda/netlink), go-tc
// (github.com/florianl/go-tc) or node_exporter (its qdisc collector, scrape
// only). TASK is one of
//
//   - dump: the classes of -dev with their statistics; prints the classes
//     whose statistics it decoded;
//   - change: htb classes -parent:1 .. -parent:N of -dev (N -n) to rate and
//     ceil -rate bit/s; prints the classes changed;
//   - add: an htb root "1: default 10" on each of -prefix0 .. -prefixN-1
//     (N -n); prints the qdiscs added;
//   - scrape: one scrape (after an untimed one) of every qdisc in the
//     network namespace, the exposition written to a buffer; prints the
//     htb roots of -prefix devices in it and its size in bytes.
//
// Output: "NANOSECONDS COUNT [BYTES]". A library that cannot do the task
// exits 1 with the reason on standard error, which the bench reports as
// that peer's failure. It lives in a module of its own so that the peers'
// dependencies (node_exporter's above all) stay out of gotc's go.mod.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"time"

	"github.com/alecthomas/kingpin/v2"
	gotctc "github.com/florianl/go-tc"
	"github.com/gotc/gotc"
	"github.com/gotc/gotc/exporter"
	gotcnl "github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tckind"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/node_exporter/collector"
	vnl "github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"
)

var (
	lib    = flag.String("lib", "gotc", "library: gotc, vishvananda, go-tc, node_exporter")
	task   = flag.String("task", "dump", "task: dump, change, add, scrape")
	dev    = flag.String("dev", "ifb0", "dump, change: the device")
	parent = flag.Uint("parent", 1, "change: the htb qdisc's major number")
	n      = flag.Int("n", 2000, "change: classes; add: devices")
	rate   = flag.Uint64("rate", 10_000_000, "change: the new rate and ceil, bit/s")
	prefix = flag.String("prefix", "p", "add, scrape: the devices' name prefix")
)

func main() {
	flag.Parse()
	var d time.Duration
	var count, size int
	var err error
	switch *lib + " " + *task {
	case "gotc dump":
		d, count, err = gotcDump()
	case "gotc change":
		d, count, err = gotcChange()
	case "gotc add":
		d, count, err = gotcAdd()
	case "gotc scrape":
		d, count, size, err = gotcScrape()
	case "vishvananda dump":
		d, count, err = vnlDump()
	case "vishvananda change":
		d, count, err = vnlChange()
	case "vishvananda add":
		d, count, err = vnlAdd()
	case "go-tc dump":
		d, count, err = gotcDumpGoTC()
	case "go-tc change":
		d, count, err = goTCChange()
	case "go-tc add":
		d, count, err = goTCAdd()
	case "node_exporter scrape":
		d, count, size, err = nodeScrape()
	default:
		err = fmt.Errorf("no task %q for %s", *task, *lib)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "peers: %s %s: %v\n", *lib, *task, err)
		os.Exit(1)
	}
	fmt.Println(d.Nanoseconds(), count, size)
}

// devNames are the add task's devices.
func devNames() []string {
	names := make([]string, *n)
	for i := range names {
		names[i] = fmt.Sprintf("%s%d", *prefix, i)
	}
	return names
}

// burstTicks is the htb buffer tc computes for a rate (bytes/s) without a
// burst given: an MTU of 1600 bytes (rate/HZ is 0 at the high-resolution
// clock's HZ), as transmission time in psched ticks (15.625 per µs where
// /proc/net/psched says 1000/64). For go-tc, which leaves it to the caller.
func burstTicks(rateBytes uint64) uint32 {
	return uint32(1e6 * 1600 / float64(rateBytes) * 15.625)
}

// gotc's library.

func gotcDump() (time.Duration, int, error) {
	c, err := gotc.Dial(nil)
	if err != nil {
		return 0, 0, err
	}
	defer c.Close()
	ctx := context.Background()
	start := time.Now()
	idx, err := c.Conn().LinkIndex(ctx, *dev)
	if err != nil {
		return 0, 0, err
	}
	count := 0
	var sum uint64
	for m, err := range c.Conn().Msgs(ctx, gotcnl.Class, gotcnl.DumpFilter{Ifindex: idx}) {
		if err != nil {
			return 0, 0, err
		}
		if m.Attrs.Stats2 != nil {
			g := tckind.GenericStatsOf(&m.Attrs)
			sum += g.Values[tckind.GenericBytes] + g.Values[tckind.GenericPackets]
			count++
		}
	}
	return time.Since(start), count, nil
}

func gotcChange() (time.Duration, int, error) {
	c, err := gotc.Dial(nil)
	if err != nil {
		return 0, 0, err
	}
	defer c.Close()
	ctx := context.Background()
	start := time.Now()
	idx, err := c.Conn().LinkIndex(ctx, *dev)
	if err != nil {
		return 0, 0, err
	}
	opts, err := gotc.ClassOptions("htb", fmt.Sprintf("rate %dbit ceil %dbit", *rate, *rate))
	if err != nil {
		return 0, 0, err
	}
	major := uint16(*parent)
	for i := 1; i <= *n; i++ {
		cl := gotc.Class{Ifindex: idx, Parent: gotc.Handle(major, 0), ClassID: gotc.Handle(major, uint16(i)), Kind: "htb", Options: opts}
		if err := c.ChangeClass(ctx, cl); err != nil {
			return 0, i - 1, fmt.Errorf("class %d: %w", i, err)
		}
	}
	return time.Since(start), *n, nil
}

func gotcAdd() (time.Duration, int, error) {
	c, err := gotc.Dial(nil)
	if err != nil {
		return 0, 0, err
	}
	defer c.Close()
	ctx := context.Background()
	start := time.Now()
	names, err := c.Conn().LinkNames(ctx)
	if err != nil {
		return 0, 0, err
	}
	index := make(map[string]int32, len(names))
	for i, name := range names {
		index[name] = i
	}
	opts, err := gotc.QdiscOptions("htb", "default 10")
	if err != nil {
		return 0, 0, err
	}
	for i, name := range devNames() {
		q := gotc.Qdisc{Ifindex: index[name], Parent: gotc.Root, Handle: gotc.Handle(1, 0), Kind: "htb", Options: opts}
		if err := c.AddQdisc(ctx, q); err != nil {
			return 0, i, fmt.Errorf("%s: %w", name, err)
		}
	}
	return time.Since(start), *n, nil
}

// scrape serves one GET of h into a buffer: the untimed first, then the
// timed one, whose exposition it returns.
func scrape(h http.Handler) (time.Duration, []byte, error) {
	var d time.Duration
	var body []byte
	for range 2 {
		rec := httptest.NewRecorder()
		rec.Body = new(bytes.Buffer)
		req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		start := time.Now()
		h.ServeHTTP(rec, req)
		d = time.Since(start)
		if rec.Code != http.StatusOK {
			return 0, nil, fmt.Errorf("scrape: HTTP %d: %s", rec.Code, rec.Body.Bytes())
		}
		body = rec.Body.Bytes()
	}
	return d, body, nil
}

// countRoots counts the series of metric whose labels name an htb at the
// root of a -prefix device: one per root qdisc exported.
func countRoots(body []byte, metric, devLabel string, root string) int {
	re := regexp.MustCompile(`(?m)^` + metric + `\{[^}]*` + devLabel + `="` + regexp.QuoteMeta(*prefix) + `[0-9]+"[^}]*\}`)
	count := 0
	for _, m := range re.FindAll(body, -1) {
		if bytes.Contains(m, []byte(`kind="htb"`)) && (root == "" || bytes.Contains(m, []byte(root))) {
			count++
		}
	}
	return count
}

func gotcScrape() (time.Duration, int, int, error) {
	c := exporter.New(exporter.Options{})
	defer c.Close()
	d, body, err := scrape(exporter.Handler(c))
	if err != nil {
		return 0, 0, 0, err
	}
	return d, countRoots(body, "gotc_qdisc_bytes_total", "dev", `parent="root"`), len(body), nil
}

func nodeScrape() (time.Duration, int, int, error) {
	// node_exporter enables its collectors through its command-line flags.
	if _, err := kingpin.CommandLine.Parse([]string{"--collector.qdisc"}); err != nil {
		return 0, 0, 0, err
	}
	nc, err := collector.NewNodeCollector(slog.New(slog.DiscardHandler), "qdisc")
	if err != nil {
		return 0, 0, 0, err
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(nc)
	d, body, err := scrape(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	if err != nil {
		return 0, 0, 0, err
	}
	if bytes.Contains(body, []byte(`node_scrape_collector_success{collector="qdisc"} 0`)) {
		return 0, 0, 0, fmt.Errorf("the qdisc collector failed its scrape")
	}
	return d, countRoots(body, "node_qdisc_bytes_total", "device", ""), len(body), nil
}

// vishvananda/netlink.

func vnlDump() (time.Duration, int, error) {
	start := time.Now()
	link, err := vnl.LinkByName(*dev)
	if err != nil {
		return 0, 0, err
	}
	classes, err := vnl.ClassList(link, vnl.HANDLE_NONE)
	if err != nil {
		return 0, len(classes), err
	}
	d := time.Since(start)
	count := 0
	for _, c := range classes {
		if s := c.Attrs().Statistics; s != nil && s.Basic != nil {
			count++
		}
	}
	return d, count, nil
}

func vnlChange() (time.Duration, int, error) {
	start := time.Now()
	link, err := vnl.LinkByName(*dev)
	if err != nil {
		return 0, 0, err
	}
	major := uint16(*parent)
	for i := 1; i <= *n; i++ {
		cl := vnl.NewHtbClass(vnl.ClassAttrs{
			LinkIndex: link.Attrs().Index,
			Parent:    vnl.MakeHandle(major, 0),
			Handle:    vnl.MakeHandle(major, uint16(i)),
		}, vnl.HtbClassAttrs{Rate: *rate, Ceil: *rate})
		if err := vnl.ClassChange(cl); err != nil {
			return 0, i - 1, fmt.Errorf("class %d: %w", i, err)
		}
	}
	return time.Since(start), *n, nil
}

func vnlAdd() (time.Duration, int, error) {
	start := time.Now()
	links, err := vnl.LinkList()
	if err != nil {
		return 0, 0, err
	}
	index := make(map[string]int, len(links))
	for _, l := range links {
		index[l.Attrs().Name] = l.Attrs().Index
	}
	for i, name := range devNames() {
		q := vnl.NewHtb(vnl.QdiscAttrs{LinkIndex: index[name], Handle: vnl.MakeHandle(1, 0), Parent: vnl.HANDLE_ROOT})
		q.Defcls = 0x10
		if err := vnl.QdiscAdd(q); err != nil {
			return 0, i, fmt.Errorf("%s: %w", name, err)
		}
	}
	return time.Since(start), *n, nil
}

// florianl/go-tc.

func goTCOpen() (*gotctc.Tc, error) {
	return gotctc.Open(&gotctc.Config{})
}

func gotcDumpGoTC() (time.Duration, int, error) {
	t, err := goTCOpen()
	if err != nil {
		return 0, 0, err
	}
	defer t.Close()
	start := time.Now()
	ifi, err := net.InterfaceByName(*dev)
	if err != nil {
		return 0, 0, err
	}
	classes, err := t.Class().Get(&gotctc.Msg{Family: unix.AF_UNSPEC, Ifindex: uint32(ifi.Index)})
	if err != nil {
		return 0, len(classes), err
	}
	d := time.Since(start)
	count := 0
	for _, c := range classes {
		if c.Stats2 != nil || c.Stats != nil {
			count++
		}
	}
	return d, count, nil
}

func goTCChange() (time.Duration, int, error) {
	t, err := goTCOpen()
	if err != nil {
		return 0, 0, err
	}
	defer t.Close()
	start := time.Now()
	ifi, err := net.InterfaceByName(*dev)
	if err != nil {
		return 0, 0, err
	}
	bytesPerSec := *rate / 8
	rs := gotctc.RateSpec{Rate: uint32(min(bytesPerSec, 1<<32-1)), CellAlign: 0xffff}
	buf := burstTicks(bytesPerSec)
	major := uint32(*parent)
	for i := 1; i <= *n; i++ {
		obj := &gotctc.Object{
			Msg: gotctc.Msg{Family: unix.AF_UNSPEC, Ifindex: uint32(ifi.Index), Parent: major << 16, Handle: major<<16 | uint32(i)},
			Attribute: gotctc.Attribute{Kind: "htb", Htb: &gotctc.Htb{
				Parms: &gotctc.HtbOpt{Rate: rs, Ceil: rs, Buffer: buf, Cbuffer: buf},
			}},
		}
		if err := t.Class().Replace(obj); err != nil { // go-tc has no change: replace changes an existing class
			return 0, i - 1, fmt.Errorf("class %d: %w", i, err)
		}
	}
	return time.Since(start), *n, nil
}

func goTCAdd() (time.Duration, int, error) {
	t, err := goTCOpen()
	if err != nil {
		return 0, 0, err
	}
	defer t.Close()
	start := time.Now()
	ifis, err := net.Interfaces()
	if err != nil {
		return 0, 0, err
	}
	index := make(map[string]int, len(ifis))
	for _, ifi := range ifis {
		index[ifi.Name] = ifi.Index
	}
	for i, name := range devNames() {
		obj := &gotctc.Object{
			Msg: gotctc.Msg{Family: unix.AF_UNSPEC, Ifindex: uint32(index[name]), Parent: gotctc.HandleRoot, Handle: 1 << 16},
			Attribute: gotctc.Attribute{Kind: "htb", Htb: &gotctc.Htb{
				Init: &gotctc.HtbGlob{Version: 3, Rate2Quantum: 10, Defcls: 0x10},
			}},
		}
		if err := t.Qdisc().Add(obj); err != nil {
			return 0, i, fmt.Errorf("%s: %w", name, err)
		}
	}
	return time.Since(start), *n, nil
}
