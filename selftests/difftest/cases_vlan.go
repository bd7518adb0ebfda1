// SPDX-License-Identifier: Apache-2.0

package main

// vlan actions, in filters and standalone: every action and keyword,
// verdicts, indexes; and what tc or the kernel refuses.
func init() {
	registerFilters(filterCases{kind: "vlan", lines: []string{
		"filter add dev DEV ingress protocol all matchall action vlan pop",
		"filter add dev DEV ingress protocol 802.1Q flower vlan_id 10 action vlan pop action mirred egress redirect dev IFB",
		"filter add dev DEV ingress protocol ip flower action vlan push id 100 action mirred egress redirect dev IFB",
		"filter add dev DEV ingress protocol all matchall action vlan push id 77 protocol 802.1Q priority 3 continue index 734",
		"filter add dev DEV ingress protocol all matchall action vlan push id 1024 protocol 802.1ad pass",
		"filter add dev DEV parent 1: protocol all matchall classid 1:1 action vlan modify protocol 802.1ad id 500 reclassify",
		"filter add dev DEV ingress protocol all matchall action vlan modify id 5 priority 0 pipe",
		"filter add dev DEV ingress protocol all matchall action vlan pop_eth",
		"filter add dev DEV ingress protocol all matchall action vlan push_eth dst_mac 00:11:22:33:44:55 src_mac 66:77:88:99:aa:bb",
		"filter add dev DEV ingress protocol all matchall action vlan pop goto chain 3",
		"filter add dev DEV ingress protocol all matchall action vlan pu i 4094 pr 0x88a8 pri 7 cookie aabb",
		"actions add action vlan pop jump 10 index 8",
		"actions add action vlan push id 123 index 18",
		"actions add action vlan push protocol 802.1q id 4094 priority 7 pipe index 3 cookie aabbccddeeff112233445566778800a1",
		"actions replace action vlan push_eth dst_mac 0:1:2:3:4:5 src_mac a:b:c:d:e:f drop index 2",
		"actions add action vlan pop no_percpu",
		// Refused by tc or by the kernel.
		"filter add dev DEV ingress matchall action vlan",
		"filter add dev DEV ingress matchall action vlan bad_mode",
		"filter add dev DEV ingress matchall action vlan pop foo",
		"filter add dev DEV ingress matchall action vlan push protocol ABCD",
		"filter add dev DEV ingress matchall action vlan push id 5678",
		"filter add dev DEV ingress matchall action vlan push id 5 priority 10",
		"filter add dev DEV ingress matchall action vlan push id 5 protocol ipv4",
		"filter add dev DEV ingress matchall action vlan push",
		"filter add dev DEV ingress matchall action vlan pop push",
		"filter add dev DEV ingress matchall action vlan pop id 4",
		"filter add dev DEV ingress matchall action vlan push_eth dst_mac 00:11:22:33:44:55",
		"filter add dev DEV ingress matchall action vlan push_eth dst_mac zz src_mac 00:11:22:33:44:55",
		"filter add dev DEV ingress matchall action vlan pop index 4294967296",
		"actions add action vlan pop reclassify index 429496729599",
		"actions add action vlan help",
	}})
}
