// SPDX-License-Identifier: Apache-2.0

package main

// csum actions: every target, the joining words, verdicts, indexes; the
// deployment form after gact pipe (pedit's is another kind's); and what tc
// refuses.
func init() {
	registerFilters(filterCases{kind: "csum", lines: []string{
		"filter add dev DEV ingress protocol all matchall action csum ip4h",
		"filter add dev DEV ingress protocol all matchall action csum iph and tcp or udp",
		"filter add dev DEV ingress protocol all matchall action csum icmp igmp udplite sctp drop",
		"filter add dev DEV ingress protocol all matchall action csum ipv4h + tcp index 6",
		"filter add dev DEV ingress protocol ip prio 1 u32 match u32 0 0 action gact pipe action csum ip4h",
		"filter add dev DEV ingress protocol ip prio 1 u32 match u32 0 0 action gact pipe csum ip4h",
		"filter add dev DEV parent 1: basic action csum udp csum tcp pipe action gact pass",
		"filter add dev DEV parent 1: protocol ip prio 1 u32 match ip protocol 6 0xff action csum tcp goto chain 2",
		"actions add action csum tcp drop index 2",
		"actions add action csum ip4h and tcp or udp icmp igmp udplite sctp index 1",
		"actions add action csum sctp continue no_percpu",
		"actions add action csum udp reclassify cookie 0011",
		// Refused by tc or by the kernel.
		"actions add action csum",
		"actions add action csum foo",
		"actions add action csum and",
		"actions add action csum tcp index x",
		"actions add action csum index",
		"actions add action csum tcp jump",
		"actions add action csum help",
	}})
}
