// SPDX-License-Identifier: Apache-2.0

package netlink

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/nlabi"
	mnl "github.com/mdlayher/netlink"
)

// Conn is an rtnetlink connection for traffic-control requests and dumps.
// A Conn is not safe for concurrent use.
//
// Every method that talks to the kernel takes a context: its deadline, or
// its cancellation, ends a pending receive, and the method returns the
// context's error (errors.Is(err, context.DeadlineExceeded) or
// context.Canceled). The Conn stays usable: an answer that arrives late is
// skipped (each request has its own sequence number), and a dump abandoned
// before its end is drained, under the next call's context, before that
// call sends anything (the kernel refuses a new dump on a socket whose
// dump is unfinished). A context without a deadline that can never be
// cancelled (context.Background) costs nothing.
type Conn struct {
	nl   *mnl.Conn  // nil for a Conn over a bare socket (the tests' fake kernel)
	sock *rawSocket // see raw.go; nil on a socket without a descriptor (nltest)
	// unfinishedDump is the sequence number of a dump abandoned before its
	// end, 0 for none.
	unfinishedDump uint32
}

// Config chooses where a Conn operates.
type Config struct {
	// NetNS is an open file descriptor of the network namespace to work in;
	// 0 means the caller's. NetNS.Dial fills it in.
	NetNS int
}

// Dial opens an rtnetlink socket with extended acknowledgements (so kernel
// refusals carry their message) and strict dump checking enabled. It makes
// no request: the socket is ready when it returns.
func Dial(cfg *Config) (*Conn, error) {
	var mcfg mnl.Config
	if cfg != nil {
		mcfg.NetNS = cfg.NetNS
	}
	nl, err := mnl.Dial(nlabi.NETLINK_ROUTE, &mcfg)
	if err != nil {
		return nil, fmt.Errorf("cannot open rtnetlink socket: %w", err)
	}
	if err := nl.SetOption(mnl.ExtendedAcknowledge, true); err != nil {
		nl.Close()
		return nil, fmt.Errorf("cannot enable extended acks: %w", err)
	}
	// Strict checking makes the kernel reject malformed dump requests instead
	// of silently ignoring their filters. Kernels before 4.20 lack it; dumps
	// still work there, filtered on our side.
	_ = nl.SetOption(mnl.GetStrictCheck, true)
	return NewConn(nl), nil
}

// NewConn wraps an existing netlink connection, for example one from
// github.com/mdlayher/netlink/nltest in tests. Over a socket without a file
// descriptor (nltest's) a context is only checked before each call: such a
// socket never blocks.
func NewConn(nl *mnl.Conn) *Conn { return &Conn{nl: nl, sock: newRawSocket(nl)} }

// Close closes the connection.
func (c *Conn) Close() error {
	if c.nl == nil {
		return c.sock.close()
	}
	return c.nl.Close()
}

// Do sends one change request for object o and waits for the kernel's answer.
func (c *Conn) Do(ctx context.Context, o Object, op Op, m *Msg) error {
	msgType, flags, err := o.request(op)
	if err != nil {
		return err
	}
	payload, err := m.MarshalBinary()
	if err != nil {
		return err
	}
	_, _, err = c.exchange(ctx, msgType, nlabi.NLM_F_ACK|flags, payload)
	return err
}

// DoWarning is Do that also returns the warning the kernel's acknowledgement
// of a success carried ("" without one), which tc prints as "Warning: ...".
func (c *Conn) DoWarning(ctx context.Context, o Object, op Op, m *Msg) (string, error) {
	msgType, flags, err := o.request(op)
	if err != nil {
		return "", err
	}
	payload, err := m.MarshalBinary()
	if err != nil {
		return "", err
	}
	typ, data, err := c.exchange(ctx, msgType, nlabi.NLM_F_ACK|flags, payload)
	if err != nil || typ != nlabi.NLMSG_ERROR {
		return "", err
	}
	return string(data), nil
}

// Get asks for the one object of type o that m names (as tc's "filter
// get" and "chain get" ask, see GetRequest) and returns the kernel's answer.
func (c *Conn) Get(ctx context.Context, o Object, m *Msg) (*Msg, error) {
	req, err := GetRequest(o, m)
	if err != nil {
		return nil, err
	}
	// NLM_F_ACK as well: the kernel answers a qdisc get it will not show (an
	// invisible default qdisc) with nothing at all, not even an error
	// (tc_get_qdisc drops qdisc_get_notify's), so without an acknowledgement
	// the get would wait forever. A reply comes before the acknowledgement,
	// which a later exchange skips by its sequence number.
	typ, data, err := c.exchange(ctx, uint16(req.Header.Type), nlabi.NLM_F_ECHO|nlabi.NLM_F_ACK, req.Data)
	if err != nil {
		return nil, err
	}
	// The kernel answers a filter get as a new filter, a chain get with
	// the get's own type.
	if newType, _, getType := o.msgTypes(); typ != newType && typ != getType {
		return nil, fmt.Errorf("netlink: no %s in the kernel's answer", o)
	}
	var answer Msg
	if err := answer.UnmarshalBinary(data); err != nil {
		return nil, err
	}
	return &answer, nil
}

// GetRequest builds the netlink message of a get, as Get sends it: the
// object's RTM_GET* type with NLM_F_ECHO (which old kernels needed to
// answer at all) and without NLM_F_ACK.
func GetRequest(o Object, m *Msg) (mnl.Message, error) {
	_, _, getType := o.msgTypes()
	data, err := m.MarshalBinary()
	if err != nil {
		return mnl.Message{}, err
	}
	return mnl.Message{
		Header: mnl.Header{Type: mnl.HeaderType(getType), Flags: mnl.Request | mnl.Echo},
		Data:   data,
	}, nil
}

// DoEcho is Do with NLM_F_ECHO, as tc's -echo: besides its
// acknowledgement the kernel sends the object as the request left it (of
// o's new or delete type, which DoEcho returns too); nil when it sent
// none.
func (c *Conn) DoEcho(ctx context.Context, o Object, op Op, m *Msg) (*Msg, uint16, error) {
	msgType, flags, err := o.request(op)
	if err != nil {
		return nil, 0, err
	}
	payload, err := m.MarshalBinary()
	if err != nil {
		return nil, 0, err
	}
	typ, data, err := c.echoExchange(ctx, msgType, flags, payload)
	if err != nil || data == nil {
		return nil, 0, err
	}
	var answer Msg
	if err := answer.UnmarshalBinary(data); err != nil {
		return nil, 0, err
	}
	return &answer, typ, nil
}

// Request builds the netlink message of a change request, as Do sends it.
func Request(o Object, op Op, m *Msg) (mnl.Message, error) {
	msgType, flags, err := o.request(op)
	if err != nil {
		return mnl.Message{}, err
	}
	data, err := m.MarshalBinary()
	if err != nil {
		return mnl.Message{}, err
	}
	return mnl.Message{
		Header: mnl.Header{
			Type:  mnl.HeaderType(msgType),
			Flags: mnl.Request | mnl.Acknowledge | mnl.HeaderFlags(flags),
		},
		Data: data,
	}, nil
}

// DumpFilter narrows a dump. Zero fields match everything.
type DumpFilter struct {
	// Ifindex limits the dump to one device.
	Ifindex int32
	// Parent limits a class or filter dump to one parent (the kernel needs it
	// for filters: it names the qdisc or class whose filters to list).
	Parent uint32
	// Handle limits a dump to one object.
	Handle uint32
	// Invisible asks for the qdiscs the kernel hides from a dump
	// (TCA_DUMP_INVISIBLE, tc's "invisible"): the default leaves it makes
	// itself, such as htb's and qfq's pfifos.
	Invisible bool
}

// match reports whether a dumped message is one f asks for. A filter or
// chain of a shared block comes without a device (IfindexBlock) whichever
// device's qdisc it was listed through.
func (f DumpFilter) match(h attrs.TCMsg) bool {
	return (f.Ifindex == 0 || h.Ifindex == f.Ifindex || h.Ifindex == IfindexBlock) &&
		(f.Handle == 0 || h.Handle == f.Handle)
}

// Dump asks the kernel for all objects of type o that match f and calls fn for
// each, as the replies arrive. A message that does not decode is passed to fn
// with what could be decoded and its error in decodeErr, so one odd object never
// hides the others. Dump stops early, returning fn's error, if fn fails.
//
// Dump streams one pass and does not retry: if the kernel flags the dump
// interrupted (NLM_F_DUMP_INTR, the objects changed while it was read), fn
// has seen every object of that pass and Dump returns an error that is
// ErrDumpInterrupted. Msgs retries instead, and yields only a complete pass.
// fn must not use c: the socket is in the middle of the dump.
//
// m is reused from one call of fn to the next (the values its pointers point
// to are not): fn must copy what it keeps of m itself.
func (c *Conn) Dump(ctx context.Context, o Object, f DumpFilter, fn func(m *Msg, decodeErr error) error) error {
	return c.dumpInto(ctx, nil, o, f, fn)
}

// DumpReusing is Dump for a caller that keeps nothing of m: m and the values
// it points to are reused from one call of fn to the next, so a dump of
// thousands of objects allocates next to nothing. It is for listings that
// print each object and forget it.
func (c *Conn) DumpReusing(ctx context.Context, o Object, f DumpFilter, fn func(m *Msg, decodeErr error) error) error {
	return c.dumpInto(ctx, new(attrs.Decoder), o, f, fn)
}

// DumpFunc is the signature of Conn.Dump and Conn.DumpReusing.
type DumpFunc func(ctx context.Context, o Object, f DumpFilter, fn func(m *Msg, decodeErr error) error) error

// Dumper is what dumps as Conn.Dump does: a *Conn, or a fake of one.
type Dumper interface {
	Dump(ctx context.Context, o Object, f DumpFilter, fn func(m *Msg, decodeErr error) error) error
}

// ReusingDumper is what can dump into reused memory, as Conn.DumpReusing
// does.
type ReusingDumper interface {
	DumpReusing(ctx context.Context, o Object, f DumpFilter, fn func(m *Msg, decodeErr error) error) error
}

// ReusingDumpOf is d's DumpReusing where d is a ReusingDumper, else its
// Dump: the dump for a consumer that keeps nothing of the messages and takes
// any source of dumps (a *Conn in use, a fake in tests).
func ReusingDumpOf(d Dumper) DumpFunc {
	if r, ok := d.(ReusingDumper); ok {
		return r.DumpReusing
	}
	return d.Dump
}

// dumpInto is Dump, decoding with d when it is not nil.
func (c *Conn) dumpInto(ctx context.Context, d *attrs.Decoder, o Object, f DumpFilter, fn func(m *Msg, decodeErr error) error) error {
	var m Msg
	return c.dumpRaw(ctx, o, f, func(data []byte) error {
		return fn(&m, m.unmarshal(d, data))
	})
}

// dumpRaw dumps the objects of type o that f matches and passes each
// one's payload to fn, undecoded.
func (c *Conn) dumpRaw(ctx context.Context, o Object, f DumpFilter, fn func(data []byte) error) error {
	if o == Action {
		return errors.New("netlink: actions have their own dump, DumpActions")
	}
	newType, _, getType := o.msgTypes()
	hdr := Msg{}
	hdr.Header.Ifindex = f.Ifindex
	hdr.Header.Parent = f.Parent
	hdr.Attrs.DumpInvisible = f.Invisible
	payload, _ := hdr.MarshalBinary()
	var h attrs.TCMsg
	return c.dump(ctx, getType, newType, payload, func(data []byte) error {
		// The kernel dumps every device's qdiscs whatever the request
		// names: look at the header before anything else.
		if err := h.Decode(data); err == nil && !f.match(h) {
			return nil
		}
		return fn(data)
	})
}

// QdiscPlace is where a qdisc sits and what kind it is: a dump entry
// without its options or statistics.
type QdiscPlace struct {
	Ifindex int32
	Handle  uint32
	Parent  uint32
	Kind    string
}

// QdiscPlaces dumps every qdisc of every device and calls fn with each one's
// place and kind. It decodes nothing else, so it costs a client little more
// than reading the dump.
func (c *Conn) QdiscPlaces(ctx context.Context, fn func(QdiscPlace)) error {
	newType, _, getType := Qdisc.msgTypes()
	payload, _ := (&Msg{}).MarshalBinary()
	var h attrs.TCMsg
	var kinds []string // the few kinds seen, so that each is allocated once
	return c.dump(ctx, getType, newType, payload, func(data []byte) error {
		if h.Decode(data) != nil {
			return nil // not a qdisc message: nothing to report
		}
		place := QdiscPlace{Ifindex: h.Ifindex, Handle: h.Handle, Parent: h.Parent}
		if v, ok := findAttr(data[attrs.TCMsgLen:], nlabi.TCA_KIND); ok {
			v = bytes.TrimRight(v, "\x00")
			for _, k := range kinds {
				if k == string(v) {
					place.Kind = k
					break
				}
			}
			if place.Kind == "" {
				place.Kind = string(v)
				kinds = append(kinds, place.Kind)
			}
		}
		fn(place)
		return nil
	})
}

// findAttr returns the payload of the first attribute of type typ in b,
// walking no further than it (tc messages put TCA_KIND first; extended acks
// are short), and false if there is none before the end or a malformed one.
func findAttr(b []byte, typ uint16) ([]byte, bool) {
	for len(b) >= 4 {
		l := int(binary.NativeEndian.Uint16(b))
		if l < 4 || l > len(b) {
			return nil, false
		}
		if binary.NativeEndian.Uint16(b[2:])&^(attrs.FlagNested|attrs.FlagNetByteOrder) == typ {
			return b[4:l], true
		}
		b = b[min(len(b), (l+3)&^3):]
	}
	return nil, false
}

// msgChunk is how many of Msgs' messages are allocated together: one
// allocation instead of 64, at the price that a caller keeping one message
// keeps the memory of its chunk's others (not the values they point to).
const msgChunk = 64

// dumpAttempts bounds Msgs' passes over a dump the kernel keeps flagging
// interrupted.
const dumpAttempts = 3

// Msgs dumps the objects of type o that match f, as Dump does, and yields
// them one by one, each its own *Msg that the caller may keep.
//
// Msgs reads each pass of the dump whole before it yields anything: if the
// kernel flags a pass interrupted (NLM_F_DUMP_INTR), Msgs drops it and
// dumps again, up to 3 passes, so the caller sees exactly one consistent
// pass, never a mix; after 3 interrupted passes it yields only an error
// that is ErrDumpInterrupted. Because the socket is idle while Msgs yields,
// the loop body may use c (for a Get, say).
//
// An error with a nil *Msg ends the sequence (the kernel's refusal, ctx's
// end, a socket failure). An error with a non-nil *Msg is an object that
// did not decode fully, given with what could be decoded; the sequence goes
// on if the loop does.
func (c *Conn) Msgs(ctx context.Context, o Object, f DumpFilter) iter.Seq2[*Msg, error] {
	return func(yield func(*Msg, error) bool) {
		// Each message is decoded as it arrives, into memory of its own
		// (the decoded values copy what they keep of the datagram), so
		// a pass is held decoded rather than copied and decoded after:
		// copying 20,000 classes into one growing buffer was most of the
		// bytes a dump allocated, and a quarter of its time. A keeping
		// Decoder allocates the values of many messages together.
		type decoded struct {
			m   *Msg
			err error
		}
		var pass []decoded
		var err error
		for range dumpAttempts {
			clear(pass) // an interrupted pass's messages are garbage
			pass = pass[:0]
			var msgs []Msg // allocated msgChunk at a time
			d := attrs.NewKeepingDecoder()
			err = c.dumpRaw(ctx, o, f, func(data []byte) error {
				if len(msgs) == cap(msgs) {
					msgs = make([]Msg, 0, msgChunk)
				}
				msgs = msgs[:len(msgs)+1]
				m := &msgs[len(msgs)-1]
				pass = append(pass, decoded{m, m.unmarshal(d, data)})
				return nil
			})
			if !errors.Is(err, ErrDumpInterrupted) {
				break
			}
		}
		if err != nil {
			yield(nil, err)
			return
		}
		for _, d := range pass {
			if !yield(d.m, d.err) {
				return
			}
		}
	}
}
