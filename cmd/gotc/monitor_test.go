// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"iter"
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/nlabi"
	"github.com/gotc/gotc/netlink"
)

// eventKernel is a fakeKernel that also announces events, then ends the
// stream as a closed socket would.
type eventKernel struct {
	*fakeKernel
	events []netlink.Event
}

func (k *eventKernel) Events(context.Context) iter.Seq2[netlink.Event, error] {
	return func(yield func(netlink.Event, error) bool) {
		for _, ev := range k.events {
			if !yield(ev, nil) {
				return
			}
		}
	}
}

func tcMsg(ifindex int32, handle, parent uint32, kind string, opts attrs.TCOptionsMsg) *netlink.Msg {
	m := &netlink.Msg{}
	m.Header.Ifindex, m.Header.Handle, m.Header.Parent = ifindex, handle, parent
	m.Attrs.Kind = &kind
	m.Attrs.Options = opts
	return m
}

// TestMonitorPrintsEvents: each kind of announcement, with tc's verb in
// front and the device named.
func TestMonitorPrintsEvents(t *testing.T) {
	limit := uint32(100)
	k := &eventKernel{fakeKernel: newFake(), events: []netlink.Event{
		{Object: netlink.Qdisc, Flags: nlabi.NLM_F_CREATE | nlabi.NLM_F_EXCL,
			Msg: tcMsg(2, 0x10000, netlink.HandleRoot, "pfifo", &attrs.TCFifoQopt{Limit: limit})},
		{Object: netlink.Qdisc, Deleted: true, Msg: tcMsg(3, 0xffff0000, netlink.HandleIngress, "ingress", nil)},
		{Object: netlink.Class, Deleted: true, Msg: tcMsg(2, 0x10001, 0x10000, "htb", nil)},
		{Object: netlink.Filter, Flags: nlabi.NLM_F_CREATE | nlabi.NLM_F_EXCL,
			Msg: tcMsg(2, 1, 0xffff0000, "matchall", nil)},
		{Object: netlink.Action, Deleted: true, Action: &netlink.ActionMsg{}},
	}}
	var stdout, stderr strings.Builder
	status := run([]string{"gotc", "monitor"}, nil, &stdout, &stderr, func(int) (conn, error) { return k, nil })
	want := "added qdisc pfifo 1: dev eth0 root refcnt 0 limit 100p\n" +
		"deleted qdisc ingress ffff: dev dummy0 parent ffff:fff1 refcnt 0 \n" +
		"deleted class htb 1:1 dev eth0 parent 1: \n" +
		"added filter dev eth0 parent ffff: matchall \n" +
		"total acts 0\nDeleted action "
	if status != 0 || stdout.String() != want || stderr.String() != "" {
		t.Errorf("status %d\nstdout %q\nwant   %q\nstderr %q", status, stdout.String(), want, stderr.String())
	}
	stdout.Reset()
	stderr.Reset()
	status = run([]string{"gotc", "monitor", "file", "x"}, nil, &stdout, &stderr, func(int) (conn, error) { return k, nil })
	if status != exitUsage {
		t.Errorf("monitor file: status %d", status)
	}
}
