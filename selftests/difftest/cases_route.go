// SPDX-License-Identifier: Apache-2.0

package main

// route filters: to and from realms (numbers and tc's built-in name),
// input devices, orders, explicit handles, actions; and what tc refuses.
func init() {
	registerFilters(filterCases{kind: "route", lines: []string{
		"filter add dev DEV parent 1: protocol ip prio 100 route to 10 classid 1:1 police rate 2mbit burst 20k conform-exceed pipe/drop action pass",
		"filter add dev DEV parent 1: protocol ip prio 100 route from 1 to 10 classid 1:1",
		"filter add dev DEV parent 1: protocol ip prio 100 route to 10 from 1 flowid 1:1",
		"filter add dev DEV parent 1: protocol ip prio 1 route to 0x20 classid 1:1",
		"filter add dev DEV parent 1: protocol ip prio 1 route from 255 classid 1:1",
		"filter add dev DEV parent 1: protocol ip prio 1 route fromif IFB to 3 classid 1:1",
		"filter add dev DEV parent 1: protocol ip prio 1 route fromif lo classid 1:1",
		"filter add dev DEV parent 1: protocol ip prio 1 route to unknown classid 1:1",
		"filter add dev DEV parent 1: protocol ip prio 1 route to 5 order 3 classid 1:1",
		"filter add dev DEV parent 1: protocol ip prio 1 handle 0x10005 route to 5 from 1 classid 1:1",
		"filter add dev DEV ingress protocol ip prio 2 route to 10 classid 1:20 action reclassify",
		"filter add dev DEV ingress protocol ip prio 2 route from 10 to 2 classid 1:1 action pipe action gact drop",
		"filter add dev DEV ingress protocol ip prio 2 route from 10 action mirred egress redirect dev IFB",
		"filter add dev DEV ingress protocol ip route t 1 fr 2 c 1:1 a ok",
		// Refused by tc or by the kernel.
		"filter add dev DEV parent 1: protocol ip prio 1 route",
		"filter add dev DEV parent 1: protocol ip prio 1 route to 256 classid 1:1",
		"filter add dev DEV parent 1: protocol ip prio 1 route to cosmos classid 1:1",
		"filter add dev DEV parent 1: protocol ip prio 1 route from -1 classid 1:1",
		"filter add dev DEV parent 1: protocol ip prio 1 route fromif nosuch classid 1:1",
		"filter add dev DEV parent 1: protocol ip prio 1 route to",
		"filter add dev DEV parent 1: protocol ip prio 1 route order x to 1",
		"filter add dev DEV parent 1: protocol ip prio 1 route to 1 bogus",
		"filter add dev DEV parent 1: protocol ip prio 1 route help",
		"filter add dev DEV parent 1: protocol ip prio 1 route to 1 classid 1:1 action",
		"filter add dev DEV parent 1: protocol ip prio 1 handle x route to 1",
	}})
}
