// SPDX-License-Identifier: Apache-2.0

package main

// "tc chain": the filter chains of a qdisc or shared block, as tc's
// do_chain runs them through the filter commands' own parsers, with
// RTM_NEWCHAIN, RTM_DELCHAIN and RTM_GETCHAIN. A chain added with a
// filter kind and its options gets that template: every filter later
// added to the chain must be of the kind and match on the same keys.

import (
	"fmt"

	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tcfmt"
)

const chainUsage = `Usage: tc chain [ add | del | get | show ] [ dev STRING ]
       tc chain [ add | del | get | show ] [ block BLOCK_INDEX ] ]
`

func (t *tc) chainCmd(args []string) error {
	if len(args) == 0 {
		return t.filterList(netlink.Chain, nil)
	}
	cmd, rest := args[0], args[1:]
	switch {
	case tcfmt.Matches(cmd, "add"):
		return t.filterModify(netlink.Chain, netlink.Add, rest)
	case tcfmt.Matches(cmd, "delete"):
		return t.filterModify(netlink.Chain, netlink.Delete, rest)
	case tcfmt.Matches(cmd, "get"):
		return t.filterGet(netlink.Chain, rest)
	case tcfmt.Matches(cmd, "list"), tcfmt.Matches(cmd, "show"), tcfmt.Matches(cmd, "lst"):
		return t.filterList(netlink.Chain, rest)
	case tcfmt.Matches(cmd, "help"):
		fmt.Fprint(t.stderr, chainUsage)
		return nil
	}
	fmt.Fprintf(t.stderr, "Command %q is unknown, try \"tc chain help\".\n", cmd)
	return errStatus(exitUsage)
}
