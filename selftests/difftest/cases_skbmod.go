// SPDX-License-Identifier: Apache-2.0

package main

// skbmod actions, in filters and alone: every address and ethertype,
// swap, ecn, verdicts, indexes; and what tc refuses.
func init() {
	registerFilters(filterCases{kind: "skbmod", lines: []string{
		"actions add action skbmod set dmac 11:22:33:44:55:66 index 5",
		"actions add action skbmod set smac 77:88:99:AA:BB:CC set etype 0x8100",
		"actions add action skbmod set etype 0xfefe reclassify",
		"actions add action skbmod swap mac pipe",
		"actions add action skbmod ecn",
		"actions add action skbmod set dmac 0:1:2:3:4:5 set smac 6:7:8:9:a:b set etype 0x800 drop index 9 cookie aabb",
		"filter add dev DEV ingress protocol all matchall action skbmod swap mac action mirred egress redirect dev IFB",
		"filter add dev DEV parent 1: matchall classid 1:1 action skbmod set etype 0x1 continue",
		"filter add dev DEV ingress matchall action skbmod set smac 00:00:00:00:00:01 goto chain 2",
		"filter add dev DEV ingress matchall action skbmod sw m ec",
		"filter add dev DEV ingress protocol ip u32 match ip protocol 17 0xff action skbmod set dmac 0x11:0x22:33:44:55:66:77 pass",
		// Refused by tc or by the kernel.
		"actions add action skbmod set etype 0",
		"actions add action skbmod index 3",
		"actions add action skbmod set smac 00:44:55:44:55",
		"actions add action skbmod set etype 0xfefef",
		"actions add action skbmod",
		"actions add action skbmod set dmac zz:11:22:33:44:55",
		"actions add action skbmod set etype",
		"actions add action skbmod swap mac index x",
		"actions add action skbmod help",
	}})
}
