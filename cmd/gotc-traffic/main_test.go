// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gotc/gotc/internal/manual"
	"github.com/gotc/gotc/traffic"
)

func TestUsage(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"dev":"v0","flows":[{"proto":"udp","dst":"10.0.0.2","dport":1,"size":10,"count":1}]}`), 0o644)
	for _, tc := range []struct {
		args  []string
		usage bool
		want  string
	}{
		{nil, true, "no command"},
		{[]string{"fly"}, true, "unknown command"},
		{[]string{"send"}, true, "needs -plan"},
		{[]string{"send", "-bogus"}, true, "bogus"},
		{[]string{"send", "-plan", "x", "extra"}, true, "unexpected argument"},
		{[]string{"recv"}, true, "needs -dev"},
		{[]string{"recv", "-dev", "x", "-udp-sink", "5000,v6:0"}, true, "bad port"},
		{[]string{"run"}, true, "needs -plan"},
		{[]string{"run", "-plan", filepath.Join(dir, "missing.json")}, false, "no such file"},
		{[]string{"send", "-plan", bad}, false, "size 10"},
	} {
		var out, errw bytes.Buffer
		err := run(tc.args, &out, &errw)
		if err == nil || errors.Is(err, errUsage) != tc.usage || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want usage=%v containing %q", tc.args, err, tc.usage, tc.want)
		}
	}
	// Help, alone or after a command, is the usage on stdout and no error.
	for _, args := range [][]string{{"help"}, {"-h"}, {"-help"}, {"--help"}, {"send", "-h"}, {"recv", "--help"}, {"run", "-plan", "x", "help"}} {
		var out, errw bytes.Buffer
		if err := run(args, &out, &errw); err != nil || out.String() != manual.Traffic.Help() || errw.Len() != 0 {
			t.Errorf("%q: %v, stdout %.60q, stderr %q; want the help on stdout", args, err, out.String(), errw.String())
		}
	}
	if p, err := parsePorts("5000,v6:5001,"); err != nil || len(p) != 2 || p[1] != (traffic.SinkPort{Port: 5001}) {
		t.Errorf("parsePorts: %v %v", p, err)
	}
}

func sh(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
}

// TestSendRecv runs the send and recv commands side by side, as two
// processes would, across two namespaces (root, GOTC_NETNS_TESTS=1).
func TestSendRecv(t *testing.T) {
	if os.Getenv("GOTC_NETNS_TESTS") != "1" || os.Geteuid() != 0 {
		t.Skip("network namespace test: run as root with GOTC_NETNS_TESTS=1")
	}
	a, b := fmt.Sprintf("gotc-cli-a%d", os.Getpid()), fmt.Sprintf("gotc-cli-b%d", os.Getpid())
	t.Cleanup(func() { exec.Command("ip", "netns", "del", a).Run(); exec.Command("ip", "netns", "del", b).Run() })
	sh(t, "ip", "netns", "add", a)
	sh(t, "ip", "netns", "add", b)
	sh(t, "ip", "link", "add", "clv0", "netns", a, "type", "veth", "peer", "name", "clv1", "netns", b)
	for _, x := range [][2]string{{a, "clv0"}, {b, "clv1"}} {
		traffic.InNetns(x[0], func() error {
			return os.WriteFile("/proc/sys/net/ipv6/conf/"+x[1]+"/disable_ipv6", []byte("1"), 0)
		})
	}
	sh(t, "ip", "-n", a, "addr", "add", "10.78.0.1/24", "dev", "clv0")
	sh(t, "ip", "-n", b, "addr", "add", "10.78.0.2/24", "dev", "clv1")
	sh(t, "ip", "-n", a, "link", "set", "clv0", "up")
	sh(t, "ip", "-n", b, "link", "set", "clv1", "up")

	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.json")
	os.WriteFile(plan, []byte(fmt.Sprintf(`{"dev":"clv0","netns":%q,"peer":"clv1","peer_netns":%q,"flows":[
		{"proto":"udp","dst":"10.78.0.2","dport":5000,"dscp":46,"ecn":1,"size":300,"count":5,"interval_us":100},
		{"proto":"tcp-ack","src":"10.78.0.1","dst":"10.78.0.2","sport":1234,"dport":80,"count":3,"burst":3}]}`, a, b)), 0o644)
	capture := filepath.Join(dir, "capture.jsonl")
	done := make(chan error, 1)
	var recvErr bytes.Buffer
	go func() {
		done <- run([]string{"recv", "-netns", b, "-dev", "clv1", "-count", "8", "-timeout", "5s",
			"-udp-sink", "5000", "-out", capture}, &bytes.Buffer{}, &recvErr)
	}()
	time.Sleep(200 * time.Millisecond) // let the capture open first
	var out bytes.Buffer
	trace := filepath.Join(dir, "trace.jsonl")
	if err := run([]string{"send", "-plan", plan, "-trace", trace}, &out, &out); err != nil {
		t.Fatalf("send: %v\n%s", err, out.String())
	}
	var sum struct {
		Sent         int    `json:"sent"`
		DevTxPackets uint64 `json:"dev_tx_packets"`
	}
	if err := json.Unmarshal(out.Bytes(), &sum); err != nil || sum.Sent != 8 || sum.DevTxPackets != 8 {
		t.Errorf("send summary %s (%v)", out.String(), err)
	}
	if err := <-done; err != nil {
		t.Fatalf("recv: %v\n%s", err, recvErr.String())
	}
	sent, err1 := traffic.ReadTraceFile(trace)
	got, err2 := traffic.ReadTraceFile(capture)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if rep := traffic.Compare(sent, got); !rep.Exact() {
		t.Errorf("capture differs: %+v", rep)
	}
	if !strings.Contains(recvErr.String(), `"received": 8`) {
		t.Errorf("recv summary %s", recvErr.String())
	}
}

// TestPcap checks the trace "gotc model ... pcap" reads through this
// program: every packet of a capture, and a cut capture's error naming
// the packet.
func TestPcap(t *testing.T) {
	const uplink = "../../model/report/testdata/uplink.pcap"
	var out, errOut bytes.Buffer
	if err := run([]string{"pcap", "-in", uplink, "-mtu", "1500"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	recs, err := traffic.ReadTrace(&out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := traffic.ReadPcapFile(uplink, traffic.PcapOptions{})
	if err != nil || len(recs) != len(want) || len(recs) < 1000 || recs[5].Len != want[5].Len || recs[5].T != want[5].T {
		t.Fatalf("%d records of %d (%v)", len(recs), len(want), err)
	}
	b, _ := os.ReadFile(uplink)
	cut := filepath.Join(t.TempDir(), "cut.pcap")
	os.WriteFile(cut, b[:24+16+80+10], 0o644)
	if err := run([]string{"pcap", "-in", cut}, &out, &errOut); err == nil || !strings.Contains(err.Error(), "packet 2") {
		t.Errorf("cut capture: %v", err)
	}
	if err := run([]string{"pcap"}, &out, &errOut); !errors.Is(err, errUsage) {
		t.Errorf("no -in: %v", err)
	}
}
