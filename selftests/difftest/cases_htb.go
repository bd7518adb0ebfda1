// SPDX-License-Identifier: Apache-2.0

package main

// htbClass is the start of a class command on the test device.
const htbClass = "class add dev DEV parent 1: classid 1:1 htb "

func init() {
	register(kindCases{
		kind: "htb",
		valid: []string{"", "default 10", "default 0x1f", "r2q 5", "r2q 20", "direct_qlen 50", "direct_qlen 0",
			"debug 0123", "debug 39", "default 1 r2q 1 direct_qlen 2000"},
		invalid:    []string{"r2q x", "default zz", "direct_qlen -1", "nosuchword", "help", "r2q", "offload"},
		changes:    []string{"default 20", "r2q 7", "direct_qlen 10"},
		classQdisc: "default 10",
		classes: []string{
			htbClass + "rate 10mbit",
			htbClass + "rate 10mbit ceil 20mbit burst 20k cburst 5k",
			htbClass + "rate 1mbit prio 3 quantum 1500",
			htbClass + "rate 2mbit mtu 9000 mpu 64 overhead 14 linklayer atm",
			htbClass + "rate 1mbit ceil 2mbit linklayer adsl",
			htbClass + "rate 50gbit ceil 60gbit",
			htbClass + "rate 40gbit burst 1mb/64",
			htbClass + "rate 1mbit burst 10k/16 cburst 4k/32",
			htbClass + "rate 1mbit buffer 3000 cbuffer 3000 prio 8",
			htbClass + "rate 1kbit",
			htbClass + "rate 1mbit quantum 0 mtu 0",
			htbClass + "rate 1mbit; class change dev DEV classid 1:1 htb rate 3mbit ceil 4mbit overhead 20",
			htbClass + "rate 100mbit; class add dev DEV parent 1:1 classid 1:10 htb rate 30mbit ceil 100mbit;" +
				" class add dev DEV parent 1:1 classid 1:20 htb rate 70mbit prio 1; class change dev DEV classid 1:20 htb rate 60mbit",
			htbClass + "rate 1mbit; qdisc add dev DEV parent 1:1 handle 10: tbf rate 1mbit burst 10k latency 50ms",
			htbClass + "ceil 1mbit",
			htbClass + "rate x",
			htbClass + "rate 1mbit rate 2mbit",
			htbClass + "rate 1mbit ceil 1mbit ceil 2mbit",
			htbClass + "rate 1mbit burst 10k/3",
			htbClass + "rate 1mbit cburst x",
			htbClass + "rate 1mbit mpu 70000",
			htbClass + "rate 1mbit nosuchword",
			htbClass + "rate",
			htbClass + "help",
			htbClass + "rate 1mbit linklayer foo",
			htbClass + "rate 8bit burst 100mb",
			htbClass + "rate 1mbit prio x",
			htbClass + "rate 10%",
			htbClass + "rate 1mbit ceil 50%",
			htbClass + "rate abc%",
			htbClass + "rate 101%",
		},
	})
}
