// SPDX-License-Identifier: Apache-2.0

// Command difftest compares gotc with the reference tc on a real kernel: for
// each option combination of each kind it applies the qdisc with both tools
// (each on its own dummy device), then checks that
//
//   - both tools exit alike and print the same error, when there is one;
//   - gotc and tc print the same qdisc (show, -s -d, -j -s) for the
//     device tc configured and for the one gotc configured;
//   - the two devices end up in the same kernel state (tc shows both alike);
//   - for a kind with classes, each class case's command lines end alike
//     with both tools, and the classes print alike (class show, -s -d, -j);
//   - for filter and action kinds (filters.go), each command line ends
//     alike and leaves filters that both tools print alike;
//
// and it runs the same batch files through both tools (batch.go).
//
// It prints one TAP-like line per combination and ends with
// "N passed, M failed". It runs inside the test bed's VM, as root.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"slices"
	"strings"
)

func main() {
	tcPath := flag.String("tc", "/ref/bin/tc", "reference tc")
	gotcPath := flag.String("gotc", "/gotc/bin/gotc", "gotc under test")
	ipPath := flag.String("ip", "/ref/bin/ip", "reference ip")
	verbose := flag.Bool("v", false, "show every compared output")
	only := flag.String("kinds", "", "comma-separated kinds (qdisc, filter or action) to test, skipping the batches (default: every kind and the batches)")
	list := flag.Bool("list", false, "print how many combinations (and filter lines) each kind has, and run nothing")
	shardFlag := flag.String("shard", "", "K/N or K-L/N: run the K-th (to L-th) of N shares of the kinds, of about equal size (the batches run in the first)")
	flag.Parse()
	var kinds []string
	if *only != "" {
		kinds = strings.Split(*only, ",")
		var kept []kindCases
		for _, k := range allCases {
			if slices.Contains(kinds, k.label()) {
				kept = append(kept, k)
			}
		}
		allCases = kept
	}
	shard, last, shards := 1, 1, 1
	if *shardFlag != "" {
		_, err := fmt.Sscanf(*shardFlag, "%d-%d/%d", &shard, &last, &shards)
		if err != nil {
			_, err = fmt.Sscanf(*shardFlag, "%d/%d", &shard, &shards)
			last = shard
		}
		if err != nil || shard < 1 || last < shard || last > shards {
			fmt.Fprintf(os.Stderr, "difftest: -shard %q: want K/N or K-L/N with 1 <= K <= L <= N\n", *shardFlag)
			os.Exit(2)
		}
		keepShards(shard, last, shards)
	}
	if *list {
		listCases()
		return
	}
	kc, err := newKeywordsCheck()
	if err != nil {
		fmt.Fprintln(os.Stderr, "difftest:", err)
		os.Exit(1)
	}
	rc, err := newReapplyCheck()
	if err != nil {
		fmt.Fprintln(os.Stderr, "difftest:", err)
		os.Exit(1)
	}
	r := &runner{tc: *tcPath, gotc: *gotcPath, ip: *ipPath, verbose: *verbose, keywords: kc, reapply: rc}
	for _, dev := range []string{"dref", "dgot"} {
		r.mustRun(r.ip, "link", "add", dev, "type", "dummy")
		r.mustRun(r.ip, "link", "set", dev, "up")
	}
	for _, dev := range []string{"mref", "mgot"} {
		r.mustRun(r.ip, "link", "add", dev, "numtxqueues", "4", "type", "dummy")
		r.mustRun(r.ip, "link", "set", dev, "up")
	}
	// What a combination clears before it starts, one tc -force -batch for
	// each pair of devices: six tc processes cost the VM a third of a
	// combination's time.
	for _, pair := range [][2]string{{"dref", "dgot"}, {"mref", "mgot"}} {
		var b strings.Builder
		for _, dev := range pair {
			for _, q := range []string{"root", "ingress", "clsact"} {
				fmt.Fprintf(&b, "qdisc del dev %s %s\n", dev, q)
			}
		}
		if err := os.WriteFile(clearFile(pair[0]), []byte(b.String()), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "difftest:", err)
			os.Exit(1)
		}
	}
	total := map[string][2]int{}
	for i := range allCases {
		k := &allCases[i]
		for _, c := range k.combinations() {
			ok := r.check(k, c)
			counts := total[k.label()]
			if ok {
				counts[0]++
			} else {
				counts[1]++
			}
			total[k.label()] = counts
		}
	}
	r.checkFilters(kinds, total)
	var bp, bf int
	if *only == "" && shard == 1 {
		bp, bf = r.checkBatches()
	}
	passed, failed := bp, bf
	for _, k := range allCases {
		c := total[k.label()]
		fmt.Printf("# %s: %d combinations identical, %d differ\n", k.label(), c[0], c[1])
		passed += c[0]
		failed += c[1]
	}
	for _, k := range allFilterCases {
		if c, ok := total[k.kind]; ok {
			fmt.Printf("# %s: %d command lines identical, %d differ\n", k.kind, c[0], c[1])
			passed += c[0]
			failed += c[1]
		}
	}
	fmt.Printf("# batches: %d identical, %d differ\n", bp, bf)
	r.reapply.report()
	r.keywords.report()
	fmt.Printf("%d passed, %d failed\n", passed, failed)
	if failed > 0 {
		os.Exit(1)
	}
}

// keepShards keeps the kinds of the first-th to last-th of shards shares:
// kinds go, the largest first, to the share with the fewest cases so far,
// so that the shares take about as long. Uneven ranges (1-4/9 and 5-9/9)
// give the differential test's halves unequal parts, for VMs that have
// other work of unequal length.
func keepShards(first, last, shards int) {
	type sized struct {
		i, n   int
		filter bool
	}
	var all []sized
	for i := range allCases {
		all = append(all, sized{i, len(allCases[i].combinations()), false})
	}
	for i, c := range allFilterCases {
		// A filter line runs each tool alone on a fresh device: in the
		// VM about as long as a combination (0.7 s against 0.5-0.8 s).
		all = append(all, sized{i, len(c.lines), true})
	}
	slices.SortStableFunc(all, func(a, b sized) int { return b.n - a.n })
	load := make([]int, shards)
	var kinds []kindCases
	var filters []filterCases
	for _, k := range all {
		to := slices.Index(load, slices.Min(load))
		load[to] += k.n
		if to < first-1 || to > last-1 {
			continue
		}
		if k.filter {
			filters = append(filters, allFilterCases[k.i])
		} else {
			kinds = append(kinds, allCases[k.i])
		}
	}
	allCases, allFilterCases = kinds, filters
}

// listCases prints each kind's count of combinations: its valid and
// invalid option lists, class cases, and random mixes; and each filter or
// action kind's command lines.
func listCases() {
	total := 0
	for i := range allCases {
		k := &allCases[i]
		n := len(k.combinations())
		total += n
		fmt.Printf("%s: %d combinations (%d valid, %d invalid, %d class cases)\n", k.label(), n, len(k.valid), len(k.invalid), len(k.classes))
	}
	for _, c := range allFilterCases {
		total += len(c.lines)
		fmt.Printf("%s: %d command lines\n", c.kind, len(c.lines))
	}
	fmt.Printf("%d in all\n", total)
}

// combination is one test: the options of an add, and optionally those of a
// change applied afterwards.
type combination struct {
	add    []string
	change []string
	// classes are class command lines (words after "tc", the device as
	// DEV) run after the add; their output is compared with the class views.
	classes [][]string
}

func words(s string) []string { return strings.Fields(s) }

// combinations lists every single keyword of a kind, some invalid values,
// and seeded random mixes, each also followed by a change for some of them.
// kindCases is what the differential test runs for one qdisc kind. Each
// kind's cases live in a file of their own (cases_KIND.go) that registers
// them.
type kindCases struct {
	kind string
	// name labels the cases (what -kinds picks) when a kind has more than
	// one set; the kind when empty.
	name string
	// beforeKind makes valid, invalid and changes the words tc reads
	// before the kind (a size table, an estimator), the kind's options
	// being opts: the cases of keywords every kind takes.
	beforeKind bool
	opts       string
	// mixes is how many random mixes of valid options follow the fixed
	// cases; when 0, enough for 64 combinations in all.
	mixes int
	// place is where the qdisc goes; "root handle 1:" when empty.
	place []string
	// valid are option lists tc accepts, invalid ones it refuses; changes
	// are applied with "qdisc change" after some random combinations.
	valid, invalid, changes []string
	// classQdisc is the qdisc's options under which the class cases run.
	classQdisc string
	// classes are the class cases, each one combination: class command
	// lines separated by ";", the device written DEV.
	classes []string
	// multiqueue runs the cases on devices with 4 transmit queues, for a
	// kind the kernel refuses on a single-queue device (multiq).
	multiqueue bool
}

var allCases []kindCases

// label names the cases in the report and for -kinds.
func (k *kindCases) label() string {
	if k.name != "" {
		return k.name
	}
	return k.kind
}

// register adds a kind's cases; a label registered twice is a mistake.
func register(k kindCases) {
	for _, c := range allCases {
		if c.label() == k.label() {
			panic("difftest: cases of " + k.label() + " registered twice")
		}
	}
	allCases = append(allCases, k)
}

// combinations are each valid and invalid option list alone, then random
// mixes of valid ones (half of them changed afterwards) up to 32 in all.
func (k *kindCases) combinations() []combination {
	var out []combination
	for _, s := range append(append([]string{}, k.valid...), k.invalid...) {
		out = append(out, combination{add: words(s)})
	}
	for _, cs := range k.classes {
		c := combination{add: words(k.classQdisc)}
		for _, line := range strings.Split(cs, ";") {
			c.classes = append(c.classes, words(line))
		}
		out = append(out, c)
	}
	var valid []string
	for _, s := range k.valid {
		if s != "" {
			valid = append(valid, s)
		}
	}
	if len(valid) == 0 {
		return out
	}
	rng := rand.New(rand.NewSource(int64(len(k.label()))))
	want := 32 + len(k.classes)
	if k.mixes > 0 {
		want = len(out) + k.mixes
	}
	for len(out) < want {
		n := 2 + rng.Intn(4)
		var mix []string
		for i := 0; i < n; i++ {
			mix = append(mix, words(valid[rng.Intn(len(valid))])...)
		}
		c := combination{add: mix}
		if len(k.changes) > 0 && rng.Intn(2) == 0 {
			c.change = words(k.changes[rng.Intn(len(k.changes))])
		}
		out = append(out, c)
	}
	return out
}

type runner struct {
	tc, gotc, ip string
	// keywords holds the kinds to their contract on what the kernel
	// dumps after each case.
	keywords *keywordsCheck
	// reapply holds gotc apply to re-making each case's state from what
	// --from-kernel writes of it.
	reapply *reapplyCheck
	verbose bool
	n       int
}

type result struct {
	status         int
	stdout, stderr string
}

func (r *runner) run(prog string, args ...string) result {
	cmd := exec.Command(prog, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	status := 0
	if err != nil {
		status = -1
		if ee, ok := err.(*exec.ExitError); ok {
			status = ee.ExitCode()
		}
	}
	return result{status, stdout.String(), stderr.String()}
}

func (r *runner) mustRun(prog string, args ...string) {
	if res := r.run(prog, args...); res.status != 0 {
		fmt.Fprintf(os.Stderr, "difftest: %s %v: %s", prog, args, res.stderr)
		os.Exit(1)
	}
}

// clearFile is the batch that clears the pair of devices whose reference
// device is refDev.
func clearFile(refDev string) string { return "/tmp/difftest-clear-" + refDev }

// view is a listing compared after a combination: gotc's output of it must
// equal tc's on tc's device. A state view is also run with tc on gotc's
// device, where it must equal tc's on tc's: the kernel holds the same
// configuration. One detailed view per listing shows all of it.
type view struct {
	args  []string
	state bool
}

var views = []view{
	{[]string{"qdisc", "show", "dev"}, false},
	{[]string{"-s", "-d", "qdisc", "show", "dev"}, true},
	{[]string{"-j", "-s", "qdisc", "show", "dev"}, false},
}

// classViews are compared too when a combination made classes.
var classViews = []view{
	{[]string{"class", "show", "dev"}, false},
	{[]string{"-s", "-d", "class", "show", "dev"}, true},
	{[]string{"-j", "-s", "-d", "class", "show", "dev"}, false},
}

// check runs one combination and reports whether everything matched.
func (r *runner) check(k *kindCases, c combination) bool {
	r.n++
	kind := k.kind
	place := k.place
	if place == nil {
		place = []string{"root", "handle", "1:"}
	}
	name := strings.TrimSpace(kind + " " + strings.Join(c.add, " "))
	if k.beforeKind {
		name = strings.TrimSpace(strings.Join(c.add, " ") + " " + kind + " " + k.opts)
	}
	if c.change != nil {
		name += " / change " + strings.Join(c.change, " ")
	}
	for _, cl := range c.classes {
		name += " / " + strings.Join(cl, " ")
	}
	refDev, gotDev := "dref", "dgot"
	if k.multiqueue {
		refDev, gotDev = "mref", "mgot"
	}
	var problems []string
	r.run(r.tc, "-force", "-batch", clearFile(refDev))
	// same runs one command line with both tools and compares the outcome.
	same := func(verb string, args []string) bool {
		ref := r.run(r.tc, withDev(args, refDev)...)
		got := r.run(r.gotc, withDev(args, gotDev)...)
		if ref.status != got.status {
			problems = append(problems, fmt.Sprintf("%s: exit %d, tc %d (gotc: %q, tc: %q)", verb, got.status, ref.status, got.stderr, ref.stderr))
			return false
		}
		// Messages may name the device (tc's percentage rates quote its
		// sysfs path): compare them as if both ran on DEV.
		if usageless(strings.ReplaceAll(ref.stderr, refDev, "DEV")) != usageless(strings.ReplaceAll(got.stderr, gotDev, "DEV")) {
			problems = append(problems, fmt.Sprintf("%s: stderr differs:\n  gotc: %q\n  tc:   %q", verb, got.stderr, ref.stderr))
		}
		return ref.status == 0
	}
	step := func(verb string, opts []string) bool {
		args := append([]string{"qdisc", verb, "dev", "DEV"}, place...)
		if k.beforeKind {
			args = append(append(append(args, opts...), kind), words(k.opts)...)
			return same(verb, args)
		}
		return same(verb, append(append(args, kind), opts...))
	}
	added := step("add", c.add)
	if added && c.change != nil {
		step("change", c.change)
	}
	shown := views
	if c.classes != nil {
		for _, cl := range c.classes {
			same(strings.Join(cl[:min(2, len(cl))], " "), cl)
		}
		shown = append(slices.Clone(views), classViews...)
	}
	for _, v := range shown {
		refOnRef := r.run(r.tc, append(slices.Clone(v.args), refDev)...)
		gotOnRef := r.run(r.gotc, append(slices.Clone(v.args), refDev)...)
		label := strings.Join(v.args[:len(v.args)-1], " ")
		if gotOnRef.stdout != refOnRef.stdout || gotOnRef.status != refOnRef.status {
			problems = append(problems, fmt.Sprintf("%q output differs:\n%s", label, diff(refOnRef.stdout, gotOnRef.stdout)))
		}
		if v.state {
			if refOnGot := r.run(r.tc, append(slices.Clone(v.args), gotDev)...); refOnGot.stdout != refOnRef.stdout {
				problems = append(problems, fmt.Sprintf("kernel state differs (tc %q of gotc's device vs tc's):\n%s", label, diff(refOnRef.stdout, refOnGot.stdout)))
			}
		}
		if r.verbose {
			fmt.Printf("# %s\n%s", label, indent(refOnRef.stdout))
		}
	}
	// The kernel's dumps of tc's device, written back by the kinds, and
	// (for a qdisc added and not changed) what the kind's parser made of
	// the words, as the kernel keeps it.
	problems = append(problems, r.keywords.check(refDev)...)
	if added && c.change == nil && c.classes == nil && !k.beforeKind {
		problems = append(problems, r.keywords.asked(refDev, kind, c.add)...)
	}
	problems = append(problems, r.reapply.check(refDev)...)
	if len(problems) == 0 {
		fmt.Printf("ok %d - %s\n", r.n, name)
		return true
	}
	fmt.Printf("not ok %d - %s\n", r.n, name)
	for _, p := range problems {
		fmt.Print(indent(p + "\n"))
	}
	return false
}

// usageless cuts a kind's usage text from stderr: gotc words its usage
// itself (tc's text is not ours to copy); what precedes it must match.
func usageless(stderr string) string {
	if i := strings.Index(stderr, "Usage: "); i >= 0 {
		return stderr[:i] + "Usage: ...\n"
	}
	return stderr
}

func withDev(args []string, dev string) []string {
	out := append([]string(nil), args...)
	for i, a := range out {
		if a == "DEV" {
			out[i] = dev
		}
	}
	return out
}

func indent(s string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if l != "" {
			b.WriteString("    " + l)
		}
	}
	return b.String()
}

// diff shows the first differing line of two outputs with its neighbours.
func diff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("  line %d\n  tc:   %q\n  gotc: %q", i+1, wl, gl)
		}
	}
	return "  (outputs differ only in length)"
}
