// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// aqmCase is a configuration beyond the bandwidth plugin's: what its
// state must show, and a tc command that drifts it.
type aqmCase struct {
	name  string
	conf  map[string]any
	shows []string // lines (substrings) tc -d must show after ADD
	drift []string // tc words; the pod's host veth is HOST, its ifb IFB
}

// gotcOnly runs what only gotc-cni does: AQM options, a tree, CHECK on
// drifts the bandwidth plugin does not see, DEL after a crash, STATUS,
// GC and VERSION.
func gotcOnly() {
	both := bw(20_000_000, 200_000, 10_000_000, 100_000)
	for _, c := range []aqmCase{
		{"aqm cake", with(bw(20_000_000, 200_000, 10_000_000, 100_000), "aqm", "cake"),
			[]string{"qdisc cake 1: root", "bandwidth 20Mbit", "bandwidth 10Mbit", "qdisc ingress ffff:"},
			[]string{"qdisc", "change", "dev", "HOST", "root", "cake", "bandwidth", "30mbit"}},
		{"aqm fq_codel", with(bw(20_000_000, 200_000, 10_000_000, 100_000), "aqm", "fq_codel"),
			[]string{"qdisc tbf 1: root", "qdisc fq_codel", "parent 1:1"},
			[]string{"qdisc", "replace", "dev", "IFB", "parent", "1:1", "pfifo"}},
		{"aqm fq", with(bw(20_000_000, 200_000, 0, 0), "aqm", "fq"),
			[]string{"qdisc tbf 1: root", "qdisc fq", "parent 1:1"},
			[]string{"qdisc", "replace", "dev", "HOST", "parent", "1:1", "pfifo"}},
		{"tree", map[string]any{"tree": map[string]any{
			"root": map[string]any{"qdisc": "htb default 10", "handle": "1:", "classes": map[string]any{
				"1:10": map[string]any{"class": "htb rate 5mbit ceil 10mbit", "leaf": "fq_codel"}}},
			"ingress": map[string]any{"qdisc": "ingress", "filters": []string{"protocol all pref 10 matchall action police rate 1mbit burst 10k drop"}}}},
			[]string{"qdisc htb 1: root", "class htb 1:10", "qdisc fq_codel", "matchall", "police"},
			[]string{"class", "change", "dev", "HOST", "parent", "1:", "classid", "1:10", "htb", "rate", "6mbit", "ceil", "10mbit"}},
		// Drifts the bandwidth plugin's CHECK does not look at: its
		// filter, and its TBF replaced by another kind.
		{"bandwidth config, filter deleted", both, nil, []string{"filter", "del", "dev", "HOST", "ingress"}},
		{"bandwidth config, TBF replaced", both, nil, []string{"qdisc", "replace", "dev", "HOST", "root", "handle", "2:", "pfifo"}},
	} {
		p := newPod("a-"+c.name, "podns", "vethpod", "eth0")
		drift := func() []string {
			out := make([]string, len(c.drift))
			for i, w := range c.drift {
				out[i] = strings.NewReplacer("HOST", p.host, "IFB", ifbName(p.id)).Replace(w)
			}
			return out
		}
		if c.shows == nil {
			// The bandwidth plugin first, on the same drift.
			p.make()
			ref := call("bandwidth", "ADD", p, c.conf, false)
			_, err := run(*tcBin, drift()...)
			check := call("bandwidth", "CHECK", p, c.conf, false)
			call("bandwidth", "DEL", p, c.conf, false)
			p.remove()
			if ref.ok && err == nil && check.ok {
				differs("%s: the bandwidth plugin's CHECK passes", c.name)
			} else if ref.ok && err == nil {
				fmt.Printf("  %s: the bandwidth plugin's CHECK fails too: %s\n", c.name, check.msg)
			}
		}
		p.make()
		add := call("gotc-cni", "ADD", p, c.conf, false)
		state := p.state()
		if !add.ok {
			fail("%s: ADD: %s", c.name, add)
			p.remove()
			continue
		}
		missing := []string{}
		for _, s := range c.shows {
			if !strings.Contains(state, s) {
				missing = append(missing, s)
			}
		}
		if len(missing) > 0 {
			fail("%s: state after ADD lacks %q:\n%s", c.name, missing, state)
		} else if c.shows != nil {
			ok("%s: ADD makes it (%s)", c.name, strings.Join(c.shows, ", "))
		}
		if again := call("gotc-cni", "ADD", p, c.conf, false); !again.ok || p.state() != state {
			fail("%s: second ADD: %s, state changed %t", c.name, again, p.state() != state)
		} else if chk := call("gotc-cni", "CHECK", p, c.conf, false); !chk.ok {
			fail("%s: CHECK after ADD: %s", c.name, chk)
		} else {
			ok("%s: second ADD changes nothing; CHECK success", c.name)
		}
		if _, err := run(*tcBin, drift()...); err != nil {
			fail("%s: drift: %v", c.name, err)
		} else if chk := call("gotc-cni", "CHECK", p, c.conf, false); chk.ok {
			fail("%s: CHECK passes after tc %s", c.name, strings.Join(drift(), " "))
		} else {
			ok("%s: CHECK fails after tc %s: %.100s", c.name, strings.Join(drift(), " "), chk.msg)
			// (A leaf replaced comes back with another handle: the
			// state is compared by CHECK, not as text.)
			if add := call("gotc-cni", "ADD", p, c.conf, false); !add.ok || !call("gotc-cni", "CHECK", p, c.conf, false).ok {
				fail("%s: ADD after drift does not repair it: %s", c.name, add)
			} else {
				ok("%s: ADD repairs the drift", c.name)
			}
		}
		del := call("gotc-cni", "DEL", p, c.conf, false)
		after := p.state()
		if !del.ok || strings.Contains(after, "qdisc htb") || strings.Contains(after, "qdisc tbf") || strings.Contains(after, "qdisc cake") ||
			strings.Contains(after, "qdisc ingress") || !strings.Contains(after, "no device "+ifbName(p.id)) {
			fail("%s: DEL %s, left:\n%s", c.name, del, after)
		} else {
			ok("%s: DEL leaves nothing", c.name)
		}
		p.remove()
	}

	// A crash midway through ADD: the ifb made, the ingress qdisc added,
	// no filter yet. DEL finds the ifb by its name and removes all.
	p := newPod("crashed", "podns", "vethpod", "eth0")
	p.make()
	must(*ipBin, "link", "add", ifbName(p.id), "type", "ifb")
	must(*tcBin, "qdisc", "add", "dev", p.host, "handle", "ffff:", "ingress")
	if del := call("gotc-cni", "DEL", p, both, false); !del.ok {
		fail("DEL after a crashed ADD: %s", del)
	} else if after := p.state(); strings.Contains(after, "qdisc ingress") || !strings.Contains(after, "no device "+ifbName(p.id)) {
		fail("DEL after a crashed ADD left:\n%s", after)
	} else {
		ok("DEL after a crashed ADD (ifb and ingress qdisc made) leaves nothing")
	}
	p.remove()

	// GC: the ifb of an attachment no longer valid goes, a valid one's stays.
	p, q := newPod("gc-gone", "podns", "vethpod", "eth0"), newPod("gc-kept", "podns2", "vethpod2", "eth0")
	p.make()
	q.make()
	call("gotc-cni", "ADD", p, both, false)
	call("gotc-cni", "ADD", q, both, false)
	gc := call("gotc-cni", "GC", p, map[string]any{"cniVersion": "1.1.0", "cni.dev/valid-attachments": []map[string]string{{"containerID": q.id, "ifname": "eth0"}}}, true)
	_, errGone := run(*ipBin, "link", "show", ifbName(p.id))
	_, errKept := run(*ipBin, "link", "show", ifbName(q.id))
	if !gc.ok || errGone == nil || errKept != nil {
		fail("GC: %s; invalid attachment's ifb gone %t, valid one's kept %t", gc, errGone != nil, errKept == nil)
	} else {
		ok("GC deletes the ifb of an attachment no longer valid, keeps the valid one's")
	}
	call("gotc-cni", "DEL", q, both, false)
	p.remove()
	q.remove()

	p.make()
	if st := call("gotc-cni", "STATUS", p, map[string]any{"cniVersion": "1.1.0"}, true); !st.ok {
		fail("STATUS: %s", st)
	} else {
		ok("STATUS: ready")
	}
	if v := call("gotc-cni", "VERSION", p, map[string]any{"cniVersion": "1.1.0"}, true); !v.ok || !strings.Contains(v.out, `"1.1.0"`) {
		fail("VERSION: %s %s", v, v.out)
	} else {
		ok("VERSION lists 1.1.0")
	}
	p.remove()
}

// timed adds and deletes n pods (ingress and egress shaped) with each
// plugin, one call at a time as a runtime would, and compares the time of
// a call (mean, median, 95th percentile). After the DELs it counts what
// is left of each plugin's: ifbs, qdiscs and filters on this run's host
// veths. gotc-cni must leave nothing; the bandwidth plugin's DEL deletes
// only the ifb and leaves the veth's TBF, ingress qdisc and filter to the
// veth's deletion, so its counts (2n qdiscs, n filters) check the counting.
func timed(n int) {
	began := time.Now()
	conf := bw(20_000_000, 200_000, 10_000_000, 100_000)
	var took [2][2][]time.Duration // plugin, ADD/DEL: each call's
	var left [2]leftovers
	plugins := []string{"bandwidth", "gotc-cni"}
	for pi, plugin := range plugins {
		// Each plugin's pods have names of their own: a namespace's
		// deletion, and its veths', finishes after ip returns.
		ns, prefix := "pods-"+plugin, plugin[:1]
		var add, del strings.Builder
		for i := range n {
			fmt.Fprintf(&add, "link add %sv%d type veth peer name e%d netns %s\nlink set %sv%d up\n", prefix, i, i, ns, prefix, i)
			fmt.Fprintf(&del, "link del %sv%d\n", prefix, i)
		}
		must(*ipBin, "netns", "add", ns)
		batch(*ipBin, add.String())
		pod := func(i int) pod {
			return newPod(fmt.Sprintf("t%s%d", prefix, i), ns, fmt.Sprintf("%sv%d", prefix, i), fmt.Sprintf("e%d", i))
		}
		failures := 0
		for op, command := range []string{"ADD", "DEL"} {
			for i := range n {
				a := call(plugin, command, pod(i), conf, false)
				took[pi][op] = append(took[pi][op], a.took)
				if !a.ok {
					if failures++; failures <= 3 {
						fmt.Printf("  %s %s pod %d: %s\n", plugin, command, i, a)
					}
				}
			}
			if command == "ADD" {
				links, _ := run(*ipBin, "-o", "link", "show", "type", "ifb")
				if c := strings.Count(links, ": bwp"); c != n {
					fail("%s: %d pods added, %d ifbs", plugin, n, c)
				}
			}
		}
		left[pi] = countLeft(n, prefix)
		switch l := left[pi]; {
		case failures > 0:
			fail("%s: %d of %d pods' calls failed", plugin, failures, 2*n)
		case l.ifbs > 0:
			fail("%s: %d ifbs left after %d DELs", plugin, l.ifbs, n)
		case plugin == "gotc-cni" && (l.qdiscs > 0 || l.filters > 0):
			fail("%s: %d qdiscs and %d filters left on the host veths after DEL", plugin, l.qdiscs, l.filters)
		case plugin == "bandwidth" && (l.qdiscs != 2*n || l.filters != n):
			fail("%s: %d qdiscs and %d filters counted on the host veths after DEL, want %d and %d (its DEL leaves them to the veth's deletion)",
				plugin, l.qdiscs, l.filters, 2*n, n)
		default:
			ok("%s: %d pods added and deleted; left after DEL: %s", plugin, n, l)
		}
		batch(*ipBin, del.String())
		must(*ipBin, "netns", "del", ns)
	}
	fmt.Printf("# %d pods, ms per call (mean, median, 95th percentile), %s over %s as the ratio of the means:\n", n, plugins[1], plugins[0])
	for op, command := range []string{"ADD", "DEL"} {
		fmt.Printf("#   %s: %s %s, %s %s, ratio %.2f\n", command, plugins[0], spread(took[0][op]), plugins[1], spread(took[1][op]),
			float64(mean(took[1][op]))/float64(mean(took[0][op])))
	}
	fmt.Printf("#   left after DEL: %s %s; %s %s\n", plugins[0], left[0], plugins[1], left[1])
	fmt.Printf("#   the timed run took %.0f s\n", time.Since(began).Seconds())
}

// leftovers are what is left after a plugin's DELs.
type leftovers struct{ ifbs, qdiscs, filters int }

func (l leftovers) String() string {
	return fmt.Sprintf("%d ifbs, %d qdiscs, %d filters", l.ifbs, l.qdiscs, l.filters)
}

// countLeft counts the ifbs the plugins name (bwp...), and the qdiscs and
// filters on the n host veths whose names begin with prefix: the qdiscs
// other than a device's default (handle 0:), the filters as classifier
// instances (tc's line for each, the one with no fh or handle; a u32
// filter's hash table and key have lines of their own). Only this run's
// veths are looked at: earlier tests may leave qdiscs elsewhere.
func countLeft(n int, prefix string) leftovers {
	var l leftovers
	links, _ := run(*ipBin, "-o", "link", "show", "type", "ifb")
	l.ifbs = strings.Count(links, ": bwp")
	qdiscs, _ := run(*tcBin, "qdisc", "show")
	for _, line := range strings.Split(qdiscs, "\n") {
		if m := qdiscOnDev.FindStringSubmatch(line); m != nil && m[1] != "0:" && podVeth(m[2], prefix) {
			l.qdiscs++
		}
	}
	var show strings.Builder
	for i := range n {
		fmt.Fprintf(&show, "filter show dev %sv%d\nfilter show dev %sv%d ingress\n", prefix, i, prefix, i)
	}
	// -force: a device without an ingress qdisc is an error that must
	// not end the batch.
	for _, line := range strings.Split(batch(*tcBin, show.String(), "-force"), "\n") {
		if strings.HasPrefix(line, "filter ") && !strings.Contains(line, " fh ") && !strings.Contains(line, " handle ") {
			l.filters++
		}
	}
	return l
}

func mean(d []time.Duration) time.Duration {
	var sum time.Duration
	for _, x := range d {
		sum += x
	}
	return sum / time.Duration(len(d))
}

// spread is a set of durations' mean, median and 95th percentile in ms.
func spread(d []time.Duration) string {
	s := slices.Sorted(slices.Values(d))
	ms := func(x time.Duration) float64 { return float64(x.Microseconds()) / 1000 }
	return fmt.Sprintf("%.1f/%.1f/%.1f", ms(mean(d)), ms(s[len(s)/2]), ms(s[len(s)*95/100]))
}

// batch runs bin (ip or tc) with -batch on lines, after the flags
// given, and returns its standard output; with -force, a line's failure
// is no error.
func batch(bin, lines string, flags ...string) string {
	f, err := os.CreateTemp("", "batch")
	if err != nil {
		fmt.Println("setup failed:", err)
		os.Exit(2)
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(lines); err != nil {
		fmt.Println("setup failed:", err)
		os.Exit(2)
	}
	f.Close()
	args := append(flags, "-batch", f.Name())
	if slices.Contains(flags, "-force") {
		out, _ := run(bin, args...)
		return out
	}
	return must(bin, args...)
}

// qdiscOnDev picks a qdisc's handle and device out of a line of tc qdisc show.
var qdiscOnDev = regexp.MustCompile(`^qdisc \S+ (\S+) dev (\S+) `)

// podVeth reports whether dev is one of timed's host veths of the plugin
// whose names begin with prefix ("gv12").
func podVeth(dev, prefix string) bool {
	n, found := strings.CutPrefix(dev, prefix+"v")
	if !found || n == "" {
		return false
	}
	_, err := strconv.Atoi(n)
	return err == nil
}
