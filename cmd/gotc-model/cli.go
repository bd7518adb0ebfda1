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

// The part of gotc's command line that gotc-model needs: the options gotc
// passes on and the connection in the -netns namespace (cmdline.Helper,
// which gotc-model and gotc-apply share), and tc's exit statuses.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gotc/gotc/internal/cmdline"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tcline"
)

// Exit statuses, as tc's.
const (
	exitOK        = cmdline.ExitOK
	exitBadOption = cmdline.ExitBadOption
	exitKernel    = cmdline.ExitKernel
	exitUsage     = cmdline.ExitUsage
)

// errStatus carries an exit status for an error whose message is already
// printed.
type errStatus = cmdline.Status

// conn is what the command needs from the kernel.
type conn = cmdline.Conn

type dialFunc func(netnsFD int) (conn, error)

func main() {
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr, cmdline.DialKernel))
}

// run is main without the process: it returns the exit status. args are
// those gotc passes (cmdline.Helper.ParseArgs).
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, dial dialFunc) int {
	t := &tc{Helper: cmdline.Helper[conn]{Ctx: context.Background(), Stdin: stdin, Stdout: stdout, Stderr: stderr, Dial: dial}}
	defer t.Close()
	words, err := t.ParseArgs(args, command, helperName)
	if err == nil {
		err = t.cmd(words)
	}
	if err != nil {
		return cmdline.ExitCodeOf(err, exitBadOption)
	}
	return exitOK
}

// tc is one run of the command: gotc's options and the connection.
type tc struct {
	cmdline.Helper[conn]
	devices *netlink.Links // see links
}

// ifindex resolves a device name as tc does, printing tc's message if
// unknown.
func (t *tc) ifindex(name string) (int32, error) {
	name = tcword.DevName(name)
	if _, err := t.Kernel(); err != nil {
		return 0, err
	}
	idx, ok := t.links().Index(name)
	if !ok {
		fmt.Fprintf(t.Stderr, "Cannot find device %q\n", name)
		return 0, errStatus(exitBadOption)
	}
	return idx, nil
}

// links names devices through the command's connection, opened when a
// name is first needed.
func (t *tc) links() *netlink.Links {
	if t.devices == nil {
		t.devices = netlink.NewLinks(t.Ctx, linkConn{t})
	}
	return t.devices
}

// linkConn is the command's connection as Links asks it, opened on the
// first question.
type linkConn struct{ t *tc }

func (c linkConn) LinkIndex(ctx context.Context, name string) (int32, error) {
	k, err := c.t.Kernel()
	if err != nil {
		return 0, err
	}
	return k.LinkIndex(ctx, name)
}

func (c linkConn) LinkNames(ctx context.Context) (map[int32]string, error) {
	k, err := c.t.Kernel()
	if err != nil {
		return nil, err
	}
	return k.LinkNames(ctx)
}

// printEnv is what tcline's printers of dumped objects need of the command.
func (t *tc) printEnv() tcline.PrintEnv {
	return tcline.PrintEnv{Links: t.links(), Stderr: t.Stderr}
}

func (t *tc) printer() *tcfmt.Printer {
	return tcfmt.NewPrinter(t.Stdout, tcfmt.Options{JSON: t.JSON, Pretty: t.Pretty, Oneline: t.Oneline, IEC: t.IEC, Details: t.Details, Raw: t.Raw, Stats: t.Stats})
}

// kernelRefused prints a kernel refusal as tc does.
func (t *tc) kernelRefused(err error) error {
	var kerr *netlink.Error
	if errors.As(err, &kerr) {
		if msg := strings.TrimRight(kerr.Message, "\n"); msg != "" {
			if !strings.HasSuffix(msg, ".") {
				msg += "."
			}
			fmt.Fprintf(t.Stderr, "Error: %s\n", msg)
		} else {
			fmt.Fprintf(t.Stderr, "RTNETLINK answers: %s\n", cmdline.Strerror(kerr.Errno))
		}
		return errStatus(exitKernel)
	}
	fmt.Fprintf(t.Stderr, "%v\n", err)
	return errStatus(exitKernel)
}

// needArg is tc's NEXT_ARG: a keyword that needs a value ended the line.
func (t *tc) needArg(args []string) error {
	return cmdline.NeedArg(args, t.Stderr)
}

// invarg is tc's message for a keyword's bad value.
func (t *tc) invarg(msg, arg string) error {
	fmt.Fprintf(t.Stderr, "Error: argument %q is wrong: %s\n", arg, msg)
	return errStatus(exitUsage)
}

// parseFailed prints a parse error as tc does and returns its status.
func (t *tc) parseFailed(err error) error {
	return errStatus(tcline.PrintError(t.Stderr, err))
}

// The command this binary runs, and its name.
const (
	command    = "model"
	helperName = "gotc-model"
)

func (t *tc) cmd(args []string) error { return t.modelCmd(args) }
