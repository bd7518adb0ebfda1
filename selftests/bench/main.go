// SPDX-License-Identifier: Apache-2.0

// Command bench compares gotc with iproute2's tc on the test bed's kernel:
// both tools in one run, alternating, with each ratio reported as the median
// (and the range) of the per-pair ratios gotc/tc, and "N passed, M failed"
// against the targets. Absolute times in a TCG VM mean little; the
// ratios are what to read. Run it in the VM (selftests/bench.sh does):
//
//	bench [-runs N] [-devs 1000] [-slots 10] [-mon-devs 100] [-mon-samples 1000] [-shows 20]
//
// Phases, each on its own devices:
//
//  1. batch semantics: the same batch with a line the kernel refuses, through
//     tc and gotc, with and without -force: same exit status, same messages,
//     same resulting qdiscs.
//  2. monitoring: -mon-devs dummy devices with CAKE, sampled -mon-samples
//     times every 10 ms: CPU time (user+system, from rusage) of one
//     "gotc stats interval 10ms count N" against a loop of "tc -s -j qdisc
//     show" processes; and one "qdisc show dev X" process, start to exit.
//  3. batch: -devs dummy devices with -slots transmit queues each under an mq
//     root; a batch of devs*slots "qdisc replace ... parent 1:N" lines, slot 1
//     CAKE and the others DualPI2 (CAKE takes ~0.7 MB of kernel memory per
//     instance: the VM needs about 1 MB per device), applied once untimed so
//     every later run changes existing qdiscs, then timed: tc -batch against
//     gotc -batch, and the same with -force. The DualPI2 lines set tupdate
//     (-dualpi2-tupdate, default 4 s): each DualPI2 instance runs a timer
//     every tupdate, and 9,000 of them at the default 16 ms kept the VM's
//     one emulated CPU 78% busy with nothing else running (3-8% at 1-4 s),
//     which slowed every measured process by a varying factor and stalled
//     tc's batch past 3 minutes.
//  4. dump: "-s -j qdisc show" of those qdiscs (devs*(slots+1) with the mq
//     roots) to /dev/null: wall time and peak memory of each; and, in one
//     untimed run of each, whether the outputs match.
//
// Beside the batch and the dump, their kernel floors (floor.go): the same
// work with every userspace step a client takes removed, as a ratio to tc.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gotc/gotc/netlink"
)

var (
	runs        = flag.Int("runs", 5, "timed runs of each tool per measurement")
	devs        = flag.Int("devs", 1000, "dummy devices for the batch and dump measurements")
	slots       = flag.Int("slots", 10, "qdiscs per device (transmit queues under mq)")
	monDevs     = flag.Int("mon-devs", 100, "CAKE qdiscs sampled by the monitoring measurement")
	monSamples  = flag.Int("mon-samples", 1000, "samples at 100 Hz in the monitoring measurement")
	shows       = flag.Int("shows", 20, "runs of the single 'qdisc show dev' measurement")
	tcPath      = flag.String("tc", "/ref/bin/tc", "reference tc")
	ipPath      = flag.String("ip", "/ref/bin/ip", "reference ip")
	gotcPath    = flag.String("gotc", "/gotc/bin/gotc", "gotc")
	dir         = flag.String("dir", "/tmp/bench", "scratch directory")
	floorDump   = flag.Bool("floor-dump", false, "only time the dump floor (floor.go) and print its duration in nanoseconds")
	floorClass  = flag.Bool("floor-class", false, "-floor-dump dumps classes (of -floor-dev)")
	floorFilter = flag.Bool("floor-filter", false, "-floor-dump dumps the filters of -floor-dev under -floor-parent")
	floorParent = flag.Uint("floor-parent", 0, "-floor-filter's parent, a handle as a number (0: the root qdisc)")
	floorDev    = flag.String("floor-dev", "", "-floor-dump dumps this device only")
	floorBatch  = flag.String("floor-batch", "", "only time the batch floor (floor.go) of this batch file and print its duration in nanoseconds")
	floorWin    = flag.Int("floor-window", netlink.MaxWindow, "requests per write in -floor-batch")
	floorDumped = flag.Bool("floor-with-dump", false, "-floor-batch reads a qdisc dump first (what proving requests accepted costs)")
	tupdate     = flag.String("dualpi2-tupdate", "4s", "DualPI2's tupdate in the batch lines (see batchAndDump)")
	procLimit   = flag.Duration("proc-timeout", 10*time.Minute, "longest any one measured process may run before the benchmark fails")
	skip        = flag.String("skip", "", "phases not to run, comma-separated: semantics, oneshot, monitoring, batch, isp, peers")
	gotcEnv     = flag.String("gotc-env", "", "environment for gotc's processes, e.g. \"GOGC=off GOMEMLIMIT=64MiB\" to see what tuning the GC would give")
)

var passed, failed int

func check(ok bool, format string, args ...any) {
	mark := "PASS"
	if ok {
		passed++
	} else {
		failed++
		mark = "FAIL"
	}
	fmt.Printf("%s %s\n", mark, fmt.Sprintf(format, args...))
}

// result is what one process cost.
type result struct {
	wall, cpu time.Duration
	maxRSS    int64 // KiB, VmHWM as the process exits (spawn)
	status    int
	stdout    []byte // kept only when asked for
	stderr    string
}

var devNull *os.File

// run runs one process; its standard output is kept only if keep. path
// may be words: a loader and its options before the program (the reference
// tc run by its own loader on a host whose libraries do not fit it).
func run(keep bool, path string, args ...string) result {
	words := strings.Fields(path)
	argv := append(words, args...)
	env := os.Environ()
	if path == *gotcPath && *gotcEnv != "" {
		env = append(env, strings.Fields(*gotcEnv)...)
	}
	r := spawn(keep, argv, env)
	if r.wall >= *procLimit {
		fmt.Fprintf(os.Stderr, "bench: %s timed out; its stderr: %s\n", strings.Join(argv, " "), r.stderr)
		os.Exit(1)
	}
	return r
}

// floor runs this program as one of its floor measurements and returns the
// duration it printed.
func floor(args ...string) time.Duration {
	self, err := os.Executable()
	if err != nil {
		fail("%v", err)
	}
	r := run(true, self, args...)
	ns, err := strconv.ParseInt(strings.TrimSpace(string(r.stdout)), 10, 64)
	if r.status != 0 || err != nil {
		fail("floor %s: exit %d: %s%s", strings.Join(args, " "), r.status, r.stderr, r.stdout)
	}
	return time.Duration(ns)
}

// must runs a setup command and stops the benchmark if it fails.
func must(path string, args ...string) {
	if r := run(false, path, args...); r.status != 0 {
		fmt.Fprintf(os.Stderr, "bench: %s %s: exit %d: %s\n", path, strings.Join(args, " "), r.status, r.stderr)
		os.Exit(1)
	}
}

func writeFile(name string, lines []string) string {
	path := filepath.Join(*dir, name)
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	return path
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// report prints a measurement: each tool's median with its range, the
// per-pair ratios' median with their range, and checks the target (0: none).
func report(name, unit string, tc, gotc []float64, target float64) {
	compare(name, "tc", "gotc", unit, tc, gotc, target)
}

// compare is report with the columns named: the ratio is got/ref.
func compare(name, refName, gotName, unit string, ref, got []float64, target float64) {
	var ratios []float64
	for i := range ref {
		ratios = append(ratios, got[i]/ref[i])
	}
	r := median(ratios)
	fmt.Printf("%-52s %s %9.4f %s [%.4f..%.4f]  %s %9.4f %s [%.4f..%.4f]  ratio %.3f [%.3f..%.3f] (n=%d)\n",
		name, refName, median(ref), unit, slices.Min(ref), slices.Max(ref), gotName, median(got), unit, slices.Min(got), slices.Max(got),
		r, slices.Min(ratios), slices.Max(ratios), len(ratios))
	if target > 0 {
		check(r <= target, "%s: %s/%s %.3f <= %.2f", name, gotName, refName, r, target)
	}
}

// phase reports whether the phase is to run (not named in -skip).
func phase(name string) bool {
	return !slices.Contains(strings.Split(*skip, ","), name)
}

func secs(d time.Duration) float64 { return d.Seconds() }

func main() {
	flag.Parse()
	// The floors run as processes of their own, like the tools they are
	// compared with, and under the same time limit.
	if *floorDump {
		var ifindex int32
		if *floorDev != "" {
			ifi, err := net.InterfaceByName(*floorDev)
			if err != nil {
				fail("%v", err)
			}
			ifindex = int32(ifi.Index)
		}
		what := dumpQdiscs
		switch {
		case *floorClass:
			what = dumpClasses
		case *floorFilter:
			what = dumpFilters
		}
		d, _ := dumpFloor(what, ifindex, uint32(*floorParent))
		fmt.Println(d.Nanoseconds())
		return
	}
	if *floorBatch != "" {
		b, err := os.ReadFile(*floorBatch)
		if err != nil {
			fail("%v", err)
		}
		fmt.Println(batchFloor(strings.Split(strings.TrimSpace(string(b)), "\n"), *floorWin, *floorDumped).Nanoseconds())
		return
	}
	var err error
	if devNull, err = os.OpenFile(os.DevNull, os.O_WRONLY, 0); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	if *gotcEnv != "" {
		fmt.Printf("gotc runs with %s\n", *gotcEnv)
	}
	start := time.Now()
	if phase("semantics") {
		semantics()
	}
	if phase("oneshot") {
		oneshot()
	}
	if phase("monitoring") {
		monitoring()
	}
	if phase("batch") {
		batchAndDump()
	}
	if phase("isp") {
		isp()
	}
	if phase("peers") {
		peers() // peers.go
	}
	fmt.Printf("bench took %s\n", time.Since(start).Round(time.Second))
	fmt.Printf("%d passed, %d failed\n", passed, failed)
	if failed > 0 {
		os.Exit(1)
	}
}

// links creates dummy devices PREFIX0..PREFIX(n-1) with ip -batch.
func links(prefix string, n int, extra string) {
	var lines []string
	for i := range n {
		lines = append(lines, fmt.Sprintf("link add %s%d %stype dummy", prefix, i, extra))
	}
	must(*ipPath, "-batch", writeFile(prefix+"-links", lines))
}

func dropLinks(prefix string, n int) {
	var lines []string
	for i := range n {
		lines = append(lines, fmt.Sprintf("link del %s%d", prefix, i))
	}
	must(*ipPath, "-batch", writeFile(prefix+"-unlinks", lines))
}

// semantics runs a batch whose third line the kernel refuses through both
// tools and compares what they print and leave behind.
func semantics() {
	fmt.Println("== batch semantics on the real kernel")
	links("s", 4, "")
	batch := writeFile("semantics", []string{
		"qdisc replace dev s0 root cake bandwidth 10mbit",
		"qdisc replace dev s1 root dualpi2",
		"qdisc add dev s0 root cake", // EEXIST: the kernel refuses it
		"qdisc replace dev s2 root cake",
		"qdisc replace dev s3 root dualpi2 limit 1000",
	})
	clean := func() {
		for i := range 4 {
			run(false, *tcPath, "qdisc", "del", "dev", fmt.Sprintf("s%d", i), "root")
		}
	}
	// The qdiscs with their kernel-chosen handles masked: each run gets new ones.
	handle := regexp.MustCompile(`^(qdisc \S+) [0-9a-f]+:`)
	state := func() string {
		var out []string
		for _, l := range strings.Split(string(run(true, *tcPath, "qdisc", "show").stdout), "\n") {
			out = append(out, handle.ReplaceAllString(l, "$1 H:"))
		}
		return strings.Join(out, "\n")
	}
	for _, force := range []bool{false, true} {
		args := []string{"-batch", batch}
		name := "-batch"
		if force {
			args = append([]string{"-force"}, args...)
			name = "-force -batch"
		}
		clean()
		want := run(false, *tcPath, args...)
		wantState := state()
		clean()
		got := run(false, *gotcPath, args...)
		gotState := state()
		check(got.status == want.status && got.stderr == want.stderr,
			"%s with a refused line: gotc exit %d stderr %q, tc exit %d stderr %q", name, got.status, got.stderr, want.status, want.stderr)
		check(gotState == wantState, "%s with a refused line: same qdiscs after as tc's\n--- tc:\n%s--- gotc:\n%s", name, wantState, gotState)
	}
	clean()
	dropLinks("s", 4)
}

// monitoring measures sampling -mon-devs CAKE qdiscs at 100 Hz, and a single
// "qdisc show dev" process.
func monitoring() {
	fmt.Printf("== monitoring: %d CAKE qdiscs, %d samples at 100 Hz\n", *monDevs, *monSamples)
	links("m", *monDevs, "")
	var lines []string
	for i := range *monDevs {
		lines = append(lines, fmt.Sprintf("qdisc add dev m%d root cake bandwidth 100mbit", i))
	}
	must(*tcPath, "-batch", writeFile("m-cake", lines))

	var tcShow, gotcShow []float64
	for range *shows {
		tcShow = append(tcShow, secs(run(false, *tcPath, "qdisc", "show", "dev", "m0").wall))
		gotcShow = append(gotcShow, secs(run(false, *gotcPath, "qdisc", "show", "dev", "m0").wall))
	}
	report("one 'qdisc show dev X' process, wall", "s", tcShow, gotcShow, 1.0)

	var tcCPU, gotcCPU, tcWall, gotcWall []float64
	for range *runs {
		// tc: one process per sample, started on a 10 ms tick (back to back
		// when a sample takes longer). The loop's own cost is not counted.
		tick := time.NewTicker(10 * time.Millisecond)
		var cpu time.Duration
		t0 := time.Now()
		for range *monSamples {
			<-tick.C
			cpu += run(false, *tcPath, "-s", "-j", "qdisc", "show").cpu
		}
		tick.Stop()
		tcWall = append(tcWall, secs(time.Since(t0)))
		tcCPU = append(tcCPU, secs(cpu))
		r := run(false, *gotcPath, "stats", "interval", "10ms", "count", fmt.Sprint(*monSamples))
		if r.status != 0 {
			fmt.Fprintf(os.Stderr, "bench: gotc stats: exit %d: %s\n", r.status, r.stderr)
			os.Exit(1)
		}
		gotcWall = append(gotcWall, secs(r.wall))
		gotcCPU = append(gotcCPU, secs(r.cpu))
	}
	report("sampling at 100 Hz, CPU time", "s", tcCPU, gotcCPU, 1.0)
	report("sampling at 100 Hz, wall (info)", "s", tcWall, gotcWall, 0)
	dropLinks("m", *monDevs)
}

// batchAndDump measures applying devs*slots qdisc replacements and dumping
// them with statistics.
func batchAndDump() {
	n := *devs * *slots
	fmt.Printf("== batch: %d 'qdisc replace' lines over %d devices (%d per device under mq; slot 1 CAKE, others DualPI2)\n", n, *devs, *slots)
	t0 := time.Now()
	links("d", *devs, fmt.Sprintf("numtxqueues %d ", *slots))
	var roots, lines []string
	for d := range *devs {
		roots = append(roots, fmt.Sprintf("qdisc add dev d%d root handle 1: mq", d))
	}
	for s := 1; s <= *slots; s++ {
		for d := range *devs {
			if s == 1 {
				lines = append(lines, fmt.Sprintf("qdisc replace dev d%d parent 1:%x cake bandwidth %dmbit diffserv4", d, s, 100+d%100))
			} else {
				lines = append(lines, fmt.Sprintf("qdisc replace dev d%d parent 1:%x dualpi2 limit %d target 15ms tupdate %s", d, s, 1000+d%100, *tupdate))
			}
		}
	}
	must(*tcPath, "-batch", writeFile("d-roots", roots))
	batch := writeFile("d-replace", lines)
	must(*tcPath, "-batch", batch) // creates the qdiscs: later runs change them
	fmt.Printf("setup took %s\n", time.Since(t0).Round(time.Millisecond))

	for _, force := range []bool{false, true} {
		args := []string{"-batch", batch}
		name := fmt.Sprintf("-batch of %d replace lines, wall", n)
		if force {
			args = append([]string{"-force"}, args...)
			name = "-force " + name
		}
		var tcT, gotcT, floor1T, floorT, floorDumpT []float64
		for i := range *runs {
			r := run(false, *tcPath, args...)
			g := run(false, *gotcPath, args...)
			if r.status != 0 || g.status != 0 {
				fmt.Fprintf(os.Stderr, "bench: batch failed: tc %d %s gotc %d %s\n", r.status, r.stderr, g.status, g.stderr)
				os.Exit(1)
			}
			tcT = append(tcT, secs(r.wall))
			gotcT = append(gotcT, secs(g.wall))
			progress := fmt.Sprintf("  run %d of %s: tc %.2f s, gotc %.2f s", i+1, strings.Join(args, " "), tcT[i], gotcT[i])
			if !force {
				floor1T = append(floor1T, secs(floor("-floor-batch", batch, "-floor-window", "1")))
				floorT = append(floorT, secs(floor("-floor-batch", batch)))
				floorDumpT = append(floorDumpT, secs(floor("-floor-batch", batch, "-floor-with-dump")))
				progress += fmt.Sprintf(", floors %.2f s (1 per write), %.2f s (%d per write), %.2f s (a dump, then %d per write)",
					floor1T[i], floorT[i], netlink.MaxWindow, floorDumpT[i], netlink.MaxWindow)
			}
			fmt.Println(progress)
		}
		target := 0.5
		if force {
			target = 0 // the target is for plain -batch; -force is information
		}
		report(name, "s", tcT, gotcT, target)
		if !force {
			report("  kernel floor, 1 request per write (info)", "s", tcT, floor1T, 0)
			report(fmt.Sprintf("  kernel floor, %d requests per write (info)", netlink.MaxWindow), "s", tcT, floorT, 0)
			report(fmt.Sprintf("  kernel floor, a qdisc dump then %d requests per write (info)", netlink.MaxWindow), "s", tcT, floorDumpT, 0)
		}
	}

	// The outputs are compared once, untimed: kept, they go through a pipe
	// to this process, which the timed runs (to /dev/null) do not pay.
	want := run(true, *tcPath, "-s", "-j", "qdisc", "show")
	got := run(true, *gotcPath, "-s", "-j", "qdisc", "show")
	same := bytes.Equal(want.stdout, got.stdout)
	fmt.Printf("dump output: tc %d bytes, gotc %d bytes, identical: %v\n", len(want.stdout), len(got.stdout), same)
	var tcT, gotcT, floorT, tcRSS, gotcRSS []float64
	for i := range *runs {
		r := run(false, *tcPath, "-s", "-j", "qdisc", "show")
		g := run(false, *gotcPath, "-s", "-j", "qdisc", "show")
		floorT = append(floorT, secs(floor("-floor-dump")))
		fmt.Printf("  run %d of -s -j qdisc show: tc %.2f s, gotc %.2f s, floor %.2f s\n", i+1, secs(r.wall), secs(g.wall), floorT[i])
		tcT = append(tcT, secs(r.wall))
		gotcT = append(gotcT, secs(g.wall))
		tcRSS = append(tcRSS, float64(r.maxRSS)/1024)
		gotcRSS = append(gotcRSS, float64(g.maxRSS)/1024)
	}
	q := *devs * (*slots + 1)
	report(fmt.Sprintf("-s -j qdisc show of %d qdiscs, wall", q), "s", tcT, gotcT, 0.5)
	report("  kernel floor of that dump (info)", "s", tcT, floorT, 0)
	report(fmt.Sprintf("-s -j qdisc show of %d qdiscs, peak RSS", q), "MiB", tcRSS, gotcRSS, 0)
	check(same, "-s -j qdisc show: gotc's output is byte-identical to tc's")
}

// dumpWhat is what a floor dump reads.
type dumpWhat int

const (
	dumpQdiscs dumpWhat = iota
	dumpClasses
	dumpFilters
)

// fail prints the error and exits 1.
func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
	os.Exit(1)
}
