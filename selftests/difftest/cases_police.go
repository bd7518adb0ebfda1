// SPDX-License-Identifier: Apache-2.0

package main

// police as an action (in filters and standalone) and as the old filter
// option of u32 and basic: byte and packet buckets, peak rates, verdicts
// with conform-exceed, 64-bit rates; and what tc refuses.
func init() {
	registerFilters(filterCases{kind: "police", lines: []string{
		"filter add dev DEV parent 1: protocol ip prio 1 u32 match ip src 10.0.0.1 police rate 1mbit burst 10k drop flowid 1:1",
		"filter add dev DEV parent 1: protocol ip prio 1 u32 match u32 0 0 police rate 2mbit burst 20k mtu 2k peakrate 4mbit conform-exceed drop/pipe flowid 1:1",
		"filter add dev DEV ingress protocol ip prio 1 u32 match u32 0 0 police rate 1mbit burst 10k conform-exceed drop flowid :1",
		"filter add dev DEV parent 1: protocol ip prio 2 basic police rate 1mbit burst 10k conform-exceed drop/ok",
		"filter add dev DEV parent 1: protocol ip prio 2 basic classid 1:1 police rate 1mbit burst 10k/8 mpu 64 overhead 4 linklayer atm index 7",
		"filter add dev DEV parent 1: protocol ip prio 2 basic police rate 1mbit burst 10k action gact pass",
		"filter add dev DEV ingress protocol all matchall action police rate 1mbit burst 10k drop",
		"filter add dev DEV ingress protocol all matchall action police pkts_rate 1000 pkts_burst 200 conform-exceed drop / pipe",
		"filter add dev DEV ingress protocol all matchall action police rate 10gbit burst 100m peakrate 20gbit mtu 64k",
		"filter add dev DEV ingress protocol all matchall action police rate 1mbit buffer 10k maxburst 3 continue",
		"filter add dev DEV ingress protocol all matchall action police rate 1mbit burst 10k conform-exceed goto chain 5 / pass",
		"filter add dev DEV ingress protocol ip prio 1 u32 match u32 0 0 action police rate 1mbit burst 10k drop action csum ip4h",
		"filter add dev DEV ingress protocol all matchall action police mtu 1500 index 3 pipe",
		"filter add dev DEV ingress protocol all matchall action police rate 1mbit burst 10k conform-exceed 2/3",
		"actions add action police rate 1mbit burst 10k index 1",
		"actions add action police rate 1mbit burst 10k mtu 2k peakrate 2mbit conform-exceed drop/pipe index 2",
		"actions add action police pkts_rate 1000 pkts_burst 200 index 4",
		"actions add action police rate 8gbit burst 1m overhead 8 linklayer adsl",
		// Refused by tc or by the kernel.
		"actions add action police avrate 1mbit conform-exceed pass index 3",
		"actions add action police",
		"actions add action police rate 1mbit",
		"actions add action police rate 1mbit burst 10k avrate 1mbit",
		"actions add action police foo",
		"actions add action police rate 1mbit burst 10k pkts_rate 10 pkts_burst 1",
		"actions add action police pkts_rate 10",
		"actions add action police peakrate 2mbit",
		"actions add action police rate 1mbit burst 10k peakrate 2mbit",
		"actions add action police rate 1mbit burst 10k rate 2mbit",
		"actions add action police rate 1mbit burst 10k index x",
		"actions add action police rate fast burst 10k",
		"actions add action police rate 1mbit burst 10k/3",
		"actions add action police rate 1mbit burst 10k conform-exceed drop/foo",
		"actions add action police rate 1mbit burst 10k conform-exceed foo",
		"actions add action police rate 1mbit burst 10k goto foo",
		"actions add action police rate 1mbit burst 10k linklayer token",
		"filter add dev DEV parent 1: protocol ip prio 9 basic police rate 1mbit",
		"filter add dev DEV parent 1: protocol ip prio 9 basic police",
		"filter add dev DEV parent 1: protocol ip prio 9 basic police foo",
		"filter add dev DEV parent 1: protocol ip prio 9 u32 match u32 0 0 police rate 1mbit burst 10k mtu 2k peakrate 2mbit conform-exceed drop/oops",
	}})
}
