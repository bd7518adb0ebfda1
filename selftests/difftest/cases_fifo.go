// SPDX-License-Identifier: Apache-2.0

package main

// The FIFO qdiscs share tc's parser: limit in tc's size units for all three
// (so "10k" packets for pfifo), the last limit winning, none meaning the
// kernel's derived default.
func init() {
	valid := []string{"", "limit 0", "limit 1", "limit 100", "limit 10k", "limit 1m", "limit 0x10", "limit 1.5k",
		"limit 10kbit", "limit 4294967295", "limit 2mb", "limit 5 limit 7", "limit 1000b"}
	invalid := []string{"limit", "limit -1", "limit abc", "limit 4g", "limit 5parsecs", "lim 10", "foo", "help",
		"limit 10 foo", "Limit 10"}
	changes := []string{"limit 20", "limit 64k", "limit 0"}
	for _, kind := range []string{"pfifo", "bfifo", "pfifo_head_drop"} {
		register(kindCases{kind: kind, valid: valid, invalid: invalid, changes: changes})
	}
}
