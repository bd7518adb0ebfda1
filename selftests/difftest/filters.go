// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/gotc/gotc/netlink"
)

// filterCases is what the differential test runs for one filter or action
// kind: command lines (words after "tc", the device written DEV and an ifb
// to redirect to IFB), each run on a fresh device below an htb root 1:
// with a class 1:1 and an ingress qdisc, first with tc, then with gotc.
// Actions are global, so the two runs take turns on one device name: the
// second starts where the first did, with the same free action indexes.
// A "tc actions" line also compares the actions of the kind it names,
// which are flushed before and after each run.
// A line may hold several commands joined by " && ", run in turn until one
// fails (a chain and the filters in it, a shared block and its filters).
type filterCases struct {
	kind  string
	lines []string
	// views are listings compared after each line besides the filter
	// views, for what a kind makes that those do not show (chains, shared
	// blocks); written as lines are.
	views []string
	// cleanup runs with tc after each run, once its device is gone, for
	// what outlives the device: the next run must start where this one
	// did.
	cleanup []string
}

var allFilterCases []filterCases

func registerFilters(c filterCases) {
	for _, o := range allFilterCases {
		if o.kind == c.kind {
			panic("difftest: filter cases of " + c.kind + " registered twice")
		}
	}
	allFilterCases = append(allFilterCases, c)
}

// filterViews are what each filter case compares, for the htb's filters
// and for the ingress qdisc's.
var filterViews = [][]string{
	{"filter", "show", "dev", "DEV"},
	{"-s", "-p", "filter", "show", "dev", "DEV"},
	{"-d", "-raw", "filter", "show", "dev", "DEV"},
	{"-j", "-s", "filter", "show", "dev", "DEV"},
}

// stateView is what tc prints of the kernel's state after each tool's
// line: the two must agree.
var stateView = []string{"-j", "-s", "-d", "filter", "show", "dev", "DEV"}

// bpfProgRun is what differs between two loads of one eBPF program (a bpf
// filter's or action's): the kernel's id for it and its load time. Only the
// bpf kind's cases blank it, since other kinds print ids that must agree
// (vlan's).
var bpfProgRun = regexp.MustCompile(`\b(id|load_time)( |": ?)[0-9]+`)

// actionViews are what a case that is a "tc actions" command compares
// besides: the actions of the kind it names, after each view's words.
var actionViews = [][]string{
	{"actions", "list", "action"},
	{"-s", "actions", "list", "action"},
	{"-d", "-raw", "actions", "list", "action"},
	{"-j", "-s", "actions", "list", "action"},
}

// actionsKind is the kind a "tc actions" line names first ("" for a
// filter line): the word after its first "action".
func actionsKind(line string) string {
	args := strings.Fields(line)
	if len(args) == 0 || args[0] != "actions" {
		return ""
	}
	if i := slices.Index(args, "action"); i >= 0 && i+1 < len(args) {
		return args[i+1]
	}
	return ""
}

// actionTimes are the seconds an action has existed and been idle, which
// differ between the two runs. They are cut whole, not only their values:
// tc leaves out a time of 0 (police's under 10 ms), which a slower run of
// the same line does not give.
var actionTimes = regexp.MustCompile(` ?(installed|used|firstused) [0-9]+ sec|"(installed|used|firstused|first_used|last_used)": ?[0-9]+,?`)

const (
	filterDev = "fdev"
	filterIfb = "fifb"
	// filterSetup is the batch file of what every case starts from, which
	// checkFilters writes.
	filterSetup = "/tmp/difftest-filter-setup"
	// filterDevFile is the ip batch that remakes the device.
	filterDevFile = "/tmp/difftest-filter-dev"
)

// filterRun is one tool's run of a case: how the line ended, and what the
// tool and tc then printed of the device.
type filterRun struct {
	line                 result
	labels, views, state []string
}

func (r *runner) runFilterCase(c *filterCases, tool, line string) filterRun {
	// A fresh device (the last run's goes here, not at its end), then its
	// qdiscs and class: one ip and one tc process, as under TCG a process
	// start is most of what a line costs. The batch's first line fails on
	// the first run, with no device yet; the setup then fails if the
	// device was not made.
	r.run(r.ip, "-force", "-batch", filterDevFile)
	r.mustRun(r.tc, "-batch", filterSetup)
	// Actions outlive the device: each run starts without the kind's.
	kind := actionsKind(line)
	if kind != "" {
		r.run(r.tc, "actions", "flush", "action", kind)
	}
	var fr filterRun
	for i, cmd := range strings.Split(line, " && ") {
		res := r.run(tool, filterArgs(cmd)...)
		if i > 0 {
			res.stdout, res.stderr = fr.line.stdout+res.stdout, fr.line.stderr+res.stderr
		}
		if fr.line = res; res.status != 0 {
			break
		}
	}
	show := func(tool string, v []string, parent ...string) string {
		args := filterArgs(strings.Join(append(slices.Clone(v), parent...), " "))
		out := actionTimes.ReplaceAllString(r.run(tool, args...).stdout, "")
		if c.kind == "bpf" {
			out = bpfProgRun.ReplaceAllString(out, "${1}${2}N")
		}
		return out
	}
	for _, parent := range [][]string{{"parent", "1:"}, {"ingress"}} {
		state := show(r.tc, stateView, parent...)
		fr.state = append(fr.state, state)
		// A parent without filters prints nothing in any view: most
		// lines touch one of the two (a "tc actions" line neither), and
		// the other's views would only double the case's time. The state
		// comparison still catches a tool that put something there.
		empty := strings.TrimSpace(state) == "[]"
		for _, v := range filterViews {
			fr.labels = append(fr.labels, strings.Join(v, " "))
			if empty {
				fr.views = append(fr.views, "")
			} else {
				fr.views = append(fr.views, show(tool, v, parent...))
			}
		}
	}
	if kind != "" {
		for _, v := range actionViews {
			fr.labels = append(fr.labels, strings.Join(v, " ")+" "+kind)
			fr.views = append(fr.views, show(tool, v, kind))
		}
		fr.state = append(fr.state, show(r.tc, []string{"-j", "-s", "-d", "actions", "list", "action"}, kind))
		r.run(r.tc, "actions", "flush", "action", kind)
	}
	for _, v := range c.views {
		fr.labels = append(fr.labels, v)
		fr.views = append(fr.views, show(tool, strings.Fields(v)))
	}
	if c.cleanup != nil {
		r.run(r.ip, "link", "del", filterDev)
	}
	for _, cmd := range c.cleanup {
		r.run(r.tc, filterArgs(cmd)...)
	}
	return fr
}

// filterArgs splits a case's line into words: at blanks, except inside
// single quotes, which make one word (bpf's bytecode) and are dropped.
func filterArgs(line string) []string {
	var args []string
	for i, part := range strings.Split(line, "'") {
		if i%2 == 1 {
			args = append(args, part)
		} else {
			args = append(args, strings.Fields(part)...)
		}
	}
	for i, a := range args {
		switch a {
		case "DEV":
			args[i] = filterDev
		case "IFB":
			args[i] = filterIfb
		}
	}
	return args
}

// checkFilters runs every filter case and counts them per kind.
func (r *runner) checkFilters(kinds []string, total map[string][2]int) {
	if len(allFilterCases) == 0 {
		return
	}
	r.run(r.ip, "link", "add", filterIfb, "type", "ifb")
	setup := "qdisc add dev DEV root handle 1: htb\nclass add dev DEV parent 1: classid 1:1 htb rate 1mbit\nqdisc add dev DEV ingress\n"
	dev := "link del DEV\nlink add DEV type dummy\n"
	for file, text := range map[string]string{filterSetup: setup, filterDevFile: dev} {
		if err := os.WriteFile(file, []byte(strings.ReplaceAll(text, "DEV", filterDev)), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "difftest:", err)
			os.Exit(1)
		}
	}
	// A shared block lives while a qdisc shares it: one that another
	// test's device still shares would keep tc's filters for gotc's run
	// of the same block case, which the kernel then refuses as a
	// duplicate.
	if shared := blocksInUse.FindString(r.run(r.tc, "qdisc", "show").stdout); shared != "" {
		fmt.Fprintf(os.Stderr, "difftest: a qdisc already shares a block the cases use (%q): delete it first\n", shared)
		os.Exit(1)
	}
	for i := range allFilterCases {
		c := &allFilterCases[i]
		if kinds != nil && !slices.Contains(kinds, c.kind) {
			continue
		}
		for _, line := range c.lines {
			counts := total[c.kind]
			if r.checkFilterLine(c, line) {
				counts[0]++
			} else {
				counts[1]++
			}
			total[c.kind] = counts
		}
	}
}

func (r *runner) checkFilterLine(c *filterCases, line string) bool {
	r.n++
	ref := r.runFilterCase(c, r.tc, line)
	// What the kernel dumps of tc's device, written back by the kinds,
	// before gotc's run makes the device anew: the filters under 1: and
	// ingress, and the qdiscs and classes the setup made.
	problems := r.keywords.check(filterDev, netlink.MakeHandle(1, 0), parentIngressHook)
	got := r.runFilterCase(c, r.gotc, line)
	if ref.line.status != got.line.status {
		problems = append(problems, fmt.Sprintf("exit %d, tc %d (gotc: %q, tc: %q)", got.line.status, ref.line.status, got.line.stderr, ref.line.stderr))
	} else if usageless(ref.line.stderr) != usageless(got.line.stderr) {
		problems = append(problems, fmt.Sprintf("stderr differs:\n  gotc: %q\n  tc:   %q", got.line.stderr, ref.line.stderr))
	}
	for i := range ref.views {
		if got.views[i] != ref.views[i] {
			problems = append(problems, fmt.Sprintf("%q output differs:\n%s", ref.labels[i], diff(ref.views[i], got.views[i])))
		}
	}
	for i := range ref.state {
		if got.state[i] != ref.state[i] {
			problems = append(problems, fmt.Sprintf("kernel state differs (tc's view after gotc's line vs after tc's):\n%s", diff(ref.state[i], got.state[i])))
		}
	}
	// The device as gotc's line left it, made again by apply from what
	// --from-kernel writes of it.
	problems = append(problems, r.reapply.check(filterDev, netlink.MakeHandle(1, 0), parentIngressHook)...)
	if len(problems) == 0 {
		fmt.Printf("ok %d - %s\n", r.n, line)
		return true
	}
	fmt.Printf("not ok %d - %s\n", r.n, line)
	for _, p := range problems {
		fmt.Print(indent(p + "\n"))
	}
	return false
}
