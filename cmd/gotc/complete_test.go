// SPDX-License-Identifier: Apache-2.0

package main

import (
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/gotc/gotc/tckind"
)

// completions runs the completion on a line as the scripts split it: its
// words, the last the one being typed ("" after a space).
func completions(t *testing.T, line string) []string {
	t.Helper()
	words := strings.Fields(line)
	if line == "" || strings.HasSuffix(line, " ") {
		words = append(words, "")
	}
	var out strings.Builder
	cmd := &tc{ctx: t.Context(), stdout: &out, stderr: io.Discard, dial: func(int) (conn, error) { return newFake(), nil }}
	defer cmd.close()
	if err := cmd.complete(words); err != nil {
		t.Fatal(err)
	}
	return strings.Fields(out.String())
}

// TestCompleteCommand: the scripts' command reaches the completion.
func TestCompleteCommand(t *testing.T) {
	if status, stdout, stderr := gotc(newFake(), completeCommand+" -s qd"); status != exitOK || stdout != "qdisc\n" || stderr != "" {
		t.Errorf("status %d, stdout %q, stderr %q", status, stdout, stderr)
	}
}

func TestComplete(t *testing.T) {
	for _, tc := range []struct {
		line      string
		want, not []string // all of want, none of not
		exactly   bool
	}{
		{line: "", want: []string{"qdisc", "class", "filter", "chain", "actions", "monitor", "apply", "stats", "model", "exporter", "help", "-stats", "-netns"}},
		{line: "qd", want: []string{"qdisc"}, exactly: true},
		{line: "-s -j qdisc ", want: []string{"add", "del", "change", "replace", "link", "show", "help"}, exactly: true},
		{line: "-n", want: []string{"-netns", "-names"}, exactly: true},
		{line: "-netns ", want: nil, exactly: true},
		{line: "qdisc add dev ", want: []string{"dummy0", "eth0"}, exactly: true},
		{line: "qdisc add dev eth0 root ca", want: []string{"cake", "cake_mq"}, exactly: true},
		{line: "qdisc add dev eth0 root m", want: []string{"mq", "mqprio", "multiq"}, exactly: true},
		{line: "qdisc add dev eth0 root cake band", want: []string{"bandwidth"}, exactly: true},
		{line: "qdisc add dev eth0 root cake bandwidth ", want: nil, exactly: true},
		{line: "qdisc add dev eth0 root cake bandwidth 10mbit diff", want: []string{"diffserv3", "diffserv4", "diffserv8", "diffserv"}, exactly: true},
		{line: "qdisc add dev eth0 root htb ", want: []string{"default", "r2q", "direct_qlen", "offload", "help"}, not: []string{"is", "minor", "N"}},
		{line: "qdisc show ", want: []string{"dev", "invisible"}},
		{line: "class add dev eth0 parent 1: classid 1:1 ", want: []string{"htb", "hfsc", "drr"}, not: []string{"cake", "prio"}},
		{line: "class add dev eth0 parent 1: classid 1:1 htb ", want: []string{"rate", "ceil", "burst", "prio", "quantum"}},
		{line: "filter add dev eth0 ingress ", want: []string{"u32", "flower", "matchall", "pref", "protocol"}},
		{line: "filter add dev eth0 ingress flower ", want: []string{"dst_ip", "src_port", "skip_sw", "action"}},
		{line: "filter add dev eth0 ingress matchall action mi", want: []string{"mirred"}, exactly: true},
		{line: "filter add dev eth0 ingress matchall action mirred ", want: []string{"egress", "ingress", "index", "action"}},
		{line: "filter add dev eth0 ingress matchall action mirred egress redirect dev ", want: []string{"dummy0", "eth0"}, exactly: true},
		{line: "actions add action po", want: []string{"police"}, exactly: true},
		{line: "actions add action police rate ", want: nil, exactly: true},
		{line: "stats ", want: []string{"dev", "interval", "count", "deltas", "rates", "help"}, exactly: true},
		{line: "stats interval ", want: nil, exactly: true},
		{line: "exporter ", want: []string{"listen", "dev", "include", "exclude", "aggregate", "names", "help"}, exactly: true},
		{line: "exporter include ", want: nil, exactly: true},
		{line: "apply ", want: []string{"--check", "--diff", fileWord}},
		{line: "apply --from-kernel ", want: []string{"dummy0", "eth0"}, exactly: true},
		{line: "model ", want: []string{"cake", "dualpi2", "fq_codel", "dev", "compare", "help"}, exactly: true},
		{line: "model compare ", want: []string{"cake", "dualpi2", "fq_codel", "dev"}, exactly: true},
		{line: "model compare cake vs ", want: []string{"cake", "dualpi2", "fq_codel", "dev"}, exactly: true},
		{line: "model cake ", want: []string{"bandwidth", "diffserv4", "trace", "plan"}},
		{line: "model cake trace ", want: []string{fileWord}, exactly: true},
		{line: "model cake ", want: []string{"pcap", "vs", "sweep", "plot", "metric", "rate"}},
		{line: "model cake vs ", want: []string{"cake", "dualpi2", "fq_codel", "dev"}, exactly: true},
		{line: "model cake vs dualpi2 ", want: []string{"step_thresh", "pcap"}, not: []string{"diffserv4"}},
		{line: "model fq_codel ", want: []string{"target", "ce_threshold", "pcap", "rate"}},
		{line: "model cake pcap up.pcap plot ", want: []string{fileWord}, exactly: true},
		{line: "model cake pcap up.pcap metric ", want: []string{"p50", "p99", "throughput"}},
	} {
		got := completions(t, tc.line)
		missing := slices.ContainsFunc(tc.want, func(w string) bool { return !slices.Contains(got, w) })
		extra := slices.ContainsFunc(tc.not, func(w string) bool { return slices.Contains(got, w) }) || tc.exactly && len(got) != len(tc.want)
		if missing || extra {
			t.Errorf("%q: %q; want %q (exactly: %v), none of %q", tc.line, got, tc.want, tc.exactly, tc.not)
		}
	}
}

// TestCompleteEveryKind: every kind of the registry whose usage names
// keywords is completed with some of them, after its name in a request
// (for a qdisc kind, in a qdisc's or a class's).
func TestCompleteEveryKind(t *testing.T) {
	keywords := func(line string) int {
		return len(slices.DeleteFunc(completions(t, line), func(w string) bool { return w == "help" || w == "action" || w == "index" }))
	}
	for _, k := range tckind.Qdiscs() {
		if !slices.ContainsFunc(strings.Fields(strings.ToLower(k.Usage)), func(w string) bool {
			return w != "usage:" && w != "..." && w != k.Name && w != "[help]"
		}) {
			continue // no options (drr, ingress)
		}
		if keywords("qdisc add dev eth0 root "+k.Name+" ")+keywords("class add dev eth0 parent 1: classid 1:1 "+k.Name+" ") == 0 {
			t.Errorf("qdisc %s: no keyword of the kind", k.Name)
		}
	}
	for _, k := range tckind.Filters() {
		if keywords("filter add dev eth0 ingress "+k.Name+" ") == 0 {
			t.Errorf("filter %s: no keyword of the kind", k.Name)
		}
	}
	for _, k := range tckind.Actions() {
		if keywords("actions add action "+k.Name+" ") == 0 {
			t.Errorf("action %s: no keyword of the kind", k.Name)
		}
	}
}
