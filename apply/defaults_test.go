// SPDX-License-Identifier: Apache-2.0

package apply

import (
	"testing"

	"github.com/gotc/gotc/netlink"
)

// TestFifoLimit: the kernel's limit of a fifo given none, by device; none
// where gotc cannot tell it.
func TestFifoLimit(t *testing.T) {
	ether := netlink.LinkQueue{TxQueueLen: 32, MTU: 1500, Type: 1}
	for _, tt := range []struct {
		kind  string
		q     netlink.LinkQueue
		limit uint32
		ok    bool
	}{
		{"pfifo", ether, 32, true},
		{"pfifo_head_drop", ether, 32, true},
		{"bfifo", ether, 32 * 1514, true},
		{"bfifo", netlink.LinkQueue{TxQueueLen: 500, MTU: 1420, Type: 0xfffe}, 500 * 1420, true},
		{"bfifo", netlink.LinkQueue{TxQueueLen: 10, MTU: 1500, Type: 768}, 0, false},
		{"pfifo", netlink.LinkQueue{MTU: 1500, Type: 1}, 0, false},
	} {
		if limit, ok := fifoLimit(tt.kind, tt.q); limit != tt.limit || ok != tt.ok {
			t.Errorf("%s on %+v: %d, %v; want %d, %v", tt.kind, tt.q, limit, ok, tt.limit, tt.ok)
		}
	}
}
