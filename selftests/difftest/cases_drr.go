// SPDX-License-Identifier: Apache-2.0

package main

// drrClass is the start of a class command on the test device.
const drrClass = "class add dev DEV parent 1: classid 1:1 drr "

func init() {
	register(kindCases{
		kind:    "drr",
		valid:   []string{""},
		invalid: []string{"quantum 1500", "help", "foo"},
		classes: []string{
			drrClass,
			drrClass + "quantum 1500",
			drrClass + "quantum 1514b",
			drrClass + "quantum 9k",
			drrClass + "quantum 100",
			drrClass + "quantum 2mb",
			drrClass + "quantum 0",
			drrClass + "quantum 0x400",
			drrClass + "quantum 1000 quantum 2000",
			drrClass + "quantum 1500; class change dev DEV classid 1:1 drr quantum 3000",
			drrClass + "; class add dev DEV parent 1: classid 1:2 drr quantum 4k; qdisc add dev DEV parent 1:2 handle 10: codel",
			drrClass + "quantum",
			drrClass + "quantum x",
			drrClass + "quantum -1",
			drrClass + "quantum 5Tb",
			drrClass + "help",
			drrClass + "nosuchword",
			drrClass + "quantum 1500 foo",
		},
	})
}
