// SPDX-License-Identifier: Apache-2.0

// Command gotc-model is "gotc model" in a binary of its own, so that gotc
// does not link, and initialise at every start, the reference models and
// the plotting (gonum's plot and its fonts). For "gotc model ARGS" gotc
// executes gotc-model from the directory its own executable is in, or else
// from $PATH, in its place, so install the two together:
//
//	CGO_ENABLED=0 go install github.com/gotc/gotc/cmd/gotc@latest
//	CGO_ENABLED=0 go install github.com/gotc/gotc/cmd/gotc-model@latest
//
// or build them into one directory with "CGO_ENABLED=0 go build -o DIR ./cmd/...".
// It reads captures ("pcap FILE") through gotc-traffic, found the same way.
//
// It takes gotc's options that change the output, as gotc passes them, then
// the words of "gotc model":
//
//	gotc-model [-s] [-d] [-j] [-p] [-r] [-iec] [-oneline] [-netns NAME] [--] model ARGS
package main

// The part of gotc's command line that gotc-model needs: the options gotc passes
// on, the connection in the -netns namespace, and tc's messages. It is
// cmd/gotc's (tc.go), cut down to what the command uses; gotc-model and
// gotc-apply each have a copy, their cli.go.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/gotc/gotc/internal/cmdline"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tcline"
)

// Exit statuses, as tc's.
const (
	exitOK        = 0
	exitBadOption = 1
	exitKernel    = 2
	exitUsage     = 255
)

// conn is what the command needs from the kernel; tests replace it.
type conn interface {
	Do(ctx context.Context, o netlink.Object, op netlink.Op, m *netlink.Msg) error
	Dump(ctx context.Context, o netlink.Object, f netlink.DumpFilter, fn func(m *netlink.Msg, decodeErr error) error) error
	LinkIndex(ctx context.Context, name string) (int32, error)
	LinkNames(ctx context.Context) (map[int32]string, error)
	Close() error
}

type dialFunc func(netnsFD int) (conn, error)

func dialKernel(netnsFD int) (conn, error) {
	return netlink.Dial(&netlink.Config{NetNS: netnsFD})
}

func main() {
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr, dialKernel))
}

// run is main without the process: it returns the exit status. args are
// those gotc passes, "NAME [OPTIONS] [--] COMMAND WORDS...", where the
// options are gotc's that change the command (-s, -d, -j, -p, -r, -iec,
// -oneline, -netns NAME), each as gotc writes it.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, dial dialFunc) int {
	t := &tc{ctx: context.Background(), stdout: stdout, stderr: stderr, stdin: stdin, dial: dial}
	defer t.close()
	i := 1
options:
	for ; i < len(args); i++ {
		switch args[i] {
		case "-s", "-stats":
			t.stats = true
		case "-d", "-details":
			t.details = true
		case "-j", "-json":
			t.json = true
		case "-p", "-pretty":
			t.pretty = true
		case "-r", "-raw":
			t.raw = true
		case "-iec":
			t.iec = true
		case "-oneline":
			t.oneline = true
		case "-n", "-netns":
			if i+1 >= len(args) {
				fmt.Fprintln(stderr, `Command line is not complete. Try option "help"`)
				return exitUsage
			}
			i++
			t.netns = args[i]
		case "--":
			i++
			break options
		default:
			break options
		}
	}
	if i >= len(args) || args[i] != command {
		fmt.Fprintf(stderr, "Usage: %s [OPTIONS] [--] %s ARGS (run by \"gotc %s\")\n", helperName, command, command)
		return exitUsage
	}
	if err := t.cmd(args[i+1:]); err != nil {
		return exitCodeOf(err, exitBadOption)
	}
	return exitOK
}

// exitCoder is an error that carries the status tc exits with.
type exitCoder interface{ ExitCode() int }

func exitCodeOf(err error, fallback int) int {
	var ec exitCoder
	if errors.As(err, &ec) {
		return ec.ExitCode()
	}
	return fallback
}

// tc holds one invocation's options and its connection, opened on first use.
type tc struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	dial           dialFunc

	// ctx bounds every call to the kernel.
	ctx context.Context

	stats, details, json, pretty, raw, iec, oneline bool
	netns                                           string

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
// the process's own namespace.
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
// unknown.
func (t *tc) ifindex(name string) (int32, error) {
	name = tcword.DevName(name)
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
// name is first needed.
func (t *tc) links() *netlink.Links {
	if t.devices == nil {
		t.devices = netlink.NewLinks(t.ctx, linkConn{t})
	}
	return t.devices
}

// linkConn is the command's connection as Links asks it, opened on the
// first question.
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

func (t *tc) printer() *tcfmt.Printer {
	return tcfmt.NewPrinter(t.stdout, tcfmt.Options{JSON: t.json, Pretty: t.pretty, Oneline: t.oneline, IEC: t.iec, Details: t.details, Raw: t.raw, Stats: t.stats})
}

// kernelRefused prints a kernel refusal as tc does.
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

// parseFailed prints a parse error as tc does and returns its status.
func (t *tc) parseFailed(err error) error {
	return errStatus(tcline.PrintError(t.stderr, err))
}

// findHelper finds one of gotc's helper executables in the directory of
// this executable, else in $PATH.
func findHelper(name string) (string, error) {
	beside := "gotc's directory"
	if self, err := os.Executable(); err == nil {
		dir := filepath.Dir(self)
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
		beside = dir
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("cannot find the %s executable, neither in %s nor in $PATH", name, beside)
}

// The command this binary runs, and its name.
const (
	command    = "model"
	helperName = "gotc-model"
)

func (t *tc) cmd(args []string) error { return t.modelCmd(args) }
