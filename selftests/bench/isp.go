// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gotc/gotc/exporter"
	"github.com/gotc/gotc/netlink"
)

// The ISP phase (issue 14): one multiqueue device shaped the way ISP shapers
// (LibreQoS and the like) shape it, built and changed by the batch files they
// write, then dumped, sampled and scraped.
//
//	qdisc replace dev IF root handle 7FFF: mq
//	qdisc add dev IF parent 7FFF:0xQ handle 0xQ: htb default 2        per tx queue Q (1..4)
//	class add dev IF parent 0xQ: classid 0xQ:0x1 htb ...              the queue's top class
//	class add dev IF parent 0xQ:0x1 classid 0xQ:0x2 htb ...           its default class, with a leaf
//	class add dev IF parent 0xQ:0x1 classid 0xQ:0xS htb ...           a site per 100 subscribers
//	class add dev IF parent 0xQ:0xS classid 0xQ:0xC htb ...           a subscriber
//	qdisc add dev IF parent 0xQ:0xC handle 0xH: cake diffserv4         its leaf (or fq_codel)
//
// Subscriber k sits on queue k%4+1; -isp-cake percent of them (k%100 below
// it) get -isp-leaf-a, the others -isp-leaf-b. Every class names its quantum:
// HTB's default (rate/r2q) is too big at these rates, and the kernel's
// warning for each class would flood the console.

var (
	ispSubs     = flag.Int("subs", 20000, "ISP phase: subscriber classes (each with a leaf qdisc)")
	ispCake     = flag.Int("isp-cake", 75, "ISP phase: percent of the subscribers' leaves that are -isp-leaf-a")
	ispLeafA    = flag.String("isp-leaf-a", "cake diffserv4", "ISP phase: the leaf of -isp-cake percent of subscribers")
	ispLeafB    = flag.String("isp-leaf-b", "fq_codel", "ISP phase: the other subscribers' leaf, and the default classes'")
	ispDevType  = flag.String("isp-dev", "veth", "ISP phase: device type, veth (with a peer) or ifb")
	ispChunk    = flag.Int("isp-chunk", 2500, "ISP phase: lines per batch file of the chunked reload")
	ispParents  = flag.Int("isp-parents", 100, "ISP phase: 'qdisc show dev IF parent H' processes per run, each a different H")
	ispSamples  = flag.Int("isp-samples", 50, "ISP phase: samples per run of the sampling measurement")
	ispScrapes  = flag.Int("isp-scrapes", 10, "ISP phase: exporter scrapes measured")
	tcOracle    = flag.String("tc-oracle", "", "the tc whose outputs gotc's must equal (default: -tc); words, as -tc")
	perfPath    = flag.String("perf", "", "perf(1): the one-shot phase adds perf stat's page faults and instructions of each command ('' to skip)")
	helloPath   = flag.String("hello", "/gotc/bin/hello", "a Go hello-world, the floor of a Go process's start ('' to skip)")
	ispDevice   = "isp0"
	ispQueues   = 4
	subsPerSite = 100
)

// ispSub is one subscriber: its class and its leaf.
type ispSub struct {
	queue, site, minor, leafMajor uint16
	leaf                          string
	rate                          int // mbit
}

func (s ispSub) classid() string { return fmt.Sprintf("0x%x:0x%x", s.queue, s.minor) }

func (s ispSub) classLine(verb string) string {
	return fmt.Sprintf("class %s dev %s parent 0x%x:0x%x classid %s htb rate %d.0mbit ceil %d.0mbit prio 3 quantum 1514",
		verb, ispDevice, s.queue, s.site, s.classid(), s.rate, 4*s.rate)
}

func (s ispSub) leafLine(verb string) string {
	return fmt.Sprintf("qdisc %s dev %s parent %s handle 0x%x: %s", verb, ispDevice, s.classid(), s.leafMajor, s.leaf)
}

// ispLayout places n subscribers.
func ispLayout(n int) []ispSub {
	perQueue := (n + ispQueues - 1) / ispQueues
	sites := (perQueue + subsPerSite - 1) / subsPerSite
	subs := make([]ispSub, n)
	for k := range subs {
		j := k / ispQueues // the subscriber's place on its queue
		s := ispSub{queue: uint16(k%ispQueues + 1), site: uint16(3 + j/subsPerSite), minor: uint16(3 + sites + j),
			leafMajor: uint16(0x10 + k), leaf: *ispLeafB, rate: 10 + k%90}
		if k%100 < *ispCake {
			s.leaf = *ispLeafA
		}
		subs[k] = s
	}
	return subs
}

// ispBuild is the full reload, in the order a shaper writes it: per queue
// its htb and top classes, then site by site the site's class and its
// subscribers' classes and leaves.
func ispBuild(subs []ispSub) []string {
	lines := []string{fmt.Sprintf("qdisc replace dev %s root handle 7FFF: mq", ispDevice)}
	for q := 1; q <= ispQueues; q++ {
		lines = append(lines,
			fmt.Sprintf("qdisc add dev %s parent 7FFF:0x%x handle 0x%x: htb default 2", ispDevice, q, q),
			fmt.Sprintf("class add dev %s parent 0x%x: classid 0x%x:0x1 htb rate 10.0gbit ceil 10.0gbit quantum 1514", ispDevice, q, q),
			fmt.Sprintf("class add dev %s parent 0x%x:0x1 classid 0x%x:0x2 htb rate 100.0mbit ceil 10.0gbit prio 5 quantum 1514", ispDevice, q, q),
			fmt.Sprintf("qdisc add dev %s parent 0x%x:0x2 %s", ispDevice, q, *ispLeafB))
		site := uint16(0)
		for _, s := range subs {
			if int(s.queue) != q {
				continue
			}
			if s.site != site {
				site = s.site
				lines = append(lines, fmt.Sprintf("class add dev %s parent 0x%x:0x1 classid 0x%x:0x%x htb rate 1.0gbit ceil 10.0gbit prio 3 quantum 1514",
					ispDevice, q, q, site))
			}
			lines = append(lines, s.classLine("add"), s.leafLine("add"))
		}
	}
	return lines
}

// ispChange is the live-change batch: 2,000 rate changes, 500 leaves
// replaced, 100 subscribers pruned (200 deletions), spread over the tree;
// restore puts the pruned subscribers back, so that the batch can run again.
func ispChange(subs []ispSub) (change, restore []string) {
	pick := func(n, offset int) []ispSub {
		var out []ispSub
		for i := range min(n, len(subs)) {
			out = append(out, subs[(i*len(subs)/min(n, len(subs))+offset)%len(subs)])
		}
		return out
	}
	for _, s := range pick(2000, 0) {
		s.rate = 100 - s.rate%90
		change = append(change, strings.Replace(s.classLine("change"), fmt.Sprintf("parent 0x%x:0x%x ", s.queue, s.site), "", 1))
	}
	for _, s := range pick(500, 1) {
		change = append(change, fmt.Sprintf("qdisc replace dev %s parent %s %s", ispDevice, s.classid(), s.leaf))
	}
	for _, s := range pick(100, 2) {
		change = append(change,
			fmt.Sprintf("qdisc del dev %s parent %s", ispDevice, s.classid()),
			fmt.Sprintf("class del dev %s classid %s", ispDevice, s.classid()))
		restore = append(restore, s.classLine("add"), s.leafLine("add"))
	}
	return change, restore
}

// chunks writes lines as files of n lines each.
func chunks(name string, lines []string, n int) []string {
	var files []string
	for i := 0; i < len(lines); i += n {
		files = append(files, writeFile(fmt.Sprintf("%s-%03d", name, i/n), lines[i:min(i+n, len(lines))]))
	}
	return files
}

// cost is what a sequence of processes cost together.
type cost struct {
	wall, cpu float64 // seconds
	rss       float64 // MiB, the largest peak of any one of them
}

// runAll runs the processes one after the other; a failed one stops the
// benchmark unless mayFail.
func runAll(path string, argv [][]string, mayFail bool) cost {
	var c cost
	for _, args := range argv {
		r := run(false, path, args...)
		if r.status != 0 && !mayFail {
			fail("%s %s: exit %d: %s", path, strings.Join(args, " "), r.status, r.stderr)
		}
		c.wall += secs(r.wall)
		c.cpu += secs(r.cpu)
		c.rss = max(c.rss, float64(r.maxRSS)/1024)
	}
	return c
}

// series collects one measurement's costs, tool by tool, run by run.
type series struct{ tc, gotc []cost }

func (s *series) add(tc, gotc cost) { s.tc, s.gotc = append(s.tc, tc), append(s.gotc, gotc) }

func pick(cs []cost, f func(cost) float64) []float64 {
	var v []float64
	for _, c := range cs {
		v = append(v, f(c))
	}
	return v
}

// report prints wall time against the target and peak RSS against 2 × tc's.
func (s *series) report(name string, target float64) {
	wall := func(c cost) float64 { return c.wall }
	rss := func(c cost) float64 { return c.rss }
	report(name+", wall", "s", pick(s.tc, wall), pick(s.gotc, wall), target)
	report(name+", peak RSS", "MiB", pick(s.tc, rss), pick(s.gotc, rss), 2)
}

func batchArgs(force bool, files []string) [][]string {
	var argv [][]string
	for _, f := range files {
		if force {
			argv = append(argv, []string{"-f", "-batch", f})
		} else {
			argv = append(argv, []string{"-batch", f})
		}
	}
	return argv
}

// floorOf is the kernel floor of batch files, window requests per write.
func floorOf(files []string, window int) float64 {
	var total time.Duration
	for _, f := range files {
		total += floor("-floor-batch", f, "-floor-window", fmt.Sprint(window))
	}
	return secs(total)
}

func isp() {
	subs := ispLayout(*ispSubs)
	build := ispBuild(subs)
	change, restore := ispChange(subs)
	cakes := 0
	for _, s := range subs {
		if s.leaf == *ispLeafA {
			cakes++
		}
	}
	fmt.Printf("== ISP: %s (%s, %d tx queues) with mq, an htb per queue, %d subscribers (%d '%s', %d '%s'), %d build lines, %d live-change lines\n",
		ispDevice, *ispDevType, ispQueues, len(subs), cakes, *ispLeafA, len(subs)-cakes, *ispLeafB, len(build), len(change))
	link := fmt.Sprintf("link add %s numtxqueues %d type %s", ispDevice, ispQueues, *ispDevType)
	if *ispDevType == "veth" {
		link += fmt.Sprintf(" peer name %sp numtxqueues %d", ispDevice, ispQueues)
	}
	ups := []string{link, "link set " + ispDevice + " up"}
	if *ispDevType == "veth" {
		ups = append(ups, "link set "+ispDevice+"p up")
	}
	must(*ipPath, "-batch", writeFile("isp-links", ups))
	defer must(*ipPath, "link", "del", ispDevice)

	whole := []string{writeFile("isp-build", build)}
	parts := chunks("isp-build", build, *ispChunk)
	clear := func() { run(false, *tcPath, "qdisc", "del", "dev", ispDevice, "root") }

	// What the tree costs the kernel, which bounds -subs by the memory there
	// is (CAKE takes about 0.7 MB an instance).
	before := memAvailable()
	must(*tcPath, "-f", "-batch", whole[0])
	after := memAvailable()
	fmt.Printf("the tree took %.0f MiB of kernel memory (%.1f KiB a subscriber); %.0f MiB are left\n",
		float64(before-after)/1024, float64(before-after)/float64(len(subs)), float64(after)/1024)

	// The reloads: each run starts from a device without the tree, as a
	// shaper's full reload does (it deletes the root first).
	for _, v := range []struct {
		files []string
		what  string
	}{{parts, fmt.Sprintf("%d files of %d lines", len(parts), *ispChunk)}, {whole, "one file"}} {
		for _, force := range []bool{false, true} {
			var s series
			var floor1, floorW []float64
			for range *runs {
				clear()
				t := runAll(*tcPath, batchArgs(force, v.files), false)
				clear()
				g := runAll(*gotcPath, batchArgs(force, v.files), false)
				s.add(t, g)
				if !force {
					clear()
					floor1 = append(floor1, floorOf(v.files, 1))
					clear()
					floorW = append(floorW, floorOf(v.files, netlink.MaxWindow))
				}
				fmt.Printf("  run: tc %.2f s, gotc %.2f s\n", t.wall, g.wall)
			}
			name := fmt.Sprintf("reload, %s", v.what)
			if force {
				s.report("-f "+name, 0.45)
				continue
			}
			s.report(name, 0)
			gotcWall := pick(s.gotc, func(c cost) float64 { return c.wall })
			compare("  "+name+" vs floor (1 per write)", "floor", "gotc", "s", floor1, gotcWall, 1.15)
			report("  kernel floor, 1 request per write (info)", "s", pick(s.tc, func(c cost) float64 { return c.wall }), floor1, 0)
			report(fmt.Sprintf("  kernel floor, %d requests per write (info)", netlink.MaxWindow), "s", pick(s.tc, func(c cost) float64 { return c.wall }), floorW, 0)
		}
	}

	// The tree is built (by the last reload); the live changes run on it.
	changeFile := []string{writeFile("isp-change", change)}
	restoreFile := writeFile("isp-restore", restore)
	for _, force := range []bool{false, true} {
		var s series
		var floor1, floorW []float64
		for range *runs {
			t := runAll(*tcPath, batchArgs(force, changeFile), false)
			must(*tcPath, "-batch", restoreFile)
			g := runAll(*gotcPath, batchArgs(force, changeFile), false)
			must(*tcPath, "-batch", restoreFile)
			s.add(t, g)
			if !force {
				floor1 = append(floor1, floorOf(changeFile, 1))
				must(*tcPath, "-batch", restoreFile)
				floorW = append(floorW, floorOf(changeFile, netlink.MaxWindow))
				must(*tcPath, "-batch", restoreFile)
			}
		}
		name := fmt.Sprintf("live-change batch of %d lines", len(change))
		if force {
			name = "-f " + name
		}
		s.report(name, 0.6)
		if !force {
			tcWall := pick(s.tc, func(c cost) float64 { return c.wall })
			report("  kernel floor, 1 request per write (info)", "s", tcWall, floor1, 0)
			report(fmt.Sprintf("  kernel floor, %d requests per write (info)", netlink.MaxWindow), "s", tcWall, floorW, 0)
		}
	}

	ispDumps(subs)
	ispSampling()
	ispScrape()
	clear()
}

// ispDumps compares the dumps' outputs once, untimed, then times them.
func ispDumps(subs []ispSub) {
	var parents []string
	for i := range min(*ispParents, len(subs)) {
		parents = append(parents, subs[i*len(subs)/min(*ispParents, len(subs))].classid())
	}
	dumps := []struct {
		name   string
		argv   [][]string
		floor  []string
		target float64
	}{
		{"-s -j qdisc show dev IF", [][]string{{"-s", "-j", "qdisc", "show", "dev", ispDevice}}, []string{"-floor-dump", "-floor-dev", ispDevice}, 0.35},
		{fmt.Sprintf("-s -j qdisc show dev IF parent H, %d H", len(parents)), nil, []string{"-floor-dump", "-floor-dev", ispDevice}, 0.35},
		{"-s class show dev IF", [][]string{{"-s", "class", "show", "dev", ispDevice}}, []string{"-floor-dump", "-floor-class", "-floor-dev", ispDevice}, 0.35},
		{"-j class show dev IF", [][]string{{"-j", "class", "show", "dev", ispDevice}}, []string{"-floor-dump", "-floor-class", "-floor-dev", ispDevice}, 0.35},
		{fmt.Sprintf("filter show dev IF parent 1:, %d u32 filters", len(subs)), [][]string{{"filter", "show", "dev", ispDevice, "parent", "1:"}},
			[]string{"-floor-dump", "-floor-filter", "-floor-dev", ispDevice, "-floor-parent", "0x10000"}, 0},
	}
	// The filters a shaper classifies with: one per subscriber, a /24 each,
	// on queue 1's htb.
	var filters []string
	for i := range subs {
		filters = append(filters, fmt.Sprintf("filter add dev %s parent 1: protocol ip pref 1 u32 match ip dst 10.%d.%d.0/24 flowid 1:2", ispDevice, i/256%256, i%256))
	}
	must(*tcPath, "-batch", writeFile("isp-filters", filters))
	for _, h := range parents {
		dumps[1].argv = append(dumps[1].argv, []string{"-s", "-j", "qdisc", "show", "dev", ispDevice, "parent", h})
	}
	for _, d := range dumps {
		// Untimed, with the outputs kept: counters move between the two
		// runs only if traffic flows, and none does on this device.
		same, size := true, 0
		oracle := *tcOracle
		if oracle == "" {
			oracle = *tcPath
		}
		for _, args := range d.argv {
			want := run(true, oracle, args...)
			got := run(true, *gotcPath, args...)
			size += len(want.stdout)
			if want.status != 0 || !bytes.Equal(want.stdout, got.stdout) || got.status != want.status {
				if same {
					fmt.Printf("  %s: outputs differ for %q (tc exit %d, gotc exit %d)\n%s", d.name, strings.Join(args, " "), want.status, got.status, firstDifference(want.stdout, got.stdout))
				}
				same = false
			}
		}
		check(same, "%s: gotc's output is byte-identical to the reference tc's (%d bytes)", d.name, size)
		var s series
		var floors []float64
		for range *runs {
			s.add(runAll(*tcPath, d.argv, false), runAll(*gotcPath, d.argv, false))
			var f time.Duration
			for range d.argv {
				f += floor(d.floor...)
			}
			floors = append(floors, secs(f))
		}
		s.report(d.name, d.target)
		// For "parent H" the floor is of tc's way, a dump of the device for
		// each H; gotc asks for the one qdisc instead (qdiscAt).
		wall := func(c cost) float64 { return c.wall }
		report("  kernel floor of the dumps tc reads (info)", "s", pick(s.tc, wall), floors, 0)
		if len(d.argv) == 1 {
			// gotc's own time against tc's, each above the floor (issue 22).
			var tcAbove, gotcAbove []float64
			for i, f := range floors {
				tcAbove, gotcAbove = append(tcAbove, s.tc[i].wall-f), append(gotcAbove, s.gotc[i].wall-f)
			}
			report("  above the floor: (gotc - floor) / (tc - floor)", "s", tcAbove, gotcAbove, 0.3)
		}
	}
}

// firstDifference shows where two outputs part.
func firstDifference(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-200)
	return fmt.Sprintf("  at byte %d of %d/%d:\n  tc:   %q\n  gotc: %q\n", i, len(a), len(b), a[from:min(len(a), i+200)], b[from:min(len(b), i+200)])
}

// ispSampling measures the CPU a sample of the whole device costs: "gotc
// stats" against a loop of "tc -s -j qdisc show dev IF" processes, then
// gotc sampling back to back, which shows the highest rate it sustains.
func ispSampling() {
	n := *ispSamples
	var tcCPU, gotcCPU []float64
	var tcRSS, gotcRSS float64
	var rate, busy, floors []float64
	for range *runs {
		t := runAll(*tcPath, slices.Repeat([][]string{{"-s", "-j", "qdisc", "show", "dev", ispDevice}}, n), false)
		tcCPU = append(tcCPU, t.cpu/float64(n))
		tcRSS = max(tcRSS, t.rss)
		// gotc at the interval that tc's loop managed, so both do the same
		// work per second: at least 10 ms.
		interval := max(10*time.Millisecond, time.Duration(t.wall/float64(n)*float64(time.Second)))
		g := run(false, *gotcPath, "stats", "dev", ispDevice, "interval", fmt.Sprintf("%dus", interval.Microseconds()), "count", fmt.Sprint(n))
		if g.status != 0 {
			fail("gotc stats: exit %d: %s", g.status, g.stderr)
		}
		gotcCPU = append(gotcCPU, secs(g.cpu)/float64(n))
		gotcRSS = max(gotcRSS, float64(g.maxRSS)/1024)
		b := run(false, *gotcPath, "stats", "dev", ispDevice, "interval", "1us", "count", fmt.Sprint(n))
		if b.status != 0 {
			fail("gotc stats: exit %d: %s", b.status, b.stderr)
		}
		// Samples per second of wall time, at most one core's worth: a
		// sampler that needs more than a core for its rate is held to what
		// one core of its CPU time buys.
		rate = append(rate, float64(n)/max(secs(b.wall), secs(b.cpu)))
		busy = append(busy, secs(b.cpu)/secs(b.wall))
		// The kernel's part of a sample, which no sampler avoids: one
		// dump of the device, read and not decoded. Its time is the
		// kernel's CPU (the dump is filled in the reader's system calls).
		floors = append(floors, secs(floor("-floor-dump", "-floor-dev", ispDevice)))
	}
	report("sampling the whole device, CPU per sample", "s", tcCPU, gotcCPU, 0.15)
	report("  kernel floor, one dump of the device per sample (info)", "s", tcCPU, floors, 0)
	fmt.Printf("sampling, peak RSS: tc %.1f MiB, gotc %.1f MiB\n", tcRSS, gotcRSS)
	check(gotcRSS <= 2*tcRSS, "sampling, peak RSS: gotc %.1f MiB <= 2 x tc's %.1f MiB", gotcRSS, tcRSS)
	fmt.Printf("gotc stats back to back: %.1f samples/s [%.1f..%.1f] at %.2f cores [%.2f..%.2f]; tc's loop would sustain %.1f samples/s on one core\n",
		median(rate), slices.Min(rate), slices.Max(rate), median(busy), slices.Min(busy), slices.Max(busy), 1/median(tcCPU))
}

// ispScrape scrapes the device through the exporter's handler in this
// process: time, allocations and size of one exposition.
func ispScrape() {
	ifi, err := netIndex(ispDevice)
	if err != nil {
		fail("%v", err)
	}
	c := exporter.New(exporter.Options{Filter: netlink.DumpFilter{Ifindex: ifi}})
	defer c.Close()
	h := exporter.Handler(c)
	scrape := func() int {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/metrics", nil))
		if w.Code != http.StatusOK {
			fail("scrape: status %d", w.Code)
		}
		n, _ := io.Copy(io.Discard, w.Body)
		return int(n)
	}
	size := scrape() // the first dials and builds the kinds' metrics
	var wall, allocs, bytesAlloc []float64
	for range *ispScrapes {
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		t0 := time.Now()
		scrape()
		wall = append(wall, secs(time.Since(t0)))
		runtime.ReadMemStats(&m1)
		allocs = append(allocs, float64(m1.Mallocs-m0.Mallocs))
		bytesAlloc = append(bytesAlloc, float64(m1.TotalAlloc-m0.TotalAlloc)/(1<<20))
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("exporter scrape of %s: %.4f s [%.4f..%.4f], %.0f allocations (%.1f MiB) per scrape, exposition %d bytes, heap in use %.1f MiB (n=%d)\n",
		ispDevice, median(wall), slices.Min(wall), slices.Max(wall), median(allocs), median(bytesAlloc), size, float64(ms.HeapInuse)/(1<<20), len(wall))
}

// oneshot times single processes, start to exit, on a tbf (a kind every
// kernel here has): "qdisc show dev X" and "qdisc change dev X ...", and
// the floors of a Go process's start: a hello-world, "gotc -V".
func oneshot() {
	fmt.Printf("== one-shot processes (%d runs each)\n", *shows)
	must(*ipPath, "link", "add", "o0", "type", "ifb") // ifb: the host kernel here has no dummy
	defer must(*ipPath, "link", "del", "o0")
	must(*tcPath, "qdisc", "add", "dev", "o0", "root", "handle", "1:", "tbf", "rate", "100mbit", "burst", "32k", "latency", "50ms")
	must(*tcPath, "qdisc", "add", "dev", "o0", "ingress")
	must(*tcPath, "filter", "add", "dev", "o0", "parent", "ffff:", "protocol", "ip", "pref", "1", "u32", "match", "ip", "dst", "10.0.0.1/32", "flowid", "1:1")
	cases := []struct {
		name string
		args []string
	}{
		{"one 'qdisc show dev X' process", []string{"qdisc", "show", "dev", "o0"}},
		{"one 'qdisc change dev X ... tbf' process", []string{"qdisc", "change", "dev", "o0", "root", "handle", "1:", "tbf", "rate", "90mbit", "burst", "32k", "latency", "50ms"}},
		{"one 'filter show dev X ingress' process", []string{"filter", "show", "dev", "o0", "ingress"}},
		{"one '-V' process", []string{"-V"}},
	}
	for _, c := range cases {
		var tcWall, gotcWall, tcCPU, gotcCPU, hello, helloCPU []float64
		var tcRSS, gotcRSS, helloRSS float64
		for range *shows {
			t := runAll(*tcPath, [][]string{c.args}, false)
			g := runAll(*gotcPath, [][]string{c.args}, false)
			tcWall, gotcWall = append(tcWall, t.wall), append(gotcWall, g.wall)
			tcCPU, gotcCPU = append(tcCPU, t.cpu), append(gotcCPU, g.cpu)
			tcRSS, gotcRSS = max(tcRSS, t.rss), max(gotcRSS, g.rss)
			if *helloPath != "" {
				h := runAll(*helloPath, [][]string{{}}, false)
				hello, helloCPU = append(hello, h.wall), append(helloCPU, h.cpu)
				helloRSS = max(helloRSS, h.rss)
			}
		}
		report(c.name+", wall", "s", tcWall, gotcWall, 1.0)
		report(c.name+", CPU", "s", tcCPU, gotcCPU, 1.0)
		// The floor of any Go process, the same as for gotc: a hello-world
		// started as often, between the pairs.
		if *helloPath != "" {
			compare("  a Go hello-world, the floor of a Go process, against gotc (info)", "hello", "gotc", "s", hello, gotcWall, 0)
			compare("  a Go hello-world against tc, wall (info)", "tc", "hello", "s", tcWall, hello, 0)
			compare("  a Go hello-world against tc, CPU (info)", "tc", "hello", "s", tcCPU, helloCPU, 0)
		}
		fmt.Printf("  peak RSS: tc %.1f MiB, gotc %.1f MiB, a Go hello-world %.1f MiB\n", tcRSS, gotcRSS, helloRSS)
		if *perfPath != "" {
			perfCounts(c.args)
		}
	}
	// What gotc's packages spend initialising before main, as the runtime
	// reports it.
	trace := exec.Command(*gotcPath, "-V")
	trace.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	trace.Stderr = &stderr
	if err := trace.Run(); err != nil {
		fail("gotc -V: %v", err)
	}
	var total, clock float64
	var slowest string
	var slowestMS float64
	for _, m := range initTrace.FindAllStringSubmatch(stderr.String(), -1) {
		at, _ := strconv.ParseFloat(m[2], 64)
		ms, _ := strconv.ParseFloat(m[3], 64)
		total += ms
		clock = at + ms
		if ms > slowestMS {
			slowest, slowestMS = m[1], ms
		}
	}
	fmt.Printf("gotc -V: package initialisation %.3f ms in all (slowest %s, %.3f ms), done %.3f ms after the runtime started (GODEBUG=inittrace=1)\n",
		total, slowest, slowestMS, clock)
}

// perfEvents are what perfCounts asks perf stat for: instructions need a
// PMU, which a virtual machine may not expose ("not supported").
var perfEvents = []string{"page-faults", "instructions:u", "instructions:k"}

// perfCounts prints the medians of perf stat's counts for tc's, gotc's and
// the hello-world's process, run -shows times each, interleaved.
func perfCounts(args []string) {
	tools := []struct{ name, path string }{{"tc", *tcPath}, {"gotc", *gotcPath}, {"hello", *helloPath}}
	counts := make([][][]float64, len(tools)) // tool, event, run
	for i := range counts {
		counts[i] = make([][]float64, len(perfEvents))
	}
	for range *shows {
		for i, t := range tools {
			if t.path == "" {
				continue
			}
			a := args
			if t.name == "hello" {
				a = nil
			}
			argv := append([]string{"stat", "-x,", "-e", strings.Join(perfEvents, ","), "--"}, strings.Fields(t.path)...)
			r := run(false, *perfPath, append(argv, a...)...)
			if r.status != 0 {
				fail("perf stat %s: exit %d: %s", t.path, r.status, r.stderr)
			}
			for e, v := range parsePerfStat(r.stderr) {
				counts[i][e] = append(counts[i][e], v)
			}
		}
	}
	line := "  perf stat, median:"
	for i, t := range tools {
		if t.path == "" {
			continue
		}
		line += " " + t.name
		for e, ev := range perfEvents {
			if len(counts[i][e]) == 0 {
				line += fmt.Sprintf(" %s n/a", ev)
			} else {
				line += fmt.Sprintf(" %s %.0f", ev, median(counts[i][e]))
			}
		}
		line += ";"
	}
	fmt.Println(strings.TrimSuffix(line, ";"))
}

// parsePerfStat reads perf stat -x, output: each of perfEvents' counts, by
// its index; an event perf could not count is left out.
func parsePerfStat(out string) map[int]float64 {
	counts := map[int]float64{}
	for _, l := range strings.Split(out, "\n") {
		f := strings.Split(l, ",")
		if len(f) < 3 {
			continue
		}
		e := slices.Index(perfEvents, f[2])
		v, err := strconv.ParseFloat(f[0], 64)
		if e >= 0 && err == nil {
			counts[e] = v
		}
	}
	return counts
}

// initTrace is a line of GODEBUG=inittrace=1: "init PKG @START ms, CLOCK ms clock, ...".
var initTrace = regexp.MustCompile(`init (\S+) @([0-9.]+) ms, ([0-9.]+) ms clock`)

func netIndex(name string) (int32, error) {
	b, err := os.ReadFile("/sys/class/net/" + name + "/ifindex")
	if err != nil {
		return 0, err
	}
	var i int32
	_, err = fmt.Sscan(string(b), &i)
	return i, err
}

// memAvailable is the kernel's estimate of the memory available, in KiB.
func memAvailable() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		fail("%v", err)
	}
	var kb int64
	if i := bytes.Index(b, []byte("MemAvailable:")); i >= 0 {
		fmt.Sscan(string(b[i+len("MemAvailable:"):]), &kb)
	}
	return kb
}
