// SPDX-License-Identifier: Apache-2.0

package main

func init() {
	register(kindCases{
		kind: "codel",
		valid: []string{"", "limit 1000", "limit 1", "limit 0x100", "target 2ms", "target 2000", "target 0",
			"interval 5000", "interval 1s", "ecn", "noecn", "ce_threshold 1024000", "ce_threshold 0",
			"ce_threshold 2ms ecn", "limit 0 target 0 interval 0", "limit 10 limit 20",
			"limit 500 target 3ms interval 50ms noecn ce_threshold 1ms"},
		invalid: []string{"limit -1", "limit", "limit x", "target 5parsecs", "interval", "ce_threshold zz",
			"lim 10", "help", "ecn foo"},
		changes: []string{"limit 2000", "noecn", "ecn", "target 3ms", "interval 20ms", "ce_threshold 1ms"},
	})
}
