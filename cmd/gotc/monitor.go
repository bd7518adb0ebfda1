// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"github.com/gotc/gotc/internal/cmdline"
	"github.com/gotc/gotc/internal/manual"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tcline"
	"github.com/gotc/gotc/watch"
)

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
			fmt.Fprint(t.stderr, manual.Stats.Help())
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
	ctx, stop := cmdline.SignalContext()
	defer stop()
	if err := watch.Run(ctx, c, filter, interval, t.stdout, opts); err != nil {
		fmt.Fprintf(t.stderr, "gotc stats: %v\n", err)
		return errStatus(exitBadOption)
	}
	return nil
}

const monitorUsage = "Usage: tc [-timestamp [-tshort] monitor\n"

// monitorCmd is "tc monitor": the kernel's traffic-control announcements,
// printed as they come as tc prints them, until interrupted. It listens on
// a connection of its own (one that listens is given over to the
// announcements) and keeps the command's connection for device names.
func (t *tc) monitorCmd(args []string) error {
	if len(args) > 0 {
		// gotc has no "file" (tc's replay of a saved netlink stream).
		if tcfmt.Matches(args[0], "help") {
			fmt.Fprint(t.stderr, monitorUsage)
		} else {
			fmt.Fprintf(t.stderr, "Argument \"%s\" is unknown, try \"tc monitor help\".\n", args[0])
		}
		return errStatus(exitUsage)
	}
	t.links().Load()
	fd, err := t.netnsFD()
	if err != nil {
		return err
	}
	c, err := t.dial(fd)
	if err != nil {
		fmt.Fprintf(t.stderr, "Cannot open rtnetlink: %v\n", err)
		return errStatus(exitBadOption)
	}
	defer c.Close()
	src, ok := c.(eventSource)
	if !ok {
		fmt.Fprintln(t.stderr, "Cannot open rtnetlink: this connection has no events")
		return errStatus(exitBadOption)
	}
	ctx, stop := cmdline.SignalContext()
	defer stop()
	p := t.printer()
	p.Start()
	defer p.Finish()
	for ev, err := range src.Events(ctx) {
		switch {
		case ctx.Err() != nil:
			return nil
		case errors.Is(err, netlink.ErrEventsLost):
			// tc goes on after a receive buffer overrun, saying so.
			fmt.Fprintf(t.stderr, "netlink receive error %s (%d)\n", cmdline.Strerror(syscall.ENOBUFS), int(syscall.ENOBUFS))
			continue
		case err != nil && ev.Msg == nil && ev.Action == nil:
			fmt.Fprintf(t.stderr, "netlink receive error %v\n", err)
			return errStatus(exitKernel)
		}
		if ev.Msg != nil && ev.Msg.Header.Ifindex > 0 {
			// Names devices made after the monitor started.
			t.links().Notice(ev.Msg.Header.Ifindex)
		}
		tcline.PrintEvent(p, ev, t.printEnv())
		if err := p.Flush(); err != nil {
			return errStatus(exitBadOption)
		}
	}
	return nil
}

// eventSource is a connection that streams the kernel's announcements
// (netlink.Conn.Events).
type eventSource interface {
	Events(ctx context.Context) iter.Seq2[netlink.Event, error]
}

// exporterBinary is the executable that serves "gotc exporter" (package
// cmd/gotc-exporter): apart from gotc, so that gotc does not link, and
// initialise at every start, the Prometheus client, net/http and crypto.
const exporterBinary = "gotc-exporter"

// Hooks for tests: where gotc-exporter is, and how gotc becomes it.
var (
	lookExporter = findExporter
	execExporter = syscall.Exec
)

// exporterCmd is "gotc exporter": a Prometheus endpoint, served by
// gotc-exporter. gotc checks the words itself, so "help" and usage errors
// answer as ever without the second binary, then replaces itself with
// gotc-exporter (passing -netns along): the exporter gets the signals and
// exits with its own status. Within a batch it runs as a child instead, and
// the batch goes on after it stops, as it did when gotc served itself.
func (t *tc) exporterCmd(args []string) error {
	a, err := cmdline.ParseExporterArgs(args, t.stderr)
	if err != nil || a.Help {
		return err
	}
	path, err := lookExporter()
	if err != nil {
		fmt.Fprintf(t.stderr, "gotc exporter: %v\n", err)
		fmt.Fprintf(t.stderr, "%s serves \"gotc exporter\"; install it beside gotc or in $PATH with\n"+
			"\tCGO_ENABLED=0 go install github.com/gotc/gotc/cmd/%s@latest\n"+
			"or build both commands into one directory: CGO_ENABLED=0 go build -o DIR ./cmd/...\n", exporterBinary, exporterBinary)
		return errStatus(exitBadOption)
	}
	argv := []string{path}
	if t.netns != "" {
		argv = append(argv, "-netns", t.netns)
	}
	argv = append(append(argv, "--"), args...)
	if _, inBatch := t.conn.(*batchConn); inBatch {
		// A device is resolved first through the batch's connection, so
		// the line waits for requests in flight like any line that reads
		// from the kernel.
		if _, err := t.deviceFilter(a.Dev); err != nil {
			return err
		}
		return t.runChild("exporter", path, argv)
	}
	err = execExporter(path, argv, os.Environ())
	fmt.Fprintf(t.stderr, "gotc exporter: cannot run %s: %v\n", path, err)
	return errStatus(exitBadOption)
}

// findExporter finds gotc-exporter in the directory of gotc's own executable,
// else in $PATH.
func findExporter() (string, error) { return cmdline.FindHelper(exporterBinary) }

// runChild runs a helper (gotc-exporter, gotc-model, gotc-apply) as a
// child of a batch and waits for it, passing SIGINT and SIGTERM on while it
// runs.
func (t *tc) runChild(command, path string, argv []string) error {
	cmd := &exec.Cmd{Path: path, Args: argv, Stdout: t.stdout, Stderr: t.stderr}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(t.stderr, "gotc %s: cannot run %s: %v\n", command, path, err)
		return errStatus(exitBadOption)
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				cmd.Process.Signal(s)
			case <-done:
				return
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	var exit *exec.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &exit) && exit.ExitCode() > 0:
		return errStatus(exit.ExitCode())
	}
	fmt.Fprintf(t.stderr, "gotc %s: %v\n", command, err)
	return errStatus(exitBadOption)
}

// deviceFilter resolves an optional device name into a dump filter.
func (t *tc) deviceFilter(dev string) (netlink.DumpFilter, error) {
	if dev == "" {
		return netlink.DumpFilter{}, nil
	}
	idx, err := t.ifindex(dev)
	return netlink.DumpFilter{Ifindex: idx}, err
}
