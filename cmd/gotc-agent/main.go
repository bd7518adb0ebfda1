// SPDX-License-Identifier: Apache-2.0

// Command gotc-agent keeps this node's traffic control in the state of a
// file: "gotc apply" as a reconciler (package agent). It watches the
// file's directory (a mounted ConfigMap, a CRM sync's output), applies the
// node's part of the file when it changes, repairs drift every resync
// period, and serves its metrics at http://ADDR/metrics and what it last
// did at /status:
//
//	gotc-agent [-netns NAME] [-node NAME] [-label KEY=VALUE]... [-kube-labels]
//	           [-listen ADDR] [-settle TIME] [-resync TIME] [-delete-on-exit] FILE
//
// It is a program of its own, as gotc-exporter is, so that gotc does not
// link an HTTP server and a file watcher. It runs until SIGINT or SIGTERM,
// and then leaves the trees as they are, unless -delete-on-exit. Exit
// status: 0 when stopped by a signal; 1 when it cannot run (the file's
// directory cannot be watched, the address cannot be listened on, the
// kernel cannot be reached, the trees cannot be deleted); 255 for a usage
// error.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/gotc/gotc/agent"
	"github.com/gotc/gotc/apply"
	"github.com/gotc/gotc/exporter"
	"github.com/gotc/gotc/internal/cmdline"
	"github.com/gotc/gotc/internal/manual"
	"github.com/gotc/gotc/netlink"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stderr, cmdline.SignalContext))
}

// labelFlags are -label's, KEY=VALUE each.
type labelFlags map[string]string

func (l labelFlags) String() string { return fmt.Sprint(map[string]string(l)) }

func (l labelFlags) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("%q is not KEY=VALUE", s)
	}
	l[k] = v
	return nil
}

// run is main without the process: it returns the exit status. The agent
// runs until the context of signals is done.
func run(args []string, stderr io.Writer, signals func() (context.Context, context.CancelFunc)) int {
	fs := flag.NewFlagSet("gotc-agent", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	netns := fs.String("netns", "", "")
	host, _ := os.Hostname()
	node := fs.String("node", host, "")
	labels := labelFlags{}
	fs.Var(labels, "label", "")
	kube := fs.Bool("kube-labels", false, "")
	listen := fs.String("listen", "localhost:9979", "")
	settle := fs.Duration("settle", time.Second, "")
	resync := fs.Duration("resync", time.Minute, "")
	deleteOnExit := fs.Bool("delete-on-exit", false, "")
	verbose := fs.Bool("v", false, "")
	if len(args) > 0 && manual.IsHelp(args[0]) {
		fmt.Fprint(stderr, manual.Agent.Help())
		return cmdline.ExitOK
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stderr, manual.Agent.Help())
			return cmdline.ExitOK
		}
		fmt.Fprintf(stderr, "gotc-agent: %v\n%s", err, manual.Agent.Help())
		return cmdline.ExitUsage
	}
	if fs.NArg() != 1 || *settle <= 0 || *resync <= 0 || *node == "" {
		fmt.Fprint(stderr, manual.Agent.Help())
		return cmdline.ExitUsage
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	a := &agent.Agent{
		File:         fs.Arg(0),
		Node:         apply.Node{Name: *node, Labels: labels},
		Settle:       *settle,
		Resync:       *resync,
		DeleteOnExit: *deleteOnExit,
		Metrics:      agent.NewMetrics(),
		Log:          slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})),
	}
	if *kube {
		var err error
		if a.Labels, err = agent.KubeLabels(*node, agent.ServiceAccountDir); err != nil {
			fmt.Fprintf(stderr, "gotc-agent: -kube-labels: %v\n", err)
			return cmdline.ExitBadOption
		}
	}
	conn, err := dial(*netns, stderr)
	if err != nil {
		return exitCode(err)
	}
	defer conn.Close()
	a.Kernel = apply.KernelConn{Conn: conn}
	var ln net.Listener
	if *listen != "" {
		if ln, err = net.Listen("tcp", *listen); err != nil {
			fmt.Fprintf(stderr, "gotc-agent: %v\n", err)
			return cmdline.ExitBadOption
		}
	}
	ctx, stop := signals()
	defer stop()
	if ln != nil {
		a.Log.Info("serving", "metrics", "http://"+ln.Addr().String()+exporter.MetricsPath, "status", "http://"+ln.Addr().String()+"/status")
		go serve(ctx, ln, a)
	}
	a.Log.Info("started", "file", a.File, "node", *node, "labels", map[string]string(labels), "settle", *settle, "resync", *resync)
	if err := a.Run(ctx); err != nil {
		fmt.Fprintf(stderr, "gotc-agent: %v\n", err)
		return cmdline.ExitBadOption
	}
	return cmdline.ExitOK
}

// dial opens the netlink connection, in the named namespace if any.
func dial(netns string, stderr io.Writer) (*netlink.Conn, error) {
	if netns == "" {
		c, err := netlink.Dial(nil)
		if err != nil {
			fmt.Fprintf(stderr, "gotc-agent: %v\n", err)
			return nil, cmdline.Status(cmdline.ExitBadOption)
		}
		return c, nil
	}
	f, err := cmdline.OpenNetNS(netns, stderr)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ns, err := netlink.NetNSFromFD(int(f.Fd()))
	if err == nil {
		defer ns.Close()
		var c *netlink.Conn
		if c, err = ns.Dial(nil); err == nil {
			return c, nil
		}
	}
	fmt.Fprintf(stderr, "gotc-agent: %v\n", err)
	return nil, cmdline.Status(cmdline.ExitBadOption)
}

// serve serves the agent's metrics and status on ln until ctx is done.
func serve(ctx context.Context, ln net.Listener, a *agent.Agent) {
	mux := http.NewServeMux()
	mux.Handle(exporter.MetricsPath, a.Metrics.Handler())
	mux.HandleFunc("/status", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.Encode(a.Status())
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: time.Minute}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		a.Log.Error("serving", "err", err)
	}
}

// exitCode is the status err carries, ExitBadOption if none.
func exitCode(err error) int {
	var s cmdline.Status
	if errors.As(err, &s) {
		return int(s)
	}
	return cmdline.ExitBadOption
}
