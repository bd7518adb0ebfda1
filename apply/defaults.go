// SPDX-License-Identifier: Apache-2.0

package apply

import (
	"context"
	"errors"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tckind"
)

// deviceDefaults writes out, for each qdisc of a device's desired trees,
// the options the kernel fills in from the device (the kind's
// DeviceDefaults: a fifo's limit, ets's quanta), when k is a LinkQueuer,
// so that the plan compares and sends them like options the file gave.
func deviceDefaults(ctx context.Context, k Kernel, d *deviceState) error {
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
		if kind := tckind.LookupQdisc(n.kind); kind != nil && kind.DeviceDefaults != nil {
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
			if opts, words, ok := kind.DeviceDefaults(tckind.Device(*q), n.options); ok {
				n.options, n.words = opts, words
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
