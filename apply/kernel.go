// SPDX-License-Identifier: Apache-2.0

package apply

import (
	"context"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/netlink"
)

// Kernel is every kernel access apply makes, each bounded by its ctx.
// KernelConn implements it over a netlink.Conn; tests implement it over a
// fake state.
type Kernel interface {
	// LinkIndex is the ifindex of the device called name.
	LinkIndex(ctx context.Context, name string) (int32, error)
	// LinkNames names every device by ifindex (for the devices that
	// filters' actions refer to).
	LinkNames(ctx context.Context) (map[int32]string, error)
	// Dump returns the qdiscs or classes of a device (parent 0), or the
	// filters attached to parent. The messages are the caller's to keep.
	Dump(ctx context.Context, obj netlink.Object, ifindex int32, parent uint32) ([]netlink.Msg, error)
	// Do sends one change request and waits for the kernel's answer: its
	// refusal, or the warning its acknowledgement carried ("" for none),
	// which tc prints as "Warning: ...".
	Do(ctx context.Context, obj netlink.Object, op netlink.Op, m *netlink.Msg) (warning string, err error)
	// DumpActions returns every action of a kind ("tc actions list
	// action KIND"), with its index and references.
	DumpActions(ctx context.Context, kind string) ([]attrs.ActAttrs, error)
	// DoAction sends one request about standalone actions and waits for
	// the kernel's answer, as Do.
	DoAction(ctx context.Context, op netlink.ActionOp, m *netlink.ActionMsg) (warning string, err error)
}

// kernelLinks names the devices of k for the kinds whose options refer to
// one, as tc names them.
func kernelLinks(ctx context.Context, k Kernel) *netlink.Links {
	return netlink.NewLinks(ctx, k)
}

// LinkQueuer is a Kernel that also tells a device's queue settings
// (netlink.Conn's LinkQueue; KernelConn passes them on when its Conn has
// them). The kernel's limit of a fifo qdisc given none derives from them:
// with a LinkQueuer, Compute writes that limit out for a pfifo, bfifo or
// pfifo_head_drop of the file without one, so that a limit the file
// stops naming goes back to its default. Without, such a fifo is in sync
// whatever its limit.
type LinkQueuer interface {
	LinkQueue(ctx context.Context, ifindex int32) (netlink.LinkQueue, error)
}
