// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, dir, name, data string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRunCLI(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.json", `[
		{"id": "aaaa", "name": "first", "category": ["qdisc", "cake"], "cmdUnderTest": "true", "expExitCode": "0"},
		{"id": "bbbb", "name": "second", "category": ["qdisc", "dualpi2"], "cmdUnderTest": "true", "expExitCode": "0"}
	]`)
	dup := writeFile(t, dir, "dup.json", `[{"id": "aaaa", "name": "again"}]`)
	bad := writeFile(t, dir, "bad.json", `[{"id": "aaaa",`)
	for _, tt := range []struct {
		name   string
		args   []string
		code   int
		stdout string // exact, when not empty
		stderr string // substring
	}{
		{"list", []string{"-list", a}, 0, "aaaa: (qdisc, cake) first\nbbbb: (qdisc, dualpi2) second\n", ""},
		{"flags after files", []string{a, "-list", "-c", "dualpi2"}, 0, "bbbb: (qdisc, dualpi2) second\n", ""},
		{"ids", []string{"-list", "-e", "bbbb,cccc", a}, 0, "bbbb: (qdisc, dualpi2) second\n", "no test has id cccc"},
		{"duplicates", []string{"-list", a, dup}, 2, "", "used more than once: aaaa"},
		{"bad json", []string{bad}, 2, "", "bad.json"},
		{"missing file", []string{filepath.Join(dir, "none.json")}, 2, "", "none.json"},
		{"nothing selected", []string{"-e", "ffff", a}, 4, "", "no tests selected"},
		{"no files", nil, 2, "", "usage: tdc"},
		{"bad tc", []string{"-tc", filepath.Join(dir, "no-tc"), a}, 2, "", "-tc:"},
		{"bad timeout", []string{"-timeout", "soon", a}, 2, "", "-timeout"},
	} {
		var out, errb bytes.Buffer
		code := run(tt.args, &out, &errb)
		if code != tt.code || (tt.stdout != "" && out.String() != tt.stdout) || !strings.Contains(errb.String(), tt.stderr) {
			t.Errorf("%s: code %d, stdout %q, stderr %q", tt.name, code, out.String(), errb.String())
		}
	}
}

// TestRunHostTests runs tests that need no namespace, end to end through the
// CLI, with /bin/true standing in for tc.
func TestRunHostTests(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "tc-tests/x/h.json", `[
		{"id": "aaaa", "name": "pass", "cmdUnderTest": "$TC", "expExitCode": "0",
		 "verifyCmd": "echo $TC; ls", "matchPattern": "^/bin/true$.*^h-marker$", "matchCount": "1"},
		{"id": "bbbb", "name": "fail", "cmdUnderTest": "false", "expExitCode": "0"},
		{"id": "cccc", "name": "skip", "skip": "yes", "cmdUnderTest": "true", "expExitCode": "0"}
	]`)
	// Commands run in the folder holding tc-tests/, like tdc.py.
	writeFile(t, dir, "h-marker", "")
	var out, errb bytes.Buffer
	code := run([]string{"-tc", "/bin/true", "-ip", "/bin/true", f}, &out, &errb)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if code != 1 || lines[len(lines)-1] != "1 passed, 1 failed, 1 skipped" ||
		!strings.Contains(out.String(), "ok 1 aaaa - pass\n") ||
		!strings.Contains(out.String(), "not ok 2 bbbb - fail\n") ||
		!strings.Contains(out.String(), "ok 3 cccc - skip # skip ") {
		t.Errorf("code %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
}
