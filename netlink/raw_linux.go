// SPDX-License-Identifier: Apache-2.0

//go:build linux

package netlink

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"
	"unsafe"

	mnl "github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"
)

// rawSocket's system calls and Pipeline's recvmmsg(2) transport (see raw.go
// for why they bypass mdlayher/netlink); raw_others.go stands in elsewhere.

// newRawSocket returns the system-call path of nl's socket, or nil when
// it has no file descriptor (nltest).
func newRawSocket(nl *mnl.Conn) *rawSocket {
	rc, err := nl.SyscallConn()
	if err != nil {
		return nil
	}
	return &rawSocket{rc: rc, setDeadline: nl.SetReadDeadline}
}

// longAgo is a deadline in the past: it wakes a pending receive at once.
var longAgo = time.Unix(1, 0)

// watch makes ctx's deadline and cancellation interrupt the socket's
// receives (they fail with os.ErrDeadlineExceeded) until the returned
// function is called. A context that can never end costs nothing.
func (s *rawSocket) watch(ctx context.Context) (end func()) {
	if ctx.Done() == nil {
		return func() {}
	}
	deadline, hasDeadline := ctx.Deadline()
	if hasDeadline {
		s.setDeadline(deadline)
	}
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		s.setDeadline(longAgo)
		close(fired)
	})
	return func() {
		if stop() {
			if hasDeadline {
				s.setDeadline(time.Time{})
			}
			return
		}
		<-fired // the cancellation's deadline is set: undo it after it
		s.setDeadline(time.Time{})
	}
}

// call runs one non-blocking system call on the socket, waiting in the
// runtime poller while it would block (EAGAIN), and returns its result.
func (s *rawSocket) call(write bool, trap, a1, a2, a3, a4 uintptr) (int, error) {
	return s.syscall(write, true, trap, a1, a2, a3, a4)
}

// syscall is call, which returns EAGAIN instead of waiting when wait is
// false.
func (s *rawSocket) syscall(write, wait bool, trap, a1, a2, a3, a4 uintptr) (int, error) {
	var n uintptr
	var errno unix.Errno
	f := func(fd uintptr) bool {
		n, _, errno = unix.RawSyscall6(trap, fd, a1, a2, a3, a4, 0)
		return !wait || errno != unix.EAGAIN
	}
	var err error
	if write {
		err = s.rc.Write(f)
	} else {
		err = s.rc.Read(f)
	}
	if err == nil && errno != 0 {
		err = errno
	}
	return int(n), err
}

// send writes one datagram (one or more messages) to the kernel.
func (s *rawSocket) send(b []byte) error {
	// An unconnected netlink socket sends to the kernel (port 0).
	_, err := s.call(true, unix.SYS_WRITE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), 0, 0)
	runtime.KeepAlive(b)
	if err != nil {
		return fmt.Errorf("netlink: cannot send request: %w", err)
	}
	return nil
}

// recv reads the next datagram into the socket's buffer and returns it; it is
// valid until the next recv.
func (s *rawSocket) recv() ([]byte, error) {
	return s.receive(s.ownBuf(), true)
}

// recvQueued is recv of a datagram already queued on the socket: it
// returns errNoneQueued rather than wait for one. No timer decides what
// it reads, so what the kernel queued before the call is read however
// late the call runs.
func (s *rawSocket) recvQueued() ([]byte, error) {
	return s.receive(s.ownBuf(), false)
}

// ownBuf is the socket's own receive buffer, made on first use.
func (s *rawSocket) ownBuf() []byte {
	if s.buf == nil {
		s.buf = make([]byte, dumpBufSize)
	}
	return s.buf
}

// recvInto reads the next datagram into buf and returns it.
func (s *rawSocket) recvInto(buf []byte) ([]byte, error) {
	return s.receive(buf, true)
}

// receive is recvInto, or recvQueued without wait.
func (s *rawSocket) receive(buf []byte, wait bool) ([]byte, error) {
	// MSG_TRUNC makes the kernel return the datagram's real length, so a
	// datagram larger than the buffer is detected instead of cut.
	n, err := s.syscall(false, wait, unix.SYS_RECVFROM, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)),
		unix.MSG_TRUNC|unix.MSG_DONTWAIT, 0)
	if !wait && errors.Is(err, unix.EAGAIN) {
		return nil, errNoneQueued
	}
	if err != nil {
		return nil, fmt.Errorf("netlink: cannot receive: %w", err)
	}
	if n > len(buf) {
		return nil, fmt.Errorf("netlink: datagram of %d bytes exceeds the %d-byte buffer", n, len(buf))
	}
	return buf[:n], nil
}

// rawTransport sends with write(2) and reads acknowledgements with
// recvmmsg(2), many datagrams per call, into buffers it keeps.
type rawTransport struct {
	sock *rawSocket
	bufs [][]byte
	iovs []unix.Iovec
	hdrs []unix.Mmsghdr
}

// ackBufSize holds any acknowledgement of a request Pipeline sends: a refusal
// echoes the request (well under this) plus the extended-ack attributes.
const ackBufSize = 16 << 10

func newRawTransport(s *rawSocket, window int) *rawTransport {
	t := &rawTransport{sock: s}
	t.bufs = make([][]byte, window)
	t.iovs = make([]unix.Iovec, window)
	t.hdrs = make([]unix.Mmsghdr, window)
	for i := range t.bufs {
		t.bufs[i] = make([]byte, ackBufSize)
		t.iovs[i].Base = &t.bufs[i][0]
		t.iovs[i].SetLen(ackBufSize)
		t.hdrs[i].Hdr.Iov = &t.iovs[i]
		t.hdrs[i].Hdr.SetIovlen(1)
	}
	return t
}

func (t *rawTransport) send(msgs []byte, _ []uint32) error { return t.sock.send(msgs) }

func (t *rawTransport) acks(seqs []uint32, results []error) error {
	for last := false; !last; {
		n, err := t.sock.call(false, unix.SYS_RECVMMSG, uintptr(unsafe.Pointer(&t.hdrs[0])), uintptr(len(t.hdrs)), unix.MSG_DONTWAIT, 0)
		runtime.KeepAlive(t.bufs)
		if errors.Is(err, unix.ENOBUFS) {
			return fmt.Errorf("netlink: acknowledgements lost (receive buffer overrun): %w", err)
		}
		if err != nil {
			return fmt.Errorf("netlink: cannot read acknowledgements: %w", err)
		}
		for d := 0; d < n; d++ {
			if t.hdrs[d].Hdr.Flags&unix.MSG_TRUNC != 0 {
				return errors.New("netlink: acknowledgement truncated")
			}
			got, err := parseAcks(t.bufs[d][:t.hdrs[d].Len], seqs, results)
			if err != nil {
				return err
			}
			last = last || got
		}
	}
	return nil
}
