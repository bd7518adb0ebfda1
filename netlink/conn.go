package netlink

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"syscall"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/nlabi"
	mnl "github.com/mdlayher/netlink"
)

// Conn is an rtnetlink connection for traffic-control requests and dumps.
// A Conn is not safe for concurrent use.
type Conn struct {
	nl       *mnl.Conn
	rawTried bool
	rawSock  *rawSocket // see raw.go; nil on a socket without a descriptor
}

// Config chooses where a Conn operates.
type Config struct {
	// NetNS is an open file descriptor of the network namespace to work in;
	// 0 means the caller's.
	NetNS int
}

// Dial opens an rtnetlink socket with extended acknowledgements (so kernel
// refusals carry their message) and strict dump checking enabled.
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
	return &Conn{nl: nl}, nil
}

// NewConn wraps an existing netlink connection, for example one from
// github.com/mdlayher/netlink/nltest in tests.
func NewConn(nl *mnl.Conn) *Conn { return &Conn{nl: nl} }

// Close closes the connection.
func (c *Conn) Close() error { return c.nl.Close() }

// Error is a request the kernel refused.
type Error struct {
	// Errno is the kernel's error number.
	Errno syscall.Errno
	// Message is the extended-ack message, "" when the kernel gave none.
	Message string
}

func (e *Error) Error() string {
	if e.Message != "" {
		return e.Message
	}
	return e.Errno.Error()
}

// Unwrap lets errors.Is match the errno.
func (e *Error) Unwrap() error { return e.Errno }

// kernelError turns mdlayher's error into *Error where the kernel answered.
func kernelError(err error) error {
	var op *mnl.OpError
	if !errors.As(err, &op) {
		return err
	}
	var errno syscall.Errno
	if !errors.As(op.Err, &errno) || op.Op != "receive" {
		return err
	}
	return &Error{Errno: errno, Message: op.Message}
}

// Do sends one change request for object o and waits for the kernel's answer.
func (c *Conn) Do(o Object, op Op, m *Msg) error {
	msgType, flags, err := o.request(op)
	if err != nil {
		return err
	}
	payload, err := m.MarshalBinary()
	if err != nil {
		return err
	}
	_, _, err = c.exchange(msgType, nlabi.NLM_F_ACK|flags, payload)
	return err
}

// DoWarning is Do that also returns the warning the kernel's acknowledgement
// of a success carried ("" without one), which tc prints as "Warning: ...".
func (c *Conn) DoWarning(o Object, op Op, m *Msg) (string, error) {
	msgType, flags, err := o.request(op)
	if err != nil {
		return "", err
	}
	payload, err := m.MarshalBinary()
	if err != nil {
		return "", err
	}
	typ, data, err := c.exchange(msgType, nlabi.NLM_F_ACK|flags, payload)
	if err != nil || typ != nlabi.NLMSG_ERROR {
		return "", err
	}
	return string(data), nil
}

// Get asks for the one object of type o that m names (as tc's "filter
// get" and "chain get" ask, see GetRequest) and returns the kernel's answer.
func (c *Conn) Get(o Object, m *Msg) (*Msg, error) {
	req, err := GetRequest(o, m)
	if err != nil {
		return nil, err
	}
	// NLM_F_ACK as well: the kernel answers a qdisc get it will not show (an
	// invisible default qdisc) with nothing at all, not even an error
	// (tc_get_qdisc drops qdisc_get_notify's), so without an acknowledgement
	// the get would wait forever. A reply comes before the acknowledgement,
	// which a later exchange skips by its sequence number.
	typ, data, err := c.exchange(uint16(req.Header.Type), nlabi.NLM_F_ECHO|nlabi.NLM_F_ACK, req.Data)
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
func (c *Conn) DoEcho(o Object, op Op, m *Msg) (*Msg, uint16, error) {
	msgType, flags, err := o.request(op)
	if err != nil {
		return nil, 0, err
	}
	payload, err := m.MarshalBinary()
	if err != nil {
		return nil, 0, err
	}
	typ, data, err := c.echoExchange(msgType, flags, payload)
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
func (f DumpFilter) match(m *Msg) bool {
	return (f.Ifindex == 0 || m.Header.Ifindex == f.Ifindex || m.Header.Ifindex == IfindexBlock) &&
		(f.Handle == 0 || m.Header.Handle == f.Handle)
}

// Dump asks the kernel for all objects of type o that match f and calls fn for
// each, as the replies arrive. A message that does not decode is passed to fn
// with what could be decoded and its error in decodeErr, so one odd object never
// hides the others. Dump stops early, returning fn's error, if fn fails.
//
// m is reused from one call of fn to the next (the values its pointers point
// to are not): fn must copy what it keeps of m itself.
func (c *Conn) Dump(o Object, f DumpFilter, fn func(m *Msg, decodeErr error) error) error {
	return c.dumpInto(nil, o, f, fn)
}

// DumpReusing is Dump for a caller that keeps nothing of m: m and the values
// it points to are reused from one call of fn to the next, so a dump of
// thousands of objects allocates next to nothing. It is for listings that
// print each object and forget it.
func (c *Conn) DumpReusing(o Object, f DumpFilter, fn func(m *Msg, decodeErr error) error) error {
	return c.dumpInto(new(attrs.Decoder), o, f, fn)
}

// dumpInto is Dump, decoding with d when it is not nil.
func (c *Conn) dumpInto(d *attrs.Decoder, o Object, f DumpFilter, fn func(m *Msg, decodeErr error) error) error {
	newType, _, getType := o.msgTypes()
	hdr := Msg{}
	hdr.Header.Ifindex = f.Ifindex
	hdr.Header.Parent = f.Parent
	hdr.Attrs.DumpInvisible = f.Invisible
	payload, _ := hdr.MarshalBinary()
	var m Msg
	return c.dump(getType, newType, payload, func(data []byte) error {
		// The kernel dumps every device's qdiscs whatever the request
		// names: look at the header before decoding the attributes.
		if err := m.Header.Decode(data); err == nil && !f.match(&m) {
			return nil
		}
		return fn(&m, m.unmarshal(d, data))
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
func (c *Conn) QdiscPlaces(fn func(QdiscPlace)) error {
	newType, _, getType := Qdisc.msgTypes()
	payload, _ := (&Msg{}).MarshalBinary()
	var h attrs.TCMsg
	var kinds []string // the few kinds seen, so that each is allocated once
	return c.dump(getType, newType, payload, func(data []byte) error {
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
