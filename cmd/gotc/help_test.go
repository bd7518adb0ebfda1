// SPDX-License-Identifier: Apache-2.0

package main

import (
	"strings"
	"testing"

	"github.com/gotc/gotc/internal/manual"
)

// helpExit is the status each object and command exits with when asked for
// help: tc's for tc's objects (it exits 255 after the usage of actions and
// monitor), 0 for gotc's own commands.
var helpExit = map[string]int{
	"qdisc": exitOK, "class": exitOK, "filter": exitOK, "chain": exitOK, "actions": exitUsage, "monitor": exitUsage,
	"apply": exitOK, "stats": exitOK, "model": exitOK, "exporter": exitOK,
}

// TestHelpEverywhere: help, -h, -help and --help after any object or
// command, and "gotc help OBJECT", print its usage with its exit status
// and reach no kernel.
func TestHelpEverywhere(t *testing.T) {
	fakeExporter(t, "/x/gotc-exporter", nil, nil)
	for obj, status := range helpExit {
		var want string
		for _, line := range []string{obj + " help", obj + " -h", obj + " -help", obj + " --help", "help " + obj} {
			k := newFake()
			got, stdout, stderr := gotc(k, line)
			if got != status || stdout != "" || !strings.HasPrefix(strings.ToLower(stderr), "usage: ") || len(k.requests) != 0 {
				t.Errorf("%q: status %d, stdout %q, stderr %.60q; want %d and the usage on stderr", line, got, stdout, stderr, status)
			}
			if want == "" {
				want = stderr
			} else if stderr != want {
				t.Errorf("%q: not what %q prints:\n%s", line, obj+" help", stderr)
			}
		}
	}
}

// TestTopLevelHelp: gotc's help names every object and command under the
// name gotc, and -h, -help, --help and "help" print it.
func TestTopLevelHelp(t *testing.T) {
	for _, line := range []string{"help", "-h", "-help", "--help", "-s help"} {
		status, stdout, stderr := gotc(newFake(), line)
		if status != exitOK || stdout != "" || stderr != manual.Gotc.Help() {
			t.Errorf("%q: status %d, stdout %q, stderr %.80q; want 0 and gotc's help", line, status, stdout, stderr)
		}
	}
	help := manual.Gotc.Help()
	if !strings.HasPrefix(help, "Usage:\tgotc ") || strings.Contains(help, "\ttc ") {
		t.Errorf("the help does not speak of gotc:\n%s", help)
	}
	for word := range helpExit {
		if !strings.Contains(help, " "+word+" ") && !strings.Contains(help, " "+word+"\n") {
			t.Errorf("the help does not name %q:\n%s", word, help)
		}
	}
	// Without a command gotc prints the same, as tc does, exiting 255.
	if status, _, stderr := gotc(newFake(), ""); status != exitUsage || stderr != help {
		t.Errorf("no command: status %d, stderr %.80q", status, stderr)
	}
}

// TestCommandHelpHasExample: each of gotc's own commands says that it is
// gotc's own and shows one example of itself.
func TestCommandHelpHasExample(t *testing.T) {
	for _, p := range []*manual.Page{&manual.Apply, &manual.Stats, &manual.Model, &manual.Exporter} {
		cmd := strings.TrimPrefix(p.Name, "gotc-")
		help := p.Help()
		_, example, _ := strings.Cut(help, "Example:\n")
		if !strings.Contains(help, "gotc's own command (tc has none)") || !strings.Contains(example, "gotc ") || !strings.Contains(example, " "+cmd+" ") {
			t.Errorf("%s: no example of itself, or not said to be gotc's own:\n%s", cmd, help)
		}
	}
}
