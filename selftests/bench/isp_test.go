// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestISPTree checks the ISP phase's batch files: a site per 100
// subscribers on each of the 4 queues, every classid and leaf handle unique,
// the hex handles shapers write, the share of CAKE leaves, and a live-change
// batch of 2,000 + 500 + 200 lines whose restore re-adds what it deletes.
func TestISPTree(t *testing.T) {
	subs := ispLayout(2000)
	build := ispBuild(subs)
	// mq, then per queue: htb, 2 top classes, the default leaf, 5 sites.
	if want := 1 + 4*(4+5) + 2*2000; len(build) != want {
		t.Fatalf("%d build lines, want %d", len(build), want)
	}
	if build[0] != "qdisc replace dev isp0 root handle 7FFF: mq" || build[1] != "qdisc add dev isp0 parent 7FFF:0x1 handle 0x1: htb default 2" {
		t.Errorf("the build starts %q, %q", build[0], build[1])
	}
	classids, handles := map[string]bool{}, map[string]bool{}
	cakes := 0
	for _, l := range build {
		f := strings.Fields(l)
		for i, w := range f[:len(f)-1] {
			switch {
			case w == "classid" && classids[f[i+1]]:
				t.Errorf("classid %s twice", f[i+1])
			case w == "classid":
				classids[f[i+1]] = true
			case w == "handle" && handles[f[i+1]]:
				t.Errorf("handle %s twice", f[i+1])
			case w == "handle":
				handles[f[i+1]] = true
			}
		}
		if strings.HasSuffix(l, "cake diffserv4") {
			cakes++
		}
	}
	if want := 4*(2+5) + 2000; len(classids) != want {
		t.Errorf("%d classes, want %d", len(classids), want)
	}
	if cakes != 1500 {
		t.Errorf("%d CAKE leaves, want 1500", cakes)
	}
	// Subscriber 5 is the second on queue 2, under that queue's first site
	// (0x3), after its 5 sites: minor 3+5+1.
	if got, want := subs[5].classLine("add"), "class add dev isp0 parent 0x2:0x3 classid 0x2:0x9 htb rate 15.0mbit ceil 60.0mbit prio 3 quantum 1514"; got != want {
		t.Errorf("subscriber 5: %q, want %q", got, want)
	}
	change, restore := ispChange(subs)
	count := map[string]int{}
	for _, l := range change {
		f := strings.Fields(l)
		count[f[0]+" "+f[1]]++
	}
	if fmt.Sprint(count) != "map[class change:2000 class del:100 qdisc del:100 qdisc replace:500]" {
		t.Errorf("live changes: %v", count)
	}
	if len(restore) != 200 || !strings.HasPrefix(restore[0], "class add ") || !strings.HasPrefix(restore[1], "qdisc add ") {
		t.Errorf("restore: %d lines, starting %q", len(restore), restore[:min(2, len(restore))])
	}
}

// perf stat's CSV: counted events by index, "not supported" ones left out.
func TestParsePerfStat(t *testing.T) {
	out := "195,,page-faults,6153657,100.00,,\n<not supported>,,instructions:u,0,100.00,,\n1234,,instructions:k,0,100.00,,\n"
	got := parsePerfStat(out)
	if len(got) != 2 || got[0] != 195 || got[2] != 1234 {
		t.Errorf("parsePerfStat = %v", got)
	}
}
