// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Batches compared with tc: long enough that gotc reads the qdiscs and sends
// the changes the kernel is sure to accept in bursts, with lines the kernel
// refuses and lines that change what later lines find; and short ones in
// tc's batch syntax. For each, both tools run the same file from the same
// starting state; their exit status, messages and the qdiscs they leave must
// be the same.

const batchDevs = 8

// batchLines is 200 changes of the devices' two queues, with unique values
// so that the final state shows which lines were applied; edit changes some
// lines first.
func batchLines(edit func(lines []string)) []string {
	var lines []string
	for i := range 200 {
		dev := fmt.Sprintf("bd%d", (i/2)%batchDevs) // both queues of each device, in turn
		if i%2 == 0 {
			lines = append(lines, fmt.Sprintf("qdisc replace dev %s parent 1:1 cake bandwidth %dkbit", dev, 1000+i))
		} else {
			lines = append(lines, fmt.Sprintf("qdisc replace dev %s parent 1:2 dualpi2 limit %d", dev, 1000+i))
		}
	}
	if edit != nil {
		edit(lines)
	}
	return lines
}

func (r *runner) checkBatches() (passed, failed int) {
	for i := range batchDevs {
		r.mustRun(r.ip, "link", "add", fmt.Sprintf("bd%d", i), "numtxqueues", "2", "type", "dummy")
	}
	for _, c := range []struct {
		name  string
		force bool
		lines []string
	}{
		{"all accepted", false, batchLines(nil)},
		{"a line refused among the bursts", false, batchLines(func(l []string) {
			l[150] = "qdisc add dev bd0 parent 1:1 cake" // exists: EEXIST
		})},
		{"a kind changed, then changed back", false, batchLines(func(l []string) {
			l[100] = "qdisc replace dev bd4 parent 1:1 dualpi2 limit 77"
			l[110] = "qdisc replace dev bd6 parent 1:2 dualpi2 limit 0" // refused by the policy
		})},
		{"a qdisc deleted, then replaced", false, batchLines(func(l []string) {
			l[90] = "qdisc del dev bd2 parent 1:1"
			l[120] = "qdisc change dev bd2 parent 1:1 cake rtt 5ms" // the cake line 99 created
		})},
		{"-force with refused lines", true, batchLines(func(l []string) {
			l[70] = "qdisc add dev bd0 parent 1:1 cake"
			l[130] = "qdisc replace dev bd1 parent 1:2 dualpi2 alpha 0"
		})},
		{"continued lines among the bursts, then a refusal", false, batchLines(func(l []string) {
			l[100] = "qdisc replace dev bd2 parent 1:1 cake \\\n    bandwidth 3mbit" // two lines
			l[150] = "qdisc add dev bd0 parent 1:1 cake"                             // line 152 of the file
		})},
		// tc's syntax: getcmdline's comments and continued lines, makeargs's
		// words and quotes, and how each error ends a batch.
		{"syntax: continued lines, comments, quotes", false, []string{
			"qdisc replace dev bd0 parent 1:1 cake \\",
			"    bandwidth 5mbit \\",
			"    rtt 20ms",
			"# a comment line",
			"qdisc replace dev bd1 parent 1:1 cake bandwidth 7mbit # a comment \\",
			"qdisc replace dev bd2 parent 1:2 dualpi2 limit 55#a comment in a word",
			`qdisc replace dev "bd3" parent 1:1 'cake' bandwidth "9mbit"`,
			`qdisc replace dev bd4 parent 1:1 "cake"bandwidth 11mbit`,
			`qdisc replace dev bd5 parent 1:1 c"ake"`, // a kind the kernel does not know
			"qdisc replace dev bd6 parent 1:1 cake bandwidth 13mbit",
		}},
		{"syntax: -force, then an unterminated quote", true, []string{
			"qdisc replace dev bd0 parent 1:1 cake bandwidth 3mbit",
			"qdisc add dev bd0 parent 1:1 cake",
			`qdisc replace dev bd1 parent 1:1 "cake bandwidth 4mbit`,
			"qdisc replace dev bd2 parent 1:1 cake bandwidth 5mbit",
		}},
		{"syntax: a continuation at the end", false, []string{
			"qdisc replace dev bd0 parent 1:1 cake bandwidth 3mbit",
			"qdisc replace dev bd1 parent 1:1 cake \\",
		}},
		{"syntax: 511 words, then 512", false, []string{
			"qdisc replace dev bd0 parent 1:1 cake" + strings.Repeat(" besteffort", 511-7),
			"qdisc replace dev bd1 parent 1:1 cake" + strings.Repeat(" besteffort", 512-7),
			"qdisc replace dev bd2 parent 1:1 cake bandwidth 5mbit",
		}},
	} {
		if r.checkBatch(c.name, c.force, c.lines) {
			passed++
		} else {
			failed++
		}
	}
	return passed, failed
}

// handles masks the handles the kernel picks, which differ between runs.
var handles = regexp.MustCompile(`(qdisc \S+) [0-9a-f]+:`)

func (r *runner) checkBatch(name string, force bool, lines []string) bool {
	file := filepath.Join(os.TempDir(), "difftest-batch")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "difftest:", err)
		os.Exit(1)
	}
	args := []string{"-batch", file}
	if force {
		args = append([]string{"-force"}, args...)
	}
	apply := func(tool string) (result, string) {
		for i := range batchDevs {
			dev := fmt.Sprintf("bd%d", i)
			r.run(r.tc, "qdisc", "del", "dev", dev, "root")
			r.mustRun(r.tc, "qdisc", "add", "dev", dev, "root", "handle", "1:", "mq")
			r.mustRun(r.tc, "qdisc", "add", "dev", dev, "parent", "1:1", "cake")
			r.mustRun(r.tc, "qdisc", "add", "dev", dev, "parent", "1:2", "dualpi2")
		}
		res := r.run(tool, args...)
		// Each device's qdiscs, sorted: the kernel lists a device's qdiscs
		// in the order of their handles' hash, and handles differ per run.
		var state []string
		for i := range batchDevs {
			out := handles.ReplaceAllString(r.run(r.tc, "qdisc", "show", "dev", fmt.Sprintf("bd%d", i)).stdout, "$1 H:")
			lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
			slices.Sort(lines)
			state = append(state, fmt.Sprintf("bd%d:", i))
			state = append(state, lines...)
		}
		return res, strings.Join(state, "\n")
	}
	want, wantState := apply(r.tc)
	got, gotState := apply(r.gotc)
	r.n++
	ok := got.status == want.status && got.stderr == want.stderr && gotState == wantState
	mark := "ok"
	if !ok {
		mark = "not ok"
	}
	fmt.Printf("%s %d - batch: %s\n", mark, r.n, name)
	if !ok || r.verbose {
		fmt.Printf("  tc exit %d stderr %q\n  gotc exit %d stderr %q\n", want.status, want.stderr, got.status, got.stderr)
		if gotState != wantState {
			fmt.Println(diff(wantState, gotState))
		}
	}
	return ok
}
