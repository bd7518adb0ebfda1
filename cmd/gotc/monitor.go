package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/gotc/gotc/exporter"
	"github.com/gotc/gotc/internal/tcfmt"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/watch"
)

const statsUsage = `Usage: gotc stats [ dev STRING ] [ interval TIME ] [ count N ] [ deltas ] [ rates ]
       One JSON line per qdisc per sample, from one netlink socket kept open:
       tc's -s -j statistics (CAKE per tin, DualPI2 xstats), optionally with the
       counters' increase since the previous sample and their rate per second.
       interval defaults to 1s; count 0 (the default) samples until interrupted.
`

const exporterUsage = `Usage: gotc exporter [ listen ADDR ] [ dev STRING ]
       Serves the statistics of every qdisc (or of one device's) as Prometheus
       metrics at http://ADDR/metrics (OpenMetrics on request). ADDR defaults
       to localhost:9978.
`

// signalContext is cancelled by SIGINT or SIGTERM, so long-running commands
// stop cleanly.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// statsCmd is "gotc stats": continuous statistics as JSON lines.
func (t *tc) statsCmd(args []string) error {
	longRunning()
	var dev string
	interval := time.Second
	var opts watch.Options
	for len(args) > 0 {
		switch word := args[0]; word {
		case "dev", "interval", "count":
			if err := t.needArg(args); err != nil {
				return err
			}
			switch word {
			case "dev":
				dev = args[1]
			case "interval":
				ns, err := tcfmt.ParseTime64(args[1])
				if err != nil || ns <= 0 {
					return t.invarg("invalid interval", args[1])
				}
				interval = time.Duration(ns)
			case "count":
				n, err := tcfmt.ParseUint(args[1], 10, 31)
				if err != nil {
					return t.invarg("invalid count", args[1])
				}
				opts.Samples = int(n)
			}
			args = args[2:]
		case "deltas":
			opts.Deltas = true
			args = args[1:]
		case "rates":
			opts.Rates = true
			args = args[1:]
		case "help":
			fmt.Fprint(t.stderr, statsUsage)
			return nil
		default:
			fmt.Fprintf(t.stderr, "What is %q? Try \"gotc stats help\".\n", word)
			return errStatus(exitUsage)
		}
	}
	filter, err := t.deviceFilter(dev)
	if err != nil {
		return err
	}
	c, err := t.kernel()
	if err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	if err := watch.Run(ctx, c, filter, interval, t.stdout, opts); err != nil {
		fmt.Fprintf(t.stderr, "gotc stats: %v\n", err)
		return errStatus(exitBadOption)
	}
	return nil
}

// exporterCmd is "gotc exporter": a Prometheus endpoint.
func (t *tc) exporterCmd(args []string) error {
	longRunning()
	addr := "localhost:9978"
	var dev string
	for len(args) > 0 {
		switch word := args[0]; word {
		case "listen", "--listen", "dev":
			if err := t.needArg(args); err != nil {
				return err
			}
			if word == "dev" {
				dev = args[1]
			} else {
				addr = args[1]
			}
			args = args[2:]
		case "help":
			fmt.Fprint(t.stderr, exporterUsage)
			return nil
		default:
			fmt.Fprintf(t.stderr, "What is %q? Try \"gotc exporter help\".\n", word)
			return errStatus(exitUsage)
		}
	}
	filter, err := t.deviceFilter(dev)
	if err != nil {
		return err
	}
	fd, err := t.netnsFD()
	if err != nil {
		return err
	}
	// The collector opens (and after errors reopens) its own socket, in the
	// namespace that resolved the device.
	collector := exporter.New(exporter.Options{
		Filter: filter,
		Dial:   func() (exporter.Source, error) { return t.dial(fd) },
	})
	defer collector.Close()
	ctx, stop := signalContext()
	defer stop()
	fmt.Fprintf(t.stderr, "gotc exporter: serving http://%s%s\n", addr, exporter.MetricsPath)
	if err := exporter.Serve(ctx, addr, collector); err != nil {
		fmt.Fprintf(t.stderr, "gotc exporter: %v\n", err)
		return errStatus(exitBadOption)
	}
	return nil
}

// deviceFilter resolves an optional device name into a dump filter.
func (t *tc) deviceFilter(dev string) (netlink.DumpFilter, error) {
	if dev == "" {
		return netlink.DumpFilter{}, nil
	}
	idx, err := t.ifindex(dev)
	return netlink.DumpFilter{Ifindex: idx}, err
}
