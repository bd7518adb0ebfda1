// SPDX-License-Identifier: Apache-2.0

package main

// plug takes one command per request; the kernel never dumps it, so only
// acceptance and exit codes can differ.
func init() {
	register(kindCases{
		kind: "plug",
		valid: []string{"", "block", "release", "release_indefinite", "limit 10k", "limit 0", "limit 1m",
			"limit 4294967295", "block release", "limit 5 block", "release_indefinite limit 100"},
		invalid: []string{"limit", "limit x", "limit -1", "limit 4g", "help", "foo", "blocks", "block foo",
			"Limit 10"},
		changes: []string{"block", "release", "release_indefinite", "limit 20k"},
	})
}
