// SPDX-License-Identifier: Apache-2.0

package main

func init() {
	register(kindCases{
		kind: "fq",
		valid: []string{"", "limit 1000", "limit 0", "flow_limit 50", "flow_limit 0x10", "quantum 1514",
			"quantum 100", "quantum 2000000", "initial_quantum 0", "initial_quantum 30000", "maxrate 10mbit",
			"maxrate 1gbit", "maxrate 4294967295bps", "buckets 1000", "buckets 4096", "buckets 2", "pacing",
			"nopacing", "refill_delay 10ms", "low_rate_threshold 1mbit",
			"low_rate_threshold 0", "orphan_mask 511", "ce_threshold 2ms", "ce_threshold 0",
			"timer_slack 20us", "timer_slack 1000", "horizon 1s",
			"horizon_drop", "horizon_cap", "horizon 5s horizon_cap",
			"bands 3 priomap 0 1 2 0 1 2 0 1 2 0 1 2 0 1 2 0",
			"weights 16384 65536 1048576", "defrate 1mbit",
			"limit 100 flow_limit 10 quantum 3000 initial_quantum 15000 maxrate 100mbit buckets 256 nopacing",
			"offload_horizon 0"},
		invalid: []string{"limit -1", "limit", "buckets many", "maxrate 10parsecs",
			"maxrate 40gbit", "maxrate 10%", "low_rate_threshold 10%", "orphan_mask z",
			"timer_slack 5s", "refill_delay -1", "initial_quantum 2000000",
			"bands 4 priomap", "bands 3", "bands 3 prio 1", "bands 3 priomap 0 1 2",
			"bands 3 priomap 0 1 3 0 0 0 0 0 0 0 0 0 0 0 0 0", "bands 3 priomap x",
			"bands 3 priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 bands 3 priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0",
			"weights 1 2 3", "weights 16384 16384", "weights 16384 16384 16384 weights 16384 16384 16384",
			"buckets 1", "offload_horizon 1ms", "help", "limt 10"},
		changes: []string{"limit 2000", "nopacing", "pacing", "quantum 4000", "maxrate 1mbit", "buckets 64",
			"ce_threshold 1ms", "horizon_cap", "weights 20000 20000 20000", "timer_slack 5us"},
	})
}
