// SPDX-License-Identifier: Apache-2.0

package main

func init() {
	register(kindCases{
		kind: "skbprio",
		valid: []string{"", "limit 1", "limit 64", "limit 1000", "limit 0", "limit 10kb", "limit 0x10",
			"limit 1 limit 2", "limit 4294967295"},
		invalid: []string{"limit", "limit x", "limit -1", "limit 5Tb", "lim 10", "help", "limit 10 foo"},
		changes: []string{"limit 2000", "limit 5", "limit 64"},
	})
}
