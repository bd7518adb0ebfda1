// SPDX-License-Identifier: Apache-2.0

package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/gotc/gotc/internal/manual"
	"github.com/gotc/gotc/model/predict"
	"github.com/gotc/gotc/model/report"
)

// fakeHelpers replaces finding and executing gotc-model and gotc-apply for
// one test and records the exec, which fails as a real one returns only on
// failure.
func fakeHelpers(t *testing.T, findErr error) *[]string {
	t.Helper()
	var argv []string
	look, ex := lookHelper, execHelper
	t.Cleanup(func() { lookHelper, execHelper = look, ex })
	lookHelper = func(name string) (string, error) { return "/x/" + name, findErr }
	execHelper = func(p string, a, env []string) error {
		if p != a[0] {
			t.Errorf("exec %q with argv[0] %q", p, a[0])
		}
		argv = a
		return syscall.ENOENT
	}
	return &argv
}

// TestHelperHelp: gotc answers help itself, without the helpers.
func TestHelperHelp(t *testing.T) {
	argv := fakeHelpers(t, errors.New("not there"))
	for _, tc := range []struct {
		line   string
		status int
		stderr string
	}{
		{"model help", exitOK, manual.Model.Help()},
		{"model", exitUsage, manual.Model.Help()},
		{"model -h", exitOK, manual.Model.Help()},
		{"apply help", exitOK, manual.Apply.Help()},
		{"apply --check --help", exitOK, manual.Apply.Help()},
		{"help apply", exitOK, manual.Apply.Help()},
	} {
		status, stdout, stderr := gotc(newFake(), tc.line)
		if status != tc.status || stdout != "" || stderr != tc.stderr {
			t.Errorf("%q: status %d, stdout %q, stderr %q; want %d, %q", tc.line, status, stdout, stderr, tc.status, tc.stderr)
		}
	}
	if *argv != nil {
		t.Errorf("a helper ran: %q", *argv)
	}
}

// TestHelperArgv: gotc passes its options and the command's words on.
func TestHelperArgv(t *testing.T) {
	argv := fakeHelpers(t, nil)
	for _, tc := range []struct{ line, want string }{
		{"-s -j -p model cake plan p.json", "/x/gotc-model -s -j -p -- model cake plan p.json"},
		{"-n ns1 -d apply --try 30s tc.yaml", "/x/gotc-apply -d -netns ns1 -- apply --try 30s tc.yaml"},
		{"-iec -oneline -r apply --confirm", "/x/gotc-apply -r -iec -oneline -- apply --confirm"},
	} {
		*argv = nil
		status, _, stderr := gotc(newFake(), tc.line)
		if got := strings.Join(*argv, " "); got != tc.want || status != exitBadOption || !strings.Contains(stderr, "cannot run") {
			t.Errorf("%q: exec %q, status %d, stderr %q; want %q", tc.line, got, status, stderr, tc.want)
		}
	}
}

// TestHelperMissing: without the helper, gotc says how to install it.
func TestHelperMissing(t *testing.T) {
	fakeHelpers(t, errors.New("cannot find the gotc-apply executable"))
	status, _, stderr := gotc(newFake(), "apply tc.yaml")
	if status != exitBadOption || !strings.Contains(stderr, "go install github.com/gotc/gotc/cmd/gotc-apply@latest") {
		t.Errorf("status %d, stderr %q", status, stderr)
	}
}

// TestHelperBinaries runs gotc as a process with gotc-model and gotc-apply
// built beside it: the words, options and exit statuses pass through.
func TestHelperBinaries(t *testing.T) {
	if testing.Short() {
		t.Skip("builds binaries")
	}
	dir := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", dir+string(filepath.Separator), ".", "../gotc-model", "../gotc-apply").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	gotcBin := filepath.Join(dir, "gotc")
	plan := filepath.Join(dir, "plan.json")
	if err := os.WriteFile(plan, []byte(`{"dev": "v0", "flows": [{"proto": "udp", "src": "10.0.0.1", "dst": "10.0.0.2", "sport": 4000, "dport": 5000, "size": 100, "count": 3, "interval_us": 1000}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args   []string
		status int
		stdout string // a part of it
	}{
		{[]string{"-j", "model", "cake", "plan", plan}, 0, `"kind":"cake"`},
		{[]string{"model", "cake", "bogus", "x", "plan", plan}, exitBadOption, ""},
		{[]string{"apply", "--example"}, 0, "devices:"},
		{[]string{"apply", "--frobnicate"}, exitUsage, ""},
		{[]string{"apply", "--check", filepath.Join(dir, "none.yaml")}, exitBadOption, ""},
	} {
		cmd := exec.Command(gotcBin, tc.args...)
		out, err := cmd.Output()
		status := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			status = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if status != tc.status || !strings.Contains(string(out), tc.stdout) {
			t.Errorf("gotc %q: status %d, stdout %q; want %d and %q", tc.args, status, out, tc.status, tc.stdout)
		}
	}
}

// TestModelWords: completion's copies of the model's kinds and metrics are
// the model's.
func TestModelWords(t *testing.T) {
	if !slices.Equal(modelKinds, predict.Kinds) || !slices.Equal(modelMetrics, report.Metrics) {
		t.Errorf("completion has kinds %q, metrics %q; gotc-model has %q, %q", modelKinds, modelMetrics, predict.Kinds, report.Metrics)
	}
}
