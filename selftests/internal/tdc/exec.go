// SPDX-License-Identifier: Apache-2.0

package tdc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Result is what running one command produced.
type Result struct {
	// Argv is what was executed, for -v reports.
	Argv []string
	// Code is the exit status; 255 after a timeout (as tdc.py reports it),
	// 128+N after death by signal N, -1 when the command could not start.
	Code     int
	Stdout   string
	Stderr   string
	TimedOut bool
	Elapsed  time.Duration
}

// Output is the text tdc.py matches and reports: stderr when the command
// exited non-zero and wrote something there, stdout otherwise; after a
// timeout, a "timed out" message. Invalid UTF-8 is dropped, as tdc.py's
// decode("utf-8", errors="ignore") does.
func (r Result) Output() string {
	if r.TimedOut {
		return fmt.Sprintf("Command %q timed out\n", strings.Join(r.Argv, " "))
	}
	if r.Code != 0 && r.Stderr != "" {
		return r.Stderr
	}
	return r.Stdout
}

// runArgv runs argv with an empty environment (tdc.py passes env=ENVIR,
// which is {} unless tdc_config_local.py changes it) in dir, killing its
// whole process group after timeout (zero: no limit). stdin, if not empty,
// is fed to the command's standard input; otherwise it reads /dev/null.
//
// tdc.py leaves a timed-out command running; killing it here keeps a hung
// tc from holding the namespace, and its device, past the test.
func runArgv(ctx context.Context, dir string, argv []string, stdin string, timeout time.Duration) Result {
	res := Result{Argv: argv}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = []string{}
	cmd.Dir = dir
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// A process group of its own, so that the shell's children die with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	// A background child that keeps the pipes open must not hang the run.
	cmd.WaitDelay = 2 * time.Second

	start := time.Now()
	err := cmd.Run()
	res.Elapsed = time.Since(start)
	res.Stdout = strings.ToValidUTF8(stdout.String(), "")
	res.Stderr = strings.ToValidUTF8(stderr.String(), "")

	var exitErr *exec.ExitError
	switch {
	case err == nil:
		res.Code = 0
	case ctx.Err() == context.DeadlineExceeded:
		res.Code, res.TimedOut = 255, true
	case errors.As(err, &exitErr):
		ws, _ := exitErr.Sys().(syscall.WaitStatus)
		switch {
		case ws.Signaled():
			res.Code = 128 + int(ws.Signal())
		default:
			res.Code = exitErr.ExitCode()
		}
	default:
		res.Code = -1
		res.Stderr += err.Error() + "\n"
	}
	return res
}
