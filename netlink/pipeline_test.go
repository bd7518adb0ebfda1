// SPDX-License-Identifier: Apache-2.0

package netlink

import (
	"errors"
	"slices"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/nlabi"
	mnl "github.com/mdlayher/netlink"
	"github.com/mdlayher/netlink/nltest"
	"golang.org/x/sys/unix"
)

// pipeKernel is a fake kernel with the behaviour Pipeline relies on: it
// processes every message of a datagram in order even after one fails, and
// queues one answer datagram per message refused or asking for one.
type pipeKernel struct {
	failIfindex int32   // requests for this ifindex are refused
	bursts      []int   // messages per sendmsg
	applied     []int32 // ifindex of every request processed, in order
	queue       []mnl.Message
}

func (k *pipeKernel) fn(reqs []mnl.Message) ([]mnl.Message, error) {
	if reqs == nil { // a read: one acknowledgement per datagram, as the kernel
		if len(k.queue) == 0 {
			return nil, errors.New("read with no acknowledgement queued")
		}
		m := k.queue[0]
		k.queue = k.queue[1:]
		return []mnl.Message{m}, nil
	}
	k.bursts = append(k.bursts, len(reqs))
	for _, r := range reqs {
		var m Msg
		if err := m.UnmarshalBinary(r.Data); err != nil {
			return nil, err
		}
		k.applied = append(k.applied, m.Header.Ifindex)
		if m.Header.Ifindex == k.failIfindex {
			k.queue = append(k.queue, extackError(r, unix.EINVAL, "no such thing"))
			continue
		}
		if r.Header.Flags&mnl.Acknowledge != 0 {
			ack := make([]byte, 4+16)
			k.queue = append(k.queue, mnl.Message{Header: mnl.Header{Type: mnl.Error, Sequence: r.Header.Sequence}, Data: ack})
		}
	}
	return nil, nil
}

func requests(n int) func(yield func(PipelineRequest) bool) {
	return func(yield func(PipelineRequest) bool) {
		for i := range n {
			m := qdiscMsg(int32(i+1), 0, "cake", &attrs.CakeAttrs{BaseRate64: ptr(uint64(1000))})
			if !yield(PipelineRequest{Object: Qdisc, Op: Replace, Msg: m}) {
				return
			}
		}
	}
}

func TestPipelineStopsAfterFirstRefusal(t *testing.T) {
	for _, tc := range []struct {
		window      int
		wantBursts  []int
		wantApplied int // requests the kernel saw
	}{
		// Window 1: nothing after the refused request (the 6th) is sent.
		{1, []int{1, 1, 1, 1, 1, 1}, 6},
		// Window 4: the rest of the refused request's burst was applied.
		{4, []int{4, 4}, 8},
	} {
		k := &pipeKernel{failIfindex: 6}
		c := NewConn(nltest.Dial(k.fn))
		var got []int
		var gotErr error
		err := c.Pipeline(ctx, requests(10), tc.window, func(i int, err error) bool {
			got = append(got, i)
			if err != nil {
				gotErr = err
				return false
			}
			return true
		})
		if err != nil {
			t.Fatalf("window %d: %v", tc.window, err)
		}
		if !slices.Equal(got, []int{0, 1, 2, 3, 4, 5}) {
			t.Errorf("window %d: results for %v", tc.window, got)
		}
		var kerr *Error
		if !errors.As(gotErr, &kerr) || kerr.Errno != unix.EINVAL || kerr.Message != "no such thing" {
			t.Errorf("window %d: refusal %#v", tc.window, gotErr)
		}
		if !slices.Equal(k.bursts, tc.wantBursts) || len(k.applied) != tc.wantApplied {
			t.Errorf("window %d: bursts %v, %d applied", tc.window, k.bursts, len(k.applied))
		}
		if !slices.IsSorted(k.applied) {
			t.Errorf("window %d: applied out of order: %v", tc.window, k.applied)
		}
	}
}

func TestPipelineForceGivesEveryResultInOrder(t *testing.T) {
	k := &pipeKernel{failIfindex: 3}
	c := NewConn(nltest.Dial(k.fn))
	var got []int
	var failed []int
	err := c.Pipeline(ctx, requests(70), 64, func(i int, err error) bool {
		got = append(got, i)
		if err != nil {
			failed = append(failed, i)
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 70 || !slices.IsSorted(got) || !slices.Equal(failed, []int{2}) {
		t.Errorf("results %v, failed %v", got, failed)
	}
	if !slices.Equal(k.bursts, []int{64, 6}) {
		t.Errorf("bursts %v", k.bursts)
	}
	// The connection is clean afterwards: Do works on it.
	k.queue = nil
	if err := c.Do(ctx, Qdisc, Replace, qdiscMsg(9, 0, "cake", nil)); err != nil {
		t.Errorf("Do after Pipeline: %v", err)
	}
}

func TestPipelineWaitForResultEndsBurst(t *testing.T) {
	// Requests 1-10; 4 and 9 wait for their results; 4 is refused.
	waits := func(yield func(PipelineRequest) bool) {
		for r := range requests(10) {
			i := r.Msg.Header.Ifindex
			r.WaitForResult = i == 4 || i == 9
			if !yield(r) {
				return
			}
		}
	}
	for _, tc := range []struct {
		failIfindex int32
		wantBursts  []int
		wantApplied int
	}{
		{0, []int{4, 5, 1}, 10},
		{4, []int{4}, 4}, // refused while waiting: nothing after it was sent
		{2, []int{4}, 4}, // refused inside a burst: the burst's rest went through
		{10, []int{4, 5, 1}, 10},
	} {
		k := &pipeKernel{failIfindex: tc.failIfindex}
		c := NewConn(nltest.Dial(k.fn))
		err := c.Pipeline(ctx, waits, 8, func(i int, err error) bool { return err == nil })
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(k.bursts, tc.wantBursts) || len(k.applied) != tc.wantApplied {
			t.Errorf("refusing %d: bursts %v, applied %d; want %v, %d", tc.failIfindex, k.bursts, len(k.applied), tc.wantBursts, tc.wantApplied)
		}
	}
}

func TestPipelineEmptyAndStoppedEarly(t *testing.T) {
	k := &pipeKernel{}
	c := NewConn(nltest.Dial(k.fn))
	if err := c.Pipeline(ctx, requests(0), 8, func(int, error) bool { return true }); err != nil || len(k.bursts) != 0 {
		t.Fatalf("empty: %v, bursts %v", err, k.bursts)
	}
	// Stopping on a success result stops sending too.
	n := 0
	if err := c.Pipeline(ctx, requests(20), 2, func(i int, err error) bool { n++; return i < 2 }); err != nil {
		t.Fatal(err)
	}
	if n != 3 || !slices.Equal(k.bursts, []int{2, 2}) {
		t.Errorf("%d results, bursts %v", n, k.bursts)
	}
}

// TestParseAcks checks the raw-socket decoder on acknowledgements as the
// kernel lays them out: a success, a refusal with the request echoed and an
// extended-ack message, and one for a sequence number not asked about.
func TestParseAcks(t *testing.T) {
	req := mnl.Message{Header: mnl.Header{Type: nlabi.RTM_NEWQDISC, Sequence: 11}, Data: make([]byte, 20)}
	req.Header.Length = uint32(16 + len(req.Data))
	var b []byte
	for _, m := range []mnl.Message{
		{Header: mnl.Header{Type: mnl.Error, Sequence: 10}, Data: make([]byte, 20)},
		extackError(req, unix.EEXIST, "Exclusivity flag on, cannot modify"),
		{Header: mnl.Header{Type: mnl.Error, Sequence: 99}, Data: make([]byte, 20)},
	} {
		m.Header.Length = uint32(16 + len(m.Data))
		raw, err := m.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, raw...)
	}
	results := []error{errors.New("unset"), nil}
	last, err := parseAcks(b, []uint32{10, 11}, results)
	if err != nil || !last || results[0] != nil {
		t.Fatalf("last %v, err %v, results %v", last, err, results)
	}
	if last, _ := parseAcks(b, []uint32{10, 11, 12}, make([]error, 3)); last {
		t.Error("the answer to 11 taken for the last of 10, 11, 12")
	}
	var kerr *Error
	if !errors.As(results[1], &kerr) || kerr.Errno != unix.EEXIST || kerr.Message != "Exclusivity flag on, cannot modify" {
		t.Errorf("refusal %#v", results[1])
	}
	if _, err := parseAcks([]byte{200, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, []uint32{1}, results); err == nil {
		t.Error("malformed datagram accepted")
	}
}
