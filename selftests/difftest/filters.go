package main

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// filterCases is what the differential test runs for one filter or action
// kind: command lines (words after "tc", the device written DEV and an ifb
// to redirect to IFB), each run on a fresh device below an htb root 1:
// with a class 1:1 and an ingress qdisc, first with tc, then with gotc.
// Actions are global, so the two runs take turns on one device name: the
// second starts where the first did, with the same free action indexes.
type filterCases struct {
	kind  string
	lines []string
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
	{"-p", "-j", "-s", "filter", "show", "dev", "DEV"},
}

// stateView is what tc prints of the kernel's state after each tool's
// line: the two must agree.
var stateView = []string{"-j", "-s", "-d", "filter", "show", "dev", "DEV"}

// actionTimes are the seconds an action has existed and been idle, which
// differ between the two runs.
var actionTimes = regexp.MustCompile(`(installed|used|firstused|first_used|last_used)( |": ?)[0-9]+`)

// bpfProgRun is what differs between two loads of one eBPF program (a bpf
// filter's or action's): the kernel's id for it and its load time.
var bpfProgRun = regexp.MustCompile(`\b(id|load_time)( |": ?)[0-9]+`)

const (
	filterDev = "fdev"
	filterIfb = "fifb"
)

// filterRun is one tool's run of a case: how the line ended, and what the
// tool and tc then printed of the device.
type filterRun struct {
	line         result
	views, state []string
}

func (r *runner) runFilterCase(tool, line string) filterRun {
	r.run(r.ip, "link", "del", filterDev)
	r.mustRun(r.ip, "link", "add", filterDev, "type", "dummy")
	for _, setup := range []string{"qdisc add dev DEV root handle 1: htb", "class add dev DEV parent 1: classid 1:1 htb rate 1mbit", "qdisc add dev DEV ingress"} {
		r.mustRun(r.tc, filterArgs(setup)...)
	}
	var fr filterRun
	fr.line = r.run(tool, filterArgs(line)...)
	show := func(tool string, v []string, parent ...string) string {
		args := filterArgs(strings.Join(append(slices.Clone(v), parent...), " "))
		out := actionTimes.ReplaceAllString(r.run(tool, args...).stdout, "${1}${2}N")
		return bpfProgRun.ReplaceAllString(out, "${1}${2}N")
	}
	for _, parent := range [][]string{{"parent", "1:"}, {"ingress"}} {
		for _, v := range filterViews {
			fr.views = append(fr.views, show(tool, v, parent...))
		}
		fr.state = append(fr.state, show(r.tc, stateView, parent...))
	}
	if kind := standaloneActionKind(line); kind != "" {
		// Actions made by "tc actions" outlive the device: compare the
		// kind's list, then flush it for the next run.
		for _, v := range actionViews {
			fr.views = append(fr.views, show(tool, v, kind))
		}
		fr.state = append(fr.state, show(r.tc, actionStateView, kind))
		r.run(r.tc, "actions", "flush", "action", kind)
	}
	r.run(r.ip, "link", "del", filterDev)
	return fr
}

// actionViews are what a case of "tc actions" compares besides the
// filters, each followed by the kind; actionStateView is tc's view of the
// kernel's actions after each tool's line.
var (
	actionViews = [][]string{
		{"actions", "list", "action"},
		{"-s", "actions", "list", "action"},
		{"-j", "-s", "-d", "actions", "list", "action"},
	}
	actionStateView = []string{"-j", "-s", "-d", "actions", "list", "action"}
)

// standaloneActionKind is the kind of the first action a line of "tc
// actions" makes, "" for other lines.
func standaloneActionKind(line string) string {
	w := strings.Fields(line)
	if len(w) < 4 || w[0] != "actions" || w[2] != "action" {
		return ""
	}
	return w[3]
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
	for _, c := range allFilterCases {
		if kinds != nil && !slices.Contains(kinds, c.kind) {
			continue
		}
		for _, line := range c.lines {
			counts := total[c.kind]
			if r.checkFilterLine(line) {
				counts[0]++
			} else {
				counts[1]++
			}
			total[c.kind] = counts
		}
	}
}

func (r *runner) checkFilterLine(line string) bool {
	r.n++
	ref := r.runFilterCase(r.tc, line)
	got := r.runFilterCase(r.gotc, line)
	var problems []string
	if ref.line.status != got.line.status {
		problems = append(problems, fmt.Sprintf("exit %d, tc %d (gotc: %q, tc: %q)", got.line.status, ref.line.status, got.line.stderr, ref.line.stderr))
	} else if usageless(ref.line.stderr) != usageless(got.line.stderr) {
		problems = append(problems, fmt.Sprintf("stderr differs:\n  gotc: %q\n  tc:   %q", got.line.stderr, ref.line.stderr))
	}
	for i := range ref.views {
		if got.views[i] != ref.views[i] {
			label := "actions list"
			if i < 2*len(filterViews) {
				label = strings.Join(filterViews[i%len(filterViews)], " ")
			}
			problems = append(problems, fmt.Sprintf("%q output differs:\n%s", label, diff(ref.views[i], got.views[i])))
		}
	}
	for i := range ref.state {
		if got.state[i] != ref.state[i] {
			problems = append(problems, fmt.Sprintf("kernel state differs (tc's view after gotc's line vs after tc's):\n%s", diff(ref.state[i], got.state[i])))
		}
	}
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
