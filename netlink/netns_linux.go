// SPDX-License-Identifier: Apache-2.0

package netlink

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// checkNetNS makes sure f is a network namespace, not another kind of
// namespace or an ordinary file, where the kernel can tell (NS_GET_NSTYPE,
// Linux 4.11).
func checkNetNS(f *os.File) error {
	typ, err := unix.IoctlRetInt(int(f.Fd()), unix.NS_GET_NSTYPE)
	switch {
	case errors.Is(err, unix.ENOTTY) || errors.Is(err, unix.EINVAL):
		return errors.New("not a namespace")
	case err != nil:
		return err
	case typ != unix.CLONE_NEWNET:
		return errors.New("not a network namespace")
	}
	return nil
}

// dupFile duplicates fd (close-on-exec) into a file of its own.
func dupFile(fd int) (*os.File, error) {
	d, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(d), "netns"), nil
}
