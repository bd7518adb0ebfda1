// SPDX-License-Identifier: Apache-2.0

package netlink

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"os"
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
// (syscall.RawConn) without extra goroutines. A context's deadline is the
// socket's read deadline, which the poller honours; its cancellation sets
// that deadline in the past (context.AfterFunc), so a context that can
// never end costs nothing. A connection without a file
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
	// setDeadline sets the read deadline of the file behind rc.
	setDeadline func(time.Time) error
	// close closes a socket that has no mdlayher Conn (tests' fake kernel).
	close func() error
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
// other sequence numbers or types are skipped. It reports whether a message
// of the dump carried NLM_F_DUMP_INTR. An error from fn is returned as is;
// the caller must still drain the dump.
func dumpDatagram(b []byte, seq uint32, want uint16, fn func(data []byte) error) (interrupted bool, err error) {
	for m, err := range messages(b) {
		if err != nil {
			return interrupted, err
		}
		if m.seq != seq {
			continue
		}
		interrupted = interrupted || m.flags&nlabi.NLM_F_DUMP_INTR != 0
		switch m.typ {
		case nlabi.NLMSG_DONE:
			// Since Linux 4.20 (strict checking) DONE carries an errno too.
			if len(m.data) >= 4 {
				if err := ackError(m.data, m.flags); err != nil {
					return interrupted, err
				}
			}
			return interrupted, errDumpDone
		case nlabi.NLMSG_ERROR:
			if len(m.data) < 4 {
				return interrupted, errors.New("netlink: short error message")
			}
			if err := ackError(m.data, m.flags); err != nil {
				return interrupted, err
			}
			return interrupted, errDumpDone
		case want:
			if err := fn(m.data); err != nil {
				return interrupted, err
			}
		}
	}
	return interrupted, nil
}

// dump sends a dump request of type reqType with payload and calls fn with
// the payload of every reply of type want, in order. If fn fails the rest of
// the dump is read and dropped, so the socket stays usable, and fn's error is
// returned. A dump the kernel flagged interrupted returns ErrDumpInterrupted
// once read to its end. If ctx ends the dump early, the rest of it is left
// for the next call to drain (see Conn).
func (c *Conn) dump(ctx context.Context, reqType, want uint16, payload []byte, fn func(data []byte) error) error {
	s := c.sock
	if s == nil {
		return c.dumpMnl(ctx, reqType, want, payload, fn)
	}
	end, err := c.begin(ctx)
	if err != nil {
		return err
	}
	defer end()
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
	interrupted, err := c.readDump(ctx, seq, want, collect)
	switch {
	case err != nil:
		return err
	case fnErr != nil:
		return fnErr
	case interrupted:
		return ErrDumpInterrupted
	}
	return nil
}

// readDump reads the datagrams of the dump seq up to its end, handing
// them to dumpDatagram. A receive that fails (ctx's end among other
// causes) leaves the dump unfinished, recorded for begin to drain.
//
// The datagrams are received by a goroutine of their own, up to
// dumpReadAhead ahead of the one fn is given: the kernel fills a dump's
// next datagram within the receive call, so its work and the caller's
// (decoding, printing) run side by side instead of one after the other.
func (c *Conn) readDump(ctx context.Context, seq uint32, want uint16, fn func(data []byte) error) (interrupted bool, err error) {
	type datagram struct {
		b   []byte
		err error
	}
	full := make(chan datagram, dumpReadAhead)
	free := make(chan []byte, dumpReadAhead+1)
	if c.sock.buf == nil {
		c.sock.buf = make([]byte, dumpBufSize)
	}
	free <- c.sock.buf
	// The receiver stops after the datagram that ends the dump, which is
	// also where dumpDatagram stops (endsDump), or after a failed receive.
	go func() {
		defer close(full)
		for made := 1; ; {
			var buf []byte
			select {
			case buf = <-free:
			default:
				if made <= dumpReadAhead {
					buf = make([]byte, dumpBufSize)
					made++
				} else {
					buf = <-free
				}
			}
			b, err := c.sock.recvInto(buf)
			full <- datagram{b, err}
			if err != nil || endsDump(b, seq) {
				return
			}
		}
	}()
	// Whatever ends the loop (fn's panic too), the receiver ends before
	// the socket is used again: it reads on to the dump's end.
	defer func() {
		for d := range full {
			free <- d.b[:cap(d.b)]
		}
	}()
	for d := range full {
		if d.err != nil {
			c.unfinishedDump = seq
			return interrupted, contextError(ctx, d.err)
		}
		intr, err := dumpDatagram(d.b, seq, want, fn)
		free <- d.b[:cap(d.b)]
		interrupted = interrupted || intr
		switch err {
		case nil:
		case errDumpDone:
			return interrupted, nil
		default:
			// A malformed datagram or the kernel's refusal ends the dump:
			// nothing of it follows.
			return interrupted, err
		}
	}
	return interrupted, errors.New("netlink: dump ended without its end")
}

// dumpReadAhead is how many datagrams of a dump readDump receives ahead of
// the one being handled.
const dumpReadAhead = 2

// endsDump reports whether dumpDatagram stops at datagram b of dump seq:
// whether it holds seq's NLMSG_DONE or NLMSG_ERROR, or is malformed.
func endsDump(b []byte, seq uint32) bool {
	for m, err := range messages(b) {
		if err != nil {
			return true
		}
		if m.seq == seq && (m.typ == nlabi.NLMSG_DONE || m.typ == nlabi.NLMSG_ERROR) {
			return true
		}
	}
	return false
}

// begin prepares the socket for one call under ctx: it fails at once if
// ctx is done, drains a dump an earlier call abandoned, and makes ctx's
// deadline and cancellation interrupt the receives until end is called.
func (c *Conn) begin(ctx context.Context) (end func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	end = c.sock.watch(ctx)
	if seq := c.unfinishedDump; seq != 0 {
		c.unfinishedDump = 0
		if _, err := c.readDump(ctx, seq, 0, func([]byte) error { return nil }); err != nil {
			end()
			return nil, fmt.Errorf("netlink: draining an abandoned dump: %w", err)
		}
	}
	return end, nil
}

// contextError is err, or ctx's error when ctx's end interrupted the
// receive that failed with err.
func contextError(ctx context.Context, err error) error {
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		return err
	}
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("netlink: %w", cerr)
	}
	// The socket's deadline is ctx's; its timer may fire a little before
	// ctx's own.
	if _, ok := ctx.Deadline(); ok {
		return fmt.Errorf("netlink: %w", context.DeadlineExceeded)
	}
	return err
}

// dumpMnl is dump through mdlayher's Conn.
func (c *Conn) dumpMnl(ctx context.Context, reqType, want uint16, payload []byte, fn func(data []byte) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	sent, err := c.nl.Send(mnl.Message{
		Header: mnl.Header{Type: mnl.HeaderType(reqType), Flags: mnl.Request | mnl.Dump},
		Data:   payload,
	})
	if err != nil {
		return err
	}
	var fnErr error
	interrupted := false
	for reply, err := range c.nl.ReceiveIter() {
		if err != nil {
			return kernelError(err)
		}
		if reply.Header.Sequence != sent.Header.Sequence {
			continue
		}
		interrupted = interrupted || reply.Header.Flags&mnl.DumpInterrupted != 0
		if fnErr != nil || uint16(reply.Header.Type) != want {
			continue // after a failure, drain the rest so the socket stays usable
		}
		fnErr = fn(reply.Data)
	}
	if fnErr == nil && interrupted {
		return ErrDumpInterrupted
	}
	return fnErr
}

// execMnl sends one request through mdlayher's Conn and returns its
// answers.
func (c *Conn) execMnl(ctx context.Context, reqType, flags uint16, payload []byte) ([]mnl.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	replies, err := c.nl.Execute(mnl.Message{
		Header: mnl.Header{Type: mnl.HeaderType(reqType), Flags: mnl.Request | mnl.HeaderFlags(flags)},
		Data:   payload,
	})
	return replies, kernelError(err)
}

// exchange sends one request (NLM_F_REQUEST plus flags) that the kernel
// answers with one message and returns that message's type and payload, or
// the kernel's refusal as *Error. The payload is valid until the next call on
// the Conn.
func (c *Conn) exchange(ctx context.Context, reqType, flags uint16, payload []byte) (uint16, []byte, error) {
	if c.sock == nil {
		replies, err := c.execMnl(ctx, reqType, flags, payload)
		if err != nil {
			return 0, nil, err
		}
		if len(replies) == 0 {
			return nlabi.NLMSG_ERROR, nil, nil // an acknowledgement of success
		}
		return uint16(replies[0].Header.Type), replies[0].Data, nil
	}
	var typ uint16
	var data []byte
	err := c.request(ctx, reqType, flags, payload, func(m message) (bool, error) {
		if m.typ != nlabi.NLMSG_ERROR {
			typ, data = m.typ, m.data
			return true, nil
		}
		if len(m.data) < 4 {
			return true, errors.New("netlink: short error message")
		}
		if err := ackError(m.data, m.flags); err != nil {
			return true, err
		}
		// A success: the acknowledgement may carry a warning.
		typ, data = m.typ, []byte(ackMessage(m.data, m.flags))
		return true, nil
	})
	return typ, data, err
}

// request sends one request and hands each message of its answer to
// answer until answer reports the last one.
func (c *Conn) request(ctx context.Context, reqType, flags uint16, payload []byte, answer func(message) (last bool, err error)) error {
	end, err := c.begin(ctx)
	if err != nil {
		return err
	}
	defer end()
	seq := sequence.Add(1)
	req := appendRequest(nil, reqType, nlabi.NLM_F_REQUEST|flags, seq, func(b []byte) []byte { return append(b, payload...) })
	if err := c.sock.send(req); err != nil {
		return err
	}
	for {
		b, err := c.sock.recv()
		if err != nil {
			return contextError(ctx, err)
		}
		for m, err := range messages(b) {
			if err != nil {
				return err
			}
			if m.seq != seq {
				continue // a late answer to an abandoned request
			}
			if last, err := answer(m); last || err != nil {
				return err
			}
		}
	}
}

// echoExchange sends one change request with NLM_F_ECHO and NLM_F_ACK and
// reads up to the acknowledgement: the echo's type and payload (0 and nil
// when the kernel echoed nothing, as for the removal of a whole priority),
// or the kernel's refusal as *Error.
func (c *Conn) echoExchange(ctx context.Context, reqType, flags uint16, payload []byte) (uint16, []byte, error) {
	flags |= nlabi.NLM_F_ECHO | nlabi.NLM_F_ACK
	if c.sock == nil {
		replies, err := c.execMnl(ctx, reqType, flags, payload)
		if err != nil || len(replies) == 0 {
			return 0, nil, err
		}
		return uint16(replies[0].Header.Type), replies[0].Data, nil
	}
	var echoType uint16
	var echo []byte
	err := c.request(ctx, reqType, flags, payload, func(m message) (bool, error) {
		if m.typ != nlabi.NLMSG_ERROR {
			if echo == nil {
				// The receive buffer is reused: keep a copy.
				echoType, echo = m.typ, append([]byte(nil), m.data...)
			}
			return false, nil
		}
		if len(m.data) < 4 {
			return true, errors.New("netlink: short error message")
		}
		return true, ackError(m.data, m.flags)
	})
	if err != nil {
		return 0, nil, err
	}
	return echoType, echo, nil
}
