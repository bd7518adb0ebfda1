// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gotc/gotc/internal/manual"
)

// fakeExporter replaces finding and executing gotc-exporter for one test and
// records the exec; exec itself fails with execErr, as a real one returns only
// on failure.
func fakeExporter(t *testing.T, path string, findErr, execErr error) *[]string {
	t.Helper()
	var argv []string
	look, ex := lookExporter, execExporter
	t.Cleanup(func() { lookExporter, execExporter = look, ex })
	lookExporter = func() (string, error) { return path, findErr }
	execExporter = func(p string, a, env []string) error {
		if p != path {
			t.Errorf("exec %q, want %q", p, path)
		}
		argv = a
		return execErr
	}
	return &argv
}

func TestExporterHelpAndUsageErrors(t *testing.T) {
	argv := fakeExporter(t, "/x/gotc-exporter", nil, syscall.ENOENT)
	for _, tc := range []struct {
		line   string
		status int
		stderr string
	}{
		{"exporter help", exitOK, manual.Exporter.Help()},
		{"exporter listen :1 help", exitOK, manual.Exporter.Help()},
		{"exporter bogus help", exitUsage, "What is \"bogus\"? Try \"gotc exporter help\".\n"},
		{"exporter listen", exitUsage, "Command line is not complete. Try option \"help\"\n"},
		{"exporter dev eth0 --listen", exitUsage, "Command line is not complete. Try option \"help\"\n"},
		{"-n ns1 exporter -netns x", exitUsage, "What is \"-netns\"? Try \"gotc exporter help\".\n"},
	} {
		status, stdout, stderr := gotc(newFake(), tc.line)
		if status != tc.status || stdout != "" || stderr != tc.stderr {
			t.Errorf("%q: status %d, stdout %q, stderr %q; want %d, %q", tc.line, status, stdout, stderr, tc.status, tc.stderr)
		}
	}
	if *argv != nil {
		t.Errorf("gotc-exporter executed for help or a usage error: %q", *argv)
	}
}

func TestExporterExecsGotcExporter(t *testing.T) {
	for _, tc := range []struct{ line, argv string }{
		{"exporter", "/x/gotc-exporter --"},
		{"exporter listen 127.0.0.1:1 dev eth0", "/x/gotc-exporter -- listen 127.0.0.1:1 dev eth0"},
		{"-s -n ns1 exporter --listen :2", "/x/gotc-exporter -netns ns1 -- --listen :2"},
		{"-netns /proc/1/ns/net exporter dev nosuch", "/x/gotc-exporter -netns /proc/1/ns/net -- dev nosuch"},
	} {
		argv := fakeExporter(t, "/x/gotc-exporter", nil, syscall.EACCES)
		status, _, stderr := gotc(newFake(), tc.line)
		if got := strings.Join(*argv, " "); got != tc.argv {
			t.Errorf("%q: exec %q, want %q", tc.line, got, tc.argv)
		}
		// A real exec does not return; a failed one is reported.
		if want := "gotc exporter: cannot run /x/gotc-exporter: permission denied\n"; status != exitBadOption || stderr != want {
			t.Errorf("%q: status %d, stderr %q; want 1, %q", tc.line, status, stderr, want)
		}
	}
}

func TestExporterMissing(t *testing.T) {
	argv := fakeExporter(t, "", errors.New("cannot find the gotc-exporter executable, neither in /x nor in $PATH"), nil)
	status, _, stderr := gotc(newFake(), "exporter listen :1")
	if status != exitBadOption || *argv != nil ||
		!strings.Contains(stderr, "gotc exporter: cannot find the gotc-exporter executable") ||
		!strings.Contains(stderr, "go install github.com/gotc/gotc/cmd/gotc-exporter@latest") {
		t.Fatalf("status %d, exec %q, stderr %q", status, *argv, stderr)
	}
}

func TestFindExporter(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	if _, err := findExporter(); err == nil || !strings.Contains(err.Error(), "gotc-exporter") {
		t.Fatalf("found in an empty $PATH: %v", err)
	}
	path := filepath.Join(dir, "gotc-exporter")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := findExporter(); got != path || err != nil {
		t.Fatalf("findExporter() = %q, %v; want %q from $PATH", got, err, path)
	}
}

// TestExporterInBatch runs a stand-in gotc-exporter as a batch's child: the
// batch reports its status and goes on (with -force) after it.
func TestExporterInBatch(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "gotc-exporter")
	os.WriteFile(script, []byte("#!/bin/sh\necho \"args: $*\" >&2\nexit 3\n"), 0o755)
	look := lookExporter
	t.Cleanup(func() { lookExporter = look })
	lookExporter = func() (string, error) { return script, nil }
	file := filepath.Join(dir, "cmds")
	os.WriteFile(file, []byte("exporter listen :1\nqdisc del dev eth0 root\nexporter dev nosuch\n"), 0o644)
	k := newFake()
	status, _, stderr := gotc(k, "-force -batch "+file)
	want := "args: -- listen :1\nCommand failed " + file + ":1\nCannot find device \"nosuch\"\nCommand failed " + file + ":3\n"
	if status != exitBadOption || len(k.requests) != 1 || stderr != want {
		t.Fatalf("status %d, %d requests, stderr %q; want 1, 1, %q", status, len(k.requests), stderr, want)
	}
}

// TestExporterEndToEnd builds gotc and gotc-exporter into one directory and
// runs "gotc exporter": gotc becomes gotc-exporter (same process, so the
// signal reaches the exporter), which serves a scrape and exits 0 on SIGINT.
func TestExporterEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two binaries")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool")
	}
	dir := t.TempDir()
	build := exec.Command(goTool, "build", "-o", dir+"/", ".", "../gotc-exporter")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skip("no loopback:", err)
	}
	addr := ln.Addr().String()
	ln.Close()

	cmd := exec.Command(filepath.Join(dir, "gotc"), "exporter", "listen", addr)
	cmd.Env = append(os.Environ(), "PATH=/nonexistent") // found beside gotc, not in $PATH
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, _ := bufio.NewReader(stderr).ReadString('\n')
	if want := "gotc exporter: serving http://" + addr + "/metrics\n"; line != want {
		t.Fatalf("stderr %q, want %q", line, want)
	}
	// The executable of gotc's process is now gotc-exporter.
	if exe, err := os.Readlink("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/exe"); err == nil && filepath.Base(exe) != "gotc-exporter" {
		t.Errorf("process runs %s, not gotc-exporter", exe)
	}
	var body []byte
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			continue
		}
		body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		break
	}
	if !strings.Contains(string(body), "gotc_exporter_scrape_success") {
		t.Errorf("scrape lacks gotc_exporter_scrape_success:\n%.500s", body)
	}
	cmd.Process.Signal(os.Interrupt)
	if err := cmd.Wait(); err != nil {
		t.Errorf("after SIGINT: %v, want exit 0", err)
	}
}
