// SPDX-License-Identifier: Apache-2.0

package main

func init() {
	register(kindCases{
		kind: "dualpi2",
		valid: []string{"", "limit 1000", "memlimit 1000000", "target 10ms", "tupdate 20ms", "alpha 0.2", "beta 2",
			"step_thresh 2ms", "step_thresh 5p", "step_thresh 7packets", "min_qlen_step 2", "coupling_factor 3",
			"drop_on_overload", "overflow", "drop_enqueue", "drop_dequeue", "classic_protection 20", "l4s_ect", "any_ect",
			"split_gso", "no_split_gso", "max_rtt 100ms", "max_rtt 200ms typical_rtt 20ms", "typical_rtt 10ms"},
		invalid: []string{"limit x", "classic_protection 101", "coupling_factor 0", "alpha 0", "nosuchword", "limit", "target 4000s"},
		changes: []string{"limit 200", "any_ect", "step_thresh 3p", "overflow", "classic_protection 50", "target 20ms"},
	})
}
