// SPDX-License-Identifier: Apache-2.0

// Command gotc-apply is "gotc apply" in a binary of its own, so that gotc
// does not link, and initialise at every start, the YAML reader and apply's
// planner. For "gotc apply ARGS" gotc executes gotc-apply from the directory
// its own executable is in, or else from $PATH, in its place (gotc-apply gets
// the terminal, standard input and the signals that apply --try waits for),
// so install the two together:
//
//	CGO_ENABLED=0 go install github.com/gotc/gotc/cmd/gotc@latest
//	CGO_ENABLED=0 go install github.com/gotc/gotc/cmd/gotc-apply@latest
//
// or build them into one directory with "CGO_ENABLED=0 go build -o DIR ./cmd/...".
//
// It takes gotc's options that matter to apply, as gotc passes them, then
// the words of "gotc apply":
//
//	gotc-apply [-j] [-p] [-netns NAME] [--] apply ARGS
//
// Its exit statuses are gotc apply's (gotc-apply(8), gotc apply help).
package main

// The part of gotc's command line that gotc-apply needs: the options gotc passes
// on, the connection in the -netns namespace, and tc's messages. It is
// cmd/gotc's (tc.go), cut down to what the command uses; gotc-model and
// gotc-apply each have a copy, their cli.go.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/gotc/gotc/internal/cmdline"
	"github.com/gotc/gotc/netlink"
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
	netnsFile *os.File // the -netns namespace, open while the command runs
	netnsErr  error    // why it could not be opened, already printed
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

// The command this binary runs, and its name.
const (
	command    = "apply"
	helperName = "gotc-apply"
)

func (t *tc) cmd(args []string) error { return t.applyCmd(args) }
