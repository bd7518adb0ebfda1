// SPDX-License-Identifier: Apache-2.0

package netlink

import (
	"encoding/binary"
	"errors"
	"runtime"
	"slices"
	"testing"

	"github.com/gotc/gotc/internal/hostns"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/nlabi"
	"golang.org/x/sys/unix"
)

// reply builds one reply message as the kernel writes it.
func reply(typ, flags uint16, seq uint32, data []byte) []byte {
	return appendRequest(nil, typ, flags, seq, func(b []byte) []byte { return append(b, data...) })
}

func errnoPayload(errno int32) []byte {
	b := binary.NativeEndian.AppendUint32(nil, uint32(-errno))
	return append(b, make([]byte, nlabi.NLMSG_HDRLEN)...) // the echoed request header
}

func TestDumpDatagram(t *testing.T) {
	const seq = 77
	var got []string
	fn := func(data []byte) error { got = append(got, string(data)); return nil }

	// Messages of other sequence numbers and types are skipped.
	b := reply(nlabi.RTM_NEWQDISC, nlabi.NLM_F_MULTI, seq, []byte("a\x00\x00\x00"))
	b = append(b, reply(nlabi.RTM_NEWQDISC, nlabi.NLM_F_MULTI, seq+1, []byte("x\x00\x00\x00"))...)
	b = append(b, reply(nlabi.RTM_NEWLINK, nlabi.NLM_F_MULTI, seq, []byte("y\x00\x00\x00"))...)
	b = append(b, reply(nlabi.RTM_NEWQDISC, nlabi.NLM_F_MULTI, seq, []byte("b\x00\x00\x00"))...)
	if _, err := dumpDatagram(b, seq, nlabi.RTM_NEWQDISC, fn); err != nil {
		t.Fatal(err)
	}
	done := reply(nlabi.NLMSG_DONE, nlabi.NLM_F_MULTI, seq, make([]byte, 4))
	if _, err := dumpDatagram(done, seq, nlabi.RTM_NEWQDISC, fn); err != errDumpDone {
		t.Fatalf("DONE: %v", err)
	}
	if len(got) != 2 || got[0][0] != 'a' || got[1][0] != 'b' {
		t.Errorf("delivered %q", got)
	}

	// A DONE or an ERROR carrying an errno fails the dump with it.
	for _, typ := range []uint16{nlabi.NLMSG_DONE, nlabi.NLMSG_ERROR} {
		_, err := dumpDatagram(reply(typ, 0, seq, errnoPayload(int32(unix.EOPNOTSUPP))), seq, nlabi.RTM_NEWQDISC, fn)
		var kerr *Error
		if !errors.As(err, &kerr) || kerr.Errno != unix.EOPNOTSUPP {
			t.Errorf("type %d: err %v", typ, err)
		}
	}
	// fn's error comes back as is.
	boom := errors.New("boom")
	_, err := dumpDatagram(reply(nlabi.RTM_NEWQDISC, 0, seq, nil), seq, nlabi.RTM_NEWQDISC, func([]byte) error { return boom })
	if err != boom {
		t.Errorf("fn error: %v", err)
	}
	// A length past the datagram is malformed.
	bad := reply(nlabi.RTM_NEWQDISC, 0, seq, nil)
	binary.NativeEndian.PutUint32(bad, 999)
	if _, err := dumpDatagram(bad, seq, nlabi.RTM_NEWQDISC, fn); err == nil {
		t.Error("malformed length accepted")
	}
}

// endsDump stops the receiver exactly where dumpDatagram stops: at the
// dump's DONE or ERROR, or a malformed datagram; never at another dump's.
func TestEndsDump(t *testing.T) {
	const seq = 77
	part := reply(nlabi.RTM_NEWQDISC, nlabi.NLM_F_MULTI, seq, []byte("a\x00\x00\x00"))
	other := reply(nlabi.NLMSG_DONE, nlabi.NLM_F_MULTI, seq+1, make([]byte, 4))
	bad := reply(nlabi.RTM_NEWQDISC, 0, seq, nil)
	binary.NativeEndian.PutUint32(bad, 999)
	for _, c := range []struct {
		name string
		b    []byte
		want bool
	}{
		{"a part", part, false},
		{"another dump's DONE", slices.Concat(part, other), false},
		{"the DONE after a part", slices.Concat(part, reply(nlabi.NLMSG_DONE, nlabi.NLM_F_MULTI, seq, make([]byte, 4))), true},
		{"an ERROR", reply(nlabi.NLMSG_ERROR, 0, seq, errnoPayload(int32(unix.EPERM))), true},
		{"malformed", bad, true},
	} {
		if got := endsDump(c.b, seq); got != c.want {
			t.Errorf("%s: endsDump = %v, want %v", c.name, got, c.want)
		}
		_, err := dumpDatagram(c.b, seq, nlabi.RTM_NEWQDISC, func([]byte) error { return nil })
		if stops := err != nil; stops != c.want {
			t.Errorf("%s: dumpDatagram stops %v (%v), endsDump %v", c.name, stops, err, c.want)
		}
	}
}

// TestRawSocketOnTheHost runs the direct-system-call path against the
// machine's own kernel: device lookups and a qdisc dump need no privileges.
func TestRawSocketOnTheHost(t *testing.T) {
	c, err := Dial(nil)
	if err != nil {
		hostns.Skip(t, "no rtnetlink here: %v", err)
	}
	defer c.Close()
	if c.sock == nil {
		t.Fatal("a kernel socket has no raw path")
	}
	lo, err := c.LinkIndex(ctx, "lo")
	if err != nil || lo <= 0 {
		t.Fatalf("LinkIndex(lo) = %d, %v", lo, err)
	}
	if _, err := c.LinkIndex(ctx, "nosuchdev0"); !errors.As(err, new(*NoDeviceError)) {
		t.Errorf("unknown device: %v", err)
	}
	names, err := c.LinkNames(ctx)
	if err != nil || names[lo] != "lo" {
		t.Fatalf("LinkNames: %v, %v", names, err)
	}
	// Two dumps in a row: the first must leave the socket clean.
	for range 2 {
		n := 0
		err := c.Dump(ctx, Qdisc, DumpFilter{Ifindex: lo}, func(m *Msg, decodeErr error) error {
			if decodeErr != nil || m.Header.Ifindex != lo {
				t.Errorf("qdisc of %d: %v", m.Header.Ifindex, decodeErr)
			}
			n++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%d qdiscs on lo", n)
	}
	// A dump stopped by fn still drains, so the next request works.
	stop := errors.New("stop")
	if err := c.Dump(ctx, Qdisc, DumpFilter{}, func(*Msg, error) error { return stop }); err != nil && err != stop {
		t.Fatal(err)
	}
	if again, err := c.LinkIndex(ctx, "lo"); err != nil || again != lo {
		t.Fatalf("after a stopped dump: %d, %v", again, err)
	}
}

// TestRawRefusalsOnTheHost sends requests the host's kernel refuses without
// changing anything (deleting lo's root qdisc under a handle it does not
// have), through Do and through a pipelined burst: each refusal comes back
// as *Error, in order.
func TestRawRefusalsOnTheHost(t *testing.T) {
	c, lo := hostLoopback(t, nil)
	bogus := &Msg{}
	bogus.Header.Ifindex = lo
	bogus.Header.Parent = HandleRoot
	bogus.Header.Handle = MakeHandle(0x7b3, 0)
	var kerr *Error
	if err := c.Do(ctx, Qdisc, Delete, bogus); !errors.As(err, &kerr) {
		t.Fatalf("Do: %v", err)
	}
	var got []int
	err := c.Pipeline(ctx, func(yield func(PipelineRequest) bool) {
		for range 3 {
			if !yield(PipelineRequest{Object: Qdisc, Op: Delete, Msg: bogus}) {
				return
			}
		}
	}, 3, func(i int, err error) bool {
		if !errors.As(err, &kerr) {
			t.Errorf("request %d: %v", i, err)
		}
		got = append(got, i)
		return true
	})
	if err != nil || len(got) != 3 || got[0] != 0 || got[2] != 2 {
		t.Fatalf("results %v, %v", got, err)
	}
}

// hostLoopback connects to the host's kernel (skipping the test where
// there is none) and returns the connection and the loopback's ifindex.
func hostLoopback(t *testing.T, cfg *Config) (*Conn, int32) {
	t.Helper()
	c, err := Dial(cfg)
	if err != nil {
		hostns.Skip(t, "no rtnetlink here: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	lo, err := c.LinkIndex(ctx, "lo")
	if err != nil {
		t.Fatal(err)
	}
	return c, lo
}

// freshNetNS returns a file descriptor of a new network namespace (its
// loopback device down, without qdiscs), or skips the test.
func freshNetNS(t *testing.T) int {
	t.Helper()
	fd := make(chan int, 1)
	go func() {
		// The thread ends with this goroutine, so it is never reused in the
		// new namespace.
		runtime.LockOSThread()
		if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
			fd <- -1
			return
		}
		f, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			f = -1
		}
		fd <- f
	}()
	f := <-fd
	if f < 0 {
		hostns.Skip(t, "cannot make a network namespace here")
	}
	t.Cleanup(func() { unix.Close(f) })
	return f
}

// TestPipelineAnswersOnTheHost: in a burst only the last request asks for an
// acknowledgement, so the kernel must answer every refusal by itself, in
// order, and the burst's last answer must come after them.
func TestPipelineAnswersOnTheHost(t *testing.T) {
	c, lo := hostLoopback(t, &Config{NetNS: freshNetNS(t)})
	kind := "pfifo"
	fifo := func(limit uint32) PipelineRequest {
		m := &Msg{}
		m.Header.Ifindex, m.Header.Parent, m.Header.Handle = lo, HandleRoot, MakeHandle(1, 0)
		m.Attrs.Kind = &kind
		m.Attrs.Options = &attrs.TCFifoQopt{Limit: limit}
		return PipelineRequest{Object: Qdisc, Op: Replace, Msg: m}
	}
	bogus := fifo(1)
	bogus.Msg = &Msg{Header: bogus.Msg.Header}
	bogus.Op = Delete
	bogus.Msg.Header.Handle = MakeHandle(0x7b3, 0)
	for _, burst := range [][]PipelineRequest{
		{fifo(10), bogus, fifo(20)},
		{fifo(30), bogus, bogus},
		{bogus, fifo(40), fifo(50), bogus, fifo(60)},
	} {
		var refused []int
		n := 0
		err := c.Pipeline(ctx, slices.Values(burst), len(burst), func(i int, err error) bool {
			n++
			if err != nil {
				refused = append(refused, i)
			}
			return true
		})
		var want []int
		for i, r := range burst {
			if r.Op == Delete {
				want = append(want, i)
			}
		}
		if err != nil || n != len(burst) || !slices.Equal(refused, want) {
			t.Errorf("burst of %d: %d results, refused %v, want %v (%v)", len(burst), n, refused, want, err)
		}
	}
	// The last accepted request of the last burst is what the kernel has.
	limit := int64(-1) // none dumped
	if err := c.Dump(ctx, Qdisc, DumpFilter{Ifindex: lo}, func(m *Msg, _ error) error {
		if o, ok := m.Attrs.Options.(*attrs.TCFifoQopt); ok && m.Kind() == kind {
			limit = int64(o.Limit)
		}
		return nil
	}); err != nil || limit != 60 {
		t.Errorf("pfifo options after the bursts %v (%v), want limit 60", limit, err)
	}
}
