// SPDX-License-Identifier: Apache-2.0

// Package netlink sends traffic-control requests (qdiscs, classes, filters,
// chains, actions) to the kernel over rtnetlink and decodes its replies,
// dumps and announcements into the types of package attrs.
//
// It is a thin layer on github.com/mdlayher/netlink:
//
//   - A Conn is one rtnetlink socket, dialled in the caller's network
//     namespace (Dial) or in another one (OpenNetNS, OpenNetNSPath,
//     OpenNetNSPid or NetNSFromFD, then NetNS.Dial), without moving the
//     caller's thread.
//   - Every call that talks to the kernel takes a context.Context; its
//     deadline or cancellation ends a pending receive and leaves the Conn
//     usable (see Conn).
//   - Requests (Do, DoEcho, Get, Pipeline, DoAction)
//     carry the tcmsg header and the attributes of attrs.TCAttrs. A refusal
//     is an *Error with the errno, the extended-ack message and the
//     offending attribute's offset, and matches ErrNotFound, ErrExists,
//     ErrBusy, ErrNotSupported or ErrInvalid with errors.Is.
//   - Dumps come as an iterator of messages the caller keeps (Msgs: one
//     consistent pass, retried when the kernel flags it interrupted) or
//     streamed into a callback (Dump, DumpReusing: one pass, so that a dump
//     of thousands of qdiscs never has to be held in memory at once).
//   - Events streams what tc monitor shows: the kernel's announcements of
//     added, changed and deleted objects.
package netlink

import (
	"errors"
	"fmt"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/nlabi"
)

// Msg is one traffic-control message: the tcmsg header and its attributes.
type Msg struct {
	Header attrs.TCMsg
	Attrs  attrs.TCAttrs
}

// MarshalBinary encodes m as the payload of a netlink message.
func (m *Msg) MarshalBinary() ([]byte, error) {
	return m.AppendBinary(make([]byte, 0, 256))
}

// AppendBinary appends the encoding of m to b.
func (m *Msg) AppendBinary(b []byte) ([]byte, error) {
	b = m.Header.Append(b)
	e := attrs.NewEncoder(b)
	m.Attrs.Encode(e)
	return e.Bytes(), nil
}

// UnmarshalBinary decodes a netlink message payload into m. Attributes it does
// not understand are kept in m.Attrs' Unknown fields; only a payload that is not
// a tcmsg followed by well-formed attributes is an error.
func (m *Msg) UnmarshalBinary(b []byte) error { return m.unmarshal(nil, b) }

// unmarshal is UnmarshalBinary, into d's memory when d is not nil.
func (m *Msg) unmarshal(d *attrs.Decoder, b []byte) error {
	if err := m.Header.Decode(b); err != nil {
		return err
	}
	var err error
	if d != nil {
		err = d.DecodeTCAttrs(&m.Attrs, b[attrs.TCMsgLen:])
	} else {
		err = m.Attrs.Decode(b[attrs.TCMsgLen:])
	}
	if err != nil {
		return fmt.Errorf("tc message of ifindex %d handle %#x: %w", m.Header.Ifindex, m.Header.Handle, err)
	}
	return nil
}

// Kind returns the message's TCA_KIND, or "" if it has none.
func (m *Msg) Kind() string {
	if m.Attrs.Kind == nil {
		return ""
	}
	return *m.Attrs.Kind
}

// Object is what a request or dump is about.
type Object int

// The objects of traffic control, each with its own rtnetlink message types.
const (
	Qdisc Object = iota
	Class
	Filter
	// Chain is a filter chain of a qdisc or shared block, with its
	// template (a filter kind and options its filters must fit).
	Chain
	// Action is a standalone action ("tc actions"). Its messages are
	// ActionMsg, sent with DoAction and dumped with DumpActions; Action
	// names them in an Event.
	Action
)

// String is tc's word for the object ("qdisc", "class", ...).
func (o Object) String() string {
	switch o {
	case Qdisc:
		return "qdisc"
	case Class:
		return "class"
	case Filter:
		return "filter"
	case Chain:
		return "chain"
	case Action:
		return "action"
	}
	return fmt.Sprintf("Object(%d)", int(o))
}

// msgTypes are the rtnetlink message types of an object: new, delete, get.
func (o Object) msgTypes() (newType, delType, getType uint16) {
	switch o {
	case Class:
		return nlabi.RTM_NEWTCLASS, nlabi.RTM_DELTCLASS, nlabi.RTM_GETTCLASS
	case Filter:
		return nlabi.RTM_NEWTFILTER, nlabi.RTM_DELTFILTER, nlabi.RTM_GETTFILTER
	case Chain:
		return nlabi.RTM_NEWCHAIN, nlabi.RTM_DELCHAIN, nlabi.RTM_GETCHAIN
	case Action:
		return nlabi.RTM_NEWACTION, nlabi.RTM_DELACTION, nlabi.RTM_GETACTION
	}
	return nlabi.RTM_NEWQDISC, nlabi.RTM_DELQDISC, nlabi.RTM_GETQDISC
}

// Op is a change request, named after tc's commands.
type Op int

// The requests tc makes, with the netlink flags tc gives them.
const (
	// Add creates the object and fails if it exists (NLM_F_CREATE|NLM_F_EXCL).
	Add Op = iota
	// Change modifies an existing object (no flags).
	Change
	// Replace creates the object or replaces an existing one
	// (NLM_F_CREATE|NLM_F_REPLACE for qdiscs, NLM_F_CREATE for classes and filters).
	Replace
	// Link attaches an existing qdisc elsewhere (NLM_F_REPLACE); qdiscs only.
	Link
	// Delete removes the object.
	Delete
	// ChangeCreate is Change with NLM_F_CREATE: it modifies the object, or
	// creates it when there is none. tc sends it for a "change" whose
	// options ask for creation (gred's setup).
	ChangeCreate
)

// String is tc's verb for the operation; ChangeCreate is a "change".
func (op Op) String() string {
	switch op {
	case Add:
		return "add"
	case Change:
		return "change"
	case Replace:
		return "replace"
	case Link:
		return "link"
	case Delete:
		return "delete"
	case ChangeCreate:
		return "change"
	}
	return fmt.Sprintf("Op(%d)", int(op))
}

// request returns the message type and the netlink flags (beyond
// NLM_F_REQUEST|NLM_F_ACK) of op on object o.
func (o Object) request(op Op) (msgType uint16, flags uint16, err error) {
	if o == Action {
		return 0, 0, errors.New("netlink: actions take DoAction's requests")
	}
	newType, delType, _ := o.msgTypes()
	switch op {
	case Add:
		return newType, nlabi.NLM_F_CREATE | nlabi.NLM_F_EXCL, nil
	case Change:
		return newType, 0, nil
	case ChangeCreate:
		return newType, nlabi.NLM_F_CREATE, nil
	case Replace:
		if o == Qdisc {
			return newType, nlabi.NLM_F_CREATE | nlabi.NLM_F_REPLACE, nil
		}
		return newType, nlabi.NLM_F_CREATE, nil
	case Link:
		if o != Qdisc {
			return 0, 0, fmt.Errorf("netlink: %s does not support link", o)
		}
		return newType, nlabi.NLM_F_REPLACE, nil
	case Delete:
		return delType, 0, nil
	}
	return 0, 0, fmt.Errorf("netlink: unknown op %d", int(op))
}

// Special parent values (linux/pkt_sched.h).
const (
	// HandleRoot is the parent of a device's root qdisc.
	HandleRoot uint32 = 0xFFFFFFFF
	// HandleIngress is the parent of the ingress and clsact qdiscs.
	HandleIngress uint32 = 0xFFFFFFF1
)

// IfindexBlock is the tcm_ifindex (TCM_IFINDEX_MAGIC_BLOCK) of a filter or
// chain message about a shared block rather than a device's qdisc; its
// tcm_parent is then the block's index.
const IfindexBlock int32 = -1

// MakeHandle builds a handle from its major and minor numbers.
func MakeHandle(major, minor uint16) uint32 { return uint32(major)<<16 | uint32(minor) }
