// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/netlink"
)

// The peers phase (issue 22): gotc beside the other ways to do the same
// work, in one run, each task checked before its time counts.
//
//   - Libraries: gotc's, vishvananda/netlink, florianl/go-tc and pyroute2,
//     each in a process of its own (the peers command, a module of its own
//     under peers/, and peers/pyroute2_peer.py), timed from inside from
//     after the socket is open: dump the -peers-classes classes of an htb
//     with statistics, change -peers-changes class rates, add an htb root
//     to each of -peers-devs devices.
//   - The CLI: tc and gotc on the same three tasks (-s class show; -batch
//     of the changes; -batch of the adds), whole processes.
//   - Exporters: node_exporter's qdisc collector and gotc's exporter
//     package, one scrape each (after an untimed one) in a process of its
//     own, on the -peers-devs roots alone, then with the htb tree there too
//     (which node_exporter dumps and drops, and gotc exports).
//
// Each ratio is gotc/peer, the median of the per-run ratios, with the
// kernel floor (floor_linux.go: the same requests or dump, nothing decoded)
// as floor/peer beside it. A peer that cannot do a task (an error, a
// truncated dump, a rate not changed) is reported as failing it and left
// out of that task's later runs.
var (
	peersBin     = flag.String("peers", "", "peers phase: the peers command (selftests/bench/peers); empty leaves out the Go library peers and the exporters")
	pyroute2Cmd  = flag.String("pyroute2", "", "peers phase: the words that run selftests/bench/peers/pyroute2_peer.py (\"python3 .../pyroute2_peer.py\"); empty leaves pyroute2 out")
	peersRuns    = flag.Int("peers-runs", 3, "peers phase: runs of each tool per task")
	peersClasses = flag.Int("peers-classes", 20000, "peers phase: htb classes (each with a pfifo leaf) dumped")
	peersChanges = flag.Int("peers-changes", 2000, "peers phase: class rates changed")
	peersDevs    = flag.Int("peers-devs", 1000, "peers phase: devices given an htb root, and scraped")
)

// A peerTool is one way of doing the phase's tasks.
type peerTool struct {
	name string
	cli  bool // a whole tc or gotc process, timed from outside
	argv func(task string, args ...string) []string
}

// peerOut is what one tool's run of a task did.
type peerOut struct {
	d     time.Duration
	count int // objects seen or changed, as the tool says
	size  int // exposition bytes (scrape)
	err   string
}

// peerRow is one task's measurements: each tool's times in the runs it
// passed, the floor's, and the failures.
type peerRow struct {
	task     string
	times    map[string][]float64
	floor    []float64
	failures map[string]string
}

// peerSummary collects every ratio for the table printed at the phase's end.
var peerSummary []string

func peerLibs() []peerTool {
	var tools []peerTool
	if *peersBin != "" {
		for _, lib := range []string{"gotc", "vishvananda", "go-tc"} {
			tools = append(tools, peerTool{name: lib, argv: func(task string, args ...string) []string {
				return append([]string{*peersBin, "-lib", lib, "-task", task}, args...)
			}})
		}
	}
	if *pyroute2Cmd != "" {
		// Asked once whether it runs here at all (the VM's python may
		// not have pyroute2): if not, it is not run, and the bench says why.
		words := strings.Fields(*pyroute2Cmd)
		if _, err := exec.LookPath(words[0]); err != nil {
			fmt.Printf("  pyroute2: not run: %v\n", err)
			return tools
		}
		r := run(true, words[0], append(words[1:], "-task", "version")...)
		if r.status != 0 {
			fmt.Printf("  pyroute2: not run: %s\n", strings.TrimSpace(r.stderr))
			return tools
		}
		fmt.Printf("  %s", r.stdout)
		tools = append(tools, peerTool{name: "pyroute2", argv: func(task string, args ...string) []string {
			return append(append(strings.Fields(*pyroute2Cmd), "-task", task), args...)
		}})
	}
	return tools
}

func peerCLI(args func() []string) []peerTool {
	return []peerTool{
		{name: "tc", cli: true, argv: func(string, ...string) []string { return append(strings.Fields(*tcPath), args()...) }},
		{name: "gotc-cli", cli: true, argv: func(string, ...string) []string { return append([]string{*gotcPath}, args()...) }},
	}
}

// runPeer runs one tool's task and reads what it printed.
func runPeer(t peerTool, task string, args ...string) peerOut {
	argv := t.argv(task, args...)
	r := run(!t.cli, argv[0], argv[1:]...)
	if r.status != 0 {
		return peerOut{err: fmt.Sprintf("exit %d: %s", r.status, strings.TrimSpace(r.stderr))}
	}
	if t.cli {
		return peerOut{d: r.wall}
	}
	var ns int64
	var o peerOut
	if _, err := fmt.Sscan(string(r.stdout), &ns, &o.count, &o.size); err != nil {
		return peerOut{err: fmt.Sprintf("unreadable output %q: %v", r.stdout, err)}
	}
	o.d = time.Duration(ns)
	return o
}

// measure runs each tool -peers-runs times, in an order that turns by one
// each run: prepare (untimed) before each, the tool, then check, which
// says what is wrong with the result ("" when right); then the floor.
func measure(task string, tools []peerTool, prepare func(run, tool int), do func(run, tool int, t peerTool) peerOut,
	check func(run, tool int, t peerTool, o peerOut) string, floorOf func(run int) time.Duration) *peerRow {
	row := &peerRow{task: task, times: map[string][]float64{}, failures: map[string]string{}}
	for r := range *peersRuns {
		var progress []string
		for k := range tools {
			i := (k + r) % len(tools)
			t := tools[i]
			if _, failed := row.failures[t.name]; failed {
				continue
			}
			prepare(r, i)
			o := do(r, i, t)
			if o.err == "" {
				o.err = check(r, i, t, o)
			}
			if o.err != "" {
				row.failures[t.name] = o.err
				fmt.Printf("  %s: %s FAILED: %s\n", task, t.name, o.err)
				continue
			}
			row.times[t.name] = append(row.times[t.name], secs(o.d))
			progress = append(progress, fmt.Sprintf("%s %.3f s", t.name, secs(o.d)))
		}
		prepare(r, -1)
		row.floor = append(row.floor, secs(floorOf(r)))
		fmt.Printf("  run %d of %s: %s, floor %.3f s\n", r+1, task, strings.Join(progress, ", "), row.floor[r])
	}
	return row
}

// ratios reports got/ref of the row's tools beside floor/ref, over the runs
// both passed.
func (row *peerRow) ratio(got, ref string) {
	g, f := row.times[got], row.times[ref]
	if _, bad := row.failures[got]; bad || len(g) == 0 {
		return
	}
	if reason, bad := row.failures[ref]; bad || len(f) == 0 {
		peerSummary = append(peerSummary, fmt.Sprintf("| %s | %s | fails: %s | |", row.task, ref, firstLine(reason)))
		return
	}
	k := min(len(g), len(f))
	var rs, fs []float64
	for i := range k {
		rs = append(rs, g[i]/f[i])
		fs = append(fs, row.floor[i]/f[i])
	}
	compare(row.task, ref, got, "s", f[:k], g[:k], 0)
	fmt.Printf("%-52s floor/%s %.3f [%.3f..%.3f]\n", "", ref, median(fs), slices.Min(fs), slices.Max(fs))
	peerSummary = append(peerSummary, fmt.Sprintf("| %s | %s/%s | %.2f [%.2f..%.2f] | %.2f |", row.task, strings.TrimSuffix(got, "-cli"), ref,
		median(rs), slices.Min(rs), slices.Max(rs), median(fs)))
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 100 {
		s = s[:100] + "..."
	}
	return s
}

func peers() {
	C, M, N := *peersClasses, *peersChanges, *peersDevs
	fmt.Printf("== peers: %d htb classes with pfifo leaves on ifb0, %d rates changed, %d devices given an htb root\n", C, M, N)
	if M > C {
		fail("peers: -peers-changes %d > -peers-classes %d", M, C)
	}
	if *peersBin != "" {
		if _, err := os.Stat(*peersBin); err != nil {
			fail("peers: %v (selftests/bench.sh builds it)", err)
		}
	}
	t0 := time.Now()
	var links []string
	links = append(links, "link add ifb0 type ifb", "link set ifb0 up")
	for i := range N {
		links = append(links, fmt.Sprintf("link add p%d type ifb", i), fmt.Sprintf("link set p%d up", i))
	}
	must(*ipPath, "-batch", writeFile("peers-links", links))
	defer func() {
		var lines []string
		lines = append(lines, "link del ifb0")
		for i := range N {
			lines = append(lines, fmt.Sprintf("link del p%d", i))
		}
		must(*ipPath, "-batch", writeFile("peers-unlinks", lines))
	}()
	libs := peerLibs()
	names := make([]string, 0, len(libs))
	for _, l := range libs {
		names = append(names, l.name)
	}
	fmt.Printf("libraries: %s; setup took %s\n", strings.Join(names, ", "), time.Since(t0).Round(time.Millisecond))
	if *pyroute2Cmd == "" {
		fmt.Println("  pyroute2: not run (no -pyroute2)")
	}

	// Add: an htb root on each of N devices.
	var adds, dels []string
	for i := range N {
		adds = append(adds, fmt.Sprintf("qdisc add dev p%d root handle 1: htb default 10", i))
		dels = append(dels, fmt.Sprintf("qdisc del dev p%d root", i))
	}
	addFile, delFile := writeFile("peers-add", adds), writeFile("peers-del", dels)
	delRoots := func(int, int) { run(false, *tcPath, "-force", "-batch", delFile) }
	addTools := append(slices.Clone(libs), peerCLI(func() []string { return []string{"-batch", addFile} })...)
	add := measure(fmt.Sprintf("add %d htb roots", N), addTools, delRoots,
		func(_, _ int, t peerTool) peerOut { return runPeer(t, "add", "-n", fmt.Sprint(N), "-prefix", "p") },
		func(_, _ int, t peerTool, o peerOut) string {
			if got := htbRoots("p"); got != N {
				return fmt.Sprintf("%d htb roots on the p devices after, not %d", got, N)
			}
			return ""
		},
		func(int) time.Duration { return floor("-floor-batch", addFile, "-floor-window", "1") })
	// The last run was the floor's: the roots are there for the exporters.

	var exporters []peerTool
	if *peersBin != "" {
		for _, lib := range []string{"node_exporter", "gotc"} {
			exporters = append(exporters, peerTool{name: lib, argv: func(task string, args ...string) []string {
				return append([]string{*peersBin, "-lib", lib, "-task", task}, args...)
			}})
		}
	}
	scrapeCheck := func(_, _ int, t peerTool, o peerOut) string {
		if o.count != N {
			return fmt.Sprintf("%d htb roots of the p devices in the exposition, not %d", o.count, N)
		}
		fmt.Printf("    %s exposition: %d bytes\n", t.name, o.size)
		return ""
	}
	scrape := func(_, _ int, t peerTool) peerOut { return runPeer(t, "scrape", "-prefix", "p") }
	qdiscFloor := func(int) time.Duration { return floor("-floor-dump") }
	var sameRoots *peerRow
	if len(exporters) > 0 {
		sameRoots = measure(fmt.Sprintf("exporter: %d roots", N), exporters, func(int, int) {}, scrape, scrapeCheck, qdiscFloor)
	}

	// The tree: ifb0's htb with C classes and their pfifo leaves.
	t0 = time.Now()
	tree := []string{"qdisc add dev ifb0 root handle 1: htb default 1"}
	for i := 1; i <= C; i++ {
		tree = append(tree, fmt.Sprintf("class add dev ifb0 parent 1: classid 1:%x htb rate 1mbit", i),
			fmt.Sprintf("qdisc add dev ifb0 parent 1:%x handle %x: pfifo limit 100", i, i+1))
	}
	// Set up by gotc, pipelined: 4 times as fast as tc's batch here
	// (2,000 classes: 5.8 s against 24.6 s on the shared host), which
	// matters most in the VM. The dump's check below counts the classes
	// with tc too.
	must(*gotcPath, "-force", "-batch", writeFile("peers-tree", tree))
	fmt.Printf("  the tree (%d lines) took %s\n", len(tree), time.Since(t0).Round(time.Millisecond))

	// Dump: the C classes with statistics.
	// The CLI's dumps are timed to /dev/null: their classes are counted
	// once here, untimed.
	for _, tool := range []string{*tcPath, *gotcPath} {
		out := run(true, tool, "-s", "class", "show", "dev", "ifb0")
		got := strings.Count(string(out.stdout), "class htb ")
		if tool == *gotcPath {
			check(out.status == 0 && got == C, "peers: gotc -s class show: exit %d, %d classes of %d", out.status, got, C)
		} else if out.status != 0 || got != C {
			fmt.Printf("peer failure: tc -s class show: exit %d, %d classes, not %d\n", out.status, got, C)
		}
	}
	dumpTools := append(slices.Clone(libs), peerCLI(func() []string { return []string{"-s", "class", "show", "dev", "ifb0"} })...)
	dump := measure(fmt.Sprintf("dump %d classes with statistics", C), dumpTools, func(int, int) {},
		func(_, _ int, t peerTool) peerOut { return runPeer(t, "dump", "-dev", "ifb0") },
		func(_, _ int, t peerTool, o peerOut) string {
			if !t.cli && o.count != C {
				return fmt.Sprintf("%d classes with statistics, not %d", o.count, C)
			}
			return ""
		},
		func(int) time.Duration { return floor("-floor-dump", "-floor-class", "-floor-dev", "ifb0") })

	// Change: M class rates, to a rate of each run's and tool's own, so
	// that the check sees this tool's work.
	rateOf := func(r, tool int) uint64 { return 2_000_000 + uint64(r*32+tool+1)*8_000 }
	changeFile := func(rate uint64) string {
		var lines []string
		for i := 1; i <= M; i++ {
			lines = append(lines, fmt.Sprintf("class change dev ifb0 parent 1: classid 1:%x htb rate %dbit ceil %dbit", i, rate, rate))
		}
		return writeFile(fmt.Sprintf("peers-change-%d", rate), lines)
	}
	var curRate uint64
	var changeTools []peerTool
	changeTools = append(changeTools, libs...)
	changeTools = append(changeTools, peerCLI(func() []string { return []string{"-batch", changeFile(curRate)} })...)
	change := measure(fmt.Sprintf("change %d class rates", M), changeTools,
		func(r, tool int) { curRate = rateOf(r, tool) },
		func(_, _ int, t peerTool) peerOut {
			return runPeer(t, "change", "-dev", "ifb0", "-n", fmt.Sprint(M), "-rate", fmt.Sprint(curRate))
		},
		func(_, _ int, t peerTool, o peerOut) string {
			if got := ratesAt("ifb0", curRate/8, M); got != M {
				return fmt.Sprintf("%d of classes 1:1..1:%x at %d bit/s after, not %d", got, M, curRate, M)
			}
			return ""
		},
		func(r int) time.Duration {
			return floor("-floor-batch", changeFile(rateOf(r, 31)), "-floor-window", "1")
		})

	var wholeTree *peerRow
	if len(exporters) > 0 {
		wholeTree = measure(fmt.Sprintf("exporter: whole tree (%d qdiscs)", N+C+1), exporters, func(int, int) {}, scrape, scrapeCheck, qdiscFloor)
	}

	fmt.Println("-- peers: gotc/peer (median of the per-run ratios [range]) and the kernel floor/peer")
	for _, row := range []*peerRow{dump, change, add} {
		for _, l := range libs {
			if l.name != "gotc" {
				row.ratio("gotc", l.name)
			}
		}
		row.ratio("gotc-cli", "tc")
	}
	for _, row := range []*peerRow{sameRoots, wholeTree} {
		if row != nil {
			row.ratio("gotc", "node_exporter")
		}
	}
	for _, row := range []*peerRow{dump, change, add, sameRoots, wholeTree} {
		if row == nil {
			continue
		}
		for tool, reason := range row.failures {
			fmt.Printf("peer failure: %s: %s: %s\n", row.task, tool, reason)
		}
		if reason, bad := row.failures["gotc"]; bad {
			check(false, "%s: gotc: %s", row.task, reason)
		}
		if reason, bad := row.failures["gotc-cli"]; bad {
			check(false, "%s: gotc's CLI: %s", row.task, reason)
		}
	}
	fmt.Println("| task | gotc/peer | ratio [range] | floor/peer |")
	fmt.Println("|---|---|---|---|")
	for _, l := range peerSummary {
		fmt.Println(l)
	}
}

// htbRoots counts the htb root qdiscs of the devices whose names start
// with prefix.
func htbRoots(prefix string) int {
	c, err := netlink.Dial(nil)
	if err != nil {
		fail("peers: %v", err)
	}
	defer c.Close()
	ctx := context.Background()
	names, err := c.LinkNames(ctx)
	if err != nil {
		fail("peers: %v", err)
	}
	n := 0
	for m, err := range c.Msgs(ctx, netlink.Qdisc, netlink.DumpFilter{}) {
		if err != nil {
			fail("peers: qdisc dump: %v", err)
		}
		if m.Kind() == "htb" && m.Header.Parent == netlink.HandleRoot && strings.HasPrefix(names[m.Header.Ifindex], prefix) {
			n++
		}
	}
	return n
}

// ratesAt counts the htb classes 1:1..1:n of dev whose rate and ceil are
// bytes/s.
func ratesAt(dev string, bytes uint64, n int) int {
	c, err := netlink.Dial(nil)
	if err != nil {
		fail("peers: %v", err)
	}
	defer c.Close()
	ifi, err := netIndex(dev)
	if err != nil {
		fail("peers: %v", err)
	}
	got := 0
	for m, err := range c.Msgs(context.Background(), netlink.Class, netlink.DumpFilter{Ifindex: ifi}) {
		if err != nil {
			fail("peers: class dump: %v", err)
		}
		minor := m.Header.Handle & 0xffff
		h, ok := m.Attrs.Options.(*attrs.HTBAttrs)
		if !ok || h.Parms == nil || minor < 1 || int(minor) > n {
			continue
		}
		if uint64(h.Parms.Rate.Rate) == bytes && uint64(h.Parms.Ceil.Rate) == bytes {
			got++
		}
	}
	return got
}
