// SPDX-License-Identifier: Apache-2.0

package main

func init() {
	register(kindCases{
		kind: "hhf",
		valid: []string{"", "limit 1000", "limit 0", "limit 0x20", "quantum 1514", "quantum 100", "hh_limit 100",
			"hh_limit 2048", "reset_timeout 20ms", "reset_timeout 1s", "admit_bytes 65536", "admit_bytes 1",
			"evict_timeout 500ms", "evict_timeout 2000", "non_hh_weight 4", "non_hh_weight 1",
			"quantum 3000 non_hh_weight 3",
			"limit 500 quantum 1000 hh_limit 1000 reset_timeout 50ms admit_bytes 100000 evict_timeout 2s non_hh_weight 8"},
		invalid: []string{"limit -1", "limit", "quantum x", "hh_limit 2049", "hh_limit z", "reset_timeout 5parsecs",
			"admit_bytes 1k", "evict_timeout x", "non_hh_weight -2", "quantum 1048576 non_hh_weight 4096",
			"help", "lim 10"},
		changes: []string{"limit 2000", "quantum 4000", "hh_limit 10", "reset_timeout 10ms", "admit_bytes 2000",
			"evict_timeout 100ms", "non_hh_weight 5"},
	})
}
