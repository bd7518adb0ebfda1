// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"

	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tcline"
)

const classUsage = `Usage: tc class [ add | del | change | replace | show ] dev STRING
       [ classid CLASSID ] [ root | parent CLASSID ]
       [ [ QDISC_KIND ] [ help | OPTIONS ] ]

       tc class show [ dev STRING ] [ root | parent CLASSID ]
`

func (t *tc) classCmd(args []string) error {
	if len(args) == 0 {
		return t.classList(nil)
	}
	cmd, rest := args[0], args[1:]
	switch {
	case tcfmt.Matches(cmd, "add"):
		return t.modify(netlink.Class, netlink.Add, rest)
	case tcfmt.Matches(cmd, "change"):
		return t.modify(netlink.Class, netlink.Change, rest)
	case tcfmt.Matches(cmd, "replace"):
		return t.modify(netlink.Class, netlink.Replace, rest)
	case tcfmt.Matches(cmd, "delete"):
		return t.modify(netlink.Class, netlink.Delete, rest)
	case tcfmt.Matches(cmd, "list"), tcfmt.Matches(cmd, "show"), tcfmt.Matches(cmd, "lst"):
		return t.classList(rest)
	case tcfmt.Matches(cmd, "help"):
		fmt.Fprint(t.stderr, classUsage)
		return nil
	}
	fmt.Fprintf(t.stderr, "Command %q is unknown, try \"tc class help\".\n", cmd)
	return errStatus(exitUsage)
}

// classList is "tc class show": the classes of one device.
func (t *tc) classList(args []string) error {
	tg, rest, err := t.parseTarget(args, true)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		if rest[0] == "help" {
			fmt.Fprint(t.stderr, classUsage)
			return errStatus(exitUsage)
		}
		fmt.Fprintf(t.stderr, "What is %q? Try \"tc class help\".\n", rest[0])
		return errStatus(exitUsage)
	}
	if tg.dev == "" {
		fmt.Fprintln(t.stderr, "Error: must specify device")
		return errStatus(exitBadOption)
	}
	idx, err := t.ifindex(tg.dev)
	if err != nil {
		return err
	}
	keep := func(m *netlink.Msg) bool {
		return (!tg.parentSet || m.Header.Parent == tg.parent) && (!tg.handleSet || m.Header.Handle == tg.handle)
	}
	return t.list(netlink.Class, netlink.DumpFilter{Ifindex: idx}, keep, func(p *tcfmt.Printer, m *netlink.Msg) {
		tcline.PrintClass(p, m, t.printEnv(), false, tcline.Verb{})
	})
}
