// SPDX-License-Identifier: Apache-2.0

package main

// mpls actions, in filters and standalone: every action and field of the
// label stack entry, verdicts, indexes; and what tc or the kernel refuses.
func init() {
	registerFilters(filterCases{kind: "mpls", lines: []string{
		"filter add dev DEV ingress protocol mpls_uc flower action mpls pop protocol ipv4",
		"filter add dev DEV ingress protocol mpls_uc flower mpls_label 20 action mpls pop protocol mpls_uc action mirred egress redirect dev IFB",
		"filter add dev DEV ingress protocol ip flower action mpls push label 20 action mirred egress redirect dev IFB",
		"filter add dev DEV ingress protocol all matchall action mpls push protocol mpls_mc label 20 tc 3 ttl 128 bos 1",
		"filter add dev DEV ingress protocol all matchall action mpls mac_push label 5 tc 2 ttl 1 bos 0 continue",
		"filter add dev DEV parent 1: protocol all matchall classid 1:1 action mpls modify label 0xfffff tc 7 ttl 255 bos 1",
		"filter add dev DEV ingress protocol all matchall action mpls dec_ttl pipe index 8",
		"filter add dev DEV ingress protocol all matchall action mpls dec_ttl goto chain 4",
		"filter add dev DEV ingress protocol all matchall action mpls mod ttl 64 cookie 0102",
		"actions add action mpls dec_ttl jump 10 index 8",
		"actions add action mpls pop protocol ipv4 cookie 12345678",
		"actions add action mpls push label 20 tc 3 ttl 128 cookie aa11bb22cc33dd44ee55ff66aa11b1b2",
		"actions replace action mpls push label 30 tc 2 ttl 125 pipe index 1 cookie aa11bb22cc33",
		// Refused by tc or by the kernel.
		"filter add dev DEV ingress matchall action mpls",
		"filter add dev DEV ingress matchall action mpls dec_ttl label 20",
		"filter add dev DEV ingress matchall action mpls pop",
		"filter add dev DEV ingress matchall action mpls pop protocol ipv4 ttl 20",
		"filter add dev DEV ingress matchall action mpls push",
		"filter add dev DEV ingress matchall action mpls push protocol ipv4 label 20",
		"filter add dev DEV ingress matchall action mpls mac_push protocol ipv4 label 20",
		"filter add dev DEV ingress matchall action mpls push label 1048576",
		"filter add dev DEV ingress matchall action mpls push label 20 tc 8",
		"filter add dev DEV ingress matchall action mpls mod ttl 0",
		"filter add dev DEV ingress matchall action mpls mod bos 2",
		"filter add dev DEV ingress matchall action mpls mod label 3",
		"filter add dev DEV ingress matchall action mpls mod protocol ipv4",
		"filter add dev DEV ingress matchall action mpls pop push",
		"filter add dev DEV ingress matchall action mpls dec_ttl foo",
		"actions add action mpls mod tc 1 index 4294967296",
	}})
}
