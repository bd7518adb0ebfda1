// SPDX-License-Identifier: Apache-2.0

package main

import (
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/netlink"
)

// TestUnknownKind: a kind gotc has no module for prints what tc prints for
// a kind it has none for (the options' length, inside the JSON too), and
// the rest of the dump goes on.
func TestUnknownKind(t *testing.T) {
	k := newFake()
	str := func(s string) *string { return &s }
	k.dump = map[netlink.Object][]*netlink.Msg{
		netlink.Qdisc: {
			{Header: attrs.TCMsg{Ifindex: 2, Handle: 0x10000, Parent: netlink.HandleRoot, Info: 2},
				Attrs: attrs.TCAttrs{Kind: str("foo"), Options: attrs.TCOptionsMsgRaw{1, 2, 3, 4, 5, 6, 7, 8}}},
			{Header: attrs.TCMsg{Ifindex: 2, Handle: 0x20000, Parent: 0x10001, Info: 1},
				Attrs: attrs.TCAttrs{Kind: str("bar")}},
			{Header: attrs.TCMsg{Ifindex: 2, Handle: 0x30000, Parent: 0x10002, Info: 1},
				Attrs: attrs.TCAttrs{Kind: str("pfifo"), Options: &attrs.TCFifoQopt{Limit: 5}}},
		},
		netlink.Class: {
			{Header: attrs.TCMsg{Ifindex: 2, Handle: 0x10001, Parent: netlink.HandleRoot},
				Attrs: attrs.TCAttrs{Kind: str("foo"), Options: attrs.TCOptionsMsgRaw{1, 2, 3, 4}}},
		},
	}
	for _, c := range []struct{ line, stdout, stderr string }{
		{"qdisc show dev eth0",
			"qdisc foo 1: root refcnt 2 [Unknown qdisc, optlen=8] \n" +
				"qdisc bar 2: parent 1:1 \n" +
				"qdisc pfifo 3: parent 1:2 limit 5p\n", ""},
		{"-j qdisc show dev eth0",
			`[{"kind":"foo","handle":"1:","root":true,"refcnt":2,"options":{[Unknown qdisc, optlen=8] }},` +
				`{"kind":"bar","handle":"2:","parent":"1:1","options":{}},` +
				`{"kind":"pfifo","handle":"3:","parent":"1:2","options":{"limit":5}}]` + "\n", ""},
		{"class show dev eth0", "class foo 1:1 root \n", "[cannot parse class parameters]"},
	} {
		status, stdout, stderr := gotc(k, c.line)
		if status != 0 || stdout != c.stdout || stderr != c.stderr {
			t.Errorf("%s: exit %d\n%s(stderr %q)\nwant:\n%s(stderr %q)", c.line, status, stdout, stderr, c.stdout, c.stderr)
		}
	}
}
