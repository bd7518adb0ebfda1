// SPDX-License-Identifier: Apache-2.0

package main

import "regexp"

// Filter chains (tc chain, chain templates, goto chain between chains,
// filters listed per chain), shared blocks (clsact's ingress_block and
// egress_block, filters and chains added to a block and listed by block
// and by device), and standalone actions (tc actions add, get, replace,
// delete, flush of gact and mirred), each with what tc or the kernel
// refuses.

// blockSetup gives the case's device a clsact whose ingress shares block 5
// and whose egress shares block 6, in place of the ingress qdisc.
const blockSetup = "qdisc del dev DEV ingress && qdisc add dev DEV ingress_block 5 egress_block 6 clsact && "

// blocksInUse finds a qdisc that shares block 5, 6 or 7 (which a case needs absent) in tc's listing.
var blocksInUse = regexp.MustCompile(`(ingress|egress)_block [567]\b`)

func init() {
	registerFilters(filterCases{kind: "chain", lines: []string{
		"chain add dev DEV ingress chain 1",
		"chain add dev DEV parent 1: chain 5",
		"chain add dev DEV ingress",
		"chain add dev DEV ingress chain 1 protocol ip flower dst_ip 0.0.0.0/16",
		"chain add dev DEV ingress protocol ipv6 chain 3 flower src_ip ::/64 ip_proto tcp",
		"chain add dev DEV ingress chain 2 protocol ip flower dst_ip 0.0.0.0/16 && filter add dev DEV ingress protocol ip chain 2 flower dst_ip 10.0.0.0/16 action drop",
		"chain add dev DEV ingress chain 4 matchall",
		"chain add dev DEV ingress chain 0 && chain del dev DEV ingress chain 0",
		"chain add dev DEV ingress chain 3 && chain get dev DEV ingress chain 3",
		"chain add dev DEV ingress chain 3 protocol ip flower dst_ip 0.0.0.0/8 && -j chain get dev DEV ingress chain 3",
		"filter add dev DEV ingress protocol all pref 1 matchall action goto chain 1 && filter add dev DEV ingress protocol all chain 1 pref 1 matchall action drop",
		"filter add dev DEV ingress protocol ip pref 1 u32 match ip dst 10.0.0.0/8 action goto chain 2 && filter add dev DEV ingress protocol ip chain 2 pref 3 u32 match ip src 10.1.0.0/16 action pass",
		"filter add dev DEV parent 1: chain 7 protocol all pref 2 matchall classid 1:1 && chain show dev DEV parent 1:",
		"filter add dev DEV ingress chain 1 protocol all pref 1 handle 1 matchall action drop && filter get dev DEV ingress protocol all pref 1 chain 1 handle 1 matchall",
		"filter add dev DEV ingress chain 1 protocol all pref 1 handle 1 matchall action drop && -j filter get dev DEV ingress protocol all pref 1 chain 1 handle 1 matchall",
		"filter add dev DEV ingress protocol all pref 1 handle 1 matchall action drop && filter get dev DEV ingress protocol all pref 1 handle 1 matchall",
		"filter add dev DEV ingress chain 1 protocol all pref 1 matchall action drop && chain del dev DEV ingress chain 1",
		"chain",
		"chain help",
		// Refused by the kernel.
		"chain add dev DEV ingress chain 2 protocol ip flower dst_ip 0.0.0.0/16 && filter add dev DEV ingress protocol ip chain 2 flower src_ip 10.0.0.1 action drop",
		"chain add dev DEV ingress chain 1 && chain add dev DEV ingress chain 1",
		"chain del dev DEV ingress chain 9",
		"chain get dev DEV ingress chain 7",
		"chain add dev DEV ingress chain 4 u32",
		"filter add dev DEV ingress chain 1 protocol all pref 1 handle 1 matchall action drop && filter get dev DEV ingress protocol all pref 1 handle 1 matchall",
		"filter add dev DEV ingress protocol all pref 1 matchall action goto chain 4294967295",
		// Refused by tc.
		"chain add dev DEV ingress chain x",
		"chain add dev DEV ingress chain 1 chain 2",
		"chain add dev DEV ingress chain 4294967296",
		"chain foo dev DEV",
		"chain get dev DEV chain 1",
		"chain get dev DEV ingress chain 1 flower foo",
		"chain add dev DEV ingress chain 1 handle 1",
		"chain show dev DEV foo",
		"chain add dev DEV block 3 chain 1",
		"filter add dev DEV ingress protocol all pref 1 matchall action goto chain x",
		"filter get dev DEV ingress pref 1 handle 1 matchall",
		"filter get dev DEV ingress protocol all handle 1 matchall",
		"filter get dev DEV ingress protocol all pref 1 matchall",
		"filter get dev DEV protocol all pref 1 handle 1 matchall",
		"filter get dev DEV ingress protocol all pref 1 handle 1",
	}, views: []string{
		"chain show dev DEV ingress",
		"-j chain show dev DEV ingress",
		"chain show dev DEV parent 1:",
		"-p -j chain show dev DEV",
		"filter show dev DEV ingress chain 1",
		"-j filter show dev DEV ingress chain 2",
	}})

	registerFilters(filterCases{kind: "block", lines: []string{
		blockSetup + "filter add block 5 protocol ip pref 1 matchall action drop",
		blockSetup + "filter add block 6 protocol all pref 2 handle 3 matchall classid 1:1 action pass",
		blockSetup + "filter add block 5 protocol ip pref 1 u32 match ip dst 10.0.0.1/32 action drop",
		blockSetup + "filter add block 5 chain 3 protocol ip pref 1 flower dst_ip 10.0.0.1 action drop",
		blockSetup + "chain add block 5 chain 2",
		blockSetup + "chain add block 5 chain 1 protocol ip flower dst_ip 0.0.0.0/16",
		blockSetup + "filter add dev DEV ingress protocol ip pref 1 matchall action drop",
		blockSetup + "filter add block 5 protocol ip pref 1 matchall action drop && filter del block 5 protocol ip pref 1 matchall",
		blockSetup + "filter add block 5 protocol ip pref 1 handle 1 matchall action drop && filter get block 5 protocol ip pref 1 handle 1 matchall",
		blockSetup + "filter add block 5 protocol ip pref 1 handle 1 matchall action drop && -j filter get block 5 protocol ip pref 1 handle 1 matchall",
		blockSetup + "filter add block 5 protocol ip pref 1 matchall action goto chain 1 && filter add block 5 chain 1 protocol ip pref 1 matchall action drop",
		blockSetup + "chain add block 5 chain 3 && chain get block 5 parent ffff: chain 3",
		blockSetup + "filter show block 5 ingress",
		"qdisc del dev DEV ingress && qdisc add dev DEV ingress_block 5 ingress",
		// Refused by the kernel.
		"filter add block 7 protocol ip pref 1 matchall action drop",
		blockSetup + "chain get block 5 parent ffff: chain 9",
		// Refused by tc.
		"filter show block 7",
		"filter add block 0 protocol ip pref 1 matchall action drop",
		"filter add block x protocol ip pref 1 matchall action drop",
		"filter add dev DEV block 5 protocol ip pref 1 matchall action drop",
		"filter add block 5 dev DEV protocol ip pref 1 matchall action drop",
		"filter show block 5 dev DEV",
		"filter show dev DEV block 5",
		"filter add block 5 block 6 protocol ip matchall",
		blockSetup + "chain get block 5 chain 0",
		"filter get protocol ip pref 1 handle 1 parent ffff: matchall",
	}, views: []string{
		"filter show block 5",
		"-s -j filter show block 5",
		"-d filter show block 6",
		"chain show block 5",
		"-j chain show block 5",
		"-p -j qdisc show dev DEV ingress",
	}})

	registerFilters(filterCases{kind: "actions", lines: []string{
		"actions add action gact drop index 5",
		"actions add action pass index 1 cookie 0a0b0c",
		"actions add action gact continue random determ drop 5 index 3",
		"actions add action gact pass random netrand reclassify 50",
		"actions add action mirred egress redirect dev IFB index 2",
		"actions add action mirred ingress mirror dev IFB pipe index 9 cookie aa",
		"actions add action drop index 1 action pass index 2 action reclassify index 3",
		"actions add action gact goto chain 5 index 4",
		"actions add action pass index 8 no_percpu",
		"actions add action pass hw_stats immediate index 3",
		"actions add action drop index 4294967295",
		"actions add action pass index 7 && actions replace action drop index 7",
		"actions add action pass index 7 && actions change action mirred egress mirror dev IFB index 7",
		"actions add action pass index 7 && actions get action gact index 7",
		"actions add action pass index 7 && -j actions get action gact index 7",
		"actions add action pass index 7 && -s actions get action gact index 7",
		"actions add action pass index 7 action drop index 8 && actions get action gact index 7 action gact index 8",
		"actions add action pass index 7 && actions del action gact index 7",
		"actions add action mirred egress mirror dev IFB index 6 && actions delete action mirred index 6",
		"actions add action pass index 7 && filter add dev DEV ingress protocol all matchall action gact index 7",
		"actions add action pass index 7 && actions flush action gact",
		"actions add action pass index 7 && actions list action gact since 100000",
		"actions add action pass index 7 && actions add action pass index 8 && -j actions ls action gact",
		// Refused by the kernel.
		"actions add action pass index 7 && actions add action pass index 7",
		"actions add action pass index 7 && filter add dev DEV ingress protocol all matchall action gact index 7 && actions flush action gact",
		"actions get action gact index 99",
		"actions del action mirred index 99",
		"actions add action mirred egress redirect dev IFB skip_sw index 5",
		// Refused by tc.
		"actions add action gact drop index x",
		"actions get action gact",
		"actions del action foo index 1",
		"actions add action pass cookie 123",
		"actions add action pass cookie 00112233445566778899aabbccddeeff00",
		"actions ls",
		"actions add action mirred egress redirect dev nosuch index 1",
		"actions add action",
		"actions add action pass index 7 && actions get action gact index 7 action mirred index 1",
		"actions list action nosuch",
		"actions foo",
	}, views: []string{
		"actions list action gact",
		"-s actions list action gact",
		"-j actions list action gact",
		"actions list action mirred",
		"-s -j -p actions ls action mirred",
	}, cleanup: []string{
		"actions flush action gact",
		"actions flush action mirred",
	}})
}
