// SPDX-License-Identifier: Apache-2.0

package main

// prio's keywords. prio's classes exist with the qdisc: "class show" makes
// the class views part of the comparison, and a class of its own is refused.
func init() {
	register(kindCases{
		kind: "prio",
		valid: []string{"", "bands 3", "bands 2 priomap 1 1 1 1 1 1 0 0 1 1 1 1 1 1 1 1", "bands 16",
			"bands 4 priomap 1 1 2 2 3 3 0 0 1 2 3 0 0 0 0 0", "bands 1 priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0",
			"priomap 0 1 2", "priomap 2", "multiqueue", "bands 5 multiqueue", "priomap 2 2 bands 3",
			"bands 010 priomap 7 7", "priomap", "bands 3 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1 multiqueue"},
		invalid: []string{"bands", "bands x", "bands 0x3", "bands 2", "bands 1", "bands 17", "bands 1024 priomap 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16",
			"bands -1", "bands 99999999999", "priomap 3", "priomap 1 x", "priomap -1", "priomap 1 priomap 1",
			"priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0", "foorbar", "2", "help", "band 3", "bands 4 priomap 1 1 2 2 7 5 0 0 1 2 3 0 0 0 0 0"},
		changes: []string{"bands 4", "bands 8 priomap 1 1 2 2 3 3 4 4 5 5 6 6 7 7 0 0", "bands 2 priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0",
			"priomap 0 0 0", "multiqueue", "bands 3"},
		classes: []string{"class show dev DEV", "class add dev DEV parent 1: classid 1:1 prio"},
	})
}
