// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gotc/gotc/internal/hostns"

	"github.com/gotc/gotc/agent"
	"github.com/gotc/gotc/apply"
)

// TestUsage: help and bad invocations, before anything is dialled.
func TestUsage(t *testing.T) {
	never := func() (context.Context, context.CancelFunc) { panic("ran") }
	for _, tc := range []struct {
		args   []string
		status int
		want   string
	}{
		{[]string{"help"}, 0, "Usage: gotc-agent"},
		{[]string{"-h"}, 0, "Usage: gotc-agent"},
		{[]string{}, 255, "Usage: gotc-agent"},
		{[]string{"a", "b"}, 255, "Usage: gotc-agent"},
		{[]string{"-label", "novalue", "f"}, 255, `"novalue" is not KEY=VALUE`},
		{[]string{"-resync", "0s", "f"}, 255, "Usage: gotc-agent"},
		{[]string{"-nosuch", "f"}, 255, "flag provided but not defined: -nosuch"},
		{[]string{"-netns", "gotc-no-such-ns", "f"}, 255, `Cannot open network namespace "gotc-no-such-ns"`},
	} {
		var stderr bytes.Buffer
		if got := run(tc.args, &stderr, never); got != tc.status || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%q: status %d, want %d; stderr %q lacks %q", tc.args, got, tc.status, stderr.String(), tc.want)
		}
	}
}

// TestServes: in a namespace with an ifb0, the agent applies the file,
// serves its metrics and status, and on the signal exits 0 leaving the
// tree.
func TestServes(t *testing.T) {
	ns := hostns.New(t, "agent-cmd", "ifb0")
	file := filepath.Join(t.TempDir(), "tc.yaml")
	if err := os.WriteFile(file, []byte("devices:\n  ifb0:\n    root: tbf rate 1mbit burst 10kb latency 50ms\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	signals := func() (context.Context, context.CancelFunc) { return ctx, cancel }
	done := make(chan int, 1)
	var stderr bytes.Buffer
	go func() { done <- run([]string{"-netns", ns, "-listen", addr, "-node", "n1", file}, &stderr, signals) }()

	var st agent.Status
	for deadline := time.Now().Add(10 * time.Second); st.InForce == ""; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no apply; stderr:\n%s", stderr.String())
		}
		if resp, err := http.Get("http://" + addr + "/status"); err == nil {
			json.NewDecoder(resp.Body).Decode(&st)
			resp.Body.Close()
		}
	}
	if len(st.Devices) != 1 || st.Devices[0] != "ifb0" || st.LastSuccess.IsZero() {
		t.Errorf("status %+v", st)
	}
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{"gotc_agent_applies_total 1\n", "gotc_agent_requests_sent_total 1\n", "gotc_agent_file_refused 0\n"} {
		if !bytes.Contains(body, []byte(want)) {
			t.Errorf("metrics lack %q:\n%s", want, body)
		}
	}
	cancel()
	if got := <-done; got != 0 {
		t.Errorf("status %d after the signal; stderr:\n%s", got, stderr.String())
	}
	// The tree stays: the file's plan is empty.
	var errb bytes.Buffer
	c, err := dial(ns, &errb)
	if err != nil {
		t.Fatal(errb.String())
	}
	defer c.Close()
	f, err := apply.Load(file, strings.NewReader("devices:\n  ifb0:\n    root: tbf rate 1mbit burst 10kb latency 50ms\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p, err := apply.Compute(context.Background(), apply.KernelConn{Conn: c}, f); err != nil || len(p.Requests) != 0 {
		t.Errorf("after the stop: plan %v, %v", p.Commands(), err)
	}
}
