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

// The part of gotc's command line that gotc-apply needs: the options gotc
// passes on and the connection in the -netns namespace (cmdline.Helper,
// which gotc-model and gotc-apply share), and tc's exit statuses.

import (
	"context"
	"io"
	"os"

	"github.com/gotc/gotc/internal/cmdline"
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
}

// The command this binary runs, and its name.
const (
	command    = "apply"
	helperName = "gotc-apply"
)

func (t *tc) cmd(args []string) error { return t.applyCmd(args) }
