// SPDX-License-Identifier: Apache-2.0

package main

// netem's cases. The kernel picks a random seed for a qdisc created without
// one and dumps it, so every valid case names a seed: otherwise the twin
// devices' states would differ by it.
func init() {
	register(kindCases{
		kind: "netem",
		valid: []string{"seed 1", "limit 200 seed 2", "delay 100ms seed 3", "delay 100ms 10ms seed 4",
			"delay 100ms 10ms 25% seed 5", "delay 10ms 2ms distribution normal seed 6",
			"delay 1s 100ms 50 distribution pareto seed 7", "latency 20ms 5ms dist paretonormal seed 8",
			"delay 5ms 1ms distribution experimental seed 9", "loss 1% seed 10", "loss random 2.5% 30% seed 11",
			"drop 0.1 seed 12", "loss state 1% seed 13", "loss state 1% 2% 3% 4% 5% seed 14",
			"loss gemodel 1% seed 15", "loss gemodel 1% 10% 70% 0.1% seed 16", "loss 5% ecn seed 17",
			"loss gemodel 2% 20% ecn seed 18", "corrupt 1% seed 19", "corrupt 0.5% 25% seed 20",
			"duplicate 2% seed 21", "duplicate 2% 3% delay 1ms 1ms 1 seed 22", "delay 10ms reorder 25% 50% seed 23",
			"delay 10ms reorder 2% gap 5 seed 24", "rate 20000 seed 25", "rate 1mbit 20 seed 26",
			"rate 100kbit -10 64 -4 seed 27", "rate 10gbit seed 28", "rate 50gbit 14 seed 29",
			"slot 10 200 packets 2000 bytes 9000 seed 30", "slot 1ms seed 31",
			"slot distribution pareto 1ms 0.1ms seed 32", "slot distribution normal 2ms 500us packets 10 bytes 64k seed 33",
			"seed 18446744073709551615", "seed -1",
			"limit 10k delay 1.5ms 0.5ms 10% loss 0.3% 25% duplicate 1% corrupt 0.1% seed 35",
			"delay 0 seed 36", "delay 100us 50us 100% seed 37", "loss 100% seed 38", "reorder 100% delay 1ms gap 1 seed 39",
			"rate 1mbit 0 0 0 seed 40", "delay 10ms 1ms distribution normal distribution pareto seed 41",
			"limit 1 delay 1s seed 42", "d 5ms l 10 du 1% s 43", "delay 1ms 1ms 10% loss state 10% 20% ecn seed 44",
			"limit 0 seed 45", "loss 0% loss 1% seed 46", "delay 4294967296us seed 47", "rate 0 seed 48",
			"delay 10ms 2ms 25% distribution normal loss state 1% 2% reorder 5% 10% gap 3 rate 1mbit 10 20 -4 " +
				"slot 1ms 2ms packets 3 bytes 2k seed 49 ecn corrupt 1% duplicate 2% 3%",
			"delay 3ms 1ms 0x10 reorder 1 2 corrupt 3 4 seed 50", "slot 5ms 5ms bytes 1500 seed 51",
			"delay 1ms 1ms slot distribution paretonormal 10ms 2ms packets 1 distribution normal seed 52"},
		invalid: []string{"help", "nosuch", "limit", "limit x", "delay x", "delay 10ms 1x", "delay 10ms 1ms 200%",
			"delay -1ms", "loss", "loss random", "loss random 101%", "loss foo", "loss 1% loss 2%",
			"loss state 1% loss gemodel 2%", "loss state x", "loss state 1% 2x", "loss gemodel 1% 2% 3% 4x",
			"loss gemodel x", "ecn", "reorder 10%", "gap 5", "delay 10ms reorder 10% gap x", "distribution normal",
			"delay 10ms distribution normal", "delay 10ms 1ms distribution uniform", "delay 10ms 1ms distribution nosuch",
			"delay 10ms 1ms distribution", "rate x", "rate 1mbit 1x", "rate 1mbit 1 2x", "rate 10%", "rate", "slot", "slot foo",
			"slot 2ms 1ms", "slot 1ms packets", "slot 1ms packets x", "slot 1ms bytes x", "slot distribution",
			"slot distribution normal 1ms", "slot distribution normal 1ms 0", "slot distribution nosuch 1ms 1ms",
			"slot distribution normal x 1ms", "seed x", "seed", "corrupt x", "corrupt 1% 2x", "duplicate x",
			"slot 1ms 2ms packets -1 seed 1", "delay 10ms 1ms 10% reorder 1% 2% 3%",
			// Times beyond 2^63 ns wrap negative in tc, and sizes of 2^31 or
			// more in its int: the kernel refuses them.
			"delay 1e300s seed 1", "delay 1ms 1e300s seed 1", "slot 1ms bytes 3g seed 1"},
		changes: []string{"delay 50ms", "loss 2%", "limit 100 delay 1ms 1ms distribution normal",
			"rate 2mbit slot 1ms", "loss gemodel 1% 2%"},
	})
}
