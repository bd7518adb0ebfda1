// SPDX-License-Identifier: Apache-2.0

package netlink

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"

	"github.com/gotc/gotc/internal/nlabi"
	mnl "github.com/mdlayher/netlink"
)

// Pipelining change requests: design and the proof of its ordering.
//
// What the kernel does (net/netlink/af_netlink.c, net/core/rtnetlink.c, the
// same since Linux 2.6):
//
//  K1. sendmsg(2) on a NETLINK_ROUTE socket hands the datagram to
//      netlink_unicast, which for the kernel's socket calls
//      netlink_unicast_kernel -> rtnetlink_rcv -> netlink_rcv_skb
//      synchronously, in the sender's context: when sendmsg returns, every
//      message of the datagram has been processed.
//  K2. netlink_rcv_skb walks the messages of one datagram in order and runs
//      each (rtnetlink_rcv_msg, under RTNL) to completion before the next.
//      After an error it queues the error and goes on with the next message:
//      a refusal does NOT stop the rest of the datagram.
//  K3. Each acknowledgement (NLMSG_ERROR, errno 0 or not) is queued to the
//      sender's socket as its own datagram, in processing order. If the
//      socket's receive buffer is full the acknowledgement is dropped and the
//      next read fails with ENOBUFS: a lost acknowledgement is never silent.
//  K4. A request is acknowledged when it asks to be (NLM_F_ACK) or when it
//      is refused: a refusal always comes back, with its errno and message.
//
// Pipeline sends requests in bursts: one sendmsg of up to window messages,
// only the last of which asks for an acknowledgement; it reads answers until
// that acknowledgement (by sequence number) before the next burst: by K3 and
// K4 every refusal in the burst came before it, and a request without an
// answer was accepted. Hence:
//
//  P1 (order). Requests are applied in the order given: within a burst by
//      K2, across bursts by K1 (burst b+1 is sent after burst b's sendmsg
//      returned, so after burst b was processed).
//  P2 (nothing after a stop is sent). When onResult returns false for
//      request i, no request of a later burst is sent: the next sendmsg
//      happens only after every result of the current burst was delivered.
//  P3 (what a refusal lets through). Requests of the same burst after a
//      refused one were applied (K2). With window 1 a burst is one request,
//      so when request i is refused no request after it has reached the
//      kernel: exactly tc's rule for -batch without -force ("lines after the
//      failing one are not sent"). With window > 1 up to window-1 requests
//      after the refused one are applied; that is what tc -force does anyway
//      (it sends every line), so the results are the same as tc's there.
//      A request marked WaitForResult ends its burst: nothing after it is
//      sent before its result is in. A caller that marks every request it
//      cannot show will be accepted gets, with any window, the window-1
//      guarantee for each of them: when such a request is refused, no later
//      request has reached the kernel. Only a request it showed would be
//      accepted (and that is refused all the same, e.g. after someone else
//      changed the kernel's state) lets the rest of its burst through.
//  P4 (results). Every request gets exactly one result, in order: its
//      refusal's errno and extended-ack message, or success when no refusal
//      came before the burst's last acknowledgement (K3, K4), matched by the
//      sequence number Pipeline gave it. A dropped acknowledgement (ENOBUFS)
//      or any socket error ends Pipeline with an error, and requests whose
//      acknowledgement was not seen get no result; Pipeline keeps bursts small
//      enough (window <= MaxWindow, requests of a few hundred bytes) that the
//      default receive buffer (rmem_default, 208 KiB) holds a whole burst's
//      acknowledgements, so this does not happen in practice.
//
// Why it is faster than one Do per request, given K1 (the kernel does the
// work in sendmsg either way): one write and one recvmmsg per burst instead
// of a write and a read per request, and one acknowledgement for the kernel
// to build and queue instead of one per request.

// MaxWindow is the largest burst Pipeline sends.
const MaxWindow = 64

// PipelineRequest is one change request of a Pipeline.
type PipelineRequest struct {
	Object Object
	Op     Op
	Msg    *Msg
	// WaitForResult ends the burst after this request: the next request is
	// sent only once this one's result has been delivered.
	WaitForResult bool
}

// Pipeline sends the requests of reqs in bursts of up to window messages per
// sendmsg (1 <= window <= MaxWindow), without waiting for each
// acknowledgement before sending the next request of a burst, and calls
// onResult once per request, in order, with its index in reqs and the
// kernel's answer (nil, or an *Error carrying the extended-ack message).
// When onResult returns false Pipeline sends nothing more and returns nil.
//
// reqs is read lazily: at most window requests ahead of the last result.
// Ordering and stop semantics are proved in the comment above: with window 1
// a refused request is the last one the kernel saw; with a larger window the
// rest of its burst was applied too.
//
// ctx bounds the whole pipeline; when it ends, Pipeline returns its error
// and the requests after the last result delivered may or may not have
// been applied.
//
// A non-nil error means the socket failed (a request could not be built or
// sent, or acknowledgements were lost); the requests after the last result
// delivered may or may not have been applied, and the Conn should be closed.
func (c *Conn) Pipeline(ctx context.Context, reqs iter.Seq[PipelineRequest], window int, onResult func(i int, err error) bool) error {
	window = max(1, min(window, MaxWindow))
	tr, end, err := c.transport(ctx, window)
	if err != nil {
		return err
	}
	defer end()
	var (
		burst   []byte   // the burst's messages, back to back
		seqs    []uint32 // their sequence numbers
		results []error
		base    int // index of the burst's first request
		stopped bool
		failure error
	)
	lastAt := 0 // offset of the burst's last message
	flush := func() bool {
		if len(seqs) == 0 {
			return true
		}
		// Only the burst's last request asks for an acknowledgement: the
		// kernel answers a refused request anyway (K4), and the last one's
		// answer comes after every other answer of the burst (K3).
		flags := binary.NativeEndian.Uint16(burst[lastAt+6:])
		binary.NativeEndian.PutUint16(burst[lastAt+6:], flags|nlabi.NLM_F_ACK)
		if err := tr.send(burst, seqs); err != nil {
			failure = err
			return false
		}
		results = results[:0]
		for range seqs {
			results = append(results, nil)
		}
		if err := tr.acks(seqs, results); err != nil {
			failure = contextError(ctx, err)
			return false
		}
		for k, rerr := range results {
			if !onResult(base+k, rerr) {
				stopped = true
				return false
			}
		}
		base += len(seqs)
		burst, seqs = burst[:0], seqs[:0]
		return true
	}
	for r := range reqs {
		msgType, flags, err := r.Object.request(r.Op)
		if err != nil {
			failure = err
			break
		}
		seq := sequence.Add(1)
		lastAt = len(burst)
		burst = appendRequest(burst, msgType, nlabi.NLM_F_REQUEST|flags, seq, func(b []byte) []byte {
			b, _ = r.Msg.AppendBinary(b)
			return b
		})
		seqs = append(seqs, seq)
		if (len(seqs) == window || r.WaitForResult) && !flush() {
			break
		}
	}
	if failure == nil && !stopped {
		flush()
	}
	return failure
}

// transport is how Pipeline moves bytes: raw system calls on a real socket,
// or mdlayher's Conn on anything else (nltest in tests).
type transport interface {
	// send sends msgs, the burst's messages back to back, in one datagram.
	send(msgs []byte, seqs []uint32) error
	// acks reads the acknowledgements of seqs and stores each one's result
	// in results at the same index.
	acks(seqs []uint32, results []error) error
}

// transport returns Pipeline's transport, ready for a call under ctx
// (Conn.begin), and the function that ends the call.
func (c *Conn) transport(ctx context.Context, window int) (transport, func(), error) {
	if c.sock == nil {
		// Not a kernel socket (nltest): go through mdlayher's Conn.
		return &mnlTransport{nl: c.nl}, func() {}, ctx.Err()
	}
	end, err := c.begin(ctx)
	if err != nil {
		return nil, nil, err
	}
	return newRawTransport(c.sock, window), end, nil
}

// ackIndex finds seq among the burst's sequence numbers (ascending, but the
// counter may wrap) and reports whether it is one of them.
func ackIndex(seqs []uint32, seq uint32) (int, bool) {
	k := int(seq - seqs[0])
	return k, k >= 0 && k < len(seqs) && seqs[k] == seq
}

// parseAcks decodes the answers in one datagram, stores the result of each
// of seqs it finds and reports whether it found the last one's. Messages for
// other sequence numbers (none are expected) are skipped.
func parseAcks(b []byte, seqs []uint32, results []error) (bool, error) {
	last := false
	for m, err := range messages(b) {
		if err != nil {
			return last, err
		}
		if k, ok := ackIndex(seqs, m.seq); ok && m.typ == nlabi.NLMSG_ERROR {
			if len(m.data) < 4 {
				return last, errors.New("netlink: short acknowledgement")
			}
			results[k] = ackError(m.data, m.flags)
			last = last || k == len(seqs)-1
		}
	}
	return last, nil
}

// mnlTransport pipelines through mdlayher's Conn: one SendMessages per burst
// and Receive until every acknowledgement is in.
type mnlTransport struct {
	nl *mnl.Conn
}

func (t *mnlTransport) send(msgs []byte, seqs []uint32) error {
	out := make([]mnl.Message, 0, len(seqs))
	for len(msgs) >= nlabi.NLMSG_HDRLEN {
		l := int(binary.NativeEndian.Uint32(msgs))
		var m mnl.Message
		if err := m.UnmarshalBinary(msgs[:l]); err != nil {
			return err
		}
		out = append(out, m)
		msgs = msgs[min(len(msgs), (l+3)&^3):]
	}
	_, err := t.nl.SendMessages(out)
	return err
}

func (t *mnlTransport) acks(seqs []uint32, results []error) error {
	for last := false; !last; {
		msgs, err := t.nl.Receive()
		if err != nil {
			// mdlayher turns a refusal into an *OpError naming its sequence.
			var op *mnl.OpError
			if errors.As(err, &op) {
				if k, ok := ackIndex(seqs, op.Sequence); ok {
					results[k] = kernelError(err)
					last = k == len(seqs)-1
					continue
				}
			}
			return fmt.Errorf("netlink: cannot read acknowledgements: %w", err)
		}
		if len(msgs) == 0 {
			return errors.New("netlink: acknowledgements missing")
		}
		for _, m := range msgs {
			if k, ok := ackIndex(seqs, m.Header.Sequence); ok && m.Header.Type == mnl.Error {
				results[k] = nil
				last = last || k == len(seqs)-1
			}
		}
	}
	return nil
}
