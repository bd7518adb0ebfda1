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

// Busy is Lock's error when another process holds a device's lock.
type Busy struct {
	// Device is the device whose lock is taken, Pid the process that
	// holds it as its lock file names it (0 when it names none).
	Device string
	Pid    int
}

func (e *Busy) Error() string {
	who := "another process"
	if e.Pid != 0 {
		who = "process " + strconv.Itoa(e.Pid)
	}
	return fmt.Sprintf("device %s is being changed by %s (another gotc apply): try again when it is done", e.Device, who)
}

// Lock takes the exclusive locks of devices in the network namespace ns
// (a name that tells namespaces apart, such as "net:[4026531840]"), so
// that two applies to the same devices cannot interleave: an flock(2) on
// dir/NS.DEVICE.lock for each device, taken in name order, without
// waiting. When another process holds one, Lock releases those it took
// and returns a *Busy. The locks last until release is called or the
// process ends, however it ends.
func Lock(dir, ns string, devices []string) (release func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	devs := slices.Clone(devices)
	slices.Sort(devs)
	devs = slices.Compact(devs)
	var held []*os.File
	release = func() {
		for _, f := range held {
			f.Close() // closing the last descriptor releases the flock
		}
		held = nil
	}
	for _, dev := range devs {
		f, err := lockFile(filepath.Join(dir, ns+"."+dev+".lock"))
		if errors.Is(err, unix.EWOULDBLOCK) {
			release()
			return nil, &Busy{Device: dev, Pid: lockPid(f)}
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
