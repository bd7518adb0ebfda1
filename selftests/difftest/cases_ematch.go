// SPDX-License-Identifier: Apache-2.0

package main

// Extended matches in basic filters: every kind gotc builds (cmp, u32,
// meta with its ids, shifts and masks, nbyte, canid), and/or/not and
// parentheses over several words (the difftest splits lines at blanks,
// so each expression spans words, which tc joins); and what tc or the
// kernel refuses.
func init() {
	registerFilters(filterCases{kind: "ematch", lines: []string{
		"filter add dev DEV parent 1: prio 1 basic match cmp(u8 at 0 layer link mask 0xff gt 10) classid 1:1",
		"filter add dev DEV parent 1: basic match cmp(u16 at 2 layer network mask 0xff00 trans lt 3) and cmp(u32 at 4 layer transport eq 7) flowid 1:1",
		"filter add dev DEV parent 1: basic match not cmp(u8 at 0 eq 3) or u32(u16 0x1122 0xffff at nexthdr+4) classid 1:1",
		"filter add dev DEV parent 1: basic match ( cmp(u8 at 0 eq 1) or cmp(u8 at 1 eq 2) ) and not ( u32(u8 0x11 0x0f at 0) or meta(nf_mark gt 24) ) classid 1:1",
		"filter add dev DEV ingress basic match not ( not cmp(u8 at 0 eq 1) and ( cmp(u8 at 1 eq 1) or cmp(u8 at 2 eq 2) ) ) action mirred egress redirect dev IFB",
		"filter add dev DEV ingress basic match meta(priority eq 5) and meta(tc_index mask 0xf0 shift 2 gt 3) and meta(fwmark lt 0x10) action drop",
		"filter add dev DEV ingress basic match meta(dev eq 5) or meta(sk_bind_if eq dev) or meta(0x12345678 gt nf_mark mask 7 shift 1) action pass",
		"filter add dev DEV ingress basic match meta(vlan mask 0xfff eq 10) or meta(rt_iif gt 1) or meta(mac_len lt 14) or meta(pkt_type eq 0) or meta(protocol eq 0x800) or meta(random gt 5) action drop",
		"filter add dev DEV ingress basic match meta(sk_family eq 2) and meta(sk_rcvbuf gt 1) and meta(sk_snd_queue gt 1) and meta(loadavg_15 gt 1) and meta(data_len eq 0) action drop",
		`filter add dev DEV parent 1: basic match meta("lo" eq dev) or meta("ab" eq "cd") classid 1:1`,
		`filter add dev DEV parent 1: basic match nbyte("abc" at 0) and nbyte("xy\x01" at 1 layer transport) classid 1:1`,
		"filter add dev DEV parent 1: handle 7 basic match nbyte(hello at 12 layer link) classid 1:1 action pass",
		"filter add dev DEV parent 1: basic match canid(sff 1 eff 2:0xff sff 0x7ff:0x700 eff 0x1fffffff) classid 1:1",
		"filter add dev DEV parent 1: basic match u32(u32 0xaabbccdd 0xff00ff00 at -12) and u32(u8 0xaa 0xf0 at -14) and u32(u8 1 1 at nexthdr+ 5) classid 1:1",
		"filter add dev DEV parent 1: basic match cmp(u8 at 0 eq 1) match u32(u8 1 1 at 0) classid 1:1",
		"filter add dev DEV parent 1: basic match cmp(u32 at 65537 layer 2 mask 0xffffffff eq 4294967295) AND cmp ( u16 at 1 trans lt 0x10000 ) classid 1:1",
		// Refused by tc or by the kernel.
		"filter add dev DEV parent 1: basic match cmp(u8 at 0 layer 2 eq 1)",
		"filter add dev DEV parent 1: basic match cmp(u8 at 0 eq 1)) classid 1:1",
		"filter add dev DEV parent 1: basic match cmp(u8 at 0 eq 1) and classid 1:1",
		"filter add dev DEV parent 1: basic match ( cmp(u8 at 0 eq 1) classid 1:1",
		"filter add dev DEV parent 1: basic match foo(1) classid 1:1",
		"filter add dev DEV parent 1: basic match cmp(u64 at 0 eq 1) classid 1:1",
		"filter add dev DEV parent 1: basic match cmp(u8 at 0 layer 3 eq 1) classid 1:1",
		"filter add dev DEV parent 1: basic match cmp(u8 at 0 bogus) classid 1:1",
		"filter add dev DEV parent 1: basic match meta(priority eq -1) classid 1:1",
		"filter add dev DEV parent 1: basic match meta(nf_mark eq) classid 1:1",
		"filter add dev DEV parent 1: basic match meta(nf_mark shift x eq 1) classid 1:1",
		"filter add dev DEV parent 1: basic match meta(list) classid 1:1",
		`filter add dev DEV parent 1: basic match meta(dev eq "lo") classid 1:1`,
		"filter add dev DEV parent 1: basic match u32(u16 0x10000 1 at 0) classid 1:1",
		"filter add dev DEV parent 1: basic match u32(u32 1 1 at 2) classid 1:1",
		`filter add dev DEV parent 1: basic match nbyte("\8" at 0) classid 1:1`,
		"filter add dev DEV parent 1: basic match nbyte(abc) classid 1:1",
		"filter add dev DEV parent 1: basic match canid(sff xyz) classid 1:1",
		"filter add dev DEV parent 1: basic match",
	}})
}
