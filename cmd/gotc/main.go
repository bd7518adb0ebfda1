// SPDX-License-Identifier: Apache-2.0

// Command gotc is a drop-in replacement for iproute2's tc for the CAKE,
// cake_mq and DualPI2 qdiscs: the same command syntax, exit codes and output
// (text, -s, -d, -j, -p), spoken over rtnetlink from Go.
//
//	gotc [OPTIONS] qdisc {add|change|replace|link|delete|show} [dev DEV]
//	     [root|ingress|clsact|parent ID] [handle ID] KIND [KIND OPTIONS]
//	gotc [OPTIONS] class {add|change|replace|delete|show} dev DEV ...
//	gotc [OPTIONS] filter {add|change|replace|delete|show} dev DEV ...
//	gotc -batch FILE
//	gotc stats [dev DEV] [interval TIME] [count N] [deltas] [rates]
//	gotc exporter [listen ADDR] [dev DEV]
//	gotc apply [--check] [--diff] [-v] FILE | --from-kernel [DEV...] | --example
//
// Exit status, as tc's: 0 on success, 1 for a bad option (nothing is sent to
// the kernel), 2 when the kernel refuses a request, 255 for usage errors.
// gotc apply adds 3, for a refused request whose undoing failed too; its
// statuses are listed by "gotc apply help".
package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"strings"

	"github.com/gotc/gotc/internal/manual"
)

// Exit statuses, as tc's.
const (
	exitOK        = 0
	exitBadOption = 1
	exitKernel    = 2
	exitUsage     = 255
)

func main() {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		// A tc command runs for a moment and exits: collecting garbage costs
		// it more than the memory is worth (a 2,200-qdisc dump took 0.91 s
		// with the collector, 0.26 s without). The limit still bounds memory:
		// past it the collector runs. stats and batches run for long and turn
		// the collector back on (the exporter is its own program, gotc-exporter).
		debug.SetGCPercent(-1)
		debug.SetMemoryLimit(shortCommandMemory)
	}
	stop := startProfile(os.Getenv("GOTC_CPUPROFILE"))
	status := run(os.Args, os.Stdin, os.Stdout, os.Stderr, dialKernel)
	stop()
	os.Exit(status)
}

// startProfile writes a CPU profile of the whole command to path, for
// measuring gotc where perf is not at hand (the test bed's VM); "" profiles
// nothing. The returned function ends the profile.
func startProfile(path string) func() {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "GOTC_CPUPROFILE: %v\n", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

// shortCommandMemory is the heap size at which a short command collects
// garbage after all.
const shortCommandMemory = 64 << 20

// longRunning restores the collector's defaults for commands that run until
// stopped, unless the user chose GOGC or GOMEMLIMIT.
func longRunning() {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
	}
}

// globalFlags are tc's options, in the order tc tries them: a word that is a
// prefix of several (like "-n" for -netns and -names) means the first.
var globalFlags = []struct {
	names []string
	value bool // takes an argument
}{
	{[]string{"stats", "statistics"}, false},
	{[]string{"details"}, false},
	{[]string{"raw"}, false},
	{[]string{"pretty"}, false},
	{[]string{"graph"}, false},
	{[]string{"Version"}, false},
	{[]string{"iec"}, false},
	{[]string{"help"}, false},
	{[]string{"force"}, false},
	{[]string{"batch"}, true},
	{[]string{"netns"}, true},
	{[]string{"names", "nm"}, false},
	{[]string{"cf", "conf"}, true},
	{[]string{"timestamp"}, false},
	{[]string{"tshort"}, false},
	{[]string{"json"}, false},
	{[]string{"oneline"}, false},
	{[]string{"echo"}, false},
}

// resolveFlag finds the flag an option word names: the first flag in tc's
// order of which one of the names starts with the word. It reports the
// flag's full name and whether it takes a value.
func resolveFlag(word string) (name string, value, ok bool) {
	if word == "" {
		return "", false, false
	}
	for _, f := range globalFlags {
		for _, n := range f.names {
			if strings.HasPrefix(n, word) {
				return f.names[0], f.value, true
			}
		}
	}
	return "", false, false
}

// run is main without the process: it returns the exit status.
//
// The options are read as tc reads them, one by one up to the first word
// that is not an option: -Version and -help act at once, an unknown option
// stops the command (nothing is sent to the kernel), and what follows the
// options is the command. A hand-written loop, not a flag package, because
// tc's rules (abbreviations in tc's order, "overhead -1" after the command
// word is not an option) are not any package's, and because a one-shot
// gotc pays for every package's initialisation at each start.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, dial dialFunc) int {
	t := &tc{ctx: context.Background(), stdout: stdout, stderr: stderr, stdin: stdin, dial: dial}
	defer t.close()
	batch, batchSet := "", false
	i := 1
	for ; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			break
		}
		if a == "--" {
			i++
			break
		}
		name, takesValue, ok := resolveFlag(strings.TrimLeft(a, "-"))
		if !ok {
			fmt.Fprintf(stderr, "Option %q is unknown, try \"tc -help\".\n", a)
			return exitUsage
		}
		value := ""
		if takesValue {
			if i+1 >= len(args) {
				if name == "batch" {
					fmt.Fprintln(stderr, `Error: argument "batch file" is required`)
				} else {
					fmt.Fprintln(stderr, `Command line is not complete. Try option "help"`)
				}
				return exitUsage
			}
			i++
			value = args[i]
		}
		switch name {
		case "stats":
			t.stats = true
		case "details":
			t.details = true
		case "json":
			t.json = true
		case "pretty":
			t.pretty = true
		case "raw":
			t.raw = true
		case "iec":
			t.iec = true
		case "oneline":
			t.oneline = true
		case "force":
			t.force = true
		case "echo":
			t.echo = true
		case "netns":
			t.netns = value
		case "batch":
			batch, batchSet = value, true
		case "Version":
			fmt.Fprintln(stdout, versionLine(debug.ReadBuildInfo()))
			return exitOK
		case "help":
			fmt.Fprint(stderr, manual.Gotc.Help())
			return exitOK
		}
		// The rest (-graph, -names, -cf, -timestamp, -tshort) are accepted
		// and change nothing gotc prints.
	}
	if batchSet {
		return t.batch(batch)
	}
	return t.do(args[i:])
}
