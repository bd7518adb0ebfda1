// SPDX-License-Identifier: Apache-2.0

package main

// cgroup filters: with and without extended matches and actions, handles;
// and what tc or the kernel refuses (a first cgroup filter needs a handle).
func init() {
	registerFilters(filterCases{kind: "cgroup", lines: []string{
		"filter add dev DEV parent 1: handle 1 cgroup match cmp(u8 at 0 layer 1 eq 6) police rate 1mbit burst 10k pass action drop",
		"filter add dev DEV parent 1: handle 1 cgroup",
		"filter add dev DEV parent 1: handle 0x10 cgroup action drop",
		"filter add dev DEV parent 1: handle 1 cgroup match cmp(u8 at 0 layer link mask 0xff gt 10) action pass",
		"filter add dev DEV ingress handle 1 cgroup match u32(u32 0xaabbccdd 0xffffffff at nexthdr+0) action pipe",
		"filter add dev DEV ingress handle 1 protocol ip prio 1 cgroup match canid(sff 0xaabb:0x00ff eff 1) action pass",
		"filter add dev DEV ingress handle 2 cgroup match meta(sk_family eq 2) and not meta(nf_mark mask 0xff eq 3) action drop",
		`filter add dev DEV parent 1: handle 3 cgroup match ( cmp(u8 at 0 eq 1) or cmp(u8 at 1 eq 2) ) and nbyte("ab" at 0) action continue`,
		"filter add dev DEV ingress handle 5 cgroup action mirred egress redirect dev IFB",
		"filter add dev DEV ingress handle 1 cgroup match cmp(u16 at 8 layer 1 mask 0x00ff gt 7) or not cmp(u32 at 4 layer network mask 0xa0a0 lt 3) action gact drop",
		"filter add dev DEV parent 1: handle 4 cgroup match meta(sk_bind_if eq dev) action pass action drop",
		"filter add dev DEV ingress prio 3 handle 9 cgroup match canid(sff 1 sff 2 sff 3) action drop",
		"filter add dev DEV ingress handle 12abc cgroup match meta(pkt_len gt 100) action drop",
		// Refused by tc or by the kernel.
		"filter add dev DEV parent 1: cgroup",
		"filter add dev DEV parent 1: cgroup match cmp(u8 at 0 eq 1) action drop",
		"filter add dev DEV parent 1: handle 1 cgroup help",
		"filter add dev DEV parent 1: handle 1 cgroup foo",
		"filter add dev DEV parent 1: handle 1 cgroup match cmp(u8 at 0 eq 1)",
		"filter add dev DEV parent 1: handle 1 cgroup match cmp(u8 at x eq 1) action drop",
		"filter add dev DEV parent 1: handle 1 cgroup match u32(u8 0x77 0xff at) action drop",
		"filter add dev DEV parent 1: handle 99999999999999999999 cgroup action drop",
		"filter add dev DEV parent 1: handle 1 cgroup action",
	}})
}
