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
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"strings"

	"github.com/urfave/cli/v2"
)

// version is what -V prints; the release process may override it with -ldflags.
var version = "gotc-0.1"

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

// cliFlags builds the urfave/cli flags, by their full names only:
// normalizeArgs has already turned each abbreviation into its flag's name
// (aliases would make urfave/cli compare names by regular expression, for
// every flag and alias, on every start).
func cliFlags() []cli.Flag {
	var flags []cli.Flag
	for _, f := range globalFlags {
		if f.value {
			flags = append(flags, &cli.StringFlag{Name: f.names[0]})
		} else {
			flags = append(flags, &cli.BoolFlag{Name: f.names[0]})
		}
	}
	return flags
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
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, dial dialFunc) int {
	status := exitOK
	app := &cli.App{
		Name:                   "gotc",
		Usage:                  "traffic control, tc-compatible",
		HideHelp:               true,
		HideVersion:            true,
		Flags:                  cliFlags(),
		Writer:                 stdout,
		ErrWriter:              stderr,
		UseShortOptionHandling: false,
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			word := strings.TrimPrefix(err.Error(), "flag provided but not defined: ")
			if strings.HasPrefix(err.Error(), "flag needs an argument") {
				fmt.Fprint(stderr, usageText)
			} else {
				fmt.Fprintf(stderr, "Option %q is unknown, try \"tc -help\".\n", word)
			}
			status = exitUsage
			return nil
		},
		Action: func(c *cli.Context) error {
			t := &tc{
				ctx: context.Background(), stdout: stdout, stderr: stderr, stdin: stdin, dial: dial,
				stats: c.Bool("stats"), details: c.Bool("details"), json: c.Bool("json"),
				pretty: c.Bool("pretty"), raw: c.Bool("raw"), iec: c.Bool("iec"),
				oneline: c.Bool("oneline"), force: c.Bool("force"), echo: c.Bool("echo"), netns: c.String("netns"),
			}
			defer t.close()
			switch {
			case c.Bool("Version"):
				fmt.Fprintf(stdout, "tc utility, %s\n", version)
				return nil
			case c.Bool("help"):
				fmt.Fprint(stderr, usageText)
				return nil
			case c.IsSet("batch"):
				status = t.batch(c.String("batch"))
				return nil
			}
			status = t.do(c.Args().Slice())
			return nil
		},
	}
	if err := app.Run(normalizeArgs(args)); err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	return status
}

// normalizeArgs rewrites every option to its flag's full name ("-s" to
// "-stats") and stops option parsing at the first word that is not an option,
// as tc does (urfave/cli would otherwise take "-1" in "overhead -1" for a
// flag), by inserting "--" there. An unknown option is left for urfave/cli
// to report.
func normalizeArgs(args []string) []string {
	out := []string{args[0]}
	i := 1
	for ; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
			break
		}
		word, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		name, takesValue, ok := resolveFlag(word)
		if !ok {
			out = append(out, a)
			continue
		}
		if hasVal {
			out = append(out, "-"+name+"="+val)
			continue
		}
		out = append(out, "-"+name)
		if takesValue && i+1 < len(args) {
			i++
			out = append(out, args[i])
		}
	}
	out = append(out, "--")
	return append(out, args[i:]...)
}

const usageText = `Usage:	tc [ OPTIONS ] OBJECT { COMMAND | help }
	tc [-force] -batch filename
       gotc stats [ dev DEV ] [ interval TIME ] [ count N ] [ deltas ] [ rates ]
       gotc exporter [ listen ADDR ] [ dev DEV ]
       gotc apply [ --check ] [ --diff ] [ -v ] FILE | --from-kernel [ DEV... ] | --example
where  OBJECT := { qdisc | class | filter }
       OPTIONS := { -V[ersion] | -s[tatistics] | -d[etails] | -r[aw] |
		    -o[neline] | -j[son] | -p[retty] | -iec |
		    -b[atch] [filename] | -n[etns] name | -force }
The qdisc kinds gotc knows are listed by "gotc qdisc help".
`

// exitCoder is an error that carries the status tc exits with.
type exitCoder interface{ ExitCode() int }

func exitCodeOf(err error, fallback int) int {
	var ec exitCoder
	if errors.As(err, &ec) {
		return ec.ExitCode()
	}
	return fallback
}
