// SPDX-License-Identifier: Apache-2.0

package apply

import (
	"context"
	"errors"
	"strconv"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/netlink"
)

// fifoKinds are the fifo qdiscs whose limit, given none, the kernel
// derives from the device (__fifo_init): pfifo's and pfifo_head_drop's is
// its transmit queue length, bfifo's that many frames of psched_mtu (the
// MTU and the link-layer header) bytes.
var fifoKinds = map[string]bool{"pfifo": true, "bfifo": true, "pfifo_head_drop": true}

// linkHeaders is the link-layer header length (hard_header_len) of the
// hardware types whose length gotc knows: Ethernet's (ifb, veth, dummy,
// bridges and most NICs) and loopback's, 14 bytes; none for devices
// without one (tun, WireGuard).
var linkHeaders = map[uint16]uint32{1: 14, 772: 14, 0xfffe: 0}

// fifoDefaults writes out, for each fifo of a device's desired trees
// written without a limit, the limit the kernel gives it (when k is a
// LinkQueuer, and for bfifo on a device whose link-layer header gotc
// knows), so that the plan compares and sends it like one the file gave.
func fifoDefaults(ctx context.Context, k Kernel, d *deviceState) error {
	lq, ok := k.(LinkQueuer)
	if !ok {
		return nil
	}
	var q *netlink.LinkQueue
	var walk func(n *qdiscNode) error
	var walkClass func(c *classNode) error
	walk = func(n *qdiscNode) error {
		if n == nil {
			return nil
		}
		if fifoKinds[n.kind] && n.options == nil && len(n.words) == 0 {
			if q == nil {
				got, err := lq.LinkQueue(ctx, d.ifindex)
				if errors.Is(err, errors.ErrUnsupported) {
					return nil
				}
				if err != nil {
					return err
				}
				q = &got
			}
			if limit, ok := fifoLimit(n.kind, *q); ok {
				n.options = &attrs.TCFifoQopt{Limit: limit}
				n.words = []string{"limit", strconv.FormatUint(uint64(limit), 10)}
			}
		}
		for _, c := range n.classes {
			if err := walkClass(c); err != nil {
				return err
			}
		}
		return nil
	}
	walkClass = func(c *classNode) error {
		if err := walk(c.leaf); err != nil {
			return err
		}
		for _, ch := range c.children {
			if err := walkClass(ch); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(d.root)
}

// fifoLimit is the limit the kernel gives a fifo of kind on a device of
// q; false for a bfifo on a device whose link-layer header gotc does not
// know, and on a device without a transmit queue length (where kernels
// differ: 0, or 1), for which a limit of 0 sent would drop everything.
func fifoLimit(kind string, q netlink.LinkQueue) (uint32, bool) {
	if q.TxQueueLen == 0 {
		return 0, false
	}
	if kind != "bfifo" {
		return q.TxQueueLen, true
	}
	hh, known := linkHeaders[q.Type]
	if !known {
		return 0, false
	}
	return q.TxQueueLen * (q.MTU + hh), true
}
