// SPDX-License-Identifier: Apache-2.0

package apply

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// LockDir is where gotc apply keeps its locks: one file per network
// namespace and device, which the process that holds it names.
const LockDir = "/run/gotc"

// Busy is Lock's error when another process holds a device's, a shared
// block's or the standalone actions' lock.
type Busy struct {
	// Device is the device whose lock is taken, or Block (when Device is
	// "") the shared block's, or when Actions is true the standalone
	// actions'; Pid is the process that holds it as its lock file names
	// it (0 when it names none).
	Device  string
	Block   uint32
	Actions bool
	Pid     int
}

// Error names the device or block and the process that holds it.
func (e *Busy) Error() string {
	who := "another process"
	if e.Pid != 0 {
		who = "process " + strconv.Itoa(e.Pid)
	}
	what := "device " + e.Device + " is"
	switch {
	case e.Actions:
		what = "the standalone actions are"
	case e.Device == "":
		what = fmt.Sprintf("block %d is", e.Block)
	}
	return fmt.Sprintf("%s being changed by %s (another gotc apply): try again when it is done", what, who)
}

// Lock takes the exclusive locks of devices and shared filter blocks in
// the network namespace ns (a name that tells namespaces apart, such as
// "net:[4026531840]"), so that two applies to the same devices or blocks
// cannot interleave: an flock(2) on dir/NS.DEVICE.lock for each device and
// dir/NS.block:INDEX.lock for each block (no device name holds a colon),
// devices in name order and then blocks in index order, and with actions
// dir/NS.actions:.lock for the standalone actions, without waiting. When another process holds one, Lock releases those it took
// and returns a *Busy. The locks last until release is called or the
// process ends, however it ends.
//
// A block needs a lock of its own because devices that a file does not
// name may share it: two files, each naming one of them, change the same
// block. The standalone actions are the network namespace's, whatever
// device binds them, so a plan that may change them (Plan.Actions) takes
// their lock too.
func Lock(dir, ns string, devices []string, blocks []uint32, actions bool) (release func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	devs := slices.Clone(devices)
	slices.Sort(devs)
	devs = slices.Compact(devs)
	indexes := slices.Clone(blocks)
	slices.Sort(indexes)
	indexes = slices.Compact(indexes)
	type lockee struct {
		busy Busy
		name string
	}
	var all []lockee
	for _, dev := range devs {
		all = append(all, lockee{Busy{Device: dev}, dev})
	}
	for _, index := range indexes {
		all = append(all, lockee{Busy{Block: index}, "block:" + strconv.FormatUint(uint64(index), 10)})
	}
	if actions {
		all = append(all, lockee{Busy{Actions: true}, "actions:"})
	}
	var held []*os.File
	release = func() {
		for _, f := range held {
			f.Close() // closing the last descriptor releases the flock
		}
		held = nil
	}
	for _, l := range all {
		f, err := lockFile(filepath.Join(dir, ns+"."+l.name+".lock"))
		if errors.Is(err, unix.EWOULDBLOCK) {
			release()
			busy := l.busy
			busy.Pid = lockPid(f)
			return nil, &busy
		}
		if err != nil {
			release()
			return nil, err
		}
		held = append(held, f)
	}
	return release, nil
}

// lockFile opens path and takes its flock without waiting; on success it
// writes the process's ID in it. When the lock is taken, it returns the
// open file (for lockPid, which closes it) and EWOULDBLOCK.
func lockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		if errors.Is(err, unix.EWOULDBLOCK) {
			return f, err
		}
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	err = f.Truncate(0)
	if err == nil {
		_, err = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// lockPid is the process ID a lock file names, 0 for none; it closes f.
func lockPid(f *os.File) int {
	defer f.Close()
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b[:n])))
	return pid
}
