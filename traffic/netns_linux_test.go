// SPDX-License-Identifier: Apache-2.0

package traffic

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
)

// netnsBed is two namespaces joined by a veth pair: Dev in A, Peer in B.
type netnsBed struct {
	A, B, Dev, Peer string
}

// newNetnsBed creates the test bed or skips: it needs root, ip and tc,
// and an explicit GOTC_NETNS_TESTS=1 (it changes the host's namespaces).
func newNetnsBed(t *testing.T) *netnsBed {
	t.Helper()
	if os.Getenv("GOTC_NETNS_TESTS") != "1" || os.Geteuid() != 0 {
		t.Skip("network namespace test: run as root with GOTC_NETNS_TESTS=1")
	}
	for _, tool := range []string{"ip", "tc"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("network namespace test: no %s on PATH", tool)
		}
	}
	id := os.Getpid()
	b := &netnsBed{A: fmt.Sprintf("gotc-tr-a%d", id), B: fmt.Sprintf("gotc-tr-b%d", id), Dev: "trv0", Peer: "trv1"}
	t.Cleanup(func() {
		exec.Command("ip", "netns", "del", b.A).Run()
		exec.Command("ip", "netns", "del", b.B).Run()
	})
	b.sh(t, "ip", "netns", "add", b.A)
	b.sh(t, "ip", "netns", "add", b.B)
	b.sh(t, "ip", "link", "add", b.Dev, "netns", b.A, "type", "veth", "peer", "name", b.Peer, "netns", b.B)
	// IPv6 housekeeping (DAD, RS, MLD) would pass through the qdisc: off,
	// per device, before the links come up.
	for _, x := range [][2]string{{b.A, b.Dev}, {b.B, b.Peer}} {
		err := InNetns(x[0], func() error {
			return os.WriteFile("/proc/sys/net/ipv6/conf/"+x[1]+"/disable_ipv6", []byte("1"), 0)
		})
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
	}
	b.sh(t, "ip", "-n", b.A, "addr", "add", "10.77.0.1/24", "dev", b.Dev)
	b.sh(t, "ip", "-n", b.B, "addr", "add", "10.77.0.2/24", "dev", b.Peer)
	b.sh(t, "ip", "-n", b.A, "link", "set", b.Dev, "up")
	b.sh(t, "ip", "-n", b.B, "link", "set", b.Peer, "up")
	return b
}

func (b *netnsBed) sh(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}

var sentRE = regexp.MustCompile(`Sent (\d+) bytes (\d+) pkt \(dropped (\d+)`)

// sent parses the "Sent B bytes P pkt (dropped D" lines of tc -s output
// (the text form: Debian bookworm's tc prints no JSON for classes).
func sent(t *testing.T, out string) [][3]uint64 {
	t.Helper()
	var r [][3]uint64
	for _, m := range sentRE.FindAllStringSubmatch(out, -1) {
		var v [3]uint64
		for i := range v {
			v[i], _ = strconv.ParseUint(m[i+1], 10, 64)
		}
		r = append(r, v)
	}
	return r
}

// TestNetnsRun sends the mixed plan (UDP with four DSCP/ECN combinations,
// a UDP GSO burst, ten crafted pure ACKs with SACK and timestamps) through
// an HTB qdisc on a veth and checks that the peer saw exactly that, in
// order, and that the qdisc counted exactly those packets: no ARP, no
// ICMP, no IPv6 housekeeping. HTB's classification by skb->priority
// checks SO_PRIORITY, on UDP sockets whose IP_TOS changes every packet and
// on the packet socket.
func TestNetnsRun(t *testing.T) {
	b := newNetnsBed(t)
	b.sh(t, "tc", "-n", b.A, "qdisc", "add", "dev", b.Dev, "root", "handle", "1:", "htb", "default", "20")
	for _, c := range []string{"1:10", "1:20"} {
		b.sh(t, "tc", "-n", b.A, "class", "add", "dev", b.Dev, "parent", "1:", "classid", c,
			"htb", "rate", "10gbit", "burst", "1mb", "cburst", "1mb", "quantum", "60000")
	}
	const prio10 = 0x10010 // skb->priority 1:10 selects HTB class 1:10
	plan := fmt.Sprintf(`{"dev": %q, "netns": %q, "peer": %q, "peer_netns": %q, "flows": [
	  {"proto": "udp", "src": "10.77.0.1", "dst": "10.77.0.2", "sport": 4000, "dport": 5000, "priority": %d,
	   "dscps": [0, 46, 10, 1], "ecns": [0, 1, 2, 3], "size": 200, "count": 8, "interval_us": 200},
	  {"proto": "udp", "dst": "10.77.0.2", "dport": 5001, "ecn": 1, "mark": 5,
	   "size": 1000, "gso_segs": 8, "count": 3, "burst": 3, "start_us": 500},
	  {"proto": "tcp-ack", "src": "10.77.0.1", "dst": "10.77.0.2", "sport": 4002, "dport": 80, "priority": %d,
	   "dscp": 8, "ecn": 2, "count": 10, "interval_us": 100, "start_us": 900,
	   "tcp": {"seq": 1, "ack": 1000, "ack_step": 1448, "ts": true, "tsval": 100, "tsval_step": 1, "tsecr": 7,
	           "sack": [[1448, 2896], [4344, 5792]]}}]}`, b.Dev, b.A, b.Peer, b.B, prio10, prio10)
	p, err := ParsePlan([]byte(plan))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sum, err := Run(p, RunOptions{TracePath: dir + "/trace.jsonl", CapturePath: dir + "/capture.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("sent %d skbs (%d segments) in %.2f ms, received %d (%d segments), dev tx_packets +%d",
		sum.Sent, sum.SentSegs, float64(sum.DurationNS)/1e6, sum.Received, sum.ReceivedSegs, sum.DevTxPackets)
	if !sum.Exact {
		t.Errorf("capture differs from the trace: %+v", sum.Report)
	}
	if sum.Sent != 21 || sum.SentSegs != 42 || sum.SendErrors != 0 || sum.CaptureDrops != 0 {
		t.Errorf("summary %+v", sum)
	}
	if sum.DevTxPackets != uint64(sum.Sent) {
		t.Errorf("dev tx_packets moved by %d, want %d (one per skb)", sum.DevTxPackets, sum.Sent)
	}
	if sum.ByECN[1] != 2+3 || sum.ByECN[2] != 2+10 || sum.ByECN[3] != 2 || sum.ByDSCP[46] != 2 || sum.ByDSCP[8] != 10 {
		t.Errorf("by ECN %v, by DSCP %v", sum.ByECN, sum.ByDSCP)
	}

	// The qdisc's own counters: segments and qdisc_pkt_len bytes.
	var bytes, bytes10 uint64
	var pkts10 uint64
	for i := range sum.Sends {
		r := &sum.Sends[i]
		l := uint64(r.Len + (r.Segs()-1)*r.HdrLen)
		bytes += l
		if r.Priority == prio10 {
			bytes10 += l
			pkts10++
		}
	}
	q := sent(t, b.sh(t, "tc", "-n", b.A, "-s", "qdisc", "show", "dev", b.Dev))
	if len(q) != 1 || q[0] != [3]uint64{bytes, 42, 0} {
		t.Errorf("qdisc Sent %v, want [%d 42 0]", q, bytes)
	}
	c := sent(t, b.sh(t, "tc", "-n", b.A, "-s", "class", "show", "dev", b.Dev))
	if len(c) != 2 || c[0] != [3]uint64{bytes10, pkts10, 0} || c[1][1] != 24 {
		t.Errorf("class 1:10 %v, want [%d %d 0]; class 1:20 must hold the 24 GSO segments", c, bytes10, pkts10)
	}

	// The trace on disk is what Run returned, and it replays into the models.
	back, err := ReadTraceFile(dir + "/trace.jsonl")
	if err != nil || len(back) != 21 {
		t.Fatalf("trace file: %d records, %v", len(back), err)
	}
	for i := 1; i < len(back); i++ {
		if back[i].T < back[i-1].T {
			t.Errorf("send %d at %d before send %d at %d", i, back[i].T, i-1, back[i-1].T)
		}
	}
	if back[0].Src.String() != "10.77.0.1" || back[len(back)-1].TCP == nil {
		t.Errorf("trace records %+v ... %+v", back[0], back[len(back)-1])
	}
	enqueued := 0
	for i := range back {
		if Enqueued(&back[i]) {
			enqueued++
		}
	}
	if enqueued != 21 {
		t.Errorf("%d sends reached the qdisc", enqueued)
	}
}
