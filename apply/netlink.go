// SPDX-License-Identifier: Apache-2.0

package apply

import (
	"context"
	"errors"
	"iter"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/netlink"
)

// KernelConn is the Kernel of a netlink connection: the one file that knows
// the connection's API.
type KernelConn struct{ Conn Conn }

// Conn is what KernelConn asks of a netlink connection: a *netlink.Conn,
// or a fake of one in tests.
type Conn interface {
	LinkIndex(ctx context.Context, name string) (int32, error)
	LinkNames(ctx context.Context) (map[int32]string, error)
	Msgs(ctx context.Context, o netlink.Object, f netlink.DumpFilter) iter.Seq2[*netlink.Msg, error]
	DoWarning(ctx context.Context, o netlink.Object, op netlink.Op, m *netlink.Msg) (string, error)
}

// LinkIndex implements Kernel.
func (k KernelConn) LinkIndex(ctx context.Context, name string) (int32, error) {
	return k.Conn.LinkIndex(ctx, name)
}

// LinkNames implements Kernel.
func (k KernelConn) LinkNames(ctx context.Context) (map[int32]string, error) {
	return k.Conn.LinkNames(ctx)
}

// Dump implements Kernel: one consistent pass (Msgs retries a dump the
// kernel marks interrupted), the messages the caller's to keep.
func (k KernelConn) Dump(ctx context.Context, obj netlink.Object, ifindex int32, parent uint32) ([]netlink.Msg, error) {
	var msgs []netlink.Msg
	for m, err := range k.Conn.Msgs(ctx, obj, netlink.DumpFilter{Ifindex: ifindex, Parent: parent}) {
		if err != nil {
			return nil, err // comparing with half a tree would plan wrong changes
		}
		msgs = append(msgs, *m)
	}
	return msgs, nil
}

// Do implements Kernel.
func (k KernelConn) Do(ctx context.Context, obj netlink.Object, op netlink.Op, m *netlink.Msg) (string, error) {
	return k.Conn.DoWarning(ctx, obj, op, m)
}

// ActionConn is what KernelConn asks of a connection for the standalone
// actions: a *netlink.Conn has it.
type ActionConn interface {
	DumpActions(ctx context.Context, m *netlink.ActionMsg, fn func(m *netlink.ActionMsg, decodeErr error) error) error
	DoActionWarning(ctx context.Context, op netlink.ActionOp, m *netlink.ActionMsg) (string, error)
}

// actFlagLargeDump is TCA_ACT_FLAG_LARGE_DUMP_ON: a dump message holds as
// many actions as fit, not 32.
const actFlagLargeDump = 1

// DumpActions implements Kernel when the connection is an ActionConn, and
// fails with errors.ErrUnsupported when it is not.
func (k KernelConn) DumpActions(ctx context.Context, kind string) ([]attrs.ActAttrs, error) {
	ac, ok := k.Conn.(ActionConn)
	if !ok {
		return nil, errors.ErrUnsupported
	}
	m := &netlink.ActionMsg{Attrs: attrs.ActRootAttrs{
		Tab:   []attrs.ActAttrs{{Kind: &kind}},
		Flags: &attrs.Bitfield32{Value: actFlagLargeDump, Selector: actFlagLargeDump},
	}}
	var out []attrs.ActAttrs
	err := ac.DumpActions(ctx, m, func(a *netlink.ActionMsg, decodeErr error) error {
		if decodeErr != nil {
			return decodeErr
		}
		out = append(out, a.Attrs.Tab...)
		return nil
	})
	return out, err
}

// DoAction implements Kernel when the connection is an ActionConn, and
// fails with errors.ErrUnsupported when it is not.
func (k KernelConn) DoAction(ctx context.Context, op netlink.ActionOp, m *netlink.ActionMsg) (string, error) {
	ac, ok := k.Conn.(ActionConn)
	if !ok {
		return "", errors.ErrUnsupported
	}
	return ac.DoActionWarning(ctx, op, m)
}

// LinkQueue implements LinkQueuer when the connection does, and fails
// with errors.ErrUnsupported when it does not.
func (k KernelConn) LinkQueue(ctx context.Context, ifindex int32) (netlink.LinkQueue, error) {
	if q, ok := k.Conn.(LinkQueuer); ok {
		return q.LinkQueue(ctx, ifindex)
	}
	return netlink.LinkQueue{}, errors.ErrUnsupported
}
