// SPDX-License-Identifier: Apache-2.0

package bpfobj

import (
	"maps"
	"slices"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"
)

// Load loads the program of the ELF object file: the one named prog if prog
// is not empty, else the first (by name) in section. It is loaded as a
// BPF_PROG_TYPE_SCHED_ACT program for the action (forAction), else as
// SCHED_CLS for the filter. The object's maps are created with it,
// unpinned. The returned descriptor stays open until the caller closes it
// or exits, as tc's does; the error's text is tc's for the same failure.
func Load(file, section, prog string, forAction bool) (int, error) {
	spec, err := ebpf.LoadCollectionSpec(file)
	if err != nil {
		return -1, tcMessage("Cannot initialize ELF context!")
	}
	name := ""
	for _, n := range slices.Sorted(maps.Keys(spec.Programs)) {
		p := spec.Programs[n]
		if (prog == "" && p.SectionName == section) || (prog != "" && n == prog) {
			name = n
			break
		}
	}
	if name == "" {
		if prog != "" {
			return -1, tcMessage("object file doesn't contain prog " + prog)
		}
		return -1, tcMessage("object file doesn't contain sec " + section)
	}
	p := spec.Programs[name]
	// The kernel's name for the program is its function's, as tc's
	// loader gives it (cilium/ebpf fits it to the kernel's rules for names).
	p.Type = ebpf.SchedCLS
	if forAction {
		p.Type = ebpf.SchedACT
	}
	spec.Programs = map[string]*ebpf.ProgramSpec{name: p}
	coll, err := ebpf.NewCollection(spec)
	if err != nil {
		return -1, tcMessage("Prog section '" + section + "' rejected: " + err.Error())
	}
	defer coll.Close()
	fd, err := unix.Dup(coll.Programs[name].FD())
	if err != nil {
		return -1, tcMessage("Prog section '" + section + "': " + err.Error())
	}
	return fd, nil
}
