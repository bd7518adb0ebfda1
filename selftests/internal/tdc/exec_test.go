// SPDX-License-Identifier: Apache-2.0

package tdc

import (
	"context"
	"strings"
	"testing"
	"time"
)

func sh(cmd string, timeout time.Duration) Result {
	return runArgv(context.Background(), "", []string{"/bin/sh", "-c", cmd}, "", timeout)
}

func TestRunArgvOutput(t *testing.T) {
	for _, tt := range []struct {
		cmd, out string
		code     int
	}{
		{"echo out; echo err >&2", "out\n", 0},                       // success: stdout
		{"echo out; echo err >&2; exit 3", "err\n", 3},               // failure with stderr: stderr
		{"echo out; exit 2", "out\n", 2},                             // failure without stderr: stdout
		{`echo "${HOME:-unset} ${USER:-unset}"`, "unset unset\n", 0}, // empty environment, as tdc.py
		{"kill -9 $$", "", 137},                                      // death by signal: 128+N
		{`printf 'a\377b'`, "ab", 0},                                 // invalid UTF-8 dropped
	} {
		r := sh(tt.cmd, 10*time.Second)
		if r.Code != tt.code || r.Output() != tt.out {
			t.Errorf("%q: code %d output %q, want %d %q", tt.cmd, r.Code, r.Output(), tt.code, tt.out)
		}
	}
}

func TestRunArgvTimeout(t *testing.T) {
	start := time.Now()
	// The background sleep is in the same process group and dies too.
	r := sh("sleep 30 & sleep 30; echo never", 300*time.Millisecond)
	if !r.TimedOut || r.Code != 255 || !strings.Contains(r.Output(), "timed out") {
		t.Errorf("result %+v, output %q", r, r.Output())
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestRunArgvStdinAndStartFailure(t *testing.T) {
	r := runArgv(context.Background(), "", []string{"/bin/sh", "-c", "read a; echo got $a"}, "line\n", time.Second)
	if r.Output() != "got line\n" {
		t.Errorf("stdin: %q", r.Output())
	}
	r = runArgv(context.Background(), "", []string{"/nonexistent/tool"}, "", time.Second)
	if r.Code != -1 || !strings.Contains(r.Output(), "no such file") {
		t.Errorf("start failure: code %d output %q", r.Code, r.Output())
	}
}
