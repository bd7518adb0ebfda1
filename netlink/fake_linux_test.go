// SPDX-License-Identifier: Apache-2.0

package netlink

import (
	"encoding/binary"
	"os"
	"sync"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/nlabi"
	"golang.org/x/sys/unix"
)

// fakeKernel is the kernel's end of a socket pair whose other end is a
// Conn on the raw path, the one a real socket takes: reads go through the
// runtime poller, so deadlines and cancellation behave as they do on
// rtnetlink. Each request datagram goes to answer, which writes replies
// with send (or none, to leave the Conn waiting).
type fakeKernel struct {
	t    *testing.T
	peer int
	mu   sync.Mutex
	reqs []message // every request seen, in order
}

// newFakeKernel starts a fake kernel that hands every request to answer
// (in the kernel's goroutine) and returns it with the Conn connected to it.
func newFakeKernel(t *testing.T, answer func(k *fakeKernel, req message)) (*fakeKernel, *Conn) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.SetNonblock(fds[0], true); err != nil {
		t.Fatal(err)
	}
	f := os.NewFile(uintptr(fds[0]), "fake-rtnetlink")
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	c := &Conn{sock: &rawSocket{rc: rc, setDeadline: f.SetReadDeadline, close: f.Close}}
	k := &fakeKernel{t: t, peer: fds[1]}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 1<<16)
		for {
			n, err := unix.Read(k.peer, buf)
			if err != nil || n == 0 {
				return // the Conn closed its end
			}
			for m, err := range messages(buf[:n]) {
				if err != nil {
					t.Errorf("fake kernel: %v", err)
					return
				}
				m.data = append([]byte(nil), m.data...)
				k.mu.Lock()
				k.reqs = append(k.reqs, m)
				k.mu.Unlock()
				answer(k, m)
			}
		}
	}()
	t.Cleanup(func() {
		c.Close()
		<-done
		unix.Close(k.peer)
	})
	return k, c
}

// send writes one datagram of messages to the Conn.
func (k *fakeKernel) send(msgs ...[]byte) {
	var b []byte
	for _, m := range msgs {
		b = append(b, m...)
	}
	if _, err := unix.Write(k.peer, b); err != nil {
		k.t.Errorf("fake kernel: %v", err)
	}
}

// requests returns the requests seen so far.
func (k *fakeKernel) requests() []message {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]message(nil), k.reqs...)
}

// ack is the acknowledgement of req: errno 0, or a refusal with an
// extended-ack message and attribute offset (when msg is not "").
func ack(req message, errno unix.Errno, msg string, offset uint32) []byte {
	flags := uint16(0)
	b := binary.NativeEndian.AppendUint32(nil, uint32(-int32(errno)))
	// The echoed request header (capped: the payload is left out).
	b = binary.NativeEndian.AppendUint32(b, uint32(nlabi.NLMSG_HDRLEN+len(req.data)))
	b = binary.NativeEndian.AppendUint16(b, req.typ)
	b = binary.NativeEndian.AppendUint16(b, req.flags)
	b = binary.NativeEndian.AppendUint32(b, req.seq)
	b = binary.NativeEndian.AppendUint32(b, 0)
	if msg != "" {
		flags = nlabi.NLM_F_ACK_TLVS | nlabi.NLM_F_CAPPED
		e := attrs.NewEncoder(b)
		e.String(nlabi.NLMSGERR_ATTR_MSG, msg)
		e.Uint32(nlabi.NLMSGERR_ATTR_OFFS, offset)
		b = e.Bytes()
	}
	return reply(nlabi.NLMSG_ERROR, flags, req.seq, b)
}

// qdiscReply is a dump's message about qdisc msg, flagged as flags says.
func qdiscReply(seq uint32, flags uint16, m *Msg) []byte {
	data, _ := m.MarshalBinary()
	return reply(nlabi.RTM_NEWQDISC, nlabi.NLM_F_MULTI|flags, seq, data)
}

// done ends a dump.
func done(seq uint32, flags uint16) []byte {
	return reply(nlabi.NLMSG_DONE, nlabi.NLM_F_MULTI|flags, seq, make([]byte, 4))
}
