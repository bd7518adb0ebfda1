// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/cmdline"
	"github.com/gotc/gotc/internal/fakekernel"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/traffic"
	_ "github.com/gotc/gotc/traffic/pcapread" // what gotc-traffic reads captures with
)

// The tests read captures in process: gotc hands them to gotc-traffic,
// which links the reader that the test binary links here.
func init() {
	readCapture = traffic.ReadPcapFile
}

// modelTC runs "gotc [-s] [-j] model ARGS" against k (the dispatch in tc.go
// only routes the object to modelCmd).
func modelTC(k *fakekernel.Kernel, jsonOut bool, args ...string) (stdout, stderr string, err error) {
	var out, errOut bytes.Buffer
	t := &tc{Helper: cmdline.Helper[conn]{Ctx: context.Background(), Stdout: &out, Stderr: &errOut, Stdin: strings.NewReader(""), Stats: true, JSON: jsonOut,
		Dial: func(int) (conn, error) { return k, nil }}}
	defer t.Close()
	err = t.modelCmd(args)
	return out.String(), errOut.String(), err
}

// writePlan writes a traffic plan of 10 UDP packets with DSCP EF (Voice in
// diffserv3) and 5 best-effort ones, and returns its path.
func writePlan(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "plan.json")
	plan := `{"dev": "v0", "flows": [
	  {"proto": "udp", "src": "10.0.0.1", "dst": "10.0.0.2", "sport": 4000, "dport": 5000, "dscp": 46, "size": 100, "count": 10, "interval_us": 1000},
	  {"proto": "udp", "src": "10.0.0.1", "dst": "10.0.0.2", "sport": 4001, "dport": 5000, "size": 1000, "count": 5, "interval_us": 1000}]}`
	if err := os.WriteFile(p, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestModelPlanText(t *testing.T) {
	out, errOut, err := modelTC(fakekernel.New(), false, "cake", "diffserv3", "plan", writePlan(t))
	if err != nil {
		t.Fatalf("%v: %s", err, errOut)
	}
	for _, want := range []string{
		"qdisc cake 8001: root refcnt",
		"bandwidth unlimited diffserv3 triple-isolate",
		"Sent 6210 bytes 15 pkt (dropped 0, overlimits 0 requeues 0)",
		"memory used: 2304b",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.HasPrefix(errOut, "model margins: shaper none aqm ") || !strings.Contains(errOut, " sends 15 ") {
		t.Errorf("stderr %q", errOut)
	}
}

func TestModelPlanJSON(t *testing.T) {
	out, errOut, err := modelTC(fakekernel.New(), true, "dualpi2", "split_gso", "plan", writePlan(t), "truesize", "1000")
	if err != nil {
		t.Fatalf("%v: %s", err, errOut)
	}
	var dump []map[string]any
	if err := json.Unmarshal([]byte(out), &dump); err != nil || len(dump) != 1 {
		t.Fatalf("not a one-qdisc JSON dump (%v): %s", err, out)
	}
	q := dump[0]
	if q["kind"] != "dualpi2" || q["packets"] != 15.0 || q["bytes"] != 6210.0 || q["pkts-in-c"] != 15.0 ||
		q["max-memory-used"] != 1000.0 || q["prob"] != 0.0 {
		t.Errorf("dump %v", q)
	}
}

// TestModelDev takes the configuration from a live qdisc: a cake with
// diffserv4 on eth0, handle 1:.
func TestModelDev(t *testing.T) {
	k := fakekernel.New()
	kind := "cake"
	ds4 := attrs.CakeDiffservMode(1)
	k.Dumps = map[netlink.Object][]*netlink.Msg{netlink.Qdisc: {{
		Header: attrs.TCMsg{Ifindex: 2, Handle: 0x10000, Parent: netlink.HandleRoot},
		Attrs:  attrs.TCAttrs{Kind: &kind, Options: &attrs.CakeAttrs{DiffservMode: &ds4}},
	}}}
	out, errOut, err := modelTC(k, false, "dev", "eth0", "plan", writePlan(t))
	if err != nil {
		t.Fatalf("%v: %s", err, errOut)
	}
	if !strings.Contains(out, "qdisc cake 1: root") || !strings.Contains(out, "diffserv4") ||
		!strings.Contains(out, "Voice") {
		t.Errorf("output:\n%s", out)
	}
}

// TestModelDevParent takes an fq_codel leaf below HTB class 1:1 (the
// root qdisc is HTB, which the models do not run) and drains it at the
// class's rate and burst: the prediction is the leaf's, parent 1:1.
func TestModelDevParent(t *testing.T) {
	k := fakekernel.New()
	htb, fqc := "htb", "fq_codel"
	k.Dumps = map[netlink.Object][]*netlink.Msg{netlink.Qdisc: {
		{Header: attrs.TCMsg{Ifindex: 2, Handle: 0x10000, Parent: netlink.HandleRoot}, Attrs: attrs.TCAttrs{Kind: &htb}},
		{Header: attrs.TCMsg{Ifindex: 2, Handle: 0x100000, Parent: 0x10001}, Attrs: attrs.TCAttrs{Kind: &fqc, Options: &attrs.FQCodelAttrs{}}},
	}}
	out, errOut, err := modelTC(k, true, "dev", "eth0", "parent", "1:1", "plan", writePlan(t), "rate", "100kbit", "burst", "2000")
	if err != nil {
		t.Fatalf("%v: %s", err, errOut)
	}
	var dump []map[string]any
	if err := json.Unmarshal([]byte(out), &dump); err != nil || len(dump) != 1 {
		t.Fatalf("not a one-qdisc JSON dump (%v): %s", err, out)
	}
	// 15 packets in 10 ms at 12500 B/s: the bucket lets two go at once,
	// the rest queue; every flow starts new, nothing is dropped.
	q := dump[0]
	if q["kind"] != "fq_codel" || q["handle"] != "10:" || q["parent"] != "1:1" || q["packets"] != 15.0 ||
		q["drops"] != 0.0 || q["new_flow_count"] == 0.0 {
		t.Errorf("dump %v", q)
	}
	if !strings.Contains(errOut, " order ") {
		t.Errorf("margins: %s", errOut)
	}
	for _, args := range [][]string{
		{"dev", "eth0", "parent", "1:2", "plan", writePlan(t)},
		{"dev", "eth0", "parent", "x", "plan", writePlan(t)},
		{"dev", "eth0", "parent", "1:1", "plan", writePlan(t), "burst", "2000"},
	} {
		if _, errOut, err := modelTC(k, false, args...); err == nil {
			t.Errorf("%q: no error", args)
		} else if errOut == "" {
			t.Errorf("%q: no message", args)
		}
	}
}

func TestModelUsage(t *testing.T) {
	for _, args := range [][]string{
		{}, {"cake"}, {"cake", "plan"}, {"fq", "plan", "x"}, {"cake", "plan", "/nonexistent"},
		{"dev", "nosuch", "plan", "x"}, {"cake", "trace", "x", "truesize", "0"},
	} {
		if _, _, err := modelTC(fakekernel.New(), false, args...); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}

// writeCapture writes a pcap of n back-to-back 1000-byte UDP packets
// (DSCP 46, 1 ms apart) as tcpdump would on an Ethernet device, and
// returns its path.
func writeCapture(t *testing.T, n int) string {
	t.Helper()
	var b bytes.Buffer
	w := pcapgo.NewWriterNanos(&b)
	if err := w.WriteFileHeader(65535, layers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	frame := make([]byte, 14+1000)
	frame[12], frame[13] = 0x08, 0x00
	ip := frame[14:]
	ip[0], ip[1], ip[2], ip[3], ip[9] = 0x45, 46<<2, 1000>>8, 1000&0xff, 17
	copy(ip[12:], []byte{10, 0, 0, 1, 10, 0, 0, 2})
	ip[20], ip[21], ip[22], ip[23], ip[24], ip[25] = 0x0f, 0xa0, 0x13, 0x88, (980 >> 8), 980&0xff
	for i := range n {
		ci := gopacket.CaptureInfo{Timestamp: time.Unix(1_700_000_000, int64(i)*1e6), CaptureLength: len(frame), Length: len(frame)}
		if err := w.WritePacket(ci, frame); err != nil {
			t.Fatal(err)
		}
	}
	p := filepath.Join(t.TempDir(), "up.pcap")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestModelPcap(t *testing.T) {
	// 1014-byte frames every ms through CAKE at 4 Mbit/s: the shaper
	// needs about 2 ms a packet, so a queue builds (too short to drop
	// from) and drains after the last: all 20 are sent.
	pc := writeCapture(t, 20)
	out, errOut, err := modelTC(fakekernel.New(), false, "cake", "bandwidth", "4mbit", "diffserv3", "pcap", pc)
	if err != nil {
		t.Fatalf("%v: %s", err, errOut)
	}
	if !strings.Contains(out, "Sent 20280 bytes 20 pkt (dropped 0,") {
		t.Errorf("output:\n%s", out)
	}
	// A capture cut inside its second packet names it.
	b, _ := os.ReadFile(pc)
	cut := filepath.Join(t.TempDir(), "cut.pcap")
	os.WriteFile(cut, b[:24+16+1014+20], 0o644)
	_, errOut, err = modelTC(fakekernel.New(), false, "cake", "pcap", cut)
	if err == nil || !strings.Contains(errOut, "packet 2: cut short") {
		t.Errorf("cut capture: %v %q", err, errOut)
	}
}

func TestModelPcapReportSweepPlot(t *testing.T) {
	pc := writeCapture(t, 200) // 8.1 Mbit/s of EF
	out, errOut, err := modelTC(fakekernel.New(), false, "cake", "bandwidth", "4mbit", "besteffort", "pcap", pc)
	if err != nil {
		t.Fatalf("%v: %s", err, errOut)
	}
	// Twice the shaper's rate: half the packets cannot pass; the report
	// follows the qdisc's statistics and agrees with them.
	if !strings.Contains(out, "qdisc cake 8001: root") || !strings.Contains(out, "\ncake over ") {
		t.Fatalf("output:\n%s", out)
	}
	var j struct {
		Qdisc  []map[string]any `json:"qdisc"`
		Report struct {
			Total struct {
				Sent, Drops int
				Delay       struct {
					P99 float64 `json:"p99_ms"`
				}
			}
			Queues []struct{ Name string }
		}
	}
	out, errOut, err = modelTC(fakekernel.New(), true, "cake", "bandwidth", "4mbit", "besteffort", "pcap", pc)
	if err != nil {
		t.Fatalf("%v: %s", err, errOut)
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if len(j.Qdisc) != 1 || j.Qdisc[0]["kind"] != "cake" || j.Report.Total.Sent+j.Report.Total.Drops != 200 ||
		j.Report.Total.Drops == 0 || j.Report.Total.Delay.P99 < 10 || len(j.Report.Queues) != 1 {
		t.Errorf("JSON %+v", j)
	}
	plot := filepath.Join(t.TempDir(), "sweep.svg")
	out, errOut, err = modelTC(fakekernel.New(), false, "cake", "bandwidth", "4mbit", "besteffort", "pcap", pc,
		"sweep", "bandwidth", "4mbit", "12mbit", "3", "plot", plot, "metric", "drops")
	if err != nil {
		t.Fatalf("%v: %s", err, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[1], "4mbit ") || !strings.HasPrefix(lines[3], "12mbit ") {
		t.Fatalf("sweep:\n%s", out)
	}
	// At 12 Mbit/s nothing waits long enough to be dropped.
	if f := strings.Fields(lines[3]); f[1] != "200" || f[2] != "0" {
		t.Errorf("12mbit row %q", lines[3])
	}
	if svg, err := os.ReadFile(plot); err != nil || !bytes.Contains(svg, []byte("drops (packets)")) {
		t.Errorf("sweep plot: %v", err)
	}
	for _, bad := range [][]string{
		{"cake", "pcap", pc, "sweep", "bandwidth", "4mbit"},
		{"cake", "pcap", pc, "sweep", "bandwidth", "4mbit", "2ms", "3"},
		{"cake", "pcap", pc, "metric", "p42"},
		{"cake", "pcap", pc, "rate", "10mbit"},
		{"cake", "plan", writePlan(t), "plot", plot},
	} {
		if _, errOut, err := modelTC(fakekernel.New(), false, bad...); err == nil || errOut == "" {
			t.Errorf("%v: accepted", bad)
		}
	}
}

func TestModelCompare(t *testing.T) {
	pc := writeCapture(t, 200) // 8.1 Mbit/s of EF
	plot := filepath.Join(t.TempDir(), "cmp.png")
	out, errOut, err := modelTC(fakekernel.New(), false, "cake", "bandwidth", "4mbit", "besteffort", "vs", "cake", "bandwidth", "12mbit",
		"vs", "dualpi2", "pcap", pc, "rate", "4mbit", "plot", plot)
	if err != nil {
		t.Fatalf("%v: %s", err, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[1], "cake bandwidth 4mbit besteffort ") ||
		!strings.HasPrefix(lines[2], "cake bandwidth 12mbit ") || !strings.HasPrefix(lines[3], "dualpi2 at 4mbit ") {
		t.Fatalf("compare:\n%s", out)
	}
	// Behind 4 Mbit/s, CAKE and DualPI2 drop; at 12 Mbit/s nothing is.
	drops := func(l string) string { return strings.Fields(l[len("cake bandwidth 4mbit besteffort"):])[1] }
	if drops(lines[1]) == "0" || drops(lines[2]) != "0" || drops(lines[3]) == "0" {
		t.Errorf("drops in\n%s", out)
	}
	if st, err := os.Stat(plot); err != nil || st.Size() < 1000 {
		t.Errorf("plot: %v", err)
	}
	out, _, err = modelTC(fakekernel.New(), true, "cake", "vs", "dualpi2", "pcap", pc)
	var j struct {
		Compare struct{ Rows []struct{ Config string } }
	}
	if err != nil || json.Unmarshal([]byte(out), &j) != nil || len(j.Compare.Rows) != 2 || j.Compare.Rows[1].Config != "dualpi2" {
		t.Errorf("JSON %v %s", err, out)
	}
	// "compare" says the same outright, and needs a second configuration.
	spelled, errOut, err := modelTC(fakekernel.New(), true, "compare", "cake", "vs", "dualpi2", "pcap", pc)
	if err != nil || spelled != out {
		t.Errorf("compare cake vs dualpi2: %v %s\n%s\nwant what cake vs dualpi2 printed:\n%s", err, errOut, spelled, out)
	}
	if _, errOut, err := modelTC(fakekernel.New(), false, "compare", "cake", "pcap", pc); err == nil || !strings.Contains(errOut, `"compare" needs two configurations or more`) {
		t.Errorf("compare of one configuration: %v %q", err, errOut)
	}
	for _, bad := range [][]string{
		{"cake", "vs", "dualpi2", "plan", writePlan(t)},
		{"cake", "vs", "dualpi2", "pcap", pc, "sweep", "bandwidth", "1mbit", "2mbit", "2"},
		{"cake", "vs", "pcap", pc},
	} {
		if _, errOut, err := modelTC(fakekernel.New(), false, bad...); err == nil || errOut == "" {
			t.Errorf("%v: accepted", bad)
		}
	}
}

// TestModelNIC runs a capture of 1014-byte frames every ms through
// unshaped CAKE, alone (a veth: nothing waits) and above a 4 Mbit/s NIC
// with a 3000-byte BQL limit, which needs about 2 ms a frame: the qdisc
// then holds what the NIC refuses, and the report's delays grow to over
// ten ms (COBALT, its 5 ms target passed, may drop one).
func TestModelNIC(t *testing.T) {
	pc := writeCapture(t, 20)
	maxDelay := func(args ...string) float64 {
		t.Helper()
		out, errOut, err := modelTC(fakekernel.New(), false, append([]string{"cake", "diffserv3", "pcap", pc}, args...)...)
		if err != nil {
			t.Fatalf("%v: %s", err, errOut)
		}
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Fields(l); len(f) == 10 && f[0] == "Voice" {
				if f[1] != "20" {
					t.Errorf("%q: %s packets offered, want 20", args, f[1])
				}
				v, err := strconv.ParseFloat(f[8], 64)
				if err != nil {
					t.Fatalf("%q", l)
				}
				return v
			}
		}
		t.Fatalf("%q: no Voice row in\n%s", args, out)
		return 0
	}
	if d := maxDelay(); d != 0 {
		t.Errorf("without a NIC: max delay %v ms", d)
	}
	if d := maxDelay("nic", "4mbit", "bql", "3000"); d < 10 || d > 25 {
		t.Errorf("above a 4 Mbit/s NIC: max delay %v ms, want 10..25", d)
	}
	// The NIC stage is reported: what it sent (19: COBALT drops one),
	// in tc's words, and each group's delay to the wire, which adds at
	// least a frame's 2 ms serialization to the delay in the qdisc.
	out, errOut, err := modelTC(fakekernel.New(), false, "cake", "diffserv3", "pcap", pc, "nic", "4mbit", "bql", "3000")
	if err != nil || !strings.Contains(out, "\nnic rate 4mbit bql 3000b\n Sent 19266 bytes 19 pkt\n") ||
		!strings.Contains(out, "queue, arrival to wire") {
		t.Errorf("%v %s:\n%s", err, errOut, out)
	}
	out, errOut, err = modelTC(fakekernel.New(), true, "cake", "diffserv3", "pcap", pc, "nic", "4mbit", "bql", "3000")
	var j struct {
		Report struct {
			NIC *struct {
				Rate uint64 `json:"rate_bps"`
				BQL  uint64 `json:"bql_bytes"`
			}
			Total struct {
				Delay struct {
					Max float64 `json:"max_ms"`
				}
				NIC *struct {
					Sent  int
					Delay struct {
						Max float64 `json:"max_ms"`
					}
				}
			}
		}
	}
	if err != nil || json.Unmarshal([]byte(out), &j) != nil || j.Report.NIC == nil || j.Report.NIC.Rate != 4e6 ||
		j.Report.NIC.BQL != 3000 || j.Report.Total.NIC == nil || j.Report.Total.NIC.Sent != 19 ||
		j.Report.Total.NIC.Delay.Max < j.Report.Total.Delay.Max+2 {
		t.Errorf("JSON %v %s: %+v\n%s", err, errOut, j, out)
	}
	out, _, _ = modelTC(fakekernel.New(), true, "cake", "diffserv3", "pcap", pc)
	if strings.Contains(out, `"nic"`) {
		t.Errorf("a NIC without one: %s", out)
	}
	for _, args := range [][]string{
		{"cake", "pcap", pc, "nic", "4mbit"}, {"cake", "pcap", pc, "bql", "3000"}, {"cake", "pcap", pc, "nic", "4mbit", "bql", "0"},
		{"cake", "pcap", pc, "nic", "fast", "bql", "3000"}, {"dualpi2", "pcap", pc, "nic", "4mbit", "bql", "3000"},
	} {
		if _, _, err := modelTC(fakekernel.New(), false, args...); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}

// TestModelCompareUplink runs the README's capture through three
// configurations with "compare": each row carries that configuration's own
// numbers (the ones it gets when compared in another order and company),
// the rows come in the order given, and the plot is drawn.
func TestModelCompareUplink(t *testing.T) {
	pc := filepath.Join("..", "..", "model", "report", "testdata", "uplink.pcap")
	fq := []string{"fq_codel"}
	cake := []string{"cake", "bandwidth", "20mbit", "diffserv4"}
	pi2 := []string{"dualpi2"}
	run := func(configs ...[]string) map[string]string {
		t.Helper()
		args := []string{"compare"}
		for i, c := range configs {
			if i > 0 {
				args = append(args, "vs")
			}
			args = append(args, c...)
		}
		plot := filepath.Join(t.TempDir(), "cmp.svg")
		args = append(args, "pcap", pc, "rate", "20mbit", "plot", plot)
		out, errOut, err := modelTC(fakekernel.New(), false, args...)
		if err != nil {
			t.Fatalf("%v: %v %s", args, err, errOut)
		}
		if st, err := os.Stat(plot); err != nil || st.Size() < 1000 {
			t.Errorf("%v: plot %v", args, err)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != len(configs)+1 || !strings.HasPrefix(lines[0], "configuration ") {
			t.Fatalf("%v:\n%s", args, out)
		}
		rows := map[string]string{}
		for i, c := range configs {
			// fq_codel and dualpi2 rows name the device rate they ran at.
			name := strings.Join(c, " ")
			if len(c) == 1 {
				name += " at 20mbit"
			}
			if !strings.HasPrefix(lines[i+1], name+" ") {
				t.Fatalf("%v: row %d is not %q:\n%s", args, i+1, name, out)
			}
			rows[name] = strings.Join(strings.Fields(lines[i+1][len(name):]), " ")
		}
		return rows
	}
	all := run(fq, cake, pi2)
	if len(all) != 3 {
		t.Fatalf("rows %v", all)
	}
	// Each configuration's numbers are its own: the same beside one other
	// configuration, first or second.
	for name, row := range run(pi2, fq) {
		if all[name] != row {
			t.Errorf("%s: %q among three, %q beside one", name, all[name], row)
		}
	}
	for name, row := range run(cake, pi2) {
		if all[name] != row {
			t.Errorf("%s: %q among three, %q beside one", name, all[name], row)
		}
	}
	// And they differ: the three configurations drop differently on this
	// uplink (sent, drops, ... are the first columns).
	drops := map[string]bool{}
	for _, row := range all {
		drops[strings.Fields(row)[1]] = true
	}
	if len(drops) != 3 {
		t.Errorf("drops not distinct: %v", all)
	}
	// One configuration, or none: a usage error, as the other model usage
	// errors are.
	for _, bad := range [][]string{
		{"compare", "fq_codel", "pcap", pc},
		{"compare", "pcap", pc},
		{"compare"},
	} {
		_, errOut, err := modelTC(fakekernel.New(), false, bad...)
		if err != errStatus(exitUsage) || errOut == "" {
			t.Errorf("%v: %v %q, want exit status %d and a usage message", bad, err, errOut, exitUsage)
		}
	}
}
