// SPDX-License-Identifier: Apache-2.0

package main

// etsClass changes one of the classes an ets qdisc made (they cannot be
// added).
const etsClass = "class change dev DEV classid 1:"

func init() {
	register(kindCases{
		kind: "ets",
		valid: []string{"bands 3", "strict 3", "quanta 1000 2000", "bands 4 strict 2", "bands 8 strict 2 quanta 1500 1500 3000",
			"bands 3 priomap 0 1 2", "bands 16", "strict 16", "quanta 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16",
			"bands 4 priomap 3 3 2 2 1 1 0 0 0 0 0 0 0 0 0 0", "strict 1 quanta 3000 priomap 1 1 0",
			"quanta 2500 priomap 0 0 0", "bands 2 priomap 256 1", "bands 0 strict 2", "bands 5 quanta 100 200 strict 1",
			"priomap 0 quanta 1500", "quanta 4294967295", "strict 0 quanta 10", "bands 1"},
		invalid: []string{"", "bands 17", "strict 17", "bands x", "bands 2 bands 3", "strict 2 quanta 1 2 bands 3",
			"quanta 0", "quanta x", "quanta 1 0", "bands 2 priomap 2", "bands 2 priomap 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0",
			"help", "nosuchword", "quanta", "bands", "bands 3 foo", "priomap x bands 2", "priomap 0", "quanta 1 quanta 2",
			"bands 2 priomap 0 priomap 1", "strict 1 strict 2", "band 3", "bands 3 quanta 4294967296"},
		changes:    []string{"bands 4", "strict 2 quanta 1000 2000", "quanta 500", "bands 16 priomap 15 14"},
		classQdisc: "bands 4 strict 1 quanta 1000 2000 3000",
		classes: []string{
			etsClass + "2 ets quantum 5000",
			etsClass + "4 ets quantum 1",
			etsClass + "3 ets",
			etsClass + "2 ets quantum 5000; " + etsClass + "3 ets quantum 7000",
			etsClass + "2 ets quantum 5000; qdisc add dev DEV parent 1:2 handle 10: codel",
			etsClass + "1 ets quantum 5000",
			etsClass + "2 ets quantum 0",
			etsClass + "2 ets quantum x",
			etsClass + "2 ets quantum 1 quantum 2",
			etsClass + "2 ets quantum",
			etsClass + "2 ets help",
			etsClass + "2 ets foo",
			"class add dev DEV parent 1: classid 1:5 ets quantum 1000",
			etsClass + "9 ets quantum 1000",
		},
	})
}
