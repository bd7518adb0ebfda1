// SPDX-License-Identifier: Apache-2.0

package netlink

import (
	"context"
	"encoding/binary"
	"errors"
	"slices"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/nlabi"
	mnl "github.com/mdlayher/netlink"
	"github.com/mdlayher/netlink/nltest"
	"golang.org/x/sys/unix"
)

func ptr[T any](v T) *T { return &v }

func qdiscMsg(ifindex int32, handle uint32, kind string, opts attrs.TCOptionsMsg) *Msg {
	m := &Msg{}
	m.Header.Ifindex = ifindex
	m.Header.Handle = handle
	m.Header.Parent = HandleRoot
	m.Attrs.Kind = &kind
	m.Attrs.Options = opts
	return m
}

func TestRequestFlags(t *testing.T) {
	for _, tc := range []struct {
		obj   Object
		op    Op
		typ   uint16
		flags mnl.HeaderFlags
	}{
		{Qdisc, Add, nlabi.RTM_NEWQDISC, nlabi.NLM_F_CREATE | nlabi.NLM_F_EXCL},
		{Qdisc, Change, nlabi.RTM_NEWQDISC, 0},
		{Qdisc, Replace, nlabi.RTM_NEWQDISC, nlabi.NLM_F_CREATE | nlabi.NLM_F_REPLACE},
		{Qdisc, Link, nlabi.RTM_NEWQDISC, nlabi.NLM_F_REPLACE},
		{Qdisc, Delete, nlabi.RTM_DELQDISC, 0},
		{Class, Add, nlabi.RTM_NEWTCLASS, nlabi.NLM_F_CREATE | nlabi.NLM_F_EXCL},
		{Class, Replace, nlabi.RTM_NEWTCLASS, nlabi.NLM_F_CREATE},
		{Filter, Delete, nlabi.RTM_DELTFILTER, 0},
	} {
		req, err := Request(tc.obj, tc.op, qdiscMsg(1, 0x10000, "cake", nil))
		if err != nil {
			t.Fatal(err)
		}
		if uint16(req.Header.Type) != tc.typ || req.Header.Flags != mnl.Request|mnl.Acknowledge|tc.flags {
			t.Errorf("%s %s: type %d flags %#x", tc.obj, tc.op, req.Header.Type, req.Header.Flags)
		}
	}
	if _, err := Request(Class, Link, &Msg{}); err == nil {
		t.Error("class link accepted")
	}
}

func TestDoSendsMessageAndReturnsExtack(t *testing.T) {
	var got []byte
	nl := nltest.Dial(func(reqs []mnl.Message) ([]mnl.Message, error) {
		got = reqs[0].Data
		return nltest.Error(int(unix.EINVAL), reqs)
	})
	c := NewConn(nl)
	defer c.Close()
	m := qdiscMsg(3, 0x10000, "dualpi2", &attrs.DualPI2Attrs{Limit: ptr(uint32(100))})
	err := c.Do(ctx, Qdisc, Add, m)
	var kerr *Error
	if !errors.As(err, &kerr) || kerr.Errno != unix.EINVAL {
		t.Fatalf("err = %v", err)
	}
	want, _ := m.MarshalBinary()
	if string(got) != string(want) {
		t.Errorf("sent % x\nwant % x", got, want)
	}
	var back Msg
	if err := back.UnmarshalBinary(got); err != nil {
		t.Fatal(err)
	}
	if back.Header.Ifindex != 3 || back.Kind() != "dualpi2" || *back.Attrs.Options.(*attrs.DualPI2Attrs).Limit != 100 {
		t.Errorf("decoded request %+v", back)
	}
}

// extackError builds an NLMSG_ERROR reply with an extended-ack message, as the
// kernel sends for a refused request.
func extackError(req mnl.Message, errno unix.Errno, msg string) mnl.Message {
	b := binary.NativeEndian.AppendUint32(nil, uint32(-int32(errno)))
	hdr := make([]byte, 16)
	binary.NativeEndian.PutUint32(hdr, uint32(16+len(req.Data)))
	binary.NativeEndian.PutUint16(hdr[4:], uint16(req.Header.Type))
	b = append(b, hdr...)
	b = append(b, req.Data...)
	e := attrs.NewEncoder(b)
	e.String(nlabi.NLMSGERR_ATTR_MSG, msg)
	return mnl.Message{
		Header: mnl.Header{Type: mnl.Error, Flags: mnl.HeaderFlags(nlabi.NLM_F_ACK_TLVS), Sequence: req.Header.Sequence, PID: req.Header.PID},
		Data:   e.Bytes(),
	}
}

func TestKernelRefusalCarriesExtackMessage(t *testing.T) {
	nl := nltest.Dial(func(reqs []mnl.Message) ([]mnl.Message, error) {
		return []mnl.Message{extackError(reqs[0], unix.EINVAL, "Specified qdisc kind is unknown")}, nil
	})
	c := NewConn(nl)
	err := c.Do(ctx, Qdisc, Add, qdiscMsg(1, 0, "nosuch", nil))
	var kerr *Error
	if !errors.As(err, &kerr) || kerr.Message != "Specified qdisc kind is unknown" || !errors.Is(err, unix.EINVAL) {
		t.Fatalf("err = %#v", err)
	}
}

func dumpReply(req mnl.Message, msgs ...*Msg) []mnl.Message {
	var out []mnl.Message
	for _, m := range msgs {
		b, _ := m.MarshalBinary()
		out = append(out, mnl.Message{Header: mnl.Header{Type: nlabi.RTM_NEWQDISC, Flags: mnl.Multi, Sequence: req.Header.Sequence}, Data: b})
	}
	return append(out, mnl.Message{Header: mnl.Header{Type: mnl.Done, Flags: mnl.Multi, Sequence: req.Header.Sequence}, Data: make([]byte, 4)})
}

func TestDumpKeepsUnknownKindsAndAttributes(t *testing.T) {
	cake := qdiscMsg(2, 0x10000, "cake", &attrs.CakeAttrs{BaseRate64: ptr(uint64(1000))})
	cake.Attrs.Unknown = []attrs.Attribute{{Type: 200, Data: []byte{1, 2, 3, 4}}}
	sfq := qdiscMsg(2, 0x20000, "sfq", attrs.TCOptionsMsgRaw{0, 0, 0, 0})
	other := qdiscMsg(5, 0x30000, "dualpi2", &attrs.DualPI2Attrs{})
	var dumpReq mnl.Message
	nl := nltest.Dial(func(reqs []mnl.Message) ([]mnl.Message, error) {
		dumpReq = reqs[0]
		return dumpReply(reqs[0], cake, sfq, other), nil
	})
	c := NewConn(nl)
	var kinds []string
	err := c.Dump(ctx, Qdisc, DumpFilter{Ifindex: 2}, func(m *Msg, decodeErr error) error {
		if decodeErr != nil {
			t.Errorf("decode: %v", decodeErr)
		}
		kinds = append(kinds, m.Kind())
		if m.Kind() == "cake" && len(m.Attrs.Unknown) != 1 {
			t.Errorf("unknown attribute lost: %+v", m.Attrs.Unknown)
		}
		if m.Kind() == "sfq" {
			if _, ok := m.Attrs.Options.(attrs.TCOptionsMsgRaw); !ok {
				t.Errorf("sfq options = %#v", m.Attrs.Options)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(kinds) != 2 || kinds[0] != "cake" || kinds[1] != "sfq" {
		t.Errorf("kinds = %v (the other device's qdisc must be filtered out)", kinds)
	}
	if dumpReq.Header.Flags&mnl.Dump != mnl.Dump || uint16(dumpReq.Header.Type) != nlabi.RTM_GETQDISC {
		t.Errorf("dump request header %+v", dumpReq.Header)
	}
	var hdr attrs.TCMsg
	if err := hdr.Decode(dumpReq.Data); err != nil || hdr.Ifindex != 2 {
		t.Errorf("dump request tcmsg %+v, %v", hdr, err)
	}
}

// TestDumpInvisibleRequest: "invisible" adds tc's empty TCA_DUMP_INVISIBLE
// after the tcmsg; without it the request is the bare tcmsg.
func TestDumpInvisibleRequest(t *testing.T) {
	var reqs []mnl.Message
	nl := nltest.Dial(func(r []mnl.Message) ([]mnl.Message, error) {
		reqs = append(reqs, r[0])
		return dumpReply(r[0]), nil
	})
	c := NewConn(nl)
	for _, f := range []DumpFilter{{Ifindex: 2}, {Ifindex: 2, Invisible: true}} {
		if err := c.Dump(ctx, Qdisc, f, func(*Msg, error) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	flag := binary.NativeEndian.AppendUint16(binary.NativeEndian.AppendUint16(nil, 4), attrs.TCADumpInvisible)
	if len(reqs) != 2 || len(reqs[0].Data) != attrs.TCMsgLen || string(reqs[1].Data[attrs.TCMsgLen:]) != string(flag) {
		t.Errorf("dump requests %+v", reqs)
	}
}

// TestDumpReusingDecodesAsDump: DumpReusing hands fn the same messages as
// Dump, in memory it reuses from one message to the next.
func TestDumpReusingDecodesAsDump(t *testing.T) {
	msgs := []*Msg{
		qdiscMsg(2, 0x10000, "cake", &attrs.CakeAttrs{BaseRate64: ptr(uint64(1000))}),
		qdiscMsg(3, 0x20000, "dualpi2", &attrs.DualPI2Attrs{Limit: ptr(uint32(7))}),
		qdiscMsg(4, 0x30000, "cake", &attrs.CakeAttrs{RTT: ptr(uint32(5))}),
		qdiscMsg(5, 0x40000, "sfq", attrs.TCOptionsMsgRaw{1, 2, 3, 4}),
	}
	c := NewConn(nltest.Dial(func(reqs []mnl.Message) ([]mnl.Message, error) {
		return dumpReply(reqs[0], msgs...), nil
	}))
	collect := func(dump func(context.Context, Object, DumpFilter, func(*Msg, error) error) error) (out []string, options []attrs.TCOptionsMsg) {
		err := dump(ctx, Qdisc, DumpFilter{}, func(m *Msg, decodeErr error) error {
			b, err := m.MarshalBinary()
			if decodeErr != nil || err != nil {
				t.Fatalf("%v, %v", decodeErr, err)
			}
			out = append(out, string(b))
			options = append(options, m.Attrs.Options)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out, options
	}
	want, _ := collect(c.Dump)
	got, options := collect(c.DumpReusing)
	if !slices.Equal(got, want) || len(got) != len(msgs) {
		t.Errorf("DumpReusing gave %q\nDump gave %q", got, want)
	}
	if options[0] != options[2] {
		t.Error("the second cake's options were not decoded into the first one's memory")
	}
}

func TestQdiscPlaces(t *testing.T) {
	root := qdiscMsg(2, 0x10000, "mq", nil)
	leaf := qdiscMsg(2, 0x80010000, "dualpi2", &attrs.DualPI2Attrs{Limit: ptr(uint32(5))})
	leaf.Header.Parent = 0x10003
	other := qdiscMsg(7, 0x20000, "dualpi2", nil)
	nl := nltest.Dial(func(reqs []mnl.Message) ([]mnl.Message, error) {
		return dumpReply(reqs[0], root, leaf, other), nil
	})
	var got []QdiscPlace
	if err := NewConn(nl).QdiscPlaces(ctx, func(p QdiscPlace) { got = append(got, p) }); err != nil {
		t.Fatal(err)
	}
	want := []QdiscPlace{
		{Ifindex: 2, Handle: 0x10000, Parent: HandleRoot, Kind: "mq"},
		{Ifindex: 2, Handle: 0x80010000, Parent: 0x10003, Kind: "dualpi2"},
		{Ifindex: 7, Handle: 0x20000, Parent: HandleRoot, Kind: "dualpi2"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

func TestDumpPassesUndecodableMessagesOn(t *testing.T) {
	good := qdiscMsg(1, 0x10000, "cake", nil)
	nl := nltest.Dial(func(reqs []mnl.Message) ([]mnl.Message, error) {
		msgs := dumpReply(reqs[0], good, good)
		msgs[0].Data = append(msgs[0].Data, 9, 0) // a truncated trailing attribute
		return msgs, nil
	})
	var errs, seen int
	err := NewConn(nl).Dump(ctx, Qdisc, DumpFilter{}, func(m *Msg, decodeErr error) error {
		seen++
		if decodeErr != nil {
			errs++
		}
		return nil
	})
	if err != nil || seen != 2 || errs != 1 {
		t.Fatalf("err %v, seen %d, decode errors %d", err, seen, errs)
	}
}

// ctx is the context of calls that need no deadline.
var ctx = context.Background()
