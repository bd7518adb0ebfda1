// SPDX-License-Identifier: Apache-2.0

package main

// fw filters: marks with and without masks in every base, classes, input
// devices, actions; the router and ISP shaper forms; and what tc refuses.
func init() {
	registerFilters(filterCases{kind: "fw", lines: []string{
		"filter add dev DEV parent 1: protocol ip prio 4 handle 9 fw classid 1:1 police rate 1mbit burst 10k drop indev lo action pass",
		"filter add dev DEV parent 1: protocol ip prio 1 handle 1 fw classid 1:1",
		"filter add dev DEV parent 1: protocol ip prio 10 handle 0x10 fw flowid 1:1",
		"filter add dev DEV parent 1: protocol all prio 2 handle 5/0xff fw classid 1:1",
		"filter add dev DEV parent 1: protocol ip prio 3 handle 0xa1b2cdff/0x1a2bffdc fw classid 1:1",
		"filter add dev DEV parent 1: protocol ip prio 3 handle 4294967295/4294967295 fw classid 1:1",
		"filter add dev DEV parent 1: handle 7 fw classid 1:1 indev IFB",
		"filter add dev DEV parent 1: handle 7 fw classid 1:1 indev lo action drop",
		"filter add dev DEV ingress prio 1 handle 1 fw action ok",
		"filter add dev DEV ingress handle 010/0 fw action pipe action drop",
		"filter add dev DEV ingress handle 3 fw classid ffff:ffff action continue index 5",
		"filter add dev DEV ingress handle 3 fw classid 98765fedcb action mirred egress redirect dev IFB",
		"filter add dev DEV ingress protocol arp prio 5 handle 7 fw action gact drop cookie aa11bb22",
		"filter add dev DEV ingress handle 2 fw flowid 10 classid 4 action goto chain 5",
		"filter add dev DEV parent 1: handle 9 fw f 1:1",
		// Refused by tc or by the kernel.
		"filter add dev DEV parent 1: handle 1 fw",
		"filter add dev DEV parent 1: fw classid 1:1",
		"filter add dev DEV parent 1: handle 4294967296 fw classid 1:1",
		"filter add dev DEV parent 1: handle 10/4294967296 fw classid 1:1",
		"filter add dev DEV parent 1: handle 1/x fw classid 1:1",
		"filter add dev DEV parent 1: handle x fw classid 1:1",
		"filter add dev DEV parent 1: handle 1 fw classid 6789defg",
		"filter add dev DEV parent 1: handle 1 fw classid",
		"filter add dev DEV parent 1: handle 1 fw bogus",
		"filter add dev DEV parent 1: handle 1 fw indev",
		"filter add dev DEV parent 1: handle 1 fw help",
		"filter add dev DEV parent 1: handle 1 fw action",
		"filter add dev DEV ingress handle 1 fw action pump",
		"filter add dev DEV parent 1: handle 1 fw classid 1:1 indev nosuch",
	}})
}
