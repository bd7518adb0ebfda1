// SPDX-License-Identifier: Apache-2.0

package main

import (
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
	k, err := t.applyKernel()
	if err != nil {
		return err
	}
	if fromKernel {
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
	file, err := t.loadApplyFile(rest[0])
	if err != nil {
		fmt.Fprintf(t.stderr, "apply: %s: %v\n", rest[0], err)
		return errStatus(exitBadOption)
	}
	plan, err := apply.Compute(t.ctx, k, file)
	if err != nil {
		fmt.Fprintf(t.stderr, "apply: %v\n", err)
		return errStatus(exitBadOption)
	}
	if check || diff {
		return t.reportPlan(plan, check, diff)
	}
	log := t.stdout
	if !verbose {
		log = nil
	}
	sent, err := plan.Run(t.ctx, k, log)
	var perr *apply.Error
	if errors.As(err, &perr) {
		fmt.Fprintf(t.stderr, "apply: %v\n", err)
		if perr.UndoErr != nil {
			fmt.Fprintln(t.stderr, "apply: the state is neither the file's nor the one before")
		} else {
			fmt.Fprintln(t.stderr, "apply: the state before the apply is restored")
		}
		return errStatus(exitKernel)
	}
	if err != nil {
		fmt.Fprintf(t.stderr, "apply: %v\n", err)
		return errStatus(exitKernel)
	}
	fmt.Fprintf(t.stdout, "apply: %d requests sent\n", sent)
	return nil
}

// reportPlan is --check and --diff: the plan's command lines on stdout
// (--diff), then how many changes are pending on a line of its own on
// stderr, so that the plan stays a script and a terminal that shows both
// shows the count apart. --check exits 2 when changes are pending.
func (t *tc) reportPlan(plan *apply.Plan, check, diff bool) error {
	if diff {
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

// applyKernel is the connection as apply's Kernel.
func (t *tc) applyKernel() (apply.Kernel, error) {
	c, err := t.kernel()
	if err != nil {
		return nil, err
	}
	nc, ok := c.(*netlink.Conn)
	if !ok {
		fmt.Fprintln(t.stderr, "apply: needs a netlink connection")
		return nil, errStatus(exitBadOption)
	}
	return apply.KernelConn{Conn: nc}, nil
}

// loadApplyFile reads the desired state, "-" from standard input.
func (t *tc) loadApplyFile(name string) (*apply.File, error) {
	if name == "-" {
		return apply.Load(t.stdin)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return apply.Load(f)
}
