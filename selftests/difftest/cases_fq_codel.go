// SPDX-License-Identifier: Apache-2.0

package main

func init() {
	register(kindCases{
		kind: "fq_codel",
		valid: []string{"", "limit 1000", "limit 1", "limit 0x100", "flows 256", "flows 65536", "quantum 9000",
			"quantum 100", "target 2ms", "target 2000", "interval 5000", "interval 1s", "memory_limit 100000",
			"memory_limit 32Mb", "memory_limit 4Gb", "ecn", "noecn", "ce_threshold 1024000", "ce_threshold 0",
			"ce_threshold 2ms ce_threshold_selector 0x1/0x3", "ce_threshold_selector 0x4/0xfc", "drop_batch 100",
			"drop_batch 1", "limit 0 flows 0 target 0", "limit 1000 flows 256 drop_batch 100"},
		invalid: []string{"flows 65537", "quantum 2000000", "limit -1", "limit", "target 5parsecs", "memory_limit 5Tb",
			"ce_threshold_selector 3", "ce_threshold_selector 3/0x100", "ce_threshold_selector 256/1", "lim 10", "help"},
		changes: []string{"limit 2000", "noecn", "ecn", "target 3ms", "quantum 4000", "flows 128", "ce_threshold 1ms",
			"memory_limit 1Mb", "drop_batch 8"},
	})
}
