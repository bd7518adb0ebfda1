// SPDX-License-Identifier: Apache-2.0

//go:build linux

package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// spawn runs argv and measures it: wall time from start to exit, CPU time
// (user+system, from rusage) and peak memory.
//
// Peak memory is the child's VmHWM read as it exits: the child runs under
// ptrace, stopping only at its exec and at its exit (PTRACE_O_TRACEEXIT),
// where its memory is still mapped. Not rusage's ru_maxrss: Go starts a
// child with vfork (CLONE_VM), and the kernel folds the high-water mark of
// the memory the child leaves at exec, this benchmark's own, into the
// child's maxrss. Not polling /proc either: a process of a few milliseconds
// ends between two looks.
func spawn(keep bool, argv []string, env []string) result {
	prog, err := exec.LookPath(argv[0])
	if err != nil {
		fail("%v", err)
	}
	var out, errb bytes.Buffer
	stdout := devNull
	var readers []chan struct{}
	pipe := func(to *bytes.Buffer) *os.File {
		rd, w, err := os.Pipe()
		if err != nil {
			fail("%v", err)
		}
		done := make(chan struct{})
		go func() { io.Copy(to, rd); rd.Close(); close(done) }()
		readers = append(readers, done)
		return w
	}
	if keep {
		stdout = pipe(&out)
	}
	stderr := pipe(&errb)
	// The tracer is the thread that started the child, for every ptrace
	// call and wait that follows.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := time.Now()
	pid, err := syscall.ForkExec(prog, argv, &syscall.ProcAttr{
		Env: env, Files: []uintptr{os.Stdin.Fd(), stdout.Fd(), stderr.Fd()},
		Sys: &syscall.SysProcAttr{Ptrace: true},
	})
	if keep {
		stdout.Close()
	}
	stderr.Close()
	if err != nil {
		fail("%s: %v", prog, err)
	}
	limit := time.AfterFunc(*procLimit, func() {
		fmt.Printf("bench: %s: still running after %s; killed\n", strings.Join(argv, " "), *procLimit)
		syscall.Kill(pid, syscall.SIGKILL)
	})
	defer limit.Stop()
	var hwm int64
	var ws syscall.WaitStatus
	var ru syscall.Rusage
	for first := true; ; first = false {
		if _, err := syscall.Wait4(pid, &ws, 0, &ru); err != nil {
			if err == syscall.EINTR {
				continue
			}
			fail("wait %s: %v", prog, err)
		}
		if ws.Exited() || ws.Signaled() {
			break
		}
		signal := 0
		switch {
		case first: // the stop at exec
			if err := syscall.PtraceSetOptions(pid, syscall.PTRACE_O_TRACEEXIT|syscall.PTRACE_O_TRACEEXEC|0x100000 /* PTRACE_O_EXITKILL */); err != nil {
				fail("ptrace %s: %v", prog, err)
			}
		case ws.TrapCause() == syscall.PTRACE_EVENT_EXIT:
			hwm = vmHWM(pid)
		case ws.TrapCause() == syscall.PTRACE_EVENT_EXEC: // the child executed another program (gotc exporter does)
		case ws.Stopped():
			signal = int(ws.StopSignal()) // a signal on its way to the child: deliver it
		}
		if err := syscall.PtraceCont(pid, signal); err != nil && err != syscall.ESRCH {
			fail("ptrace %s: %v", prog, err)
		}
	}
	wall := time.Since(start)
	for _, done := range readers {
		<-done
	}
	status := ws.ExitStatus()
	if ws.Signaled() {
		status = 128 + int(ws.Signal())
	}
	return result{wall: wall, cpu: time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), maxRSS: hwm, status: status,
		stdout: out.Bytes(), stderr: errb.String()}
}

// vmHWM is a process's peak resident memory in KiB (0 if unreadable).
func vmHWM(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	var kb int64
	if i := bytes.Index(b, []byte("VmHWM:")); i >= 0 {
		fmt.Sscan(string(b[i+6:]), &kb)
	}
	return kb
}
