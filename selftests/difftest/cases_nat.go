// SPDX-License-Identifier: Apache-2.0

package main

// nat actions, in filters and alone: both directions, prefixes as lengths
// and masks, default/any/all, verdicts, indexes; and what tc refuses.
func init() {
	registerFilters(filterCases{kind: "nat", lines: []string{
		"actions add action nat ingress 192.168.1.1 200.200.200.1",
		"actions add action nat egress 10.0.0.0/8 20.20.20.1 pipe index 10",
		"actions add action nat egress default 20.20.20.1 continue",
		"actions add action nat ingress 10.1.0.0/255.255.0.0 10.2.0.1 reclassify index 7 cookie 0011",
		"actions add action nat ingress any 10.10.10.1 drop",
		"actions add action nat ingress 0x0a.1.1 10.0.0.1/16",
		"actions add action nat egress all 20.20.20.1 index 4294967295",
		"filter add dev DEV ingress protocol ip matchall action nat ingress 192.0.2.0/24 198.51.100.1",
		"filter add dev DEV parent 1: protocol ip u32 match ip dst 10.0.0.0/8 classid 1:1 action nat egress 10.0.0.0/8 1.2.3.4 pass",
		"filter add dev DEV ingress matchall action nat e 10.0.0.1 10.0.0.2 goto chain 1",
		"filter add dev DEV ingress matchall action nat egress 1.2.3.4/32 5.6.7.8 jump 1 action drop",
		// Refused by tc or by the kernel.
		"actions add action nat ingress 1.1.1.1 1.1888.2.2",
		"actions add action nat sideways 1.1.1.1 2.2.2.2",
		"actions add action nat ingress 1.1.1.1",
		"actions add action nat ingress 1.1.1.0/33 2.2.2.2",
		"actions add action nat ingress 1.1.1.1 2.2.2.2 index 4294967296",
		"actions add action nat ingress 1.1.1.1 2.2.2.2 another_arg",
		"actions add action nat ingress ::1 2.2.2.2",
		"actions add action nat index 12345",
		"actions add action nat help",
	}})
}
