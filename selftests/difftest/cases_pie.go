// SPDX-License-Identifier: Apache-2.0

package main

func init() {
	register(kindCases{
		kind: "pie",
		valid: []string{"", "limit 1000", "limit 0", "limit 0x40", "target 20ms", "target 0", "target 5000",
			"tupdate 30ms", "tupdate 1s", "alpha 0", "alpha 32", "beta 1", "beta 32", "ecn", "noecn", "bytemode",
			"nobytemode", "dq_rate_estimator", "no_dq_rate_estimator", "ecn noecn", "limit 1 limit 2",
			"limit 500 target 10ms tupdate 20ms alpha 4 beta 40 ecn bytemode dq_rate_estimator"},
		invalid: []string{"limit -1", "limit", "target 5parsecs", "tupdate x", "alpha 33", "beta 100", "alpha -1",
			"beta", "help", "ecn foo", "dq_rate"},
		changes: []string{"limit 2000", "noecn", "ecn", "target 3ms", "tupdate 10ms", "alpha 3", "beta 10",
			"bytemode", "dq_rate_estimator", "no_dq_rate_estimator"},
	})
	register(kindCases{
		kind: "fq_pie",
		valid: []string{"", "limit 1000", "limit 0", "flows 256", "flows 65536", "flows 1", "target 20ms",
			"tupdate 30ms", "alpha 0", "alpha 32", "beta 1", "beta 32", "quantum 9000", "quantum 100",
			"quantum 1k", "memory_limit 100000", "memory_limit 4Mb", "ecn_prob 50", "ecn_prob 0",
			"ecn_prob 99", "ecn", "noecn", "bytemode", "nobytemode", "dq_rate_estimator", "no_dq_rate_estimator",
			"limit 500 flows 128 target 10ms tupdate 20ms alpha 4 beta 40 quantum 3000 memory_limit 1Mb ecn_prob 20 ecn bytemode dq_rate_estimator"},
		invalid: []string{"flows 65537", "quantum 2000000", "limit -1", "limit", "ecn_prob 100", "ecn_prob x",
			"alpha 33", "beta 33", "memory_limit 5Tb", "quantum x", "target x", "help", "flow 3"},
		changes: []string{"limit 2000", "noecn", "ecn", "target 3ms", "quantum 4000", "flows 128",
			"memory_limit 1Mb", "ecn_prob 30", "alpha 5", "dq_rate_estimator"},
	})
}
