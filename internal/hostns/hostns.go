// SPDX-License-Identifier: Apache-2.0

// Package hostns makes the network namespaces that gotc's tests on the
// host's kernel run in: one of its own per test, with ifb devices that are
// up, deleted when the test ends.
//
// Where the machine cannot hold such a test (not root, no ip(8), a kernel
// without ifb) the test is skipped, unless GOTC_KERNEL_TESTS=required,
// which test.sh sets: there a test that cannot run fails, so that a green
// run never hides a skipped kernel test.
package hostns

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
)

// required reports whether tests that need the host's kernel must run
// (GOTC_KERNEL_TESTS=required) rather than skip.
func required() bool { return os.Getenv("GOTC_KERNEL_TESTS") == "required" }

// Skip skips t with the reason, or fails it when kernel tests are
// required.
func Skip(t testing.TB, format string, args ...any) {
	t.Helper()
	if required() {
		t.Fatalf("GOTC_KERNEL_TESTS=required, and this test cannot run: "+format, args...)
	}
	t.Skipf(format, args...)
}

// made numbers the namespaces of one test process.
var made atomic.Int64

// New makes a network namespace for t, named after prefix, with an ifb
// device of each name in ifbs, up, and returns its name; Skip where that
// cannot be done. The namespace is deleted when t ends.
func New(t testing.TB, prefix string, ifbs ...string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		Skip(t, "needs root: it makes a network namespace")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		Skip(t, "needs ip(8)")
	}
	ns := fmt.Sprintf("gotc-%s-%d-%d", prefix, os.Getpid(), made.Add(1))
	if out, err := exec.Command("ip", "netns", "add", ns).CombinedOutput(); err != nil {
		Skip(t, "ip netns add %s: %v: %s", ns, err, out)
	}
	t.Cleanup(func() { exec.Command("ip", "netns", "del", ns).Run() })
	for _, ifb := range ifbs {
		if out, err := exec.Command("ip", "-n", ns, "link", "add", ifb, "type", "ifb").CombinedOutput(); err != nil {
			Skip(t, "no ifb in this kernel: %v: %s", err, out)
		}
		if out, err := exec.Command("ip", "-n", ns, "link", "set", ifb, "up").CombinedOutput(); err != nil {
			t.Fatalf("ip -n %s link set %s up: %v: %s", ns, ifb, err, strings.TrimSpace(string(out)))
		}
	}
	return ns
}
