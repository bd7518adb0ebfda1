// SPDX-License-Identifier: Apache-2.0

package bpfobj

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestLoad loads testdata/bpf-prog.o's sections (where the system lets the
// test load programs) and refuses a section or program it lacks with tc's
// messages.
func TestLoad(t *testing.T) {
	const obj = "../testdata/bpf-prog.o"
	if _, err := Load(obj, "nosuch", "", false); err == nil || err.Error() != "object file doesn't contain sec nosuch" {
		t.Errorf("section nosuch: error %v", err)
	}
	if _, err := Load(obj, "classifier", "nosuch", false); err == nil || err.Error() != "object file doesn't contain prog nosuch" {
		t.Errorf("prog nosuch: error %v", err)
	}
	if _, err := Load("bpfobj.go", "classifier", "", false); err == nil || err.Error() != "Cannot initialize ELF context!" {
		t.Errorf("not an ELF object: error %v", err)
	}
	for _, c := range []struct {
		section   string
		forAction bool
	}{{"classifier", false}, {"action", true}} {
		fd, err := Load(obj, c.section, "", c.forAction)
		if err != nil {
			t.Skipf("cannot load BPF programs here: %v", err)
		}
		if fd < 0 {
			t.Errorf("section %s: fd %d", c.section, fd)
		}
		unix.Close(fd)
	}
}
