// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"os"
	"syscall"

	"github.com/gotc/gotc/internal/cmdline"
	"github.com/gotc/gotc/internal/manual"
)

// The executables that serve "gotc model" (package cmd/gotc-model) and
// "gotc apply" (cmd/gotc-apply): apart from gotc, so that gotc does not
// link, and initialise at every start, the models, gonum's plotting (its
// fonts), the YAML reader and apply's planner.
const (
	modelBinary = "gotc-model"
	applyBinary = "gotc-apply"
)

// Hooks for tests: where a helper is, and how gotc becomes it.
var (
	lookHelper = cmdline.FindHelper
	execHelper = syscall.Exec
)

// modelCmd is "gotc model": gotc answers "help" (and no words) itself and
// hands the rest to gotc-model.
func (t *tc) modelCmd(args []string) error {
	if len(args) == 0 || args[0] == "help" {
		fmt.Fprint(t.stderr, manual.Model.Help())
		if len(args) == 0 {
			return errStatus(exitUsage)
		}
		return nil
	}
	return t.runHelper(modelBinary, "model", args)
}

// applyCmd is "gotc apply": gotc answers help itself (any help word before
// an unknown option, as gotc-apply does) and hands the rest to gotc-apply.
func (t *tc) applyCmd(args []string) error {
	for _, a := range args {
		if manual.IsHelp(a) {
			fmt.Fprint(t.stderr, manual.Apply.Help())
			return nil
		}
	}
	return t.runHelper(applyBinary, "apply", args)
}

// runHelper runs the helper executable name for "gotc COMMAND ARGS": it
// passes gotc's options that change the command (and -netns) before the
// command's words, and replaces gotc with it, so that the helper has the
// terminal, standard input and the signals (apply --try waits for a line
// or a signal) and exits with its own status. Within a batch it runs as a
// child instead, and the batch goes on after it, as the exporter does.
func (t *tc) runHelper(name, command string, args []string) error {
	path, err := lookHelper(name)
	if err != nil {
		fmt.Fprintf(t.stderr, "gotc %s: %v\n", command, err)
		fmt.Fprintf(t.stderr, "%s serves \"gotc %s\"; install it beside gotc or in $PATH with\n"+
			"\tCGO_ENABLED=0 go install github.com/gotc/gotc/cmd/%s@latest\n"+
			"or build the commands into one directory: CGO_ENABLED=0 go build -o DIR ./cmd/...\n", name, command, name)
		return errStatus(exitBadOption)
	}
	argv := append(t.helperOptions(path), "--", command)
	argv = append(argv, args...)
	if _, inBatch := t.conn.(*batchConn); inBatch {
		return t.runChild(command, path, argv)
	}
	err = execHelper(path, argv, os.Environ())
	fmt.Fprintf(t.stderr, "gotc %s: cannot run %s: %v\n", command, path, err)
	return errStatus(exitBadOption)
}

// helperOptions is a helper's argv up to its command: its path and the
// options of this gotc that the helpers read.
func (t *tc) helperOptions(path string) []string {
	argv := []string{path}
	for _, o := range []struct {
		set  bool
		word string
	}{{t.stats, "-s"}, {t.details, "-d"}, {t.json, "-j"}, {t.pretty, "-p"}, {t.raw, "-r"}, {t.iec, "-iec"}, {t.oneline, "-oneline"}} {
		if o.set {
			argv = append(argv, o.word)
		}
	}
	if t.netns != "" {
		argv = append(argv, "-netns", t.netns)
	}
	return argv
}
