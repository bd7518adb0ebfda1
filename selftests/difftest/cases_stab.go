// SPDX-License-Identifier: Apache-2.0

package main

// Size tables and estimators, which tc reads before any kind: the same
// words on a few kinds, the kernel's refusals (an estimator on an mq root,
// a table too big for tc's request) and tc's own.
func init() {
	stabValid := []string{"stab overhead 18", "stab linklayer ethernet overhead 18", "stab linklayer atm",
		"stab linklayer adsl overhead -4", "stab mpu 64", "stab mpu 64 overhead 24 linklayer ethernet",
		"stab linklayer atm mtu 1500 tsize 128", "stab linklayer atm mtu 9000 tsize 2048 overhead 10 mpu 96",
		"stab overhead -100", "stab l e o 4", "stab linklayer atm tsize 1", "stab mpu 1000 mtu 64000 tsize 64",
		"stab overhead 18 mtu 1600 tsize 100", "stab mpu 70000 linklayer atm", "stab overhead 2147483647",
		"stab overhead 1 stab mpu 5", "stab mtu 0 tsize 0 mpu 0 overhead 7", "stab linklayer atm tsize 32000",
		"st li a ov 8 mp 16", "stab linklayer atm mtu 100000 tsize 3"}
	stabInvalid := []string{"stab", "stab help", "stab mtu 1500", "stab mtu x overhead 1", "stab overhead 1.5",
		"stab linklayer ptm", "stab linklayer atm linklayer atm", "stab mpu -1", "stab overhead 2147483648",
		"stab mtu 1 mtu 2 overhead 1", "stab tsize 0x10 linklayer atm", "stab linklayer atm tsize 40000",
		"stab overhead", "stab overhead 1 ingress_block 0", "stab linklayer"}
	register(kindCases{name: "stab", kind: "pfifo", beforeKind: true, opts: "limit 100", mixes: 16,
		valid: stabValid, invalid: stabInvalid,
		changes: []string{"stab overhead 4", "stab linklayer atm mpu 48", ""}})
	register(kindCases{name: "stab-tbf", kind: "tbf", beforeKind: true, opts: "rate 1mbit burst 10k latency 10ms", mixes: 4,
		valid:   []string{"stab overhead 18 linklayer ethernet", "stab linklayer atm overhead 10", "stab mpu 100"},
		changes: []string{"stab overhead 20", "stab linklayer adsl"}})
	register(kindCases{name: "stab-fq_codel", kind: "fq_codel", beforeKind: true, mixes: 4,
		valid: []string{"stab overhead 38 linklayer ethernet", "stab linklayer atm mtu 3000 tsize 256",
			"stab mpu 84 overhead 20"}})
	register(kindCases{name: "estimator", kind: "htb", beforeKind: true, opts: "default 1", mixes: 8,
		valid: []string{"estimator 1s 8s", "est 250ms 1s", "estimator 125ms 500ms", "estimator 2s 16s",
			"estimator 4s 32s", "estimator 8s 64s", "estimator 1s 1s", "estimator 500ms 100s", "estimator 1s 2000s",
			"stab overhead 10 estimator 250ms 2s", "e 1sec 8sec"},
		invalid: []string{"estimator 1s", "estimator", "estimator x 8s", "estimator 1s x", "estimator 10s 8s",
			"estimator 1s 1ms", "estimator 1s 8s estimator 1s 8s", "estimator help", "estimator 1s help",
			"estimator 1us 4000s"},
		changes:    []string{"estimator 2s 16s", ""},
		classQdisc: "estimator 1s 8s",
		classes: []string{
			"class add dev DEV parent 1: classid 1:1 estimator 250ms 1s htb rate 1mbit",
			"class add dev DEV parent 1: classid 1:1 htb rate 1mbit;class change dev DEV classid 1:1 estimator 2s 8s htb rate 2mbit",
			"class add dev DEV parent 1: classid 1:1 est 1s 8s est 1s 8s htb rate 1mbit",
			"class add dev DEV parent 1: classid 1:1 estimator 20s 8s htb rate 1mbit",
			"class add dev DEV parent 1: classid 1:1 stab overhead 4 htb rate 1mbit",
		}})
	register(kindCases{name: "estimator-mq", kind: "mq", beforeKind: true, multiqueue: true,
		invalid: []string{"estimator 1s 8s", "stab overhead 1 estimator 1s 8s", "stab overhead 1"}})
	// tc has no module for mq: its options and classes are refused as
	// those of a kind tc does not know; its classes are one per queue.
	register(kindCases{kind: "mq", multiqueue: true, valid: []string{""}, invalid: []string{"limit 1", "help"},
		classes: []string{"class add dev DEV parent 1: classid 1:5 mq",
			"qdisc add dev DEV parent 1:2 handle 2: pfifo limit 5;qdisc add dev DEV parent 1:4 handle 4: estimator 1s 8s fq_codel",
			"class add dev DEV parent 1: classid 1:1 mq limit 1"}})
}
