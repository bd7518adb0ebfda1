// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gotc/gotc/apply"
	"golang.org/x/sys/unix"
)

// The exit statuses of apply's safety nets.
const (
	// exitBusy: another writer holds or changed the devices (another
	// apply's lock, a change since the plan: nothing was sent; a change
	// announced during the run: what was sent is undone).
	exitBusy = 4
	// exitRolledBack: apply --try was not confirmed in time and the state
	// before it is restored.
	exitRolledBack = 5
)

// defaultTry is how long apply --try waits for its confirmation when no
// duration is given.
const defaultTry = 120 * time.Second

// applyLockDir is where apply keeps its locks and the file of a waiting
// --try (tests point it elsewhere).
var applyLockDir = apply.LockDir

// The outcomes a --try process writes in its file for apply --confirm.
const (
	tryConfirmed  = "confirmed"
	tryRolledBack = "rolled back"
	tryNeither    = "rollback failed"
)

// parseTry reads --try's duration: a Go duration ("90s", "2m") or a
// number of seconds.
func parseTry(s string) (time.Duration, bool) {
	if n, err := strconv.ParseUint(s, 10, 32); err == nil && n > 0 {
		return time.Duration(n) * time.Second, true
	}
	d, err := time.ParseDuration(s)
	return d, err == nil && d > 0
}

// nsKey names the network namespace apply works in (the -netns one or the
// process's own) by its inode, the same whichever way it was reached.
func (t *tc) nsKey() (string, error) {
	fd, err := t.NetNSFD()
	if err != nil {
		return "", err
	}
	var st unix.Stat_t
	if fd == 0 {
		err = unix.Stat("/proc/self/ns/net", &st)
	} else {
		err = unix.Fstat(fd, &st)
	}
	if err != nil {
		return "", fmt.Errorf("network namespace: %w", err)
	}
	return "net-" + strconv.FormatUint(st.Ino, 10), nil
}

// lock takes apply's locks of devices and shared blocks.
func (t *tc) lock(ns string, devices []string, blocks []uint32, actions bool) (func(), error) {
	release, err := apply.Lock(applyLockDir, ns, devices, blocks, actions)
	if err != nil {
		fmt.Fprintf(t.Stderr, "apply: %v: nothing sent\n", err)
		var busy *apply.Busy
		if errors.As(err, &busy) {
			return nil, errStatus(exitBusy)
		}
		return nil, errStatus(exitBadOption)
	}
	return release, nil
}

// tryFile is the file of the --try that waits in namespace ns: locked
// while it waits, it holds the waiting process's ID and then its outcome.
func tryFile(ns string) string { return filepath.Join(applyLockDir, ns+".try") }

// tryWait is the rest of apply --try once its plan has run: it waits up
// to d for a confirmation (a line on standard input, or apply --confirm
// from another session, which signals SIGUSR1) and without one, or on
// SIGINT or SIGTERM, brings the devices back to before, the state the
// kernel had before the plan. SIGHUP and SIGPIPE were ignored before the
// plan ran (hangup), so that a dropped SSH session neither kills it nor
// confirms it. The outcome goes into f (locked by the caller), for the
// apply --confirm that waits for it.
func (t *tc) tryWait(k apply.Kernel, f *os.File, d time.Duration, before *apply.File, sigs <-chan os.Signal, verbose bool) error {
	key := make(chan struct{}, 1)
	go func() {
		if t.Stdin == nil {
			return
		}
		// Only a whole line confirms: the end of input (no terminal,
		// or the SSH session's death) does not.
		r := bufio.NewReader(t.Stdin)
		for {
			line, err := r.ReadString('\n')
			if strings.HasSuffix(line, "\n") {
				key <- struct{}{}
				return
			}
			if err != nil {
				return
			}
		}
	}()
	netns := ""
	if t.NetNS != "" {
		netns = "-n " + t.NetNS + " "
	}
	fmt.Fprintf(t.Stderr, "apply: keep these changes? press Enter, or run \"gotc %sapply --confirm\", within %v; otherwise they are rolled back\n", netns, d)
	timer := time.NewTimer(d)
	defer timer.Stop()
	why := fmt.Sprintf("not confirmed within %v", d)
	select {
	case <-key:
		return t.tryConfirmed(f)
	case s := <-sigs:
		if s == syscall.SIGUSR1 {
			return t.tryConfirmed(f)
		}
		why = "stopped by " + unix.SignalName(s.(syscall.Signal))
	case <-timer.C:
	}
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM) // the rollback runs to its end
	back, err := apply.Compute(t.Ctx, k, before)
	if err == nil {
		_, err = back.Run(t.Ctx, k, func(a apply.Answer) { t.applyAnswered(a, verbose) })
	}
	if err != nil {
		writeOutcome(f, tryNeither)
		fmt.Fprintf(t.Stderr, "apply: %s; rolling back failed: %v\napply: the state is neither the file's nor the one before\n", why, err)
		return errStatus(exitNotRestored)
	}
	writeOutcome(f, tryRolledBack)
	fmt.Fprintf(t.Stderr, "apply: %s: the state before is restored (%d requests)\n", why, len(back.Requests))
	return errStatus(exitRolledBack)
}

func (t *tc) tryConfirmed(f *os.File) error {
	writeOutcome(f, tryConfirmed)
	fmt.Fprintln(t.Stdout, "apply: confirmed, the changes are kept")
	return nil
}

// writeOutcome records a --try's outcome after the process ID.
func writeOutcome(f *os.File, outcome string) {
	if _, err := f.Seek(0, io.SeekEnd); err == nil {
		f.WriteString(outcome + "\n")
	}
}

// startTry takes the --try file of namespace ns and starts catching the
// signals a waiting --try answers; it fails when another --try waits in
// the namespace.
func (t *tc) startTry(ns string) (*os.File, chan os.Signal, error) {
	if err := os.MkdirAll(applyLockDir, 0o755); err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(tryFile(ns), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		fmt.Fprintln(t.Stderr, "apply: another apply --try waits for its confirmation in this namespace: nothing sent")
		return nil, nil, errStatus(exitBusy)
	}
	// Caught before the process ID is written, so that apply --confirm
	// never kills with SIGUSR1's default action.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGUSR1, syscall.SIGINT, syscall.SIGTERM)
	signal.Ignore(syscall.SIGHUP, syscall.SIGPIPE)
	err = f.Truncate(0)
	if err == nil {
		_, err = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	if err != nil {
		signal.Reset(syscall.SIGUSR1, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
		f.Close()
		return nil, nil, err
	}
	return f, sigs, nil
}

// confirmTry is apply --confirm: it signals the --try waiting in the
// namespace and waits for its outcome.
func (t *tc) confirmTry() error {
	ns, err := t.nsKey()
	if err != nil {
		fmt.Fprintf(t.Stderr, "apply --confirm: %v\n", err)
		return errStatus(exitBadOption)
	}
	f, err := os.OpenFile(tryFile(ns), os.O_RDWR, 0)
	if err == nil {
		defer f.Close()
	}
	// A --try that waits holds its file's lock.
	if err != nil || unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB) == nil {
		fmt.Fprintln(t.Stderr, "apply --confirm: no apply --try is waiting in this namespace")
		return errStatus(exitBadOption)
	}
	b := make([]byte, 64)
	n, _ := f.ReadAt(b, 0)
	pid, _ := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b[:n]), "\n", 2)[0]))
	if pid <= 0 || unix.Kill(pid, unix.SIGUSR1) != nil {
		fmt.Fprintln(t.Stderr, "apply --confirm: the waiting apply --try cannot be signalled")
		return errStatus(exitBadOption)
	}
	// The --try process unlocks its file when it is done.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB) == nil {
			break
		}
		if time.Now().After(deadline) {
			fmt.Fprintln(t.Stderr, "apply --confirm: the waiting apply --try does not answer")
			return errStatus(exitBadOption)
		}
	}
	b = make([]byte, 256)
	n, _ = f.ReadAt(b, 0)
	lines := strings.Split(strings.TrimSpace(string(b[:n])), "\n")
	switch lines[len(lines)-1] {
	case tryConfirmed:
		fmt.Fprintln(t.Stdout, "apply: confirmed, the changes are kept")
		return nil
	case tryRolledBack:
		fmt.Fprintln(t.Stderr, "apply --confirm: too late: the changes were rolled back")
		return errStatus(exitRolledBack)
	}
	fmt.Fprintln(t.Stderr, "apply --confirm: too late: the rollback failed, the state is neither the file's nor the one before")
	return errStatus(exitNotRestored)
}
