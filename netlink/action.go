// SPDX-License-Identifier: Apache-2.0

package netlink

import (
	"context"
	"errors"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/nlabi"
	mnl "github.com/mdlayher/netlink"
)

// ActionMsg is a message about standalone actions ("tc actions"): the
// struct tcamsg header, which holds only the family (AF_UNSPEC, zero), and
// the TCA_ROOT_* attributes.
type ActionMsg struct {
	Attrs attrs.ActRootAttrs
}

// tcamsgLen is sizeof(struct tcamsg): family, two bytes of padding.
const tcamsgLen = 4

// AppendBinary appends the encoding of m to b.
func (m *ActionMsg) AppendBinary(b []byte) ([]byte, error) {
	e := attrs.NewEncoder(append(b, make([]byte, tcamsgLen)...))
	m.Attrs.Encode(e)
	return e.Bytes(), nil
}

// UnmarshalBinary decodes a message's payload into m.
func (m *ActionMsg) UnmarshalBinary(b []byte) error {
	if len(b) < tcamsgLen {
		return errors.New("netlink: action message shorter than struct tcamsg")
	}
	m.Attrs = attrs.ActRootAttrs{}
	return m.Attrs.Decode(b[tcamsgLen:])
}

// ActionOp is a request about standalone actions, named after tc's
// commands, with the netlink flags tc gives it.
type ActionOp int

// The requests of "tc actions".
const (
	// ActionAdd creates actions (RTM_NEWACTION, NLM_F_CREATE|NLM_F_EXCL).
	ActionAdd ActionOp = iota
	// ActionReplace creates or replaces them (NLM_F_CREATE|NLM_F_REPLACE),
	// for "change" and "replace" alike.
	ActionReplace
	// ActionDelete deletes the actions named by kind and index
	// (RTM_DELACTION).
	ActionDelete
	// ActionFlush deletes every action of a kind (RTM_DELACTION,
	// NLM_F_ROOT).
	ActionFlush
)

func (op ActionOp) request() (msgType, flags uint16) {
	switch op {
	case ActionAdd:
		return nlabi.RTM_NEWACTION, nlabi.NLM_F_CREATE | nlabi.NLM_F_EXCL
	case ActionReplace:
		return nlabi.RTM_NEWACTION, nlabi.NLM_F_CREATE | nlabi.NLM_F_REPLACE
	case ActionFlush:
		return nlabi.RTM_DELACTION, nlabi.NLM_F_ROOT
	}
	return nlabi.RTM_DELACTION, 0
}

// DoAction sends one change request about actions and waits for the
// kernel's acknowledgement; a refusal is an *Error.
func (c *Conn) DoAction(ctx context.Context, op ActionOp, m *ActionMsg) error {
	msgType, flags := op.request()
	payload, _ := m.AppendBinary(nil)
	_, _, err := c.exchange(ctx, msgType, nlabi.NLM_F_ACK|flags, payload)
	return err
}

// DoActionWarning is DoAction that also returns the warning the kernel's
// acknowledgement of a success carried ("" without one), which tc prints
// as "Warning: ..." (pedit's "Unsupported pedit command offload", for one).
func (c *Conn) DoActionWarning(ctx context.Context, op ActionOp, m *ActionMsg) (string, error) {
	msgType, flags := op.request()
	payload, _ := m.AppendBinary(nil)
	typ, data, err := c.exchange(ctx, msgType, nlabi.NLM_F_ACK|flags, payload)
	if err != nil || typ != nlabi.NLMSG_ERROR {
		return "", err
	}
	return string(data), nil
}

// ActionRequest builds the netlink message of a change request about
// actions, as DoAction sends it.
func ActionRequest(op ActionOp, m *ActionMsg) mnl.Message {
	msgType, flags := op.request()
	payload, _ := m.AppendBinary(nil)
	return mnl.Message{
		Header: mnl.Header{
			Type:  mnl.HeaderType(msgType),
			Flags: mnl.Request | mnl.Acknowledge | mnl.HeaderFlags(flags),
		},
		Data: payload,
	}
}

// GetAction asks for the actions m names by kind and index (RTM_GETACTION
// without NLM_F_ACK, as tc sends it) and returns the kernel's answer.
func (c *Conn) GetAction(ctx context.Context, m *ActionMsg) (*ActionMsg, error) {
	payload, _ := m.AppendBinary(nil)
	typ, data, err := c.exchange(ctx, nlabi.RTM_GETACTION, 0, payload)
	if err != nil {
		return nil, err
	}
	if typ != nlabi.RTM_GETACTION && typ != nlabi.RTM_NEWACTION {
		return nil, errors.New("netlink: no action in the kernel's answer")
	}
	var answer ActionMsg
	if err := answer.UnmarshalBinary(data); err != nil {
		return nil, err
	}
	return &answer, nil
}

// DumpActions dumps the actions of the kind m names (m also carries the
// dump flags) and calls fn for each message of the dump.
func (c *Conn) DumpActions(ctx context.Context, m *ActionMsg, fn func(m *ActionMsg, decodeErr error) error) error {
	payload, _ := m.AppendBinary(nil)
	var reply ActionMsg
	return c.dump(ctx, nlabi.RTM_GETACTION, nlabi.RTM_GETACTION, payload, func(data []byte) error {
		return fn(&reply, reply.UnmarshalBinary(data))
	})
}
