// SPDX-License-Identifier: Apache-2.0

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gotc/gotc/internal/cmdline"
	"golang.org/x/sys/unix"
)

// TestObjectLoaderHelper builds gotc-bpf and loads testdata/bpf-prog.o
// through it: the program's descriptor comes back over the socket, and a
// refusal comes back as tc's message.
func TestObjectLoaderHelper(t *testing.T) {
	dir := t.TempDir()
	build := exec.Command("go", "build", "-o", dir, "../gotc-bpf")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ../gotc-bpf: %v\n%s", err, out)
	}
	defer func(old func() (string, error)) { lookBPFHelper = old }(lookBPFHelper)
	lookBPFHelper = func() (string, error) { return filepath.Join(dir, bpfBinary), nil }

	const obj = "../../testdata/bpf-prog.o"
	if _, err := loadObjectWithHelper(obj, "nosuch", "", false); err == nil || err.Error() != "object file doesn't contain sec nosuch" {
		t.Errorf("section nosuch: error %v", err)
	}
	fd, err := loadObjectWithHelper(obj, "action", "", true)
	if err != nil {
		// The helper answered; only the kernel would not load programs.
		t.Skipf("cannot load BPF programs here: %v", err)
	}
	defer unix.Close(fd)
	if target, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd)); err != nil || !strings.Contains(target, "bpf-prog") {
		t.Errorf("descriptor %d is %q (%v), not a BPF program", fd, target, err)
	}

	lookBPFHelper = func() (string, error) { return cmdline.FindHelper("gotc-bpf-nonexistent") }
	if _, err := loadObjectWithHelper(obj, "action", "", true); err == nil || !strings.Contains(err.Error(), "cannot find the gotc-bpf-nonexistent executable") {
		t.Errorf("no helper: error %v", err)
	}
}
