// SPDX-License-Identifier: Apache-2.0

package main

// simple actions: strings, verdicts, indexes; and what tc refuses.
func init() {
	registerFilters(filterCases{kind: "simple", lines: []string{
		"filter add dev DEV ingress protocol all matchall action simple sdata hello",
		"filter add dev DEV ingress protocol all matchall action simple sdata hello drop",
		"filter add dev DEV ingress protocol all matchall action simple sdata hello index 4",
		"filter add dev DEV ingress protocol all matchall action simple sdata 0123456789012345678901234567890",
		"filter add dev DEV parent 1: basic action simple sdata x continue index 9 action gact pass",
		"filter add dev DEV ingress protocol ip prio 1 u32 match u32 0 0 action simple sdata u32 goto chain 3",
		"actions add action simple sdata hello index 1",
		"actions add action simple sdata one action simple sdata two pass",
		"actions add action simple simple sdata twice pipe",
		"actions add action simple sdata hi reclassify index 77 cookie aabb",
		"actions add action simple index 5 sdata late",
		// Refused by tc or by the kernel.
		"actions add action simple",
		"actions add action simple index 5",
		"actions add action simple drop",
		"actions add action simple sdata 01234567890123456789012345678901",
		"actions add action simple sdata x index y",
		"actions add action simple sdata",
		"actions add action simple help",
	}})
}
