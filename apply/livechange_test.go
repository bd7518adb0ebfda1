// SPDX-License-Identifier: Apache-2.0

package apply

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tckind"
)

// measuredOps reads selftests/live-change.cases, what the VM test
// (selftests/live-change.sh) measured each operation to do to the packets
// a qdisc holds, and returns, for each operation of one request, by
// "OBJECT OP KIND" ("qdisc change cake", "class change htb"), the
// outcomes its rows assert (kept, lost, refused).
func measuredOps(t *testing.T) map[string][]string {
	t.Helper()
	f, err := os.Open("../selftests/live-change.cases")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]string{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		if strings.HasPrefix(sc.Text(), "#") || strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		fields := strings.Split(sc.Text(), "|")
		if len(fields) < 5 {
			t.Fatalf("live-change.cases:%d: %d fields, want NAME | SETUP | TARGET | OP | WANT", line, len(fields))
		}
		op, want := strings.Fields(fields[3]), strings.TrimSpace(fields[4])
		if len(op) < 2 || strings.Contains(fields[3], ";") {
			continue // no operation, or more than one request
		}
		// OBJECT OP dev DEV, then the place (root, parent X, handle X,
		// classid X), then the kind.
		kind := ""
		for i := 4; i < len(op); i++ {
			switch op[i] {
			case "root":
			case "parent", "handle", "classid":
				i++
			default:
				kind = op[i]
			}
			if kind != "" {
				break
			}
		}
		key := op[0] + " " + op[1] + " " + kind
		out[key] = append(out[key], want)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("live-change.cases has no operation of one request")
	}
	return out
}

// TestLiveChangesKeepPackets: a changed setting of a qdisc or class kind
// whose change the VM test measured keeping the queue is planned as that
// one change, not a delete and add or a replace, which lose the queue; so
// is a setting removed from the file, for the kinds whose change keeps
// what it is not sent (Qdisc.KeptOnChange). Every kind measured so is
// here, and the plan converges. A change keeps the queue when its new
// settings still hold it: the rows where the same change loses packets
// (fq_codel's limit below the backlog, cake's tin of the backlog taken
// away) are losses no other request avoids.
func TestLiveChangesKeepPackets(t *testing.T) {
	measured := measuredOps(t)
	qdisc := func(opts string) string {
		return fmt.Sprintf("devices:\n  eth0:\n    root: { qdisc: %s, handle: \"1:\" }\n", opts)
	}
	class := func(root string) func(string) string {
		return func(opts string) string {
			return fmt.Sprintf("devices:\n  eth0:\n    root:\n      qdisc: %s\n      handle: \"1:\"\n      classes:\n        \"1:10\": { class: %s }\n", root, opts)
		}
	}
	tests := []struct {
		name     string
		file     func(string) string
		from, to string
		kind     string
		object   netlink.Object
	}{
		{"tbf", qdisc, "tbf rate 1mbit burst 10k latency 50ms", "tbf rate 2mbit burst 10k latency 50ms", "tbf", netlink.Qdisc},
		{"cake", qdisc, "cake bandwidth 10mbit", "cake bandwidth 20mbit", "cake", netlink.Qdisc},
		{"cake, settings removed", qdisc, "cake bandwidth 10mbit diffserv8 nat wash ack-filter rtt 50ms overhead 18", "cake bandwidth 10mbit", "cake", netlink.Qdisc},
		{"netem", qdisc, "netem delay 10ms", "netem delay 20ms", "netem", netlink.Qdisc},
		{"fq", qdisc, "fq limit 500", "fq limit 600", "fq", netlink.Qdisc},
		{"fq, settings removed", qdisc, "fq limit 500 flow_limit 50 maxrate 10mbit horizon_cap", "fq", "fq", netlink.Qdisc},
		{"hfsc", qdisc, "hfsc default 10", "hfsc default 20", "hfsc", netlink.Qdisc},
		{"fq_codel", qdisc, "fq_codel limit 500", "fq_codel limit 600", "fq_codel", netlink.Qdisc},
		{"fq_codel, settings removed", qdisc, "fq_codel limit 500 target 7ms noecn", "fq_codel", "fq_codel", netlink.Qdisc},
		{"pie", qdisc, "pie limit 500", "pie limit 600", "pie", netlink.Qdisc},
		{"pie, settings removed", qdisc, "pie limit 500 target 7ms ecn bytemode", "pie", "pie", netlink.Qdisc},
		{"fq_pie", qdisc, "fq_pie limit 500", "fq_pie limit 600", "fq_pie", netlink.Qdisc},
		{"fq_pie, settings removed", qdisc, "fq_pie limit 500 ecn_prob 20 ecn", "fq_pie", "fq_pie", netlink.Qdisc},
		{"codel", qdisc, "codel limit 500", "codel limit 600", "codel", netlink.Qdisc},
		{"codel, settings removed", qdisc, "codel limit 500 target 7ms ecn", "codel", "codel", netlink.Qdisc},
		{"hhf", qdisc, "hhf limit 500", "hhf limit 600", "hhf", netlink.Qdisc},
		{"hhf, settings removed", qdisc, "hhf limit 500 hh_limit 1000 evict_timeout 2s", "hhf", "hhf", netlink.Qdisc},
		{"dualpi2", qdisc, "dualpi2 limit 500", "dualpi2 limit 600", "dualpi2", netlink.Qdisc},
		{"dualpi2, settings removed", qdisc, "dualpi2 limit 500 target 7ms step_thresh 20p any_ect", "dualpi2", "dualpi2", netlink.Qdisc},
		{"choke", qdisc, "choke limit 1000 min 300 max 900 avpkt 1000 burst 400 bandwidth 10mbit", "choke limit 1000 min 350 max 900 avpkt 1000 burst 400 bandwidth 10mbit", "choke", netlink.Qdisc},
		{"pfifo", qdisc, "pfifo limit 100", "pfifo limit 200", "pfifo", netlink.Qdisc},
		{"bfifo", qdisc, "bfifo limit 10000", "bfifo limit 20000", "bfifo", netlink.Qdisc},
		{"skbprio", qdisc, "skbprio limit 10", "skbprio limit 20", "skbprio", netlink.Qdisc},
		{"prio", qdisc, "prio bands 3", "prio bands 3 priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0", "prio", netlink.Qdisc},
		{"prio, one band to 0", qdisc, "prio bands 3", "prio bands 3 priomap 1 0 2 2 1 2 0 0 1 1 1 1 1 1 1 1", "prio", netlink.Qdisc},
		{"ets", qdisc, "ets bands 2 quanta 1500 1500", "ets bands 2 quanta 3000 3000", "ets", netlink.Qdisc},
		{"htb class", class("htb default 10"), "htb rate 10mbit", "htb rate 20mbit", "htb", netlink.Class},
		{"hfsc class", class("hfsc default 10"), "hfsc sc rate 10mbit ul rate 10mbit", "hfsc sc rate 20mbit ul rate 20mbit", "hfsc", netlink.Class},
		{"drr class", class("drr"), "drr quantum 1500", "drr quantum 3000", "drr", netlink.Class},
		{"qfq class", class("qfq"), "qfq weight 10", "qfq weight 20", "qfq", netlink.Class},
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := newFake("eth0")
			if _, err := applyFile(t, k, tt.file(tt.from)); err != nil {
				t.Fatal(err)
			}
			p := plan(t, k, tt.file(tt.to))
			if len(p.Requests) != 1 || p.Requests[0].Op != netlink.Change || p.Requests[0].Object != tt.object || p.Requests[0].Kind != tt.kind {
				t.Fatalf("plan %q, want one %s change of %s", p.Commands(), tt.object, tt.kind)
			}
			r := p.Requests[0]
			key := fmt.Sprintf("%s %s %s", r.Object, r.Op, r.Kind)
			covered[key] = true
			if outcomes := measured[key]; !slices.Contains(outcomes, "kept") {
				t.Errorf("plan %q: live-change.cases measured %q as %q, never kept", p.Commands(), key, outcomes)
			}
			if _, err := p.Run(t.Context(), k, nil); err != nil {
				t.Fatal(err)
			}
			if again := commands(t, k, tt.file(tt.to)); len(again) != 0 {
				t.Errorf("applied, the next plan is %q", again)
			}
		})
	}
	// Every change measured keeping the queue is planned above, but for
	// the classes a qdisc makes itself, which apply never changes (ets's
	// quanta are its qdisc's options).
	for key, outcomes := range measured {
		op := strings.Fields(key)
		k := tckind.LookupQdisc(op[2])
		if op[1] == "change" && slices.Contains(outcomes, "kept") && !covered[key] && (op[0] != "class" || k == nil || !k.MakesClasses) {
			t.Errorf("live-change.cases measured %q keeping the queue; plan a change of it here", key)
		}
	}
}
