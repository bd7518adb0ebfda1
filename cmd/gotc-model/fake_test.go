// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"fmt"

	"github.com/gotc/gotc/netlink"
)

// fakeKernel records requests and answers dumps from canned messages
// (cmd/gotc's, cut down to what this command asks).
type fakeKernel struct {
	requests []string
	refuse   error
	dump     map[netlink.Object][]*netlink.Msg
	links    map[string]int32
}

func (f *fakeKernel) Do(ctx context.Context, o netlink.Object, op netlink.Op, m *netlink.Msg) error {
	if _, err := netlink.Request(o, op, m); err != nil {
		return err
	}
	f.requests = append(f.requests, fmt.Sprintf("%v %v dev %d handle %#x parent %#x %s", op, o, m.Header.Ifindex, m.Header.Handle, m.Header.Parent, m.Kind()))
	return f.refuse
}

func (f *fakeKernel) Dump(ctx context.Context, o netlink.Object, filter netlink.DumpFilter, fn func(*netlink.Msg, error) error) error {
	for _, m := range f.dump[o] {
		if filter.Ifindex != 0 && m.Header.Ifindex != filter.Ifindex && m.Header.Ifindex != netlink.IfindexBlock {
			continue
		}
		if err := fn(m, nil); err != nil {
			return err
		}
	}
	return nil
}

func (f *fakeKernel) LinkIndex(ctx context.Context, name string) (int32, error) {
	if idx, ok := f.links[name]; ok {
		return idx, nil
	}
	return 0, &netlink.NoDeviceError{Name: name}
}

func (f *fakeKernel) LinkNames(ctx context.Context) (map[int32]string, error) {
	names := map[int32]string{}
	for n, i := range f.links {
		names[i] = n
	}
	return names, nil
}

func (f *fakeKernel) Close() error { return nil }

func newFake() *fakeKernel {
	return &fakeKernel{links: map[string]int32{"eth0": 2, "dummy0": 3}}
}
