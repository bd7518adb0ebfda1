// SPDX-License-Identifier: Apache-2.0

// Package fakekernel is a kernel for the tests of gotc's helper binaries
// (gotc-apply, gotc-model): it checks and records each request, refuses
// them on demand, and answers dumps and device names from canned data.
package fakekernel

import (
	"context"
	"fmt"

	"github.com/gotc/gotc/netlink"
)

// Kernel is the fake; its zero value has no devices (New gives two).
type Kernel struct {
	// Requests are the requests sent, one line each: operation, object,
	// device, handle, parent and kind.
	Requests []string
	// Refuse, when set, is the answer to every request.
	Refuse error
	// Dumps are the messages a dump of each object gives.
	Dumps map[netlink.Object][]*netlink.Msg
	// Links are the devices by name.
	Links map[string]int32
}

// New is a kernel with the devices eth0 (2) and dummy0 (3).
func New() *Kernel {
	return &Kernel{Links: map[string]int32{"eth0": 2, "dummy0": 3}}
}

// Do checks that m makes a request of o and op, records it, and answers
// Refuse.
func (k *Kernel) Do(ctx context.Context, o netlink.Object, op netlink.Op, m *netlink.Msg) error {
	if _, err := netlink.Request(o, op, m); err != nil {
		return err
	}
	k.Requests = append(k.Requests, fmt.Sprintf("%v %v dev %d handle %#x parent %#x %s", op, o, m.Header.Ifindex, m.Header.Handle, m.Header.Parent, m.Kind()))
	return k.Refuse
}

// Dump gives fn the canned messages of o on the filter's device (and
// those of shared blocks).
func (k *Kernel) Dump(ctx context.Context, o netlink.Object, filter netlink.DumpFilter, fn func(*netlink.Msg, error) error) error {
	for _, m := range k.Dumps[o] {
		if filter.Ifindex != 0 && m.Header.Ifindex != filter.Ifindex && m.Header.Ifindex != netlink.IfindexBlock {
			continue
		}
		if err := fn(m, nil); err != nil {
			return err
		}
	}
	return nil
}

// LinkIndex is the index of the device of that name.
func (k *Kernel) LinkIndex(ctx context.Context, name string) (int32, error) {
	if idx, ok := k.Links[name]; ok {
		return idx, nil
	}
	return 0, &netlink.NoDeviceError{Name: name}
}

// LinkNames are the devices' names by index.
func (k *Kernel) LinkNames(ctx context.Context) (map[int32]string, error) {
	names := map[int32]string{}
	for n, i := range k.Links {
		names[i] = n
	}
	return names, nil
}

// Close does nothing.
func (k *Kernel) Close() error { return nil }
