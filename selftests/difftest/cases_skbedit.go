// SPDX-License-Identifier: Apache-2.0

package main

// skbedit actions: every field, masks, packet types, verdicts; and what tc
// refuses.
func init() {
	registerFilters(filterCases{kind: "skbedit", lines: []string{
		"filter add dev DEV ingress protocol all matchall action skbedit mark 1",
		"filter add dev DEV ingress protocol all matchall action skbedit mark 5/0xff",
		"filter add dev DEV ingress protocol all matchall action skbedit priority 1:2",
		"filter add dev DEV ingress protocol all matchall action skbedit queue_mapping 3 drop",
		"filter add dev DEV ingress protocol all matchall action skbedit ptype host",
		"filter add dev DEV ingress protocol all matchall action skbedit ptype otherhost pipe index 9",
		"filter add dev DEV ingress protocol all matchall action skbedit ptype b",
		"filter add dev DEV ingress protocol all matchall action skbedit ptype multicast continue",
		"filter add dev DEV ingress protocol all matchall action skbedit inheritdsfield",
		"filter add dev DEV parent 1: basic action skbedit queue_mapping 2 priority 10 mark 7/0xaabbccdd ptype host inheritdsfield index 3",
		"filter add dev DEV parent 1: protocol ip prio 1 u32 match ip dport 80 0xffff action skbedit priority 1:1 goto chain 4",
		"actions add action skbedit mark 4294967295 pipe index 1",
		"actions add action skbedit priority 16 continue index 32 cookie deadbeef",
		"actions add action skbedit priority 8 jump 9 index 2",
		"actions add action skbedit mark 0x10/0xf0 reclassify",
		// Refused by tc or by the kernel.
		"actions add action skbedit",
		"actions add action skbedit mark 666777888999",
		"actions add action skbedit mark 1/-1234",
		"actions add action skbedit queue_mapping 67000",
		"actions add action skbedit ptype openair",
		"actions add action skbedit prio foo",
		"actions add action skbedit mark 1 index x",
		"actions add action skbedit drop",
	}})
}
