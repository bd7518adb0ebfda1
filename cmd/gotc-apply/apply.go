// SPDX-License-Identifier: Apache-2.0

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/gotc/gotc/apply"
	"github.com/gotc/gotc/internal/manual"
	"github.com/gotc/gotc/netlink"
)

// applyCmd is "gotc apply": the desired state of a file brought about.
func (t *tc) applyCmd(args []string) error {
	var check, diff, verbose, fromKernel, confirm bool
	var try time.Duration
	asJSON := t.JSON
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if manual.IsHelp(a) {
			fmt.Fprint(t.Stderr, manual.Apply.Help())
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
		case "--confirm", "-confirm":
			confirm = true
		case "--try", "-try":
			try = defaultTry
			if i+1 < len(args) {
				if d, ok := parseTry(args[i+1]); ok {
					try = d
					i++
				}
			}
		case "--example", "-example":
			fmt.Fprint(t.Stdout, apply.Example)
			return nil
		default:
			if v, ok := strings.CutPrefix(a, "--try="); ok {
				d, ok := parseTry(v)
				if !ok {
					fmt.Fprintf(t.Stderr, "apply: --try takes a duration (\"90s\", \"2m\") or seconds, not %q\n%s", v, manual.Apply.Help())
					return errStatus(exitUsage)
				}
				try = d
				continue
			}
			if strings.HasPrefix(a, "-") && a != "-" {
				fmt.Fprintf(t.Stderr, "apply: unknown option %q\n%s", a, manual.Apply.Help())
				return errStatus(exitUsage)
			}
			rest = append(rest, a)
		}
	}
	if confirm {
		if len(rest) > 0 || try > 0 || check || diff || fromKernel {
			fmt.Fprintf(t.Stderr, "apply: --confirm takes nothing else\n%s", manual.Apply.Help())
			return errStatus(exitUsage)
		}
		return t.confirmTry()
	}
	if try > 0 && (check || diff || fromKernel) {
		fmt.Fprintf(t.Stderr, "apply: --try sends the plan; --check, --diff and --from-kernel send nothing\n%s", manual.Apply.Help())
		return errStatus(exitUsage)
	}
	if asJSON && !diff {
		fmt.Fprintf(t.Stderr, "apply: -j prints the plan of --diff\n%s", manual.Apply.Help())
		return errStatus(exitUsage)
	}
	if fromKernel {
		k, err := t.applyKernel()
		if err != nil {
			return err
		}
		f, err := apply.FromKernel(t.Ctx, k, rest)
		if err != nil {
			fmt.Fprintf(t.Stderr, "apply --from-kernel: %v\n", err)
			return errStatus(exitBadOption)
		}
		return f.Write(t.Stdout)
	}
	if len(rest) != 1 {
		fmt.Fprint(t.Stderr, manual.Apply.Help())
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
	if check || diff {
		plan, err := apply.Compute(t.Ctx, k, file)
		if err != nil {
			return t.applyRefused(err)
		}
		return t.reportPlan(plan, check, diff, asJSON)
	}
	return t.applyFile(k, file, try, verbose)
}

// applyFile sends the plan of a file, holding the devices' locks: it
// refuses when another apply holds them, or when another writer changed
// the devices between the plan and its sending (Plan.Recheck). With
// try > 0 it then waits for the changes' confirmation (tryWait).
func (t *tc) applyFile(k apply.Kernel, file *apply.File, try time.Duration, verbose bool) error {
	ns, err := t.nsKey()
	if err != nil {
		return t.applyRefused(err)
	}
	release, err := t.lock(ns, slices.Sorted(maps.Keys(file.Devices)), nil, false)
	if err != nil {
		return err
	}
	defer release()
	var tf *os.File
	var sigs chan os.Signal
	if try > 0 {
		if tf, sigs, err = t.startTry(ns); err != nil {
			return err
		}
		defer tf.Close()
		defer signal.Reset(syscall.SIGUSR1, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
	}
	plan, err := apply.Compute(t.Ctx, k, file)
	if err != nil {
		return t.applyRefused(err)
	}
	if len(plan.Requests) == 0 {
		fmt.Fprintln(t.Stdout, "apply: 0 requests sent")
		return nil
	}
	// The blocks are known once the file's words are read; the plan's
	// Recheck below sees what another writer did to them (and to the
	// standalone actions) meanwhile.
	releaseBlocks, err := t.lock(ns, nil, plan.Blocks(), plan.Actions())
	if err != nil {
		return err
	}
	defer releaseBlocks()
	var before *apply.File
	if try > 0 {
		// The state to roll back to, in the file's words: refused when
		// it cannot be written so.
		devs := slices.Sorted(maps.Keys(file.Devices))
		if before, err = apply.FromKernel(t.Ctx, k, devs); err != nil {
			return t.applyRefused(fmt.Errorf("--try cannot roll back: %w", err))
		}
	}
	// Listen from before the recheck: another writer's change is then
	// either in the state it reads or announced during the run.
	stopListening, err := t.listen(plan)
	if err != nil {
		return t.applyRefused(err)
	}
	defer stopListening()
	if err := plan.Recheck(t.Ctx, k); err != nil {
		var stale *apply.Stale
		if errors.As(err, &stale) {
			fmt.Fprintf(t.Stderr, "apply: %v: nothing sent\n", err)
			return errStatus(exitBusy)
		}
		return t.applyRefused(err)
	}
	sent, err := plan.Run(t.Ctx, k, func(a apply.Answer) { t.applyAnswered(a, verbose) })
	if err != nil {
		fmt.Fprintf(t.Stderr, "apply: %v\n", err)
		var ferr *apply.Foreign
		if errors.As(err, &ferr) && ferr.UndoErr == nil {
			fmt.Fprintln(t.Stderr, "apply: the state before the apply is restored")
			return errStatus(exitBusy)
		}
		var perr *apply.Error
		if errors.As(err, &perr) && perr.UndoErr == nil {
			fmt.Fprintln(t.Stderr, "apply: the state before the apply is restored")
			return errStatus(exitKernel)
		}
		fmt.Fprintln(t.Stderr, "apply: the state is neither the file's nor the one before")
		return errStatus(exitNotRestored)
	}
	fmt.Fprintf(t.Stdout, "apply: %d requests sent\n", sent)
	if try > 0 {
		return t.tryWait(k, tf, try, before, sigs, verbose)
	}
	return nil
}

// listen subscribes a connection of its own to the kernel's
// announcements for the plan's run (Plan.Listen), when the kernel's
// connection is netlink's (a fake kernel's tests have none to hear).
func (t *tc) listen(plan *apply.Plan) (stop func(), err error) {
	fd, err := t.NetNSFD()
	if err != nil {
		return nil, err
	}
	c, err := t.Dial(fd)
	if err != nil {
		return nil, err
	}
	nc, ok := c.(*netlink.Conn)
	if !ok {
		c.Close()
		return func() {}, nil
	}
	l := apply.EventConn{Conn: nc}
	// The first read subscribes: what comes after is announced.
	if _, err := l.Pending(t.Ctx); err != nil {
		c.Close()
		return nil, err
	}
	plan.Listen = l
	return func() { c.Close() }, nil
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
		enc := json.NewEncoder(t.Stdout)
		enc.SetEscapeHTML(false) // tc's words as they are: "<", ">" and "&" too
		if t.Pretty {
			enc.SetIndent("", "  ")
		}
		if err := enc.Encode(plan.Changes()); err != nil {
			return err
		}
	case diff:
		for _, c := range plan.Commands() {
			fmt.Fprintln(t.Stdout, c)
		}
	}
	n := len(plan.Requests)
	if n == 0 {
		if diff {
			fmt.Fprintln(t.Stderr, "apply: in sync, nothing to change")
		}
		return nil
	}
	fmt.Fprintf(t.Stderr, "apply: %d changes pending\n", n)
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
		fmt.Fprintln(t.Stderr, bad)
		faults := "1 fault"
		if len(bad.Faults) > 1 {
			faults = fmt.Sprintf("%d faults", len(bad.Faults))
		}
		fmt.Fprintf(t.Stderr, "apply: bad file %s (%s): nothing sent\n", bad.Name, faults)
	} else {
		fmt.Fprintf(t.Stderr, "apply: %v: nothing sent\n", err)
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
			fmt.Fprintf(t.Stderr, "apply: %s: Warning: %s\n", a.Request.Command, a.Warning)
		}
		return
	}
	what := "apply"
	if a.Undo {
		what = "undo"
	}
	fmt.Fprintf(t.Stdout, "%s: %s\n", what, a.Request.Command)
	var kerr *netlink.Error
	switch {
	case errors.As(a.Err, &kerr) && kerr.Message != "":
		fmt.Fprintf(t.Stdout, "  kernel: refused: %s (%v)\n", kerr.Message, kerr.Errno)
	case a.Err != nil:
		fmt.Fprintf(t.Stdout, "  kernel: refused: %v\n", a.Err)
	case a.Warning != "":
		fmt.Fprintf(t.Stdout, "  kernel: ok, warning: %s\n", a.Warning)
	default:
		fmt.Fprintln(t.Stdout, "  kernel: ok")
	}
}

// applyKernel is the connection as apply's Kernel.
func (t *tc) applyKernel() (apply.Kernel, error) {
	c, err := t.Kernel()
	if err != nil {
		return nil, err
	}
	ac, ok := c.(apply.Conn)
	if !ok {
		fmt.Fprintln(t.Stderr, "apply: needs a netlink connection")
		return nil, errStatus(exitBadOption)
	}
	return apply.KernelConn{Conn: ac}, nil
}

// loadApplyFile reads the desired state, "-" from standard input.
func (t *tc) loadApplyFile(name string) (*apply.File, error) {
	if name == "-" {
		return apply.Load("<stdin>", t.Stdin)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return apply.Load(name, f)
}
