// SPDX-License-Identifier: Apache-2.0

package main

func init() {
	register(kindCases{
		kind: "tbf",
		valid: []string{"rate 1mbit burst 10k latency 50ms", "rate 1mbit burst 10k limit 30k",
			"rate 10mbit burst 20k limit 100k peakrate 20mbit mtu 1600",
			"rate 2mbit burst 5k/8 latency 100ms overhead 10 mpu 64 linklayer atm",
			"rate 40gbit burst 1mb limit 10mb", "rate 1mbit buffer 10k latency 1s", "rate 1mbit maxburst 10k lat 20ms",
			"rate 5mbit burst 10k latency 10ms peakrate 6mbit minburst 2000",
			"rate 100kbit burst 3000 limit 5000 linklayer ethernet", "rate 1gbit burst 1mb latency 1ms peakrate 50gbit mtu 64k",
			"rate 1mbit burst 1000 limit 10k", "rate 3mbit burst 10k/64 latency 2ms mtu 2000/16 peakrate 4mbit",
			"limit 20k burst 4k rate 800kbit mpu 1000 overhead 4"},
		invalid: []string{"", "rate 1mbit", "burst 10k", "rate 1mbit burst 10k", "rate 1mbit burst 10k limit 10k latency 5ms",
			"rate 1mbit burst 10k latency 5ms limit 10k", "rate 1mbit burst 10k limit 10k limit 20k",
			"rate x burst 10k limit 10k", "rate 1mbit burst 10k/3 limit 10k", "rate 1mbit burst x/8 limit 10k",
			"rate 1mbit burst 10k/y limit 10k", "rate 1mbit burst 10k limit 10k peakrate 2mbit", "rate 1mbit burst 10k limit 10k nosuchword",
			"help", "rate 1mbit burst 10k limit 10k peakrate 500kbit mtu 1600", "rate 1mbit burst 10k limit 10k overhead 70000",
			"rate 1mbit burst 10k limit", "rate 8bit burst 100mb limit 1k", "rate 1mbit burst 10k latency 5ms linklayer foo",
			"rate 1mbit rate 2mbit burst 10k limit 10k", "rate 1mbit burst 10k burst 5k limit 10k", "rate 10% burst 10k limit 10k",
			"rate 1mbit burst 10k limit 10k peakrate 20% mtu 1500", "rate -1% burst 10k limit 10k"},
		changes: []string{"rate 2mbit burst 20k latency 20ms", "rate 500kbit burst 5k limit 8k",
			"rate 5mbit burst 10k limit 20k peakrate 10mbit mtu 1600"},
	})
}
