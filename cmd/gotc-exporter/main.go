// SPDX-License-Identifier: Apache-2.0

// Command gotc-exporter serves the statistics of the kernel's qdiscs as
// Prometheus metrics: it is "gotc exporter" in a binary of its own, so that
// gotc does not link, and initialise at every start, the Prometheus client,
// net/http and crypto. For "gotc exporter ARGS" gotc executes gotc-exporter
// from the directory its own executable is in, or else from $PATH, so install
// the two together:
//
//	CGO_ENABLED=0 go install github.com/gotc/gotc/cmd/gotc@latest
//	CGO_ENABLED=0 go install github.com/gotc/gotc/cmd/gotc-exporter@latest
//
// or build both into one directory with "CGO_ENABLED=0 go build -o DIR ./cmd/...".
//
// It takes the words of "gotc exporter", after gotc's -netns option when the
// exporter is to serve another network namespace:
//
//	gotc-exporter [-netns NAME] [--] [listen ADDR] [dev DEV]
//	              [include SEL] [exclude SEL] [aggregate SEL] [names FILE]
//	gotc-exporter help
//
// and serves http://ADDR/metrics (ADDR defaults to localhost:9978) until
// SIGINT or SIGTERM. Exit status, as gotc's: 0 when stopped by a signal; 1
// when it cannot serve (an unknown device, an address it cannot listen on);
// 255 for a usage error or a namespace it cannot open.
//
// "names FILE" reads an apply file (gotc-apply(5)) for the names of its
// qdiscs and classes, exported as the label "name".
package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"

	"github.com/gotc/gotc/apply"
	"github.com/gotc/gotc/exporter"
	"github.com/gotc/gotc/internal/cmdline"
	"github.com/gotc/gotc/netlink"
)

// source is what the exporter needs from the kernel: the collector's dumps,
// and the device index for "dev DEV". *netlink.Conn is one; tests use a fake.
type source interface {
	exporter.Source
	LinkIndex(ctx context.Context, name string) (int32, error)
}

// dialFunc opens a netlink socket in the namespace of netnsFD (0: our own).
type dialFunc func(netnsFD int) (source, error)

func dialKernel(netnsFD int) (source, error) {
	return netlink.Dial(&netlink.Config{NetNS: netnsFD})
}

func main() {
	os.Exit(run(os.Args[1:], os.Stderr, dialKernel, cmdline.SignalContext))
}

// run is main without the process: it returns the exit status. The exporter
// serves until the context of signals is done.
func run(args []string, stderr io.Writer, dial dialFunc, signals func() (context.Context, context.CancelFunc)) int {
	var netns string
	for len(args) > 0 {
		if args[0] == "--" {
			args = args[1:]
			break
		}
		if args[0] != "-n" && args[0] != "-netns" && args[0] != "--netns" {
			break
		}
		if err := cmdline.NeedArg(args, stderr); err != nil {
			return cmdline.ExitUsage
		}
		netns, args = args[1], args[2:]
	}
	a, err := cmdline.ParseExporterArgs(args, stderr)
	if err != nil {
		return exitCode(err)
	}
	if a.Help {
		return cmdline.ExitOK
	}
	if err := serve(a, netns, stderr, dial, signals); err != nil {
		return exitCode(err)
	}
	return cmdline.ExitOK
}

// serve resolves the device and the namespace and serves, printing gotc's
// messages (a failure's message is printed by the time it returns).
func serve(a cmdline.ExporterArgs, netns string, stderr io.Writer, dial dialFunc, signals func() (context.Context, context.CancelFunc)) error {
	fd := 0
	if netns != "" {
		// Open for the life of the process: the collector dials again
		// after a failed scrape.
		f, err := cmdline.OpenNetNS(netns, stderr)
		if err != nil {
			return err
		}
		defer f.Close()
		fd = int(f.Fd())
	}
	var filter netlink.DumpFilter
	if a.Dev != "" {
		c, err := dial(fd)
		if err != nil {
			fmt.Fprintf(stderr, "Cannot open rtnetlink: %v\n", err)
			return cmdline.Status(cmdline.ExitBadOption)
		}
		filter.Ifindex, err = c.LinkIndex(context.Background(), a.Dev)
		c.Close()
		if err != nil {
			fmt.Fprintf(stderr, "Cannot find device %q\n", a.Dev)
			return cmdline.Status(cmdline.ExitBadOption)
		}
	}
	names, err := loadNames(a.Names)
	if err != nil {
		fmt.Fprintf(stderr, "gotc exporter: %v\n", err)
		return cmdline.Status(cmdline.ExitBadOption)
	}
	// The collector opens (and after errors reopens) its own socket, in the
	// namespace that resolved the device.
	collector := exporter.New(exporter.Options{
		Filter:    filter,
		Dial:      func() (exporter.Source, error) { return dial(fd) },
		Include:   matches(a.Include),
		Exclude:   matches(a.Exclude),
		Aggregate: matches(a.Aggregate),
		Names:     names,
	})
	defer collector.Close()
	// Listen before saying "serving", so that an address that cannot be
	// used is the only thing said of it; the address printed is the one
	// listened on (port 0 picks one).
	ln, err := net.Listen("tcp", a.Listen)
	if err != nil {
		fmt.Fprintf(stderr, "gotc exporter: %v\n", err)
		return cmdline.Status(cmdline.ExitBadOption)
	}
	ctx, stop := signals()
	defer stop()
	fmt.Fprintf(stderr, "gotc exporter: serving http://%s%s\n", ln.Addr(), exporter.MetricsPath)
	if err := exporter.ServeListener(ctx, ln, collector); err != nil {
		fmt.Fprintf(stderr, "gotc exporter: %v\n", err)
		return cmdline.Status(cmdline.ExitBadOption)
	}
	return nil
}

// matches converts the command line's selectors.
func matches(sels []cmdline.Selector) []exporter.Match {
	var out []exporter.Match
	for _, s := range sels {
		out = append(out, exporter.Match(s))
	}
	return out
}

// loadNames reads the names of an apply file's qdiscs and classes; nil for
// no file.
func loadNames(file string) (map[exporter.NameKey]string, error) {
	if file == "" {
		return nil, nil
	}
	r, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, err := apply.Load(file, r)
	if err != nil {
		return nil, err
	}
	names := map[exporter.NameKey]string{}
	for dev, byHandle := range f.Names() {
		for h, name := range byHandle {
			names[exporter.NameKey{Dev: dev, Handle: h}] = name
		}
	}
	return names, nil
}

// exitCode is the status err carries, ExitBadOption if none.
func exitCode(err error) int {
	if s, ok := err.(cmdline.Status); ok {
		return s.ExitCode()
	}
	return cmdline.ExitBadOption
}
