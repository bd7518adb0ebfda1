// SPDX-License-Identifier: Apache-2.0

// Command tdc runs test cases in the JSON format of the kernel's tc-testing
// suite (tools/testing/selftests/tc-testing), reproducing the verdicts of
// the kernel's tdc.py with its nsPlugin: each test gets a fresh network
// namespace with a veth pair, a dummy and an ifb device, and its setup,
// command under test, verify and teardown commands run inside it.
//
// Usage:
//
//	tdc [flags] FILE.json...
//
// Output is TAP-like: "ok N ID - name", "not ok N ID - name" followed by
// the reason and the output, "ok N ID - name # skip REASON", and finally
// "N passed, M failed, K skipped". The exit status is 0 when no test
// failed, 1 when one did, 2 for a usage or file error, 4 when no test was
// selected (kselftest's "skip").
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gotc/gotc/selftests/internal/tdc"
)

const usage = `usage: tdc [flags] FILE.json...

Runs tdc (kernel tc-testing) JSON test cases. Flags may also follow the files.
Tests that require nsPlugin run in a fresh network namespace each; this needs
root, and a kernel with veth, dummy and ifb (see -ns-devices).

Flags:
`

// timeoutFlag takes a Go duration ("24s") or, like tdc_config.py's TIMEOUT,
// a plain number of seconds.
type timeoutFlag struct{ d *time.Duration }

func (f timeoutFlag) String() string {
	if f.d == nil {
		return ""
	}
	return f.d.String()
}

func (f timeoutFlag) Set(s string) error {
	if secs, err := strconv.ParseFloat(s, 64); err == nil {
		*f.d = time.Duration(secs * float64(time.Second))
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("want a duration such as 24s, or seconds")
	}
	*f.d = d
	return nil
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tdc", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		tcPath    = fs.String("tc", "", "`PATH` of the tc to test: the value of $TC (default: tc on $PATH, else /sbin/tc)")
		ipPath    = fs.String("ip", "", "`PATH` of ip: the value of $IP, also used to create namespaces (default: ip on $PATH, else /sbin/ip)")
		ids       = fs.String("e", "", "run only the tests with these `ID[,ID...]`")
		cats      = fs.String("c", "", "run only the tests in these `CATEGORY[,CATEGORY...]` (with -e: the union, as tdc.py)")
		verbose   = fs.Bool("v", false, "for a failed test, show every command it ran with its exit status and output")
		list      = fs.Bool("list", false, "list the selected tests instead of running them")
		dir       = fs.String("C", "", "run commands in `DIR` (default: the folder holding tc-tests/ when FILE is inside one, as tdc.py runs from there; else the current directory)")
		devices   = fs.String("ns-devices", "veth,dummy,ifb", "device `KINDS` to create in each test namespace; drop one the kernel lacks")
		timeout   = tdc.DefaultTimeout
		overrides = fs.String("set", "", "override substitution values: `NAME=VALUE[,NAME=VALUE...]` (for example ETH=eth1)")
		gotcPath  = fs.String("gotc", "", "`PATH` of the gotc that runs the reference models for cases with a traffic block (default: gotc on $PATH)")
		trafPath  = fs.String("traffic", "", "`PATH` of gotc-traffic, which sends a case's traffic block (default: gotc-traffic on $PATH)")
	)
	fs.Var(timeoutFlag{&timeout}, "timeout", "limit for each command, a duration or seconds; 0 for none")
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}

	// Accept flags after the file names too: parse, take one file, repeat.
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return 0
			}
			return 2
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(files) == 0 {
		fs.Usage()
		return 2
	}

	var all []tdc.Case
	for _, f := range files {
		cases, err := tdc.Load(f)
		if err != nil {
			fmt.Fprintf(stderr, "tdc: %v\n", err)
			return 2
		}
		all = append(all, cases...)
	}
	if dups := tdc.DuplicateIDs(all); len(dups) > 0 {
		fmt.Fprintf(stderr, "tdc: test ids used more than once: %s\n", strings.Join(dups, ", "))
		return 2
	}
	sel, unknown := tdc.Select(all, splitList(*ids), splitList(*cats))
	for _, id := range unknown {
		fmt.Fprintf(stderr, "tdc: warning: no test has id %s\n", id)
	}
	if *list {
		for _, c := range sel {
			fmt.Fprintf(stdout, "%s: (%s) %s\n", c.ID, strings.Join(c.Category, ", "), c.Name)
		}
		return 0
	}
	if len(sel) == 0 {
		fmt.Fprintln(stderr, "tdc: no tests selected")
		return 4
	}

	names := tdc.DefaultNames()
	tc, err := tool(*tcPath, "tc")
	if err != nil {
		fmt.Fprintf(stderr, "tdc: -tc: %v\n", err)
		return 2
	}
	ip, err := tool(*ipPath, "ip")
	if err != nil {
		fmt.Fprintf(stderr, "tdc: -ip: %v\n", err)
		return 2
	}
	names["TC"], names["IP"] = tc, ip
	// tdc_config.py's TIMEOUT is also a substitution value.
	names["TIMEOUT"] = strconv.FormatFloat(timeout.Seconds(), 'f', -1, 64)
	for _, kv := range splitList(*overrides) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			fmt.Fprintf(stderr, "tdc: -set: %q is not NAME=VALUE\n", kv)
			return 2
		}
		names[k] = v
	}

	workdir := *dir
	if workdir == "" {
		workdir = suiteDir(files[0])
	}
	var devs []string
	for _, d := range splitList(*devices) {
		switch d {
		case tdc.DevVeth, tdc.DevDummy, tdc.DevIFB:
			devs = append(devs, d)
		default:
			fmt.Fprintf(stderr, "tdc: -ns-devices: unknown kind %q (want veth, dummy, ifb)\n", d)
			return 2
		}
	}
	if devs == nil {
		devs = []string{} // none, not "all"
	}
	if os.Geteuid() != 0 {
		fmt.Fprintln(stderr, "tdc: warning: not root; creating network namespaces will fail")
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	r := &tdc.Runner{
		Names:   names,
		Netns:   tdc.Netns{IP: ip, Devices: devs, Timeout: timeout},
		Host:    tdc.Host{},
		Dir:     workdir,
		Timeout: timeout,
		Out:     stdout,
		Verbose: *verbose,
		// After verify: a case with a traffic block sends it and compares
		// the kernel's statistics with the model's (see the README).
		Stages: append(tdc.DefaultStages(), tdc.ModelStage(tdc.ModelTools{
			Gotc: optionalTool(*gotcPath, "gotc"), Traffic: optionalTool(*trafPath, "gotc-traffic"),
		})),
	}
	sum := r.Run(ctx, sel)
	switch {
	case ctx.Err() != nil:
		return 130
	case sum.Failed > 0:
		return 1
	}
	return 0
}

// tool resolves a -tc/-ip value to an absolute path: commands run with an
// empty environment (as in tdc.py), so a bare name would not be found.
func tool(path, name string) (string, error) {
	if path == "" {
		if p, err := exec.LookPath(name); err == nil {
			path = p
		} else {
			path = "/sbin/" + name
		}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", err
	}
	if st.IsDir() {
		return "", fmt.Errorf("%s is a directory", abs)
	}
	return abs, nil
}

// optionalTool resolves a program only some cases need: its absolute path
// when found, else the name as given (those cases then fail saying so).
func optionalTool(path, name string) string {
	if p, err := tool(path, name); err == nil {
		return p
	}
	if path != "" {
		return path
	}
	return name
}

// suiteDir returns the folder that holds the tc-tests/ folder file is in
// (the kernel's tc-testing folder, from which tdc.py runs), or "" (the
// current directory) when file is not inside a tc-tests/ folder.
func suiteDir(file string) string {
	abs, err := filepath.Abs(file)
	if err != nil {
		return ""
	}
	for d := filepath.Dir(abs); d != filepath.Dir(d); d = filepath.Dir(d) {
		if filepath.Base(d) == "tc-tests" {
			return filepath.Dir(d)
		}
	}
	return ""
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
