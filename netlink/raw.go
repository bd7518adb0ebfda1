package netlink

import (
	"encoding/binary"
	"errors"
	"iter"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gotc/gotc/internal/nlabi"
	mnl "github.com/mdlayher/netlink"
)

// Direct system calls on the socket (raw_linux.go).
//
// mdlayher/netlink opens and configures the socket (namespace, extended
// acknowledgements, strict checking), but its reads cost more than the
// kernel's work for a tc command: every read first peeks at the datagram to
// size a new buffer, and every system call of mdlayher/socket starts a
// goroutine to watch for a context cancellation that a command never asks
// for. A dump of thousands of qdiscs makes thousands of those calls. So
// requests, dumps and device lookups go through rawSocket: write(2), and
// recvfrom(2) into one buffer the Conn keeps, through the runtime poller
// (syscall.RawConn) without extra goroutines. A connection without a file
// descriptor (nltest's fake kernel, in tests) keeps mdlayher's path.
//
// The calls are made with RawSyscall, without telling the Go scheduler: the
// socket is non-blocking (a read that would wait returns EAGAIN and waits in
// the poller instead), and a write to the kernel returns once the kernel has
// handled the request. Announced system calls that take more than ~20 µs, as
// every one does in an emulated test VM, make the runtime hand the
// processor to another thread and take it back afterwards: two context
// switches per call, which cost gotc -batch more than the kernel's own work.

// sequence numbers every request gotc builds itself. A request's replies are
// all read before the next request, so the numbers never meet mdlayher's.
var sequence atomic.Uint32

func init() { sequence.Store(uint32(time.Now().UnixNano())) }

// dumpBufSize holds any datagram of a dump: the kernel fills dump datagrams
// up to the reader's buffer size, capped at 32 KiB (netlink_recvmsg).
const dumpBufSize = 64 << 10

// rawSocket reads and writes the netlink socket with system calls.
type rawSocket struct {
	rc  syscall.RawConn
	buf []byte // datagrams read, reused
}

// appendRequest appends one netlink message (header and payload) with the
// given sequence number to b, padded to the 4-byte alignment between messages.
func appendRequest(b []byte, msgType, flags uint16, seq uint32, payload func([]byte) []byte) []byte {
	start := len(b)
	b = binary.NativeEndian.AppendUint32(b, 0) // length, below
	b = binary.NativeEndian.AppendUint16(b, msgType)
	b = binary.NativeEndian.AppendUint16(b, flags)
	b = binary.NativeEndian.AppendUint32(b, seq)
	b = binary.NativeEndian.AppendUint32(b, 0) // port ID: the kernel fills it in
	b = payload(b)
	binary.NativeEndian.PutUint32(b[start:], uint32(len(b)-start))
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

// message is one netlink message of a reply.
type message struct {
	typ, flags uint16
	seq        uint32
	data       []byte
}

// messages iterates over the messages of a datagram; a malformed length ends
// it with an error.
func messages(b []byte) iter.Seq2[message, error] {
	return func(yield func(message, error) bool) {
		for len(b) >= nlabi.NLMSG_HDRLEN {
			l := int(binary.NativeEndian.Uint32(b))
			if l < nlabi.NLMSG_HDRLEN || l > len(b) {
				yield(message{}, errors.New("netlink: malformed message length"))
				return
			}
			m := message{
				typ:   binary.NativeEndian.Uint16(b[4:]),
				flags: binary.NativeEndian.Uint16(b[6:]),
				seq:   binary.NativeEndian.Uint32(b[8:]),
				data:  b[nlabi.NLMSG_HDRLEN:l],
			}
			if !yield(m, nil) {
				return
			}
			b = b[min(len(b), (l+3)&^3):]
		}
	}
}

// errDumpDone ends a dump's datagram loop.
var errDumpDone = errors.New("dump done")

// dumpDatagram handles one datagram of the dump with sequence number seq:
// each message of type want goes to fn; NLMSG_DONE ends the dump
// (errDumpDone, or the error it carries) and NLMSG_ERROR fails it. Messages of
// other sequence numbers or types are skipped. An error from fn is returned
// as is; the caller must still drain the dump.
func dumpDatagram(b []byte, seq uint32, want uint16, fn func(data []byte) error) error {
	for m, err := range messages(b) {
		if err != nil {
			return err
		}
		if m.seq != seq {
			continue
		}
		switch m.typ {
		case nlabi.NLMSG_DONE:
			// Since Linux 4.20 (strict checking) DONE carries an errno too.
			if len(m.data) >= 4 {
				if err := ackError(m.data, m.flags); err != nil {
					return err
				}
			}
			return errDumpDone
		case nlabi.NLMSG_ERROR:
			if len(m.data) < 4 {
				return errors.New("netlink: short error message")
			}
			if err := ackError(m.data, m.flags); err != nil {
				return err
			}
			return errDumpDone
		case want:
			if err := fn(m.data); err != nil {
				return err
			}
		}
	}
	return nil
}

// dump sends a dump request of type reqType with payload and calls fn with
// the payload of every reply of type want, in order. If fn fails the rest of
// the dump is read and dropped, so the socket stays usable, and fn's error is
// returned.
func (c *Conn) dump(reqType, want uint16, payload []byte, fn func(data []byte) error) error {
	s := c.raw()
	if s == nil {
		return c.dumpMnl(reqType, want, payload, fn)
	}
	seq := sequence.Add(1)
	req := appendRequest(nil, reqType, nlabi.NLM_F_REQUEST|nlabi.NLM_F_DUMP, seq, func(b []byte) []byte { return append(b, payload...) })
	if err := s.send(req); err != nil {
		return err
	}
	var fnErr error
	collect := func(data []byte) error {
		if fnErr == nil {
			fnErr = fn(data)
		}
		return nil
	}
	for {
		b, err := s.recv()
		if err != nil {
			return err
		}
		switch err := dumpDatagram(b, seq, want, collect); err {
		case nil:
		case errDumpDone:
			return fnErr
		default:
			return err
		}
	}
}

// dumpMnl is dump through mdlayher's Conn.
func (c *Conn) dumpMnl(reqType, want uint16, payload []byte, fn func(data []byte) error) error {
	sent, err := c.nl.Send(mnl.Message{
		Header: mnl.Header{Type: mnl.HeaderType(reqType), Flags: mnl.Request | mnl.Dump},
		Data:   payload,
	})
	if err != nil {
		return err
	}
	var fnErr error
	for reply, err := range c.nl.ReceiveIter() {
		if err != nil {
			return kernelError(err)
		}
		if fnErr != nil || reply.Header.Sequence != sent.Header.Sequence || uint16(reply.Header.Type) != want {
			continue // after a failure, drain the rest so the socket stays usable
		}
		fnErr = fn(reply.Data)
	}
	return fnErr
}

// exchange sends one request (NLM_F_REQUEST plus flags) that the kernel
// answers with one message and returns that message's type and payload, or
// the kernel's refusal as *Error. The payload is valid until the next call on
// the Conn.
func (c *Conn) exchange(reqType, flags uint16, payload []byte) (uint16, []byte, error) {
	s := c.raw()
	if s == nil {
		replies, err := c.nl.Execute(mnl.Message{
			Header: mnl.Header{Type: mnl.HeaderType(reqType), Flags: mnl.Request | mnl.HeaderFlags(flags)},
			Data:   payload,
		})
		if err != nil {
			return 0, nil, kernelError(err)
		}
		if len(replies) == 0 {
			return nlabi.NLMSG_ERROR, nil, nil // an acknowledgement of success
		}
		return uint16(replies[0].Header.Type), replies[0].Data, nil
	}
	seq := sequence.Add(1)
	req := appendRequest(nil, reqType, nlabi.NLM_F_REQUEST|flags, seq, func(b []byte) []byte { return append(b, payload...) })
	if err := s.send(req); err != nil {
		return 0, nil, err
	}
	for {
		b, err := s.recv()
		if err != nil {
			return 0, nil, err
		}
		for m, err := range messages(b) {
			if err != nil {
				return 0, nil, err
			}
			if m.seq != seq {
				continue
			}
			if m.typ == nlabi.NLMSG_ERROR {
				if len(m.data) < 4 {
					return 0, nil, errors.New("netlink: short error message")
				}
				if err := ackError(m.data, m.flags); err != nil {
					return m.typ, nil, err
				}
				// A success: the acknowledgement may carry a warning.
				msg, _ := ackMessage(m.data, m.flags)
				return m.typ, []byte(msg), nil
			}
			return m.typ, m.data, nil
		}
	}
}

// echoExchange sends one change request with NLM_F_ECHO and NLM_F_ACK and
// reads up to the acknowledgement: the echo's type and payload (0 and nil
// when the kernel echoed nothing, as for the removal of a whole priority),
// or the kernel's refusal as *Error.
func (c *Conn) echoExchange(reqType, flags uint16, payload []byte) (uint16, []byte, error) {
	flags |= nlabi.NLM_F_ECHO | nlabi.NLM_F_ACK
	s := c.raw()
	if s == nil {
		replies, err := c.nl.Execute(mnl.Message{
			Header: mnl.Header{Type: mnl.HeaderType(reqType), Flags: mnl.Request | mnl.HeaderFlags(flags)},
			Data:   payload,
		})
		if err != nil {
			return 0, nil, kernelError(err)
		}
		if len(replies) == 0 {
			return 0, nil, nil
		}
		return uint16(replies[0].Header.Type), replies[0].Data, nil
	}
	seq := sequence.Add(1)
	req := appendRequest(nil, reqType, nlabi.NLM_F_REQUEST|flags, seq, func(b []byte) []byte { return append(b, payload...) })
	if err := s.send(req); err != nil {
		return 0, nil, err
	}
	var echoType uint16
	var echo []byte
	for {
		b, err := s.recv()
		if err != nil {
			return 0, nil, err
		}
		for m, err := range messages(b) {
			if err != nil {
				return 0, nil, err
			}
			if m.seq != seq {
				continue
			}
			if m.typ != nlabi.NLMSG_ERROR {
				if echo == nil {
					// The receive buffer is reused: keep a copy.
					echoType, echo = m.typ, append([]byte(nil), m.data...)
				}
				continue
			}
			if len(m.data) < 4 {
				return 0, nil, errors.New("netlink: short error message")
			}
			if err := ackError(m.data, m.flags); err != nil {
				return 0, nil, err
			}
			return echoType, echo, nil
		}
	}
}
