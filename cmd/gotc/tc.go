// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gotc/gotc/internal/cmdline"
	"github.com/gotc/gotc/internal/manual"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tcline"
)

// conn is what the commands need from the kernel; tests replace it.
type conn interface {
	Do(ctx context.Context, o netlink.Object, op netlink.Op, m *netlink.Msg) error
	Dump(ctx context.Context, o netlink.Object, f netlink.DumpFilter, fn func(m *netlink.Msg, decodeErr error) error) error
	Get(ctx context.Context, o netlink.Object, m *netlink.Msg) (*netlink.Msg, error)
	LinkIndex(ctx context.Context, name string) (int32, error)
	LinkNames(ctx context.Context) (map[int32]string, error)
	Close() error
}

type dialFunc func(netnsFD int) (conn, error)

func dialKernel(netnsFD int) (conn, error) {
	return netlink.Dial(&netlink.Config{NetNS: netnsFD})
}

// tc holds one invocation's options and its connection, opened on first use.
type tc struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	dial           dialFunc

	// ctx bounds every call to the kernel.
	ctx context.Context

	stats, details, json, pretty, raw, iec, oneline, force, echo bool
	netns                                                        string

	conn      conn
	netnsFile *os.File       // the -netns namespace, open while the command runs
	netnsErr  error          // why it could not be opened, already printed
	devices   *netlink.Links // see links
}

func (t *tc) close() {
	if t.conn != nil {
		t.conn.Close()
	}
	if t.netnsFile != nil {
		t.netnsFile.Close()
	}
}

// errStatus carries an exit status for an error whose message is already printed.
type errStatus int

func (e errStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }
func (e errStatus) ExitCode() int { return int(e) }

// netnsFD opens the -netns namespace once and returns its descriptor, 0 for
// the process's own namespace. A failure is printed once: a command asks
// again when it names a device after failing to connect.
func (t *tc) netnsFD() (int, error) {
	if t.netns == "" {
		return 0, nil
	}
	if t.netnsErr != nil {
		return 0, t.netnsErr
	}
	if t.netnsFile == nil {
		f, err := cmdline.OpenNetNS(t.netns, t.stderr)
		if err != nil {
			t.netnsErr = err
			return 0, err
		}
		t.netnsFile = f
	}
	return int(t.netnsFile.Fd()), nil
}

// kernel opens the connection, in the -netns namespace if one was named.
func (t *tc) kernel() (conn, error) {
	if t.conn != nil {
		return t.conn, nil
	}
	fd, err := t.netnsFD()
	if err != nil {
		return nil, err
	}
	c, err := t.dial(fd)
	if err != nil {
		fmt.Fprintf(t.stderr, "Cannot open rtnetlink: %v\n", err)
		return nil, errStatus(exitBadOption)
	}
	t.conn = c
	return c, nil
}

// ifindex resolves a device name as tc does, printing tc's message if
// unknown: a name longer than a device's can be is cut as tc cuts it.
func (t *tc) ifindex(name string) (int32, error) {
	name = tcword.DevName(name)
	// The connection's failure has its own message.
	if _, err := t.kernel(); err != nil {
		return 0, err
	}
	idx, ok := t.links().Index(name)
	if !ok {
		fmt.Fprintf(t.stderr, "Cannot find device %q\n", name)
		return 0, errStatus(exitBadOption)
	}
	return idx, nil
}

// links names devices through the command's connection, opened when a
// name is first needed, for the kinds' options and for the lines that
// name a device.
func (t *tc) links() *netlink.Links {
	if t.devices == nil {
		t.devices = netlink.NewLinks(t.ctx, linkConn{t})
	}
	return t.devices
}

// linkConn is the command's connection as Links asks it, opened on the
// first question: a command that names no device never dials for it.
type linkConn struct{ t *tc }

func (c linkConn) LinkIndex(ctx context.Context, name string) (int32, error) {
	k, err := c.t.kernel()
	if err != nil {
		return 0, err
	}
	return k.LinkIndex(ctx, name)
}

func (c linkConn) LinkNames(ctx context.Context) (map[int32]string, error) {
	k, err := c.t.kernel()
	if err != nil {
		return nil, err
	}
	return k.LinkNames(ctx)
}

// printEnv is what tcline's printers of dumped objects need of the command.
func (t *tc) printEnv() tcline.PrintEnv {
	return tcline.PrintEnv{Links: t.links(), Stderr: t.stderr}
}

// list dumps objects of one kind and prints, as they arrive, those that keep
// accepts, the way tc's listing commands do.
func (t *tc) list(obj netlink.Object, f netlink.DumpFilter, keep func(*netlink.Msg) bool, print func(*tcfmt.Printer, *netlink.Msg)) error {
	c, err := t.kernel()
	if err != nil {
		return err
	}
	// A listing prints each object and forgets it: where the connection
	// can, it decodes every object into the memory of the one before.
	dump := netlink.ReusingDumpOf(c)
	return t.printEach(func(fn func(*netlink.Msg, error) error) error { return dump(t.ctx, obj, f, fn) }, keep, print)
}

// printEach prints the objects source passes on that keep keeps, as a
// listing: the JSON array around them, and "Dump terminated" if the source
// fails.
func (t *tc) printEach(source func(fn func(*netlink.Msg, error) error) error, keep func(*netlink.Msg) bool, print func(*tcfmt.Printer, *netlink.Msg)) error {
	p := t.printer()
	p.Start()
	err := source(func(m *netlink.Msg, _ error) error {
		if keep(m) {
			print(p, m)
		}
		return p.Err()
	})
	err = t.dumpEnded(err)
	if ferr := p.Finish(); err == nil {
		err = ferr
	}
	if err != nil {
		fmt.Fprintf(t.stderr, "Dump terminated: %v\n", err)
		return errStatus(exitBadOption)
	}
	return nil
}

// dumpEnded is a listing dump's error as tc sees it: a dump the kernel
// flagged interrupted is no failure (tc prints what it got, and says so).
func (t *tc) dumpEnded(err error) error {
	if errors.Is(err, netlink.ErrDumpInterrupted) {
		fmt.Fprintln(t.stderr, "Dump was interrupted and may be inconsistent.")
		return nil
	}
	return err
}

func (t *tc) printer() *tcfmt.Printer {
	return tcfmt.NewPrinter(t.stdout, tcfmt.Options{JSON: t.json, Pretty: t.pretty, Oneline: t.oneline, IEC: t.iec, Details: t.details, Raw: t.raw, Stats: t.stats})
}

// do runs one command line (without the global options) and returns its status.
func (t *tc) do(args []string) int {
	if len(args) == 0 {
		fmt.Fprint(t.stderr, manual.Gotc.Help())
		return exitUsage
	}
	obj, rest := args[0], args[1:]
	if len(rest) > 0 && manual.IsHelp(rest[0]) {
		// tc knows only "help" there; -h, -help and --help answer as it
		// does, with its usage of the object and its exit status.
		rest = append([]string{"help"}, rest[1:]...)
	}
	var err error
	switch {
	case tcfmt.Matches(obj, "qdisc"):
		err = t.qdiscCmd(netlink.Qdisc, rest)
	case tcfmt.Matches(obj, "class"):
		err = t.qdiscCmd(netlink.Class, rest)
	case tcfmt.Matches(obj, "filter"):
		err = t.filterCmd(rest)
	case tcfmt.Matches(obj, "chain"):
		err = t.chainCmd(rest)
	case tcfmt.Matches(obj, "actions"):
		err = t.actionsCmd(rest)
	case tcfmt.Matches(obj, "monitor"):
		err = t.monitorCmd(rest)
	case tcfmt.Matches(obj, "help"):
		if len(rest) > 0 && !tcfmt.Matches(rest[0], "help") {
			// "gotc help OBJECT" is "gotc OBJECT help".
			return t.do([]string{rest[0], "help"})
		}
		fmt.Fprint(t.stderr, manual.Gotc.Help())
		return exitOK
	case obj == "stats":
		err = t.statsCmd(rest)
	case obj == "exporter":
		err = t.exporterCmd(rest)
	case obj == "model":
		err = t.modelCmd(rest)
	case obj == "apply":
		err = t.applyCmd(rest)
	case obj == completeCommand:
		err = t.complete(rest)
	default:
		fmt.Fprintf(t.stderr, "Object %q is unknown, try \"tc help\".\n", obj)
		return exitUsage
	}
	if err == nil {
		return exitOK
	}
	return cmdline.ExitCodeOf(err, exitBadOption)
}

// kernelRefused prints a kernel refusal as tc does: the extended-ack message
// after "Error: ", ending with a period (tc adds one when the kernel's message
// lacks it), or the errno's text after "RTNETLINK answers: ".
func (t *tc) kernelRefused(err error) error {
	var kerr *netlink.Error
	if errors.As(err, &kerr) {
		if msg := strings.TrimRight(kerr.Message, "\n"); msg != "" {
			if !strings.HasSuffix(msg, ".") {
				msg += "."
			}
			fmt.Fprintf(t.stderr, "Error: %s\n", msg)
		} else {
			fmt.Fprintf(t.stderr, "RTNETLINK answers: %s\n", cmdline.Strerror(kerr.Errno))
		}
		return errStatus(exitKernel)
	}
	fmt.Fprintf(t.stderr, "%v\n", err)
	return errStatus(exitKernel)
}

// needArg is tc's NEXT_ARG: a keyword that needs a value ended the line.
func (t *tc) needArg(args []string) error {
	return cmdline.NeedArg(args, t.stderr)
}

// invarg is tc's message for a keyword's bad value.
func (t *tc) invarg(msg, arg string) error {
	fmt.Fprintf(t.stderr, "Error: argument %q is wrong: %s\n", arg, msg)
	return errStatus(exitUsage)
}
