// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gotc/gotc/internal/hostns"

	"golang.org/x/sys/unix"
)

// ifbNS is a network namespace of its own with an ifb0 that is up, on the
// host's kernel, for the tests of apply's safety nets; it skips where it
// cannot be made (not root, no ip, no ifb).
func ifbNS(t *testing.T) string {
	t.Helper()
	return hostns.New(t, "try", "ifb0")
}

func mustRun(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// gotcBinary builds gotc and gotc-apply into the test's temporary
// directory, for the test that runs gotc as processes: gotc executes
// gotc-apply in its place, which must keep the signals and the terminal.
func gotcBinary(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "gotc")
	if out, err := exec.Command("go", "build", "-o", dir+string(filepath.Separator), ".", "../gotc").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// directPackets is htb's count of packets sent unclassified, which the
// device's own traffic (IPv6's, once it is up) moves: not state.
var directPackets = regexp.MustCompile(`direct_packets_stat \d+`)

// tcState is tc's own view of ifb0 in ns: qdiscs, classes and filters
// with their details (tc -d), what a rollback must restore exactly. Its
// lines are sorted: the kernel lists classes in the order of its hash
// buckets, which depends on the order they were made in.
func tcState(t *testing.T, ns string) string {
	t.Helper()
	var lines []string
	for _, obj := range []string{"qdisc", "class", "filter"} {
		lines = append(lines, strings.Split(mustRun(t, "tc", "-n", ns, "-d", obj, "show", "dev", "ifb0"), "\n")...)
	}
	slices.Sort(lines)
	return directPackets.ReplaceAllString(strings.Join(lines, "\n"), "direct_packets_stat N")
}

// tryBefore is the state a --try starts from, made with tc.
func tryBefore(t *testing.T, ns string) {
	t.Helper()
	exec.Command("tc", "-n", ns, "qdisc", "del", "dev", "ifb0", "root").Run()
	for _, cmd := range []string{
		"qdisc add dev ifb0 root handle 1: htb default 10",
		"class add dev ifb0 parent 1: classid 1:1 htb rate 100mbit",
		"class add dev ifb0 parent 1:1 classid 1:10 htb rate 10mbit ceil 100mbit",
		"class add dev ifb0 parent 1:1 classid 1:20 htb rate 20mbit ceil 50mbit",
		"qdisc add dev ifb0 parent 1:10 handle 10: pfifo limit 50",
		"qdisc add dev ifb0 parent 1:20 handle 20: tbf rate 20mbit burst 32k latency 50ms",
	} {
		mustRun(t, "tc", append([]string{"-n", ns}, strings.Fields(cmd)...)...)
	}
}

// tryFileText moves 1:10's rate, drops 1:20 and adds 1:30.
const tryFileText = `devices:
  ifb0:
    root:
      qdisc: htb default 10
      handle: "1:"
      classes:
        "1:1":
          class: htb rate 100mbit
          classes:
            "1:10": { class: htb rate 30mbit ceil 100mbit, leaf: { qdisc: pfifo limit 50, handle: "10:" } }
            "1:30": { class: htb rate 5mbit ceil 10mbit, leaf: { qdisc: bfifo limit 30000, handle: "30:" } }
`

// startTry starts "gotc -n NS apply --try D FILE" and waits for its
// prompt; the process's standard input is the returned pipe.
func startTry(t *testing.T, bin, ns, file, d string) (*exec.Cmd, *os.File) {
	t.Helper()
	cmd := exec.Command(bin, "-n", ns, "apply", "--try", d, file)
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdin = stdinR
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	// A process group of its own, as an SSH session's command has.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stdinR.Close()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	r := bufio.NewReader(stderr)
	for {
		line, err := r.ReadString('\n')
		if strings.Contains(line, "keep these changes?") {
			break
		}
		if err != nil {
			t.Fatalf("apply --try ended before its prompt: %v (last line %q)", err, line)
		}
	}
	go func() { // drain the rest, as a terminal would
		for {
			if _, err := r.ReadString('\n'); err != nil {
				return
			}
		}
	}()
	return cmd, stdinW
}

func exitStatus(err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// TestApplyTryHost runs apply --try on the host's kernel, on an ifb in a
// namespace of its own: not confirmed in time, killed with its session
// (SIGHUP) or stopped (SIGTERM), it restores tc's -d view of the device
// exactly; confirmed by a line on its input or by apply --confirm from
// another process, it keeps the file's state. While it waits, another
// apply of the device is refused with status 4.
func TestApplyTryHost(t *testing.T) {
	ns := ifbNS(t)
	bin := gotcBinary(t)
	file := filepath.Join(t.TempDir(), "tc.yaml")
	if err := os.WriteFile(file, []byte(tryFileText), 0o644); err != nil {
		t.Fatal(err)
	}
	tryBefore(t, ns)
	before := tcState(t, ns)
	check := func(t *testing.T) int {
		t.Helper()
		return exitStatus(exec.Command(bin, "-n", ns, "apply", "--check", file).Run())
	}
	if check(t) != exitKernel {
		t.Fatal("the file is already the kernel's state: nothing to try")
	}

	t.Run("expires", func(t *testing.T) {
		tryBefore(t, ns)
		out, err := exec.Command(bin, "-n", ns, "apply", "--try", "1s", file).CombinedOutput()
		if s := exitStatus(err); s != exitRolledBack || !strings.Contains(string(out), "not confirmed within 1s: the state before is restored") {
			t.Fatalf("status %d, output:\n%s", s, out)
		}
		if got := tcState(t, ns); got != before {
			t.Fatalf("after the rollback tc shows\n%s\nbefore it showed\n%s", got, before)
		}
	})
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM} {
		t.Run(unix.SignalName(sig), func(t *testing.T) {
			tryBefore(t, ns)
			cmd, stdin := startTry(t, bin, ns, file, "3s")
			if check(t) != exitOK {
				t.Fatal("while --try waits, the file's state is not the kernel's")
			}
			// The session dies: its process group gets the signal and
			// the terminal goes (the input ends).
			syscall.Kill(-cmd.Process.Pid, sig)
			stdin.Close()
			start := time.Now()
			if s := exitStatus(cmd.Wait()); s != exitRolledBack {
				t.Fatalf("status %d, want %d", s, exitRolledBack)
			}
			if sig == syscall.SIGHUP && time.Since(start) < 2*time.Second {
				t.Errorf("SIGHUP ended the wait after %v: only the timeout may", time.Since(start))
			}
			if got := tcState(t, ns); got != before {
				t.Fatalf("after the rollback tc shows\n%s\nbefore it showed\n%s", got, before)
			}
		})
	}
	t.Run("confirmed by another session", func(t *testing.T) {
		tryBefore(t, ns)
		cmd, stdin := startTry(t, bin, ns, file, "30s")
		defer stdin.Close()
		out, err := exec.Command(bin, "-n", ns, "apply", file).CombinedOutput()
		if s := exitStatus(err); s != exitBusy || !strings.Contains(string(out), fmt.Sprintf("device ifb0 is being changed by process %d", cmd.Process.Pid)) {
			t.Errorf("a second apply while --try waits: status %d, output:\n%s", s, out)
		}
		out, err = exec.Command(bin, "-n", ns, "apply", "--confirm").CombinedOutput()
		if s := exitStatus(err); s != 0 || string(out) != "apply: confirmed, the changes are kept\n" {
			t.Fatalf("--confirm: status %d, output:\n%s", s, out)
		}
		if s := exitStatus(cmd.Wait()); s != 0 {
			t.Fatalf("--try after its confirmation: status %d", s)
		}
		if check(t) != exitOK {
			t.Fatal("confirmed, the file's state is not kept")
		}
		out, err = exec.Command(bin, "-n", ns, "apply", "--confirm").CombinedOutput()
		if s := exitStatus(err); s != exitBadOption || !strings.Contains(string(out), "no apply --try is waiting") {
			t.Errorf("--confirm with none waiting: status %d, output:\n%s", s, out)
		}
	})
	t.Run("confirmed by Enter", func(t *testing.T) {
		tryBefore(t, ns)
		cmd, stdin := startTry(t, bin, ns, file, "30s")
		stdin.WriteString("\n")
		stdin.Close()
		if s := exitStatus(cmd.Wait()); s != 0 {
			t.Fatalf("--try after Enter: status %d", s)
		}
		if check(t) != exitOK {
			t.Fatal("confirmed, the file's state is not kept")
		}
	})
}
