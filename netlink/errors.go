// SPDX-License-Identifier: Apache-2.0

package netlink

import (
	"encoding/binary"
	"errors"
	"fmt"
	"syscall"

	"github.com/gotc/gotc/internal/nlabi"
	mnl "github.com/mdlayher/netlink"
)

// Classes of kernel refusals, for errors.Is. A *Error matches the class of
// its errno, so a caller can write errors.Is(err, netlink.ErrExists) without
// knowing which errno a kernel version chose.
var (
	// ErrNotFound: no such object or device (ENOENT, ENODEV, and
	// *NoDeviceError for a device name that resolves to nothing).
	ErrNotFound = errors.New("netlink: not found")
	// ErrExists: the object exists already (EEXIST), as for an Add.
	ErrExists = errors.New("netlink: exists")
	// ErrBusy: the object is in use (EBUSY), as a qdisc grafted elsewhere
	// or a socket still in a dump.
	ErrBusy = errors.New("netlink: busy")
	// ErrNotSupported: the kernel lacks the kind or the operation
	// (EOPNOTSUPP).
	ErrNotSupported = errors.New("netlink: not supported")
	// ErrInvalid: the request's values were refused (EINVAL, ERANGE).
	ErrInvalid = errors.New("netlink: invalid argument")
)

// ErrDumpInterrupted reports a dump the kernel flagged NLM_F_DUMP_INTR: the
// objects changed while it was being read, so it may be inconsistent.
var ErrDumpInterrupted = errors.New("netlink: dump interrupted by a concurrent change")

// Error is a request the kernel refused.
type Error struct {
	// Errno is the kernel's error number.
	Errno syscall.Errno
	// Message is the extended-ack message, "" when the kernel gave none.
	Message string
	// Offset is where in the request the offending attribute starts, in
	// bytes from the start of the request's netlink header
	// (NLMSGERR_ATTR_OFFS); 0 when the kernel named none.
	Offset int
}

// Error is the extended-ack message, or the errno's text without one.
func (e *Error) Error() string {
	if e.Message != "" {
		return e.Message
	}
	return e.Errno.Error()
}

// Unwrap lets errors.Is match the errno.
func (e *Error) Unwrap() error { return e.Errno }

// Is reports whether the refusal belongs to the class target (ErrNotFound,
// ErrExists, ErrBusy, ErrNotSupported, ErrInvalid).
func (e *Error) Is(target error) bool { return errnoClass(e.Errno) == target && target != nil }

// errnoClass is the class sentinel of an errno, nil for none.
func errnoClass(errno syscall.Errno) error {
	switch errno {
	case syscall.ENOENT, syscall.ENODEV:
		return ErrNotFound
	case syscall.EEXIST:
		return ErrExists
	case syscall.EBUSY:
		return ErrBusy
	case syscall.EOPNOTSUPP:
		return ErrNotSupported
	case syscall.EINVAL, syscall.ERANGE:
		return ErrInvalid
	}
	return nil
}

// NoDeviceError reports a device name the kernel does not know; it is
// ErrNotFound for errors.Is.
type NoDeviceError struct {
	// Name is the device name looked up.
	Name string
}

// Error says which name was not found.
func (e *NoDeviceError) Error() string { return fmt.Sprintf("cannot find device %q", e.Name) }

// Is makes a NoDeviceError match ErrNotFound.
func (e *NoDeviceError) Is(target error) bool { return target == ErrNotFound }

// kernelError turns mdlayher's error into *Error where the kernel answered.
func kernelError(err error) error {
	var op *mnl.OpError
	if !errors.As(err, &op) {
		return err
	}
	var errno syscall.Errno
	if !errors.As(op.Err, &errno) || op.Op != "receive" {
		return err
	}
	return &Error{Errno: errno, Message: op.Message, Offset: op.Offset}
}

// ackError decodes the payload of an NLMSG_ERROR message (struct nlmsgerr,
// then extended-ack attributes when NLM_F_ACK_TLVS is set) into nil or *Error.
func ackError(data []byte, flags uint16) error {
	errno := -int32(binary.NativeEndian.Uint32(data))
	if errno == 0 {
		return nil
	}
	e := &Error{Errno: syscall.Errno(errno)}
	if tlvs := ackTLVs(data, flags); tlvs != nil {
		if msg, ok := findAttr(tlvs, nlabi.NLMSGERR_ATTR_MSG); ok {
			e.Message = cString(msg)
		}
		if off, ok := findAttr(tlvs, nlabi.NLMSGERR_ATTR_OFFS); ok && len(off) >= 4 {
			e.Offset = int(binary.NativeEndian.Uint32(off))
		}
	}
	return e
}

// ackMessage is the extended-ack message of an NLMSG_ERROR payload: the
// kernel's reason for a refusal, or a warning that came with a success.
func ackMessage(data []byte, flags uint16) string {
	if msg, ok := findAttr(ackTLVs(data, flags), nlabi.NLMSGERR_ATTR_MSG); ok {
		return cString(msg)
	}
	return ""
}

// ackTLVs returns the extended-ack attributes of an NLMSG_ERROR payload,
// nil when it has none.
func ackTLVs(data []byte, flags uint16) []byte {
	if flags&nlabi.NLM_F_ACK_TLVS == 0 || len(data) < 4+nlabi.NLMSG_HDRLEN {
		return nil
	}
	// The request's header follows the errno; its payload too unless capped.
	off := 4 + nlabi.NLMSG_HDRLEN
	if flags&nlabi.NLM_F_CAPPED == 0 {
		off = 4 + int(binary.NativeEndian.Uint32(data[4:]))
	}
	off = (off + 3) &^ 3
	if off > len(data) {
		return nil
	}
	return data[off:]
}
