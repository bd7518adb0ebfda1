// SPDX-License-Identifier: Apache-2.0

package netlink

import (
	"context"
	"errors"
	"os"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/gotc/gotc/internal/hostns"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/nlabi"
	"golang.org/x/sys/unix"
)

// classes are the error classes of a refusal, for errors.Is.
var classes = []error{ErrNotFound, ErrExists, ErrBusy, ErrNotSupported, ErrInvalid}

// TestErrorClasses refuses a request with each errno the classes name and
// checks what a caller can learn with errors.Is and errors.As: the class,
// the errno, the extended-ack message and the offending attribute's
// offset.
func TestErrorClasses(t *testing.T) {
	for _, tc := range []struct {
		errno unix.Errno
		class error
	}{
		{unix.ENOENT, ErrNotFound},
		{unix.ENODEV, ErrNotFound},
		{unix.EEXIST, ErrExists},
		{unix.EBUSY, ErrBusy},
		{unix.EOPNOTSUPP, ErrNotSupported},
		{unix.EINVAL, ErrInvalid},
		{unix.ERANGE, ErrInvalid},
		{unix.EPERM, nil},
	} {
		_, c := newFakeKernel(t, func(k *fakeKernel, req message) {
			k.send(ack(req, tc.errno, "Specified qdisc kind is unknown", 36))
		})
		err := c.Do(ctx, Qdisc, Add, qdiscMsg(1, 0, "nosuch", nil))
		for _, class := range classes {
			if got := errors.Is(err, class); got != (class == tc.class) {
				t.Errorf("%v: errors.Is(%v) = %v", tc.errno, class, got)
			}
		}
		if !errors.Is(err, tc.errno) {
			t.Errorf("%v: errors.Is(errno) is false", tc.errno)
		}
		var kerr *Error
		if !errors.As(err, &kerr) || kerr.Errno != tc.errno || kerr.Message != "Specified qdisc kind is unknown" || kerr.Offset != 36 {
			t.Errorf("%v: %#v", tc.errno, kerr)
		}
	}

	// Without extended-ack attributes: the errno alone.
	_, c := newFakeKernel(t, func(k *fakeKernel, req message) { k.send(ack(req, unix.EEXIST, "", 0)) })
	err := c.Do(ctx, Qdisc, Add, qdiscMsg(1, 0, "cake", nil))
	var kerr *Error
	if !errors.As(err, &kerr) || kerr.Message != "" || kerr.Offset != 0 || err.Error() != unix.EEXIST.Error() || !errors.Is(err, ErrExists) {
		t.Errorf("plain refusal: %#v", err)
	}

	// A device name the kernel does not know: NoDeviceError, ErrNotFound.
	_, c = newFakeKernel(t, func(k *fakeKernel, req message) { k.send(ack(req, unix.ENODEV, "", 0)) })
	_, err = c.LinkIndex(ctx, "nosuch0")
	var nodev *NoDeviceError
	if !errors.As(err, &nodev) || nodev.Name != "nosuch0" || !errors.Is(err, ErrNotFound) || errors.Is(err, ErrInvalid) {
		t.Errorf("LinkIndex: %v", err)
	}
	if err.Error() != `cannot find device "nosuch0"` {
		t.Errorf("LinkIndex: %q", err)
	}
}

// TestDeadlineUnblocksReceive: a kernel that never answers; the deadline
// ends the wait, and the Conn answers the next request right even when
// the first one's answer comes in late, first.
func TestDeadlineUnblocksReceive(t *testing.T) {
	var first message
	k, c := newFakeKernel(t, func(k *fakeKernel, req message) {
		if first.seq == 0 {
			first = req // no answer, for now
			return
		}
		k.send(ack(first, unix.EBUSY, "late", 0))
		k.send(ack(req, 0, "", 0))
	})
	tctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := c.Do(tctx, Qdisc, Change, qdiscMsg(1, 0, "cake", nil))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the deadline took %v", d)
	}
	if err := c.Do(ctx, Qdisc, Change, qdiscMsg(1, 0, "cake", nil)); err != nil {
		t.Fatalf("after the deadline: %v (the late answer was taken for this one's)", err)
	}
	if n := len(k.requests()); n != 2 {
		t.Errorf("%d requests", n)
	}
	// A context already ended sends nothing.
	cancel()
	if err := c.Do(tctx, Qdisc, Change, qdiscMsg(1, 0, "cake", nil)); !errors.Is(err, context.DeadlineExceeded) || len(k.requests()) != 2 {
		t.Errorf("ended context: %v, %d requests", err, len(k.requests()))
	}
}

// TestCancelUnblocksReceive: a cancellation ends a receive that has no
// deadline, in a dump and in a pipeline; the Conn stays usable.
func TestCancelUnblocksReceive(t *testing.T) {
	for _, call := range []struct {
		name string
		run  func(context.Context, *Conn) error
	}{
		{"Dump", func(ctx context.Context, c *Conn) error {
			return c.Dump(ctx, Qdisc, DumpFilter{}, func(*Msg, error) error { return nil })
		}},
		{"Pipeline", func(ctx context.Context, c *Conn) error {
			reqs := slices.Values([]PipelineRequest{{Object: Qdisc, Op: Change, Msg: qdiscMsg(1, 0, "cake", nil)}})
			return c.Pipeline(ctx, reqs, 4, func(int, error) bool { return true })
		}},
		{"LinkIndex", func(ctx context.Context, c *Conn) error { _, err := c.LinkIndex(ctx, "lo"); return err }},
		{"Events", func(ctx context.Context, c *Conn) error {
			for _, err := range c.Events(ctx) {
				return err
			}
			return nil
		}},
	} {
		// The kernel answers the first request only after the
		// cancellation, and a dump at once.
		k, c := newFakeKernel(t, func(k *fakeKernel, req message) {
			if len(k.requests()) == 1 {
				time.Sleep(100 * time.Millisecond)
			}
			if req.typ == nlabi.RTM_GETQDISC {
				k.send(done(req.seq, 0))
			} else {
				k.send(ack(req, 0, "", 0))
			}
		})
		cctx, cancel := context.WithCancel(ctx)
		time.AfterFunc(30*time.Millisecond, cancel)
		start := time.Now()
		if err := call.run(cctx, c); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v", call.name, err)
		}
		// Without the cancellation the call would have waited for the
		// kernel's answer, a success, or (Events) for ever: context.Canceled
		// says the cancellation ended it. The time is only a sanity bound,
		// loose for a loaded machine.
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: the cancellation took %v", call.name, d)
		}
		// The Conn goes on: a dump left unfinished is drained, a late
		// answer skipped, and this dump is its own.
		if err := c.Dump(ctx, Qdisc, DumpFilter{}, func(*Msg, error) error { return nil }); err != nil {
			t.Errorf("%s: after the cancellation: %v", call.name, err)
		}
		if n := len(k.requests()); call.name != "Events" && n != 2 {
			t.Errorf("%s: %d requests", call.name, n)
		}
	}
}

// TestAbandonedDumpIsDrained: a dump whose deadline passes halfway leaves
// the rest of its replies queued; the next dump must not see them.
func TestAbandonedDumpIsDrained(t *testing.T) {
	dumps := 0
	_, c := newFakeKernel(t, func(k *fakeKernel, req message) {
		dumps++
		if dumps == 1 {
			k.send(qdiscReply(req.seq, 0, qdiscMsg(1, 0x10000, "stale", nil)))
			// The rest comes after the deadline, as a kernel that
			// goes on with the dump when its reader reads.
			time.Sleep(100 * time.Millisecond)
			k.send(qdiscReply(req.seq, 0, qdiscMsg(2, 0x20000, "stale", nil)))
			k.send(done(req.seq, 0))
			return
		}
		k.send(qdiscReply(req.seq, 0, qdiscMsg(3, 0x30000, "fresh", nil)), done(req.seq, 0))
	})
	tctx, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
	defer cancel()
	var kinds []string
	collect := func(m *Msg, _ error) error { kinds = append(kinds, m.Kind()); return nil }
	if err := c.Dump(tctx, Qdisc, DumpFilter{}, collect); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("first dump: %v", err)
	}
	if !slices.Equal(kinds, []string{"stale"}) {
		t.Errorf("first dump saw %q", kinds)
	}
	kinds = nil
	if err := c.Dump(ctx, Qdisc, DumpFilter{}, collect); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(kinds, []string{"fresh"}) {
		t.Errorf("second dump saw %q", kinds)
	}
}

// interruptingKernel answers qdisc dumps with two qdiscs, flagging the
// first interrupted passes NLM_F_DUMP_INTR (on the second message and on
// DONE, as the kernel flags from where it saw the change on).
func interruptingKernel(t *testing.T, interrupted int) (*fakeKernel, *Conn) {
	pass := 0
	return newFakeKernel(t, func(k *fakeKernel, req message) {
		pass++
		intr := uint16(0)
		if pass <= interrupted {
			intr = nlabi.NLM_F_DUMP_INTR
		}
		kind := "pass" + string(rune('0'+pass))
		k.send(qdiscReply(req.seq, 0, qdiscMsg(1, 0x10000, kind, nil)),
			qdiscReply(req.seq, intr, qdiscMsg(2, 0x20000, kind, nil)), done(req.seq, intr))
	})
}

func TestDumpInterrupted(t *testing.T) {
	kindsOf := func(c *Conn) ([]string, error) {
		var kinds []string
		for m, err := range c.Msgs(ctx, Qdisc, DumpFilter{}) {
			if err != nil {
				return kinds, err
			}
			kinds = append(kinds, m.Kind())
		}
		return kinds, nil
	}

	// Interrupted once: retried, and only the complete pass is seen.
	k, c := interruptingKernel(t, 1)
	kinds, err := kindsOf(c)
	if err != nil || !slices.Equal(kinds, []string{"pass2", "pass2"}) || len(k.requests()) != 2 {
		t.Errorf("interrupted once: %q, %v, %d dumps", kinds, err, len(k.requests()))
	}

	// Always interrupted: 3 passes, then ErrDumpInterrupted and nothing else.
	k, c = interruptingKernel(t, 100)
	kinds, err = kindsOf(c)
	if !errors.Is(err, ErrDumpInterrupted) || len(kinds) != 0 || len(k.requests()) != 3 {
		t.Errorf("always interrupted: %q, %v, %d dumps", kinds, err, len(k.requests()))
	}

	// Dump streams its one pass, then says it was interrupted.
	k, c = interruptingKernel(t, 1)
	kinds = nil
	err = c.Dump(ctx, Qdisc, DumpFilter{}, func(m *Msg, _ error) error { kinds = append(kinds, m.Kind()); return nil })
	if !errors.Is(err, ErrDumpInterrupted) || !slices.Equal(kinds, []string{"pass1", "pass1"}) || len(k.requests()) != 1 {
		t.Errorf("Dump: %q, %v, %d dumps", kinds, err, len(k.requests()))
	}
	// And the socket is ready for the next one.
	kinds = nil
	if err := c.Dump(ctx, Qdisc, DumpFilter{}, func(m *Msg, _ error) error { kinds = append(kinds, m.Kind()); return nil }); err != nil || !slices.Equal(kinds, []string{"pass2", "pass2"}) {
		t.Errorf("Dump after: %q, %v", kinds, err)
	}
}

// TestMsgs: the iterator's messages are the caller's to keep, its filter
// applies, the loop may use the Conn, and breaking out leaves the socket
// usable.
func TestMsgs(t *testing.T) {
	_, c := newFakeKernel(t, func(k *fakeKernel, req message) {
		if req.typ != nlabi.RTM_GETQDISC {
			k.send(ack(req, 0, "", 0))
			return
		}
		k.send(qdiscReply(req.seq, 0, qdiscMsg(1, 0x10000, "cake", &attrs.CakeAttrs{BaseRate64: ptr(uint64(125000))})),
			qdiscReply(req.seq, 0, qdiscMsg(2, 0x20000, "htb", nil)),
			qdiscReply(req.seq, 0, qdiscMsg(1, 0x30000, "sfq", nil)))
		k.send(done(req.seq, 0))
	})
	var kept []*Msg
	for m, err := range c.Msgs(ctx, Qdisc, DumpFilter{Ifindex: 1}) {
		if err != nil {
			t.Fatal(err)
		}
		kept = append(kept, m)
		// The socket is idle while the loop runs.
		if err := c.Do(ctx, Qdisc, Change, cakeBandwidthChange(1, 1000)); err != nil {
			t.Fatal(err)
		}
	}
	if len(kept) != 2 || kept[0].Kind() != "cake" || kept[1].Kind() != "sfq" || kept[0] == kept[1] {
		t.Fatalf("kept %v", kept)
	}
	if cake, ok := kept[0].Attrs.Options.(*attrs.CakeAttrs); !ok || *cake.BaseRate64 != 125000 {
		t.Errorf("cake options %#v", kept[0].Attrs.Options)
	}
	for m, err := range c.Msgs(ctx, Qdisc, DumpFilter{}) {
		if err != nil || m.Kind() != "cake" {
			t.Fatalf("%v %v", m, err)
		}
		break
	}
	n := 0
	for range c.Msgs(ctx, Qdisc, DumpFilter{}) {
		n++
	}
	if n != 3 {
		t.Errorf("after a break: %d messages", n)
	}
	// Decoded as the datagrams arrived, the kept messages share nothing
	// with the receive buffers that the later dumps reused.
	if cake, ok := kept[0].Attrs.Options.(*attrs.CakeAttrs); !ok || *cake.BaseRate64 != 125000 || kept[0].Kind() != "cake" || kept[1].Kind() != "sfq" {
		t.Errorf("after later dumps, kept %s %#v and %s", kept[0].Kind(), kept[0].Attrs.Options, kept[1].Kind())
	}
}

// cakeBandwidthChange is the request of "tc qdisc change dev IFINDEX root
// cake bandwidth RATE".
func cakeBandwidthChange(ifindex int32, bytesPerSecond uint64) *Msg {
	kind := "cake"
	m := &Msg{}
	m.Header.Ifindex, m.Header.Parent = ifindex, HandleRoot
	m.Attrs.Kind = &kind
	m.Attrs.Options = &attrs.CakeAttrs{BaseRate64: &bytesPerSecond}
	return m
}

// TestChangeRequest checks what a change sends: RTM_NEWQDISC without
// NLM_F_CREATE, the options named and nothing else, as tc qdisc change
// ... cake bandwidth sends it.
func TestChangeRequest(t *testing.T) {
	k, c := newFakeKernel(t, func(k *fakeKernel, req message) { k.send(ack(req, 0, "", 0)) })
	if err := c.Do(ctx, Qdisc, Change, cakeBandwidthChange(7, 12_500_000)); err != nil {
		t.Fatal(err)
	}
	req := k.requests()[0]
	if req.typ != nlabi.RTM_NEWQDISC || req.flags != nlabi.NLM_F_REQUEST|nlabi.NLM_F_ACK {
		t.Errorf("type %d flags %#x", req.typ, req.flags)
	}
	var m Msg
	if err := m.UnmarshalBinary(req.data); err != nil {
		t.Fatal(err)
	}
	cake, ok := m.Attrs.Options.(*attrs.CakeAttrs)
	if m.Header.Ifindex != 7 || m.Header.Parent != HandleRoot || m.Header.Handle != 0 || m.Kind() != "cake" ||
		!ok || cake.BaseRate64 == nil || *cake.BaseRate64 != 12_500_000 || cake.RTT != nil {
		t.Errorf("request %+v %#v", m.Header, m.Attrs.Options)
	}
}

// TestEvents: announcements come out typed, in order, with their messages;
// a cancellation ends the stream.
func TestEvents(t *testing.T) {
	k, c := newFakeKernel(t, func(*fakeKernel, message) {})
	filter := qdiscMsg(1, 0x1, "matchall", nil)
	filterData, _ := filter.MarshalBinary()
	qdiscData, _ := qdiscMsg(1, 0x10000, "cake", nil).MarshalBinary()
	classData, _ := qdiscMsg(1, 0x10001, "htb", nil).MarshalBinary()
	action, _ := (&ActionMsg{}).AppendBinary(nil)
	k.send(reply(nlabi.RTM_NEWQDISC, 0, 0, qdiscData))
	k.send(reply(nlabi.RTM_DELTCLASS, 0, 0, classData),
		reply(nlabi.RTM_NEWTFILTER, nlabi.NLM_F_CREATE|nlabi.NLM_F_EXCL, 0, filterData))
	k.send(reply(nlabi.NLMSG_ERROR, 0, 0, make([]byte, 20))) // not an event: skipped
	k.send(reply(nlabi.RTM_DELACTION, 0, 0, action))

	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var got []Event
	var end error
	for ev, err := range c.Events(cctx) {
		if err != nil {
			end = err
			break
		}
		got = append(got, ev)
		if len(got) == 4 {
			time.AfterFunc(20*time.Millisecond, cancel)
		}
	}
	if !errors.Is(end, context.Canceled) {
		t.Errorf("the stream ended with %v", end)
	}
	want := []struct {
		obj     Object
		deleted bool
		kind    string
	}{{Qdisc, false, "cake"}, {Class, true, "htb"}, {Filter, false, "matchall"}, {Action, true, ""}}
	if len(got) != len(want) {
		t.Fatalf("%d events: %+v", len(got), got)
	}
	for i, w := range want {
		ev := got[i]
		if ev.Object != w.obj || ev.Deleted != w.deleted || (ev.Msg == nil) != (w.obj == Action) || (ev.Action == nil) != (w.obj != Action) {
			t.Errorf("event %d: %+v", i, ev)
		}
		if ev.Msg != nil && ev.Msg.Kind() != w.kind {
			t.Errorf("event %d: kind %q", i, ev.Msg.Kind())
		}
	}
	if got[2].Flags != nlabi.NLM_F_CREATE|nlabi.NLM_F_EXCL {
		t.Errorf("filter event flags %#x", got[2].Flags)
	}
}

// TestQueuedEvents: QueuedEvents yields what is queued and stops at the
// queue's end without waiting for more; a second call finds it empty.
func TestQueuedEvents(t *testing.T) {
	k, c := newFakeKernel(t, func(*fakeKernel, message) {})
	qdiscData, _ := qdiscMsg(1, 0x10000, "cake", nil).MarshalBinary()
	classData, _ := qdiscMsg(1, 0x10001, "htb", nil).MarshalBinary()
	k.send(reply(nlabi.RTM_NEWQDISC, 0, 0, qdiscData))
	k.send(reply(nlabi.RTM_DELTCLASS, 0, 0, classData))
	read := func() (objs []Object) {
		t.Helper()
		for ev, err := range c.QueuedEvents() {
			if err != nil {
				t.Fatal(err)
			}
			objs = append(objs, ev.Object)
		}
		return objs
	}
	if got := read(); !slices.Equal(got, []Object{Qdisc, Class}) {
		t.Errorf("queued: %v, want qdisc and class", got)
	}
	// A read that waited for more would never return: nothing comes.
	if got := read(); len(got) != 0 {
		t.Errorf("an empty queue: %v", got)
	}
}

// TestNetNSHandles opens the test's own namespace by pid and a new one by
// descriptor, dials in each, and checks that the calling thread stays in
// its namespace.
func TestNetNSHandles(t *testing.T) {
	self, err := os.Readlink("/proc/thread-self/ns/net")
	if err != nil {
		t.Skip(err)
	}
	ns, err := OpenNetNSPid(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	defer ns.Close()
	c, err := ns.Dial(nil)
	if err != nil {
		hostns.Skip(t, "no rtnetlink here: %v", err)
	}
	defer c.Close()
	if _, err := c.LinkIndex(ctx, "lo"); err != nil {
		t.Fatal(err)
	}

	fresh, err := NetNSFromFD(freshNetNS(t))
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	fc, err := fresh.Dial(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fc.Close()
	names, err := fc.LinkNames(ctx)
	if err != nil || len(names) != 1 || !slices.Contains(slices.Collect(mapValues(names)), "lo") {
		t.Errorf("a new namespace has %v (%v)", names, err)
	}
	if now, _ := os.Readlink("/proc/thread-self/ns/net"); now != self {
		t.Errorf("the thread moved from %s to %s", self, now)
	}

	// What is no network namespace is refused.
	if _, err := OpenNetNSPath("/proc/self/ns/uts"); err == nil {
		t.Error("a UTS namespace opened as a network namespace")
	}
	if _, err := OpenNetNSPath("/dev/null"); err == nil {
		t.Error("/dev/null opened as a network namespace")
	}
	if _, err := OpenNetNS("../etc"); err == nil {
		t.Error("a name with a slash accepted")
	}
	if _, err := OpenNetNS("gotc-no-such-ns"); !errors.Is(err, syscall.ENOENT) {
		t.Errorf("a missing name: %v", err)
	}
}

func mapValues[K comparable, V any](m map[K]V) func(func(V) bool) {
	return func(yield func(V) bool) {
		for _, v := range m {
			if !yield(v) {
				return
			}
		}
	}
}
