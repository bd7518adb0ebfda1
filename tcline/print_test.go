// SPDX-License-Identifier: Apache-2.0

package tcline

import (
	"context"
	"strings"
	"testing"

	"github.com/gotc/gotc/internal/nlabi"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tcfmt"
)

// TestPrintFilterShown leaves out of a filter's line what the command
// named, and names the device and verb of an announcement.
func TestPrintFilterShown(t *testing.T) {
	m := &netlink.Msg{}
	m.Header.Ifindex, m.Header.Parent, m.Header.Info = 7, ParentIngress, 10<<16|0x0008 // pref 10, protocol ip
	env := PrintEnv{Links: netlink.NewLinks(context.Background(), eth0{})}
	for _, tt := range []struct {
		shown FilterShown
		want  string
	}{
		{FilterShown{Obj: netlink.Filter}, "filter ingress protocol ip pref 10 \n"},
		{FilterShown{Obj: netlink.Filter, Parent: ParentIngress, Prio: 10, Protocol: 0x0800}, "filter \n"},
		{FilterShown{Obj: netlink.Filter, Echo: true, Verb: Verb{Deleted: true}}, "deleted filter dev eth0 ingress protocol ip pref 10 \n"},
		{FilterShown{Obj: netlink.Chain, Echo: true, Verb: Verb{Added: true}}, "added chain dev eth0 ingress \n"},
	} {
		var out strings.Builder
		p := tcfmt.NewPrinter(&out, tcfmt.Options{})
		p.Start()
		PrintFilter(p, m, env, &tt.shown)
		if err := p.Finish(); err != nil {
			t.Fatal(err)
		}
		if out.String() != tt.want {
			t.Errorf("%+v: %q, want %q", tt.shown, out.String(), tt.want)
		}
	}
}

// eth0 is a kernel whose one device is eth0, at ifindex 7.
type eth0 struct{}

func (eth0) LinkIndex(context.Context, string) (int32, error) { return 7, nil }

func (eth0) LinkNames(context.Context) (map[int32]string, error) {
	return map[int32]string{7: "eth0"}, nil
}

// TestPrintEvent: each object's announcement with the verb its flags
// say, and the device named.
func TestPrintEvent(t *testing.T) {
	msg := func(handle, parent uint32, kind string) *netlink.Msg {
		m := &netlink.Msg{}
		m.Header.Ifindex, m.Header.Handle, m.Header.Parent = 7, handle, parent
		m.Attrs.Kind = &kind
		return m
	}
	const created, excl, replace, root = nlabi.NLM_F_CREATE, nlabi.NLM_F_EXCL, nlabi.NLM_F_REPLACE, nlabi.NLM_F_ROOT
	qdisc, class, filter := msg(0x10000, netlink.HandleRoot, "testq"), msg(0x10001, 0x10000, "testq"), msg(1, ParentIngress, "matchall")
	env := PrintEnv{Links: netlink.NewLinks(context.Background(), eth0{})}
	for _, tt := range []struct {
		ev   netlink.Event
		want string
	}{
		{netlink.Event{Object: netlink.Qdisc, Flags: created | excl, Msg: qdisc}, "added qdisc testq 1: dev eth0 root refcnt 0 \n"},
		{netlink.Event{Object: netlink.Qdisc, Flags: created | replace, Msg: qdisc}, "replaced qdisc testq 1: dev eth0 root refcnt 0 \n"},
		{netlink.Event{Object: netlink.Qdisc, Msg: qdisc}, "qdisc testq 1: dev eth0 root refcnt 0 \n"},
		{netlink.Event{Object: netlink.Qdisc, Deleted: true, Flags: created, Msg: qdisc}, "deleted qdisc testq 1: dev eth0 root refcnt 0 \n"},
		{netlink.Event{Object: netlink.Class, Flags: created | excl, Msg: class}, "class testq 1:1 dev eth0 parent 1: \n"},
		{netlink.Event{Object: netlink.Class, Deleted: true, Msg: class}, "deleted class testq 1:1 dev eth0 parent 1: \n"},
		{netlink.Event{Object: netlink.Filter, Flags: created | excl, Msg: filter}, "added filter dev eth0 ingress matchall \n"},
		{netlink.Event{Object: netlink.Filter, Flags: created, Msg: filter}, "replaced filter dev eth0 ingress matchall \n"},
		{netlink.Event{Object: netlink.Filter, Msg: filter}, "filter dev eth0 ingress matchall \n"},
		{netlink.Event{Object: netlink.Chain, Deleted: true, Msg: filter}, "deleted chain dev eth0 ingress matchall \n"},
		{netlink.Event{Object: netlink.Action, Flags: created, Action: &netlink.ActionMsg{}}, "total acts 0\nAdded action "},
		{netlink.Event{Object: netlink.Action, Flags: replace, Action: &netlink.ActionMsg{}}, "total acts 0\nReplaced action "},
		{netlink.Event{Object: netlink.Action, Deleted: true, Action: &netlink.ActionMsg{}}, "total acts 0\nDeleted action "},
		{netlink.Event{Object: netlink.Action, Deleted: true, Flags: root, Action: &netlink.ActionMsg{}}, "total acts 0\nFlushed table "},
		{netlink.Event{Object: netlink.Action, Action: &netlink.ActionMsg{}}, "total acts 0\n"},
	} {
		var out strings.Builder
		p := tcfmt.NewPrinter(&out, tcfmt.Options{})
		p.Start()
		PrintEvent(p, tt.ev, env)
		if err := p.Finish(); err != nil {
			t.Fatal(err)
		}
		if out.String() != tt.want {
			t.Errorf("%v flags %#x deleted %v: %q, want %q", tt.ev.Object, tt.ev.Flags, tt.ev.Deleted, out.String(), tt.want)
		}
	}
}
