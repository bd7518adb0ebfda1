// SPDX-License-Identifier: Apache-2.0

package main

// mirred actions in filters: every direction and verb, targets, verdicts,
// indexes; and what tc refuses.
func init() {
	registerFilters(filterCases{kind: "mirred", lines: []string{
		"filter add dev DEV ingress protocol ip prio 1 u32 match u32 0 0 action mirred egress redirect dev IFB",
		"filter add dev DEV ingress protocol all matchall action mirred egress redirect dev IFB",
		"filter add dev DEV ingress protocol all matchall action mirred egress mirror dev IFB",
		"filter add dev DEV ingress basic action mirred ingress mirror dev IFB pipe index 7",
		"filter add dev DEV ingress protocol all matchall action mirred egress mirror dev IFB index 5",
		"filter add dev DEV ingress protocol all matchall action mirred egress mirror dev IFB continue",
		"filter add dev DEV ingress protocol all matchall action mirred egress mirror dev IFB goto chain 3",
		"filter add dev DEV ingress protocol all matchall action mirred ingress redirect dev IFB",
		"filter add dev DEV ingress protocol all matchall action mirred egress redirect blockid 7",
		"filter add dev DEV ingress protocol all matchall action mirred ingress redirect dev IFB action drop",
		"filter add dev DEV ingress protocol all matchall action mirred egress mirror dev IFB action mirred egress redirect dev lo",
		"filter add dev DEV parent 1: matchall classid 1:1 action mirred egress mirror dev IFB cookie 0102",
		"filter add dev DEV ingress matchall action mirred e r dev IFB",
		// Refused by tc or by the kernel.
		"filter add dev DEV ingress protocol all matchall action mirred egress redirect dev nosuch",
		"filter add dev DEV ingress matchall action mirred",
		"filter add dev DEV ingress matchall action mirred egress",
		"filter add dev DEV ingress matchall action mirred foo",
		"filter add dev DEV ingress matchall action mirred egress redirect dev IFB index 3 index 4",
		"filter add dev DEV ingress matchall action mirred egress mirror dev IFB goto chain",
		"filter add dev DEV ingress matchall action mirred egress mirror dev IFB goto foo 3",
		"filter add dev DEV ingress matchall action mirred ingress egress redirect dev IFB",
		"filter add dev DEV ingress matchall action mirred egress redirect mirror dev IFB",
		"filter add dev DEV ingress matchall action mirred egress redirect dev IFB dev IFB",
		"filter add dev DEV ingress matchall action mirred egress redirect blockid 0",
		"filter add dev DEV ingress matchall action mirred egress redirect blockid 5 dev IFB",
		"filter add dev DEV ingress matchall action mirred index 9",
		"filter add dev DEV ingress matchall action mirred help",
	}})
}
