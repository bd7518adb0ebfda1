// SPDX-License-Identifier: Apache-2.0

package main

// flow filters: every key, map mode with each operation and addresses as
// addends, hash mode with perturb, divisors, base classes, actions; and
// what tc refuses.
func init() {
	registerFilters(filterCases{kind: "flow", lines: []string{
		"filter add dev DEV parent 1: handle 1 prio 1 protocol ip flow hash keys src,dst divisor 16 match cmp(u8 at 9 layer network eq 6) police rate 1mbit burst 10k drop action pass",
		"filter add dev DEV parent 1: handle 1 prio 1 protocol ip flow map key dst and 0xff",
		"filter add dev DEV parent 1: handle 1 prio 1 protocol ip flow map key dst or 0xff",
		"filter add dev DEV parent 1: handle 1 prio 1 protocol ip flow map key mark and 0xff xor 0xf0 or 0x3 rshift 2 addend 5",
		"filter add dev DEV parent 1: handle 1 prio 1 protocol ip flow map key src addend -10.0.0.1 divisor 16 baseclass 1:10",
		"filter add dev DEV parent 1: handle 1 prio 1 protocol ip flow map key proto-src addend ::1:2",
		"filter add dev DEV parent 1: handle 1 prio 1 protocol ip flow map key priority addend -3",
		"filter add dev DEV parent 1: handle 1 prio 1 protocol ip flow hash keys src,dst,proto,proto-src,proto-dst perturb 10 divisor 1024 baseclass 1:1",
		"filter add dev DEV parent 1: handle 1 prio 1 protocol ip flow hash keys iif,priority,mark,nfct,nfct-src,nfct-dst,nfct-proto-src,nfct-proto-dst",
		"filter add dev DEV parent 1: handle 1 prio 1 protocol ip flow hash keys rt-classid,sk-uid,sk-gid,vlan-tag,rxhash divisor 8",
		"filter add dev DEV parent 1: handle 0x10 prio 1 protocol all flow hash keys s,d,pr divisor 4 baseclass 1",
		"filter add dev DEV ingress handle 1 prio 1 protocol ip flow map key rxhash addend 0x22 action drop",
		"filter add dev DEV ingress handle 2 prio 1 protocol ip flow hash keys dst divisor 2 action mirred egress redirect dev IFB",
		"filter add dev DEV ingress handle 3 prio 1 protocol ip flow map key nfct-proto-dst xor 0xffffffff and 0 action pass",
		// Refused by tc or by the kernel.
		"filter add dev DEV parent 1: prio 1 protocol ip flow map key dst",
		"filter add dev DEV parent 1: handle 1 prio 1 protocol ip flow map",
		"filter add dev DEV parent 1: handle 1 prio 1 protocol ip flow map keys src,dst",
		"filter add dev DEV parent 1: handle 1 prio 1 protocol ip flow hash keys src,bogus",
		"filter add dev DEV parent 1: handle 1 prio 1 protocol ip flow hash keys src,",
		"filter add dev DEV parent 1: handle 1 prio 1 protocol ip flow map key dst rshift 40",
		"filter add dev DEV parent 1: handle 1 prio 1 protocol ip flow map key dst baseclass 1:0",
		"filter add dev DEV parent 1: handle 1 prio 1 protocol ip flow map key dst perturb 5",
		"filter add dev DEV parent 1: handle 1 prio 1 protocol ip flow map key mark addend 10.0.0.1",
		"filter add dev DEV parent 1: handle 1 prio 1 protocol ip flow map key dst addend nothing",
		"filter add dev DEV parent 1: handle 1 prio 1 protocol ip flow map key dst addend any",
		"filter add dev DEV parent 1: handle 1 prio 1 protocol ip flow map key dst and x",
		"filter add dev DEV parent 1: handle 1 prio 1 protocol ip flow map key dst divisor",
		"filter add dev DEV parent 1: handle 1 prio 1 protocol ip flow help",
		"filter add dev DEV parent 1: handle 1 prio 1 protocol ip flow hash keys dst what",
	}})
}
