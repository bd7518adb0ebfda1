// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gotc/gotc/internal/manual"
	"github.com/gotc/gotc/netlink"
)

// fakeKernel has devices and no qdiscs.
type fakeKernel struct {
	links  map[string]int32
	dumps  int
	filter netlink.DumpFilter
}

func (f *fakeKernel) Dump(_ context.Context, o netlink.Object, filter netlink.DumpFilter, fn func(*netlink.Msg, error) error) error {
	f.dumps++
	f.filter = filter
	return nil
}

func (f *fakeKernel) LinkNames(context.Context) (map[int32]string, error) {
	return map[int32]string{}, nil
}

func (f *fakeKernel) LinkIndex(_ context.Context, name string) (int32, error) {
	if idx, ok := f.links[name]; ok {
		return idx, nil
	}
	return 0, &netlink.NoDeviceError{Name: name}
}

func (f *fakeKernel) Close() error { return nil }

// noSignals must not be reached: the command ends before serving.
func noSignals() (context.Context, context.CancelFunc) {
	panic("serving")
}

func TestUsage(t *testing.T) {
	k := &fakeKernel{}
	dial := func(int) (source, error) { return k, nil }
	for _, tc := range []struct {
		args   string
		status int
		stderr string
	}{
		{"help", 0, manual.Exporter.Help()},
		{"-h", 0, manual.Exporter.Help()},
		{"-help", 0, manual.Exporter.Help()},
		{"--help", 0, manual.Exporter.Help()},
		{"-netns ns1 -- listen :1 help", 0, manual.Exporter.Help()},
		{"dev eth0 --help", 0, manual.Exporter.Help()},
		{"bogus", 255, "What is \"bogus\"? Try \"gotc exporter help\".\n"},
		{"-- -netns x", 255, "What is \"-netns\"? Try \"gotc exporter help\".\n"},
		{"-netns", 255, "Command line is not complete. Try option \"help\"\n"},
		{"dev", 255, "Command line is not complete. Try option \"help\"\n"},
		{"-netns /nonexistent/ns", 255, "Cannot open network namespace \"/nonexistent/ns\": No such file or directory\n"},
		{"-n /proc/self/ns/net dev nosuch", 1, "Cannot find device \"nosuch\"\n"},
	} {
		var stderr bytes.Buffer
		status := run(strings.Fields(tc.args), &stderr, dial, noSignals)
		if status != tc.status || !strings.HasPrefix(stderr.String(), tc.stderr) {
			t.Errorf("%q: status %d, stderr %q; want %d, %q", tc.args, status, stderr.String(), tc.status, tc.stderr)
		}
	}
	var stderr bytes.Buffer
	failing := func(int) (source, error) { return nil, errors.New("no netlink") }
	if status := run([]string{"dev", "eth0"}, &stderr, failing, noSignals); status != 1 || stderr.String() != "Cannot open rtnetlink: no netlink\n" {
		t.Errorf("failing dial: status %d, stderr %q", status, stderr.String())
	}
}

// TestBadListenAddress: an address the exporter cannot listen on is refused
// before it says it is serving, with the listener's error alone.
func TestBadListenAddress(t *testing.T) {
	dial := func(int) (source, error) { return &fakeKernel{}, nil }
	for _, addr := range []string{"256.0.0.1:1", "127.0.0.1:99999", "nocolon"} {
		var stderr bytes.Buffer
		status := run([]string{"listen", addr}, &stderr, dial, noSignals)
		if out := stderr.String(); status != 1 || !strings.HasPrefix(out, "gotc exporter: listen tcp") || strings.Count(out, "\n") != 1 {
			t.Errorf("listen %s: status %d, stderr %q; want 1 and the listener's error alone", addr, status, out)
		}
	}
}

// TestServe serves one device's qdiscs, scrapes them and stops as on SIGINT.
func TestServe(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skip("no loopback:", err)
	}
	addr := ln.Addr().String()
	ln.Close()
	k := &fakeKernel{links: map[string]int32{"eth0": 2}}
	ctx, cancel := context.WithCancel(context.Background())
	signals := func() (context.Context, context.CancelFunc) { return ctx, cancel }
	var stderr bytes.Buffer
	done := make(chan int)
	go func() {
		done <- run([]string{"--listen", addr, "dev", "eth0"}, &stderr, func(int) (source, error) { return k, nil }, signals)
	}()
	var body []byte
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			continue
		}
		body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		break
	}
	cancel()
	if status := <-done; status != 0 {
		t.Errorf("status %d after the signal, stderr %q", status, stderr.String())
	}
	if !strings.Contains(string(body), "gotc_exporter_scrape_success 1") {
		t.Errorf("scrape:\n%.500s", body)
	}
	if k.dumps != 1 || k.filter.Ifindex != 2 {
		t.Errorf("%d dumps, filter %+v; want 1 for ifindex 2", k.dumps, k.filter)
	}
	if want := "gotc exporter: serving http://" + addr + "/metrics\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
}
