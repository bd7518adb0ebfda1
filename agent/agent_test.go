// SPDX-License-Identifier: Apache-2.0

package agent

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gotc/gotc/internal/hostns"

	"github.com/gotc/gotc/apply"
	"github.com/gotc/gotc/netlink"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// netns makes a network namespace with an ifb0 for one test and returns a
// connection in it for the test's own reads; the test is skipped where
// that cannot be done (not root, no ip, no ifb).
func netns(t *testing.T, name string) (*netlink.NetNS, apply.Kernel) {
	t.Helper()
	name = hostns.New(t, "agent-"+name, "ifb0")
	ns, err := netlink.OpenNetNS(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ns.Close() })
	return ns, dial(t, ns)
}

func dial(t *testing.T, ns *netlink.NetNS) apply.Kernel {
	t.Helper()
	c, err := ns.Dial(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return apply.KernelConn{Conn: c}
}

// start runs an agent on file for node in ns until the test ends (or
// stop is called), and returns it.
func start(t *testing.T, ns *netlink.NetNS, file, node string, deleteOnExit bool) (a *Agent, stop func() error) {
	t.Helper()
	a = &Agent{
		File: file, Node: apply.Node{Name: node}, Kernel: dial(t, ns),
		Settle: 250 * time.Millisecond, Resync: 300 * time.Millisecond,
		DeleteOnExit: deleteOnExit, Metrics: NewMetrics(),
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	if testing.Verbose() {
		a.Log = slog.New(slog.NewTextHandler(os.Stderr, nil)).With("node", node)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	stopped := false
	stop = func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		return <-done
	}
	t.Cleanup(func() { stop() })
	return a, stop
}

// eventually waits up to 10 s for cond.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// inState reports whether the kernel of k is in the state of a plain
// file: a plan of no requests.
func inState(t *testing.T, k apply.Kernel, file string) bool {
	t.Helper()
	f, err := apply.Load("want", strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	p, err := apply.Compute(context.Background(), k, f)
	if err != nil {
		t.Fatal(err)
	}
	return len(p.Requests) == 0
}

func count(c prometheus.Collector) int { return int(testutil.ToFloat64(c)) }

// htb is ifb0's tree with class 1:10 at rate.
func htb(rate string) string {
	return fmt.Sprintf(`
    ifb0:
      root:
        qdisc: htb default 10
        handle: "1:"
        classes:
          "1:10":
            class: htb rate %s
            leaf: pfifo limit 50
`, rate)
}

func plain(devices string) string { return "devices:" + devices }

// configMap writes a file as the kubelet updates a mounted ConfigMap:
// the contents in a new timestamped directory, a "..data_tmp" symlink to
// it renamed over "..data", the file itself a symlink through "..data".
func configMap(t *testing.T, dir, name, contents string) {
	t.Helper()
	ts := filepath.Join(dir, fmt.Sprintf("..%d", time.Now().UnixNano()))
	must(t, os.Mkdir(ts, 0o755))
	must(t, os.WriteFile(filepath.Join(ts, name), []byte(contents), 0o644))
	old, _ := os.Readlink(filepath.Join(dir, "..data"))
	must(t, os.Symlink(filepath.Base(ts), filepath.Join(dir, "..data_tmp")))
	must(t, os.Rename(filepath.Join(dir, "..data_tmp"), filepath.Join(dir, "..data")))
	if _, err := os.Lstat(filepath.Join(dir, name)); err != nil {
		must(t, os.Symlink(filepath.Join("..data", name), filepath.Join(dir, name)))
	}
	if old != "" {
		must(t, os.RemoveAll(filepath.Join(dir, old)))
	}
}

// atomicWrite writes a file as a CRM sync should: a temporary file in
// the same directory renamed over it.
func atomicWrite(t *testing.T, file, contents string) {
	t.Helper()
	tmp := file + ".tmp"
	must(t, os.WriteFile(tmp, []byte(contents), 0o644))
	must(t, os.Rename(tmp, file))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestFleetOfTwo: two nodes (two namespaces) run agents on one fleet
// file, a mounted ConfigMap's. Each applies its own part; drift on one is
// repaired; a part that fails on one node leaves that node's last good
// state, reported in its metrics, while the other node applies its new
// part; a fixed file is applied; a stop leaves the tree in place.
func TestFleetOfTwo(t *testing.T) {
	nsA, kA := netns(t, "a")
	nsB, kB := netns(t, "b")
	dir := t.TempDir()
	file := filepath.Join(dir, "fleet.yaml")
	fleet := func(a, b string) string {
		indent := func(s string) string { return strings.ReplaceAll(s, "\n  ", "\n    ") }
		return "fleet:\n  - hosts: [node-a]\n    devices:" + indent(a) + "  - hosts: [node-b]\n    devices:" + indent(b)
	}
	configMap(t, dir, "fleet.yaml", fleet(htb("10mbit"), htb("20mbit")))
	a, stopA := start(t, nsA, file, "node-a", false)
	b, _ := start(t, nsB, file, "node-b", false)
	eventually(t, "both applied", func() bool { return count(a.Metrics.applies) == 1 && count(b.Metrics.applies) == 1 })
	if !inState(t, kA, plain(htb("10mbit"))) || !inState(t, kB, plain(htb("20mbit"))) {
		t.Fatal("a node is not in its part's state")
	}

	// Drift: node-a's tree replaced behind the agent's back.
	other, _ := apply.Load("other", strings.NewReader(plain("\n    ifb0:\n      root: pfifo limit 7\n")))
	p, err := apply.Compute(context.Background(), kA, other)
	must(t, err)
	_, err = p.Run(context.Background(), kA, nil)
	must(t, err)
	eventually(t, "the drift repaired", func() bool { return count(a.Metrics.driftsRepaired) == 1 })
	if !inState(t, kA, plain(htb("10mbit"))) || count(a.Metrics.driftsFound) != 1 {
		t.Fatalf("after the repair: in state %v, drifts found %d", inState(t, kA, plain(htb("10mbit"))), count(a.Metrics.driftsFound))
	}
	if count(b.Metrics.driftsFound) != 0 {
		t.Errorf("node-b found %d drifts", count(b.Metrics.driftsFound))
	}

	// node-a's new part names a device node-a lacks; node-b's is good.
	sentA := count(a.Metrics.requests)
	configMap(t, dir, "fleet.yaml", fleet(htb("30mbit")+"    ifb9:\n      root: pfifo\n", htb("40mbit")))
	eventually(t, "node-b applied, node-a refused", func() bool {
		return count(b.Metrics.applies) == 2 && count(a.Metrics.failures.WithLabelValues(failBadFile)) >= 1
	})
	if !inState(t, kA, plain(htb("10mbit"))) || !inState(t, kB, plain(htb("40mbit"))) {
		t.Fatal("node-a left its last good state, or node-b did not go on")
	}
	if got := count(a.Metrics.requests); got != sentA {
		t.Errorf("node-a sent %d requests for a refused part", got-sentA)
	}
	if count(a.Metrics.refused) != 1 || count(b.Metrics.refused) != 0 || count(a.Metrics.applies) != 1 {
		t.Errorf("refused a=%d b=%d, applies a=%d", count(a.Metrics.refused), count(b.Metrics.refused), count(a.Metrics.applies))
	}
	if s := a.Status(); !strings.Contains(s.Refused, `no device "ifb9"`) || s.Devices[0] != "ifb0" {
		t.Errorf("node-a's status: %+v", s)
	}
	// The metrics as scraped.
	srv := httptest.NewServer(a.Metrics.Handler())
	defer srv.Close()
	body := scrape(t, srv.URL)
	for _, want := range []string{"gotc_agent_applies_total 1\n", "gotc_agent_drifts_repaired_total 1\n",
		"gotc_agent_file_refused 1\n", `gotc_agent_failures_total{reason="bad_file"} `, "gotc_agent_devices 1\n"} {
		if !strings.Contains(body, want) {
			t.Errorf("the scrape lacks %q:\n%s", want, body)
		}
	}

	// A bad file (a misspelt key): refused on both, nothing sent.
	sentB := count(b.Metrics.requests)
	configMap(t, dir, "fleet.yaml", strings.Replace(fleet(htb("50mbit"), htb("60mbit")), "classes", "clases", 1))
	eventually(t, "node-b refused", func() bool { return count(b.Metrics.refused) == 1 })
	if !inState(t, kB, plain(htb("40mbit"))) || count(b.Metrics.requests) != sentB {
		t.Error("node-b's state changed for a bad file")
	}

	// Fixed: both apply.
	configMap(t, dir, "fleet.yaml", fleet(htb("50mbit"), htb("60mbit")))
	eventually(t, "both applied the fixed file", func() bool { return count(a.Metrics.applies) == 2 && count(b.Metrics.applies) == 3 })
	if !inState(t, kA, plain(htb("50mbit"))) || !inState(t, kB, plain(htb("60mbit"))) || count(a.Metrics.refused) != 0 {
		t.Fatal("the fixed file is not in force")
	}

	// Stopped: the tree stays.
	must(t, stopA())
	if !inState(t, kA, plain(htb("50mbit"))) {
		t.Error("stopping the agent changed the tree")
	}
}

func scrape(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	must(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	must(t, err)
	return string(body)
}

// TestBurst: a burst of 50 writes by atomic rename, 5 ms apart, is one
// pass and one apply, of the last contents; no intermediate one is sent.
func TestBurst(t *testing.T) {
	ns, k := netns(t, "burst")
	file := filepath.Join(t.TempDir(), "tc.yaml")
	atomicWrite(t, file, plain(htb("1mbit")))
	a, _ := start(t, ns, file, "any", false)
	eventually(t, "the first apply", func() bool { return count(a.Metrics.applies) == 1 })
	filePasses := count(a.Metrics.passes.WithLabelValues(triggerFile))
	sent := count(a.Metrics.requests)
	const writes = 50
	for i := 1; i <= writes; i++ {
		atomicWrite(t, file, plain(htb(fmt.Sprintf("%dmbit", 100+i))))
		time.Sleep(5 * time.Millisecond)
	}
	eventually(t, "the burst applied", func() bool { return count(a.Metrics.applies) == 2 })
	time.Sleep(2 * a.Settle) // anything more would come by now
	passes := count(a.Metrics.passes.WithLabelValues(triggerFile)) - filePasses
	t.Logf("%d writes: %d file passes, %d applies, %d requests", writes, passes, count(a.Metrics.applies)-1, count(a.Metrics.requests)-sent)
	if passes != 1 || count(a.Metrics.applies) != 2 || count(a.Metrics.requests)-sent != 1 {
		t.Errorf("%d writes: %d file passes, %d applies, %d requests; want 1, 1, 1 (a change of the class)", writes, passes, count(a.Metrics.applies)-1, count(a.Metrics.requests)-sent)
	}
	if !inState(t, k, plain(htb(fmt.Sprintf("%dmbit", 100+writes)))) {
		t.Error("the last write is not in force")
	}
}

// TestDeleteOnExit: told to, a stopped agent deletes the trees it owns,
// and only those.
func TestDeleteOnExit(t *testing.T) {
	ns, k := netns(t, "delete")
	file := filepath.Join(t.TempDir(), "tc.yaml")
	atomicWrite(t, file, plain(htb("1mbit")))
	a, stop := start(t, ns, file, "any", true)
	eventually(t, "the apply", func() bool { return count(a.Metrics.applies) == 1 })
	must(t, stop())
	if !inState(t, k, plain("\n    ifb0: {}\n")) {
		t.Error("ifb0's tree is still there")
	}
}
