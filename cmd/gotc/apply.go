// SPDX-License-Identifier: Apache-2.0

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/gotc/gotc/apply"
	"github.com/gotc/gotc/internal/manual"
	"github.com/gotc/gotc/netlink"
)

// applyCmd is "gotc apply": the desired state of a file brought about.
func (t *tc) applyCmd(args []string) error {
	var check, diff, verbose, fromKernel bool
	asJSON := t.json
	var rest []string
	for _, a := range args {
		if manual.IsHelp(a) {
			fmt.Fprint(t.stderr, manual.Apply.Help())
			return nil
		}
		switch a {
		case "--check", "-check":
			check = true
		case "--diff", "-diff":
			diff = true
		case "-v", "--verbose":
			verbose = true
		case "-j", "--json", "-json":
			asJSON = true
		case "--from-kernel", "-from-kernel":
			fromKernel = true
		case "--example", "-example":
			fmt.Fprint(t.stdout, apply.Example)
			return nil
		default:
			if strings.HasPrefix(a, "-") && a != "-" {
				fmt.Fprintf(t.stderr, "apply: unknown option %q\n%s", a, manual.Apply.Help())
				return errStatus(exitUsage)
			}
			rest = append(rest, a)
		}
	}
	if asJSON && !diff {
		fmt.Fprintf(t.stderr, "apply: -j prints the plan of --diff\n%s", manual.Apply.Help())
		return errStatus(exitUsage)
	}
	if fromKernel {
		k, err := t.applyKernel()
		if err != nil {
			return err
		}
		f, err := apply.FromKernel(t.ctx, k, rest)
		if err != nil {
			fmt.Fprintf(t.stderr, "apply --from-kernel: %v\n", err)
			return errStatus(exitBadOption)
		}
		return f.Write(t.stdout)
	}
	if len(rest) != 1 {
		fmt.Fprint(t.stderr, manual.Apply.Help())
		return errStatus(exitUsage)
	}
	// The file's form is read before the kernel is dialed, its words
	// (which may name devices) before anything is sent.
	file, err := t.loadApplyFile(rest[0])
	if err != nil {
		return t.applyRefused(err)
	}
	k, err := t.applyKernel()
	if err != nil {
		return err
	}
	plan, err := apply.Compute(t.ctx, k, file)
	if err != nil {
		return t.applyRefused(err)
	}
	if check || diff {
		return t.reportPlan(plan, check, diff, asJSON)
	}
	sent, err := plan.Run(t.ctx, k, func(a apply.Answer) { t.applyAnswered(a, verbose) })
	if err != nil {
		fmt.Fprintf(t.stderr, "apply: %v\n", err)
		var perr *apply.Error
		if errors.As(err, &perr) && perr.UndoErr == nil {
			fmt.Fprintln(t.stderr, "apply: the state before the apply is restored")
			return errStatus(exitKernel)
		}
		fmt.Fprintln(t.stderr, "apply: the state is neither the file's nor the one before")
		return errStatus(exitNotRestored)
	}
	fmt.Fprintf(t.stdout, "apply: %d requests sent\n", sent)
	return nil
}

// exitNotRestored is apply's status when the kernel refused a request
// and the changes made before it could not all be undone: a tool must
// tell it from a refusal that left the state as it was (exitKernel).
const exitNotRestored = 3

// reportPlan is --check and --diff: with --diff the plan on stdout (tc
// command lines, or with -j its changes as a JSON array, indented with
// -p), then how many changes are pending on a line of its own on stderr,
// so that the plan stays a script and a terminal that shows both shows
// the count apart. --check exits 2 when changes are pending.
func (t *tc) reportPlan(plan *apply.Plan, check, diff, asJSON bool) error {
	switch {
	case diff && asJSON:
		enc := json.NewEncoder(t.stdout)
		enc.SetEscapeHTML(false) // tc's words as they are: "<", ">" and "&" too
		if t.pretty {
			enc.SetIndent("", "  ")
		}
		if err := enc.Encode(plan.Changes()); err != nil {
			return err
		}
	case diff:
		for _, c := range plan.Commands() {
			fmt.Fprintln(t.stdout, c)
		}
	}
	n := len(plan.Requests)
	if n == 0 {
		if diff {
			fmt.Fprintln(t.stderr, "apply: in sync, nothing to change")
		}
		return nil
	}
	fmt.Fprintf(t.stderr, "apply: %d changes pending\n", n)
	if check {
		return errStatus(exitKernel)
	}
	return nil
}

// applyRefused reports a file refused before anything was sent: every
// fault of a bad file, one a line as FILE:LINE:COLUMN: MESSAGE, or why
// the file or the kernel's state could not be read.
func (t *tc) applyRefused(err error) error {
	var bad *apply.BadFile
	if errors.As(err, &bad) {
		fmt.Fprintln(t.stderr, bad)
		faults := "1 fault"
		if len(bad.Faults) > 1 {
			faults = fmt.Sprintf("%d faults", len(bad.Faults))
		}
		fmt.Fprintf(t.stderr, "apply: bad file %s (%s): nothing sent\n", bad.Name, faults)
	} else {
		fmt.Fprintf(t.stderr, "apply: %v: nothing sent\n", err)
	}
	return errStatus(exitBadOption)
}

// applyAnswered reports a request sent and the kernel's answer: with -v,
// on standard output, the request ("apply:" or "undo:" and its command
// line) and, indented below it, the answer ("kernel: ok", with the
// warning the kernel added, or "kernel: refused: ..."); without, only
// the kernel's warnings, on standard error as tc prints them.
func (t *tc) applyAnswered(a apply.Answer, verbose bool) {
	if !verbose {
		if a.Warning != "" {
			fmt.Fprintf(t.stderr, "apply: %s: Warning: %s\n", a.Request.Command, a.Warning)
		}
		return
	}
	what := "apply"
	if a.Undo {
		what = "undo"
	}
	fmt.Fprintf(t.stdout, "%s: %s\n", what, a.Request.Command)
	var kerr *netlink.Error
	switch {
	case errors.As(a.Err, &kerr) && kerr.Message != "":
		fmt.Fprintf(t.stdout, "  kernel: refused: %s (%v)\n", kerr.Message, kerr.Errno)
	case a.Err != nil:
		fmt.Fprintf(t.stdout, "  kernel: refused: %v\n", a.Err)
	case a.Warning != "":
		fmt.Fprintf(t.stdout, "  kernel: ok, warning: %s\n", a.Warning)
	default:
		fmt.Fprintln(t.stdout, "  kernel: ok")
	}
}

// applyKernel is the connection as apply's Kernel.
func (t *tc) applyKernel() (apply.Kernel, error) {
	c, err := t.kernel()
	if err != nil {
		return nil, err
	}
	ac, ok := c.(apply.Conn)
	if !ok {
		fmt.Fprintln(t.stderr, "apply: needs a netlink connection")
		return nil, errStatus(exitBadOption)
	}
	return apply.KernelConn{Conn: ac}, nil
}

// loadApplyFile reads the desired state, "-" from standard input.
func (t *tc) loadApplyFile(name string) (*apply.File, error) {
	if name == "-" {
		return apply.Load("<stdin>", t.stdin)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return apply.Load(name, f)
}
