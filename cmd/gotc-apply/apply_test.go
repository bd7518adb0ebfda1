// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/gotc/gotc/apply"
	"github.com/gotc/gotc/internal/cmdline"
	"github.com/gotc/gotc/internal/fakekernel"
	"github.com/gotc/gotc/netlink"
)

func TestApplyExample(t *testing.T) {
	var out, errOut bytes.Buffer
	noKernel := func(int) (conn, error) { t.Fatal("--example dialed the kernel"); return nil, nil }
	if status := run([]string{"gotc", "apply", "--example"}, nil, &out, &errOut, noKernel); status != 0 || out.String() != apply.Example {
		t.Errorf("status %d, stderr %q, stdout %d bytes", status, errOut.String(), out.Len())
	}
	out.Reset()
	if status := run([]string{"gotc", "apply", "--frobnicate"}, nil, &out, &errOut, noKernel); status != exitUsage || !strings.Contains(errOut.String(), "Usage: gotc apply") {
		t.Errorf("unknown option: status %d, stderr %q", status, errOut.String())
	}
}

// applyConn is the fake kernel as apply reads it: its dumps as Msgs,
// warning in the acknowledgement of each request it accepts, and with
// refuseAt, the requests (counted from 1) it refuses with refused.
type applyConn struct {
	*fakekernel.Kernel
	warning  string
	refuseAt []int
	refused  error
}

func (c applyConn) DoWarning(ctx context.Context, o netlink.Object, op netlink.Op, m *netlink.Msg) (string, error) {
	if slices.Contains(c.refuseAt, len(c.Requests)+1) {
		c.Refuse = c.refused
		defer func() { c.Refuse = nil }()
	}
	if err := c.Do(ctx, o, op, m); err != nil {
		return "", err
	}
	return c.warning, nil
}

func (c applyConn) Msgs(ctx context.Context, o netlink.Object, f netlink.DumpFilter) iter.Seq2[*netlink.Msg, error] {
	return func(yield func(*netlink.Msg, error) bool) {
		c.Dump(ctx, o, f, func(m *netlink.Msg, err error) error {
			if !yield(m, err) {
				return errors.New("stopped")
			}
			return nil
		})
	}
}

// lockIn makes apply keep its locks in dir for one test.
func lockIn(t *testing.T, dir string) {
	old := applyLockDir
	applyLockDir = dir
	t.Cleanup(func() { applyLockDir = old })
}

// gotcApply runs "gotc apply ARGS FILE" with the file's text against k.
func gotcApply(t *testing.T, k *fakekernel.Kernel, text string, args ...string) (status int, stdout, stderr string) {
	t.Helper()
	return gotcApplyWarned(t, applyConn{Kernel: k}, text, args...)
}

// gotcApplyWarned is gotcApply against a kernel that may warn.
func gotcApplyWarned(t *testing.T, k applyConn, text string, args ...string) (status int, stdout, stderr string) {
	t.Helper()
	lockIn(t, t.TempDir())
	file := filepath.Join(t.TempDir(), "tc.yaml")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	argv := append(append([]string{"gotc", "apply"}, args...), file)
	status = run(argv, nil, &out, &errOut, func(int) (conn, error) { return k, nil })
	return status, out.String(), strings.ReplaceAll(errOut.String(), file, "tc.yaml")
}

// TestApplyExitStatus runs gotc apply, --check and --diff on bad files,
// which exit 1 and send nothing, and on good ones.
func TestApplyExitStatus(t *testing.T) {
	const good = "devices:\n  eth0:\n    root: fq_codel\n"
	for _, tt := range []struct {
		name, file string
		args       []string
		status     int
		stderr     string // what stderr holds
		requests   int
	}{
		{"misspelt key", "devices:\n  eth0:\n    rot: fq_codel\n", nil, exitBadOption,
			"tc.yaml:3:5: unknown key \"rot\" in a device: did you mean \"root\"?\napply: bad file tc.yaml (1 fault): nothing sent\n", 0},
		{"misspelt key, --check", "devices:\n  eth0:\n    rot: fq_codel\n", []string{"--check"}, exitBadOption,
			"tc.yaml:3:5: unknown key \"rot\" in a device: did you mean \"root\"?\napply: bad file tc.yaml (1 fault): nothing sent\n", 0},
		{"misspelt key, --diff", "devices:\n  eth0:\n    rot: fq_codel\n", []string{"--diff"}, exitBadOption,
			"tc.yaml:3:5: unknown key \"rot\" in a device: did you mean \"root\"?\napply: bad file tc.yaml (1 fault): nothing sent\n", 0},
		{"a number for a kind", "devices:\n  eth0:\n    root: 42\n  dummy0:\n    root: htbx\n", nil, exitBadOption,
			"tc.yaml:3:11: unknown qdisc kind \"42\": known: ", 0},
		{"a number for a kind, --check", "devices:\n  eth0:\n    root: 42\n  dummy0:\n    root: htbx\n", []string{"--check"}, exitBadOption,
			"tc.yaml:5:11: unknown qdisc kind \"htbx\": did you mean \"htb\"?\napply: bad file tc.yaml (2 faults): nothing sent\n", 0},
		{"a number for a kind, --diff", "devices:\n  eth0:\n    root: 42\n", []string{"--diff"}, exitBadOption,
			"apply: bad file tc.yaml (1 fault): nothing sent\n", 0},
		{"in sync", "devices:\n  eth0: {}\n", []string{"--check"}, exitOK, "", 0},
		{"pending", good, []string{"--check"}, exitKernel, "apply: 1 changes pending\n", 0},
		{"the plan", good, []string{"--diff"}, exitOK, "", 0},
		{"applied", good, nil, exitOK, "", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			k := fakekernel.New()
			status, _, stderr := gotcApply(t, k, tt.file, tt.args...)
			if status != tt.status || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("status %d, stderr:\n%s\nwant %d and %q", status, stderr, tt.status, tt.stderr)
			}
			if len(k.Requests) != tt.requests {
				t.Errorf("%d requests sent, want %d", len(k.Requests), tt.requests)
			}
		})
	}
	var stderr bytes.Buffer
	noKernel := func(int) (conn, error) { t.Fatal("a file that does not open dialed the kernel"); return nil, nil }
	const want = "apply: open /nonexistent/tc.yaml: no such file or directory: nothing sent\n"
	if status := run([]string{"gotc", "apply", "--check", "/nonexistent/tc.yaml"}, nil, io.Discard, &stderr, noKernel); status != exitBadOption || stderr.String() != want {
		t.Errorf("no such file: status %d, stderr %q, want %d and %q", status, stderr.String(), exitBadOption, want)
	}
}

// TestApplyRefused: when the kernel refuses a request, apply undoes the
// changes made before it and exits 2 as tc does; 3 when it cannot undo
// them, for the state is then neither the file's nor the one before.
func TestApplyRefused(t *testing.T) {
	const file = "devices:\n  eth0:\n    root: { qdisc: htb, handle: \"1:\", classes: { \"1:1\": { class: htb rate 1gbit } } }\n"
	refused := &netlink.Error{Errno: syscall.EINVAL, Message: "refused by the test"}
	for _, tt := range []struct {
		refuseAt []int
		status   int
		stderr   string
	}{
		{[]int{2}, exitKernel, "apply: class add dev eth0 parent 1: classid 1:1 htb rate 1gbit: refused by the test; the 1 changes made before it were undone (1 requests)\n" +
			"apply: the state before the apply is restored\n"},
		{[]int{2, 3}, exitNotRestored, "apply: class add dev eth0 parent 1: classid 1:1 htb rate 1gbit: refused by the test; restoring the 1 changes made before it failed too: qdisc del dev eth0 root handle 1:: refused by the test\n" +
			"apply: the state is neither the file's nor the one before\n"},
	} {
		k := fakekernel.New()
		status, _, stderr := gotcApplyWarned(t, applyConn{Kernel: k, refuseAt: tt.refuseAt, refused: refused}, file)
		if status != tt.status || stderr != tt.stderr {
			t.Errorf("refused at %v: status %d, stderr:\n%s\nwant %d and\n%s", tt.refuseAt, status, stderr, tt.status, tt.stderr)
		}
		if len(k.Requests) != 3 { // the qdisc, the class refused, the qdisc's undo
			t.Errorf("refused at %v: %d requests sent, want 3", tt.refuseAt, len(k.Requests))
		}
	}
}

// TestApplyDiffJSON prints the plan as JSON with --diff and -j, and
// refuses -j without --diff.
func TestApplyDiffJSON(t *testing.T) {
	const file = "devices:\n  eth0:\n    root: fq_codel limit 1000\n"
	const want = `[{"op":"replace","object":"qdisc","device":"eth0","parent":"root","kind":"fq_codel","words":["limit","1000"],"command":"qdisc replace dev eth0 root fq_codel limit 1000","reason":"not in the kernel"}]` + "\n"
	for _, args := range [][]string{{"--diff", "-j"}, {"-j", "--diff", "--check"}} {
		k := fakekernel.New()
		status, stdout, stderr := gotcApply(t, k, file, args...)
		wantStatus := exitOK
		if slices.Contains(args, "--check") {
			wantStatus = exitKernel // pending
		}
		if status != wantStatus || stdout != want || len(k.Requests) != 0 {
			t.Errorf("%v: status %d, %d requests, stdout:\n%s\nstderr:\n%s\nwant %d and\n%s", args, status, len(k.Requests), stdout, stderr, wantStatus, want)
		}
	}
	status, stdout, _ := gotcApply(t, fakekernel.New(), "devices:\n  eth0: {}\n", "--diff", "-j")
	if status != exitOK || stdout != "[]\n" {
		t.Errorf("in sync: status %d, stdout %q, want 0 and []", status, stdout)
	}
	status, _, stderr := gotcApply(t, fakekernel.New(), file, "-j")
	if status != exitUsage || !strings.HasPrefix(stderr, "apply: -j prints the plan of --diff\n") {
		t.Errorf("-j without --diff: status %d, stderr %q", status, stderr)
	}
}

// TestApplyVerbose lists each request sent and the kernel's answer, its
// warnings included; without -v, the warnings alone go to stderr.
func TestApplyVerbose(t *testing.T) {
	const file = "devices:\n  eth0:\n    root: { qdisc: htb, handle: \"1:\", classes: { \"1:1\": { class: htb rate 1gbit } } }\n"
	const warning = "sch_htb: quantum of class 10001 is big. Consider r2q change."
	status, stdout, stderr := gotcApplyWarned(t, applyConn{Kernel: fakekernel.New(), warning: warning}, file, "-v")
	want := "apply: qdisc replace dev eth0 root handle 1: htb\n" +
		"  kernel: ok, warning: " + warning + "\n" +
		"apply: class add dev eth0 parent 1: classid 1:1 htb rate 1gbit\n" +
		"  kernel: ok, warning: " + warning + "\n" +
		"apply: 2 requests sent\n"
	if status != exitOK || stdout != want || stderr != "" {
		t.Errorf("-v: status %d, stdout:\n%s\nstderr:\n%s\nwant stdout:\n%s", status, stdout, stderr, want)
	}

	status, stdout, stderr = gotcApplyWarned(t, applyConn{Kernel: fakekernel.New(), warning: warning}, file)
	wantErr := "apply: qdisc replace dev eth0 root handle 1: htb: Warning: " + warning + "\n" +
		"apply: class add dev eth0 parent 1: classid 1:1 htb rate 1gbit: Warning: " + warning + "\n"
	if status != exitOK || stdout != "apply: 2 requests sent\n" || stderr != wantErr {
		t.Errorf("without -v: status %d, stdout:\n%s\nstderr:\n%s\nwant stderr:\n%s", status, stdout, stderr, wantErr)
	}

	k := fakekernel.New()
	k.Refuse = &netlink.Error{Errno: syscall.EINVAL, Message: "Specified qdisc kind is unknown"}
	status, stdout, _ = gotcApply(t, k, file, "-v")
	want = "apply: qdisc replace dev eth0 root handle 1: htb\n" +
		"  kernel: refused: Specified qdisc kind is unknown (invalid argument)\n"
	if status != exitKernel || stdout != want {
		t.Errorf("refused, -v: status %d, stdout:\n%s\nwant:\n%s", status, stdout, want)
	}
}

// TestApplyDiffSummary: --diff prints the plan's lines, then the summary on
// a line of its own, as a terminal showing stdout and stderr together
// shows them; --check alone prints the summary and exits 2 when changes
// are pending.
func TestApplyDiffSummary(t *testing.T) {
	plan := &apply.Plan{Requests: []apply.Request{
		{Change: apply.Change{Command: "qdisc replace dev ifb0 root handle 1: htb default 10"}},
		{Change: apply.Change{Command: "class replace dev ifb0 parent 1: classid 1:10 htb rate 10mbit"}},
	}}
	for _, c := range []struct {
		check, diff bool
		plan        *apply.Plan
		want        string
		err         error
	}{
		{false, true, plan, plan.Requests[0].Command + "\n" + plan.Requests[1].Command + "\napply: 2 changes pending\n", nil},
		{true, true, plan, plan.Requests[0].Command + "\n" + plan.Requests[1].Command + "\napply: 2 changes pending\n", errStatus(exitKernel)},
		{true, false, plan, "apply: 2 changes pending\n", errStatus(exitKernel)},
		{false, true, &apply.Plan{}, "apply: in sync, nothing to change\n", nil},
		{true, false, &apply.Plan{}, "", nil},
	} {
		var terminal bytes.Buffer
		cmd := &tc{Helper: cmdline.Helper[conn]{Stdout: &terminal, Stderr: &terminal}}
		if err := cmd.reportPlan(c.plan, c.check, c.diff, false); err != c.err || terminal.String() != c.want {
			t.Errorf("check %v diff %v, %d requests: %v, output %q; want %v, %q", c.check, c.diff, len(c.plan.Requests), err, terminal.String(), c.err, c.want)
		}
	}
}

// TestApplyTryUsage: --try's duration, the options it does not go with,
// --confirm alone and with none waiting, and a device another apply
// holds (status 4, nothing sent).
func TestApplyTryUsage(t *testing.T) {
	const good = "devices:\n  eth0:\n    root: fq_codel\n"
	for _, tt := range []struct {
		args   []string
		status int
		stderr string
	}{
		{[]string{"--try", "--check"}, exitUsage, "--try sends the plan"},
		{[]string{"--try=soon"}, exitUsage, `--try takes a duration ("90s", "2m") or seconds, not "soon"`},
		{[]string{"--confirm"}, exitUsage, "--confirm takes nothing else"},
	} {
		k := fakekernel.New()
		status, _, stderr := gotcApply(t, k, good, tt.args...)
		if status != tt.status || !strings.Contains(stderr, tt.stderr) || len(k.Requests) != 0 {
			t.Errorf("%q: status %d, %d requests, stderr %q; want %d and %q", tt.args, status, len(k.Requests), stderr, tt.status, tt.stderr)
		}
	}
	for _, s := range []string{"90", "90s", "1m30s"} {
		if d, ok := parseTry(s); !ok || d.Seconds() != 90 {
			t.Errorf("parseTry(%q) = %v, %v", s, d, ok)
		}
	}
	lockIn(t, t.TempDir())
	var out, errOut bytes.Buffer
	noKernel := func(int) (conn, error) { t.Fatal("--confirm dialed the kernel"); return nil, nil }
	if status := run([]string{"gotc", "apply", "--confirm"}, nil, &out, &errOut, noKernel); status != exitBadOption || !strings.Contains(errOut.String(), "no apply --try is waiting") {
		t.Errorf("--confirm, none waiting: status %d, stderr %q", status, errOut.String())
	}

	// Another apply holds eth0.
	dir := t.TempDir()
	lockIn(t, dir)
	var tt tc
	ns, err := tt.nsKey()
	if err != nil {
		t.Fatal(err)
	}
	release, err := apply.Lock(dir, ns, []string{"eth0"}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	k := fakekernel.New()
	file := filepath.Join(t.TempDir(), "tc.yaml")
	os.WriteFile(file, []byte(good), 0o644)
	out.Reset()
	errOut.Reset()
	status := run([]string{"gotc", "apply", file}, nil, &out, &errOut, func(int) (conn, error) { return applyConn{Kernel: k}, nil })
	if want := "device eth0 is being changed by process " + strconv.Itoa(os.Getpid()); status != exitBusy || !strings.Contains(errOut.String(), want) || len(k.Requests) != 0 {
		t.Errorf("a held device: status %d, %d requests, stderr %q; want %d and %q", status, len(k.Requests), errOut.String(), exitBusy, want)
	}
	release()

	// Another apply, of a file naming another device that shares it,
	// holds block 5.
	release, err = apply.Lock(dir, ns, []string{"eth1"}, []uint32{5}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	os.WriteFile(file, []byte("devices:\n  eth0:\n    ingress: ingress_block 5 clsact\nblocks:\n  5:\n    filters: [protocol ip pref 1 matchall action drop]\n"), 0o644)
	out.Reset()
	errOut.Reset()
	status = run([]string{"gotc", "apply", file}, nil, &out, &errOut, func(int) (conn, error) { return applyConn{Kernel: k}, nil })
	if want := "block 5 is being changed by process " + strconv.Itoa(os.Getpid()); status != exitBusy || !strings.Contains(errOut.String(), want) || len(k.Requests) != 0 {
		t.Errorf("a held block: status %d, %d requests, stderr %q; want %d and %q", status, len(k.Requests), errOut.String(), exitBusy, want)
	}
	release()
	errOut.Reset()
	if status = run([]string{"gotc", "apply", file}, nil, &out, &errOut, func(int) (conn, error) { return applyConn{Kernel: k}, nil }); status != 0 || len(k.Requests) == 0 {
		t.Errorf("the block let go: status %d, %d requests, stderr %q", status, len(k.Requests), errOut.String())
	}
}
