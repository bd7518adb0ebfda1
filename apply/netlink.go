// SPDX-License-Identifier: Apache-2.0

package apply

import (
	"context"
	"errors"
	"iter"

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

// LinkQueue implements LinkQueuer when the connection does, and fails
// with errors.ErrUnsupported when it does not.
func (k KernelConn) LinkQueue(ctx context.Context, ifindex int32) (netlink.LinkQueue, error) {
	if q, ok := k.Conn.(LinkQueuer); ok {
		return q.LinkQueue(ctx, ifindex)
	}
	return netlink.LinkQueue{}, errors.ErrUnsupported
}
