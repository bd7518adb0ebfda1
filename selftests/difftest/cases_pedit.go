// SPDX-License-Identifier: Apache-2.0

package main

// pedit actions, in filters and alone: raw offsets (with at), every
// header editor and command, retain, the deployment form (dsfield with
// retain, then pipe), verdicts, indexes; and what tc refuses.
func init() {
	registerFilters(filterCases{kind: "pedit", lines: []string{
		"filter add dev DEV ingress protocol ip prio 1 u32 match u32 0 0 action pedit ex munge ip dsfield set 0x20 retain 0x3 pipe",
		"filter add dev DEV ingress protocol all matchall action pedit ex munge ip dsfield set 0xb8 retain 0xfc pipe action drop",
		"filter add dev DEV parent 1: protocol ip u32 match ip protocol 6 0xff classid 1:1 action pedit munge ip tos set 0x4 jump 1",
		"filter add dev DEV ingress matchall action pedit munge offset 12 u32 set 0x90abcdef",
		"filter add dev DEV ingress matchall action pedit munge offset 12 u16 at 12 ffff 1 set 0xaaaa munge offset 0 u32 set 0x12345678 retain 0xff00",
		"filter add dev DEV ingress matchall action pedit munge ip ttl set 0x1 munge ip protocol set 0xff munge ip ihl set 0xf munge ip ce set 0xff munge ip df clear munge ip mf invert munge ip nofrag preserve munge ip firstfrag set 1 goto chain 3",
		"filter add dev DEV ingress matchall action pedit munge ip src set 1.1.1.1 munge ip dst set 2.2.2.2/24 munge ip dport set 80 munge ip sport set 0x5678 munge ip icmp_type set 8 munge ip icmp_code clear",
		"actions add action pedit ex munge eth src set 11:22:33:44:55:66 munge eth dst set ff:ee:dd:cc:bb:aa index 5",
		"actions add action pedit ex munge ip6 src set 2001:db8::1 munge ip6 dst set default munge ip6 traffic_class set 0x40 munge ip6 flow_lbl set 0xfffff",
		"actions add action pedit ex munge tcp dport set 4789 munge tcp sport set 1 munge tcp flags set 0x16 continue",
		"actions add action pedit ex munge udp dport add 1 munge ip ttl decrement munge ip6 hoplimit decrement munge ip6 payload_len invert munge ip6 nexthdr set 17",
		"actions add action pedit munge offset -14 u16 set 0x0000 munge offset -12 u32 set 0x00000100 pipe index 9 cookie 0102",
		"actions add action pedit ex munge offset 16 u8 add 0xf munge eth type set 0x800 munge ip precedence invert munge eth src invert reclassify",
		"actions add action pedit munge offset 0 u8 set 0x11 retain 0x0f munge offset 1 u16 clear munge offset 3 u8 invert drop",
		"actions add action pedit ex munge ip src invert munge ip tos add 1 munge offset 13 u8 set 7 retain 0xf0 pass",
		"filter add dev DEV ingress matchall action pedit p e m ip ds set 0x10 pipe",
		// Refused by tc or by the kernel.
		"actions add action pedit munge offset 2 u32 set 0x12345678",
		"actions add action pedit munge offset 15 u16 set 1",
		"actions add action pedit ex munge eth type set 0xabcdef",
		"actions add action pedit ex munge ip dport set 1",
		"actions add action pedit munge ip6 src set ::1",
		"actions add action pedit munge ip ttl add 1",
		"actions add action pedit ex munge ip tos decrement",
		"actions add action pedit munge ip ttl decrement",
		"actions add action pedit ex munge eth src set 1:2:3",
		"actions add action pedit ex munge eth src set %e:11:m2:33:x4:-5",
		"actions add action pedit ex munge eth src preserve",
		"actions add action pedit ex munge icmp type set 1",
		"actions add action pedit munge foo bar set 1",
		"actions add action pedit munge offset 12 u32 set",
		"actions add action pedit munge offset 12 u64 set 1",
		"actions add action pedit munge offset 12 u32 at 1 2",
		"actions add action pedit ex munge ip6 dst set ::1 retain 0xff",
		"filter add dev DEV ingress matchall action pedit munge ip ttl set 300",
		"actions add action pedit munge ip ttl set 1 index foo",
		"actions add action pedit munge ip ttl set 1 pedit ex munge ip ttl set 2",
		"actions add action pedit ex",
		"actions add action pedit munge ip ttl frob 1",
		"actions add action pedit help",
	}})
}
