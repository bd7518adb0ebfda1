// SPDX-License-Identifier: Apache-2.0

package main

// hfscClass is the start of a class command on the test device.
const hfscClass = "class add dev DEV parent 1: classid 1:1 hfsc "

func init() {
	register(kindCases{
		kind: "hfsc",
		valid: []string{"", "default 10", "default 0x1f", "default ffff", "default 0", "def 2", "d 3",
			"default 0 default 4"},
		invalid: []string{"default", "default x", "default 10000", "default 1 default 2", "default -1",
			"help", "nosuchword", "default 1 foo"},
		changes:    []string{"default 20", "default 0", "default 1"},
		classQdisc: "default 1",
		classes: []string{
			hfscClass + "sc rate 1mbit",
			hfscClass + "rt m2 1mbit",
			hfscClass + "ls m2 2mbit",
			hfscClass + "sc m1 2mbit d 10ms m2 1mbit",
			hfscClass + "rt m1 0 d 20ms m2 500kbit ls m2 1mbit",
			hfscClass + "ls m2 10mbit ul m2 20mbit",
			hfscClass + "sc umax 1500 dmax 10ms rate 1mbit",
			hfscClass + "sc umax 1500 dmax 50ms rate 1mbit",
			hfscClass + "rt dmax 5ms rate 1mbit",
			hfscClass + "sc umax 1kb dmax 1s rate 8kbit",
			hfscClass + "ls m1 5mbit d 1s m2 1mbit ul rate 6mbit",
			hfscClass + "rt m2 1gbit ls m2 1gbit",
			hfscClass + "sc m2 30gbit",
			hfscClass + "r m2 1mbit l m 3mbit d 2ms m2 1mbit u r 4mbit",
			hfscClass + "sc d 10ms m2 1mbit",
			hfscClass + "rt m1 1mbit d 1.5ms m2 2Mbit",
			hfscClass + "sc umax 100k dmax 1us rate 1kbit",
			hfscClass + "ls m2 1mbit sc m2 2mbit",
			hfscClass + "rt m2 1mbit; class change dev DEV classid 1:1 hfsc sc m2 2mbit",
			hfscClass + "ls m2 10mbit; class add dev DEV parent 1:1 classid 1:10 hfsc ls m2 3mbit;" +
				" class add dev DEV parent 1:1 classid 1:20 hfsc sc rate 7mbit ul rate 9mbit; class change dev DEV classid 1:20 hfsc rt m2 1mbit",
			hfscClass + "sc rate 1mbit; qdisc add dev DEV parent 1:1 handle 10: codel",
			hfscClass + "rt m2 1mbit; class delete dev DEV classid 1:1",
			hfscClass + "sc rate 1mbit; class replace dev DEV parent 1: classid 1:1 hfsc ls rate 2mbit",
			hfscClass + "rt m2 10%",
			hfscClass,
			hfscClass + "ul m2 1mbit",
			hfscClass + "rt m2 1mbit ul m2 2mbit",
			hfscClass + "rt m1 1mbit",
			hfscClass + "rt m1 1mbit d 1ms",
			hfscClass + "rt m2",
			hfscClass + "rt",
			hfscClass + "rt m2 x",
			hfscClass + "rt m1 x d 1ms m2 1mbit",
			hfscClass + "rt d x m2 1mbit",
			hfscClass + "rt umax 1500 rate 1mbit",
			hfscClass + "rt umax x dmax 1ms rate 1mbit",
			hfscClass + "rt dmax x rate 1mbit",
			hfscClass + "rt rate x",
			hfscClass + "rt m2 0",
			hfscClass + "rt m1 0 d 1ms m2 0",
			hfscClass + "rt m2 40gbit",
			hfscClass + "rt foo",
			hfscClass + "rt m2 1mbit foo",
			hfscClass + "help",
			hfscClass + "nosuchword",
			hfscClass + "sc m2 1mbit m2 2mbit",
			hfscClass + "rt m2 1mbit; class change dev DEV classid 1:1 hfsc ls m2 1mbit",
			"class add dev DEV parent 1: classid 1:1 hfsc ls m1 1mbit d 10ms m2 0",
			"class add dev DEV parent 1:5 classid 1:1 hfsc sc rate 1mbit",
		},
	})
	register(kindCases{kind: "teql0", valid: []string{""}, invalid: []string{"0", "limit 1", "help"}})
}
