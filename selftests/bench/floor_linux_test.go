// SPDX-License-Identifier: Apache-2.0

package main

import (
	"testing"

	"github.com/gotc/gotc/netlink"
)

// TestRequest checks that the floor sends what the batch lines say: object,
// operation, device, parent and handle (hex, with or without 0x), kind;
// and, as gotc reads the lines, the operation a kind's options make it
// (gred's setup creates).
func TestRequest(t *testing.T) {
	index := map[string]int32{"isp0": 7}
	for _, c := range []struct {
		line           string
		object         netlink.Object
		op             netlink.Op
		parent, handle uint32
		kind           string
	}{
		{"qdisc replace dev isp0 root handle 7FFF: mq", netlink.Qdisc, netlink.Replace, netlink.HandleRoot, 0x7fff0000, "mq"},
		{"qdisc add dev isp0 parent 7FFF:0x3 handle 0x3: htb default 2", netlink.Qdisc, netlink.Add, 0x7fff0003, 0x30000, "htb"},
		{"class change dev isp0 classid 0x2:0x9 htb rate 15.0mbit ceil 60.0mbit prio 3 quantum 1514", netlink.Class, netlink.Change, 0, 0x20009, "htb"},
		{"qdisc del dev isp0 parent 0x2:0x9", netlink.Qdisc, netlink.Delete, 0x20009, 0, ""},
		{"class del dev isp0 classid 0x2:0x9", netlink.Class, netlink.Delete, 0, 0x20009, ""},
		{"qdisc change dev isp0 root handle 1: gred setup vqs 4 default 1", netlink.Qdisc, netlink.ChangeCreate, netlink.HandleRoot, 0x10000, "gred"},
	} {
		r := request(c.line, index)
		m := r.Msg
		kind := ""
		if m.Attrs.Kind != nil {
			kind = *m.Attrs.Kind
		}
		if r.Object != c.object || r.Op != c.op || m.Header.Ifindex != 7 || m.Header.Parent != c.parent || m.Header.Handle != c.handle || kind != c.kind {
			t.Errorf("%q: %v %v ifindex %d parent %#x handle %#x kind %q", c.line, r.Object, r.Op, m.Header.Ifindex, m.Header.Parent, m.Header.Handle, kind)
		}
		if c.kind == "htb" && m.Attrs.Options == nil {
			t.Errorf("%q: no options", c.line)
		}
	}
}
