// SPDX-License-Identifier: Apache-2.0

package main

import (
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tcline"
)

// classList is "tc class show": the classes of one device.
func (t *tc) classList(args []string) error {
	tg, err := tcline.ParseClassShow(args)
	if err != nil {
		return t.parseFailed(err)
	}
	idx, err := t.ifindex(tg.Dev)
	if err != nil {
		return err
	}
	return t.list(netlink.Class, netlink.DumpFilter{Ifindex: idx}, tg.Keeps, func(p *tcfmt.Printer, m *netlink.Msg) {
		tcline.PrintClass(p, m, t.printEnv(), false, tcline.Verb{})
	})
}
