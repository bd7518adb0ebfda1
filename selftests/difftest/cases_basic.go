// SPDX-License-Identifier: Apache-2.0

package main

// basic filters without extended matches: classes, actions, handles.
func init() {
	registerFilters(filterCases{kind: "basic", lines: []string{
		"filter add dev DEV parent 1: protocol ip prio 17 handle 0x10 basic classid 1:1",
		"filter add dev DEV parent 1: basic classid 1:1",
		"filter add dev DEV parent 1: basic flowid 1:1",
		"filter add dev DEV parent 1: prio 5 basic action drop",
		"filter add dev DEV parent 1: handle 12zz basic classid 1:1",
		"filter add dev DEV parent 1: handle 077 basic classid 1:1 action pass",
		"filter add dev DEV parent 1: protocol arp basic classid 1:1 action continue action drop",
		"filter add dev DEV parent 1: basic",
		"filter add dev DEV parent 1: handle 3 basic",
		"filter add dev DEV ingress basic action mirred egress redirect dev IFB",
		"filter add dev DEV ingress protocol ip basic classid ffff:1",
		// Refused by tc or by the kernel.
		"filter add dev DEV parent 1: basic help",
		"filter add dev DEV parent 1: basic foo",
		"filter add dev DEV parent 1: basic classid",
		"filter add dev DEV parent 1: basic classid 1:1:1",
		"filter add dev DEV parent 1: handle 99999999999999999999 basic classid 1:1",
		"filter add dev DEV parent 1: basic action",
	}})
}
