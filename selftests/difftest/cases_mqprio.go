// SPDX-License-Identifier: Apache-2.0

package main

// mqprio's and taprio's keywords, on the 4-queue devices both need (the
// kernel refuses them on a single queue). mqprio's hardware mode needs a
// device that offloads (netdevsim, as the kernel's tdc cases use), so the
// valid lists here say "hw 0"; tc's default of hw 1 is refused by a
// dummy device. Their classes are the transmit queues (and mqprio's
// traffic classes); cbs and etf hang from them as tdc has them.
func init() {
	register(kindCases{
		kind: "mqprio",
		valid: []string{
			"num_tc 4 map 0 1 2 3 queues 1@0 1@1 1@2 1@3 hw 0",
			"num_tc 2 map 0 1 queues 2@0 2@2 hw 0",
			"num_tc 1 map 0 queues 4@0 hw 0",
			"num_tc 3 map 0 1 2 2 1 0 queues 1@0 1@1 2@2 hw 0",
			"hw 0 num_tc 2 queues 1@0 3@1",
			"num_tc 2 queues 1@0 1@1 hw 0 map 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0",
			"num_tc 4 queues 1@3 1@2 1@1 1@0 hw 0",
			"mode dcb hw 0 num_tc 2 queues 1@0 1@1",
			"shaper dcb hw 0 num_tc 1 queues 4@0",
			"num_tc 002 queues 1@0 1@1 hw 0",
			"num_tc 2 queues 1@@0 1@1@9 hw 0",
			"num_tc 2 queues 1@0 1@1 hw 0 map 1 1",
			"num_tc 4 queues 1@0 1@1 1@2 1@3 hw 0 map 3 2 1 0 3 2 1 0 3 2 1 0 3 2 1 0",
			"num_tc 2 queues 2@0 2@2 hw 00",
			"num_tc 3 queues 2@0 1@2 1@3 hw 0 map 2 1 0",
		},
		invalid: []string{
			"", "hw 0", "num_tc 9 hw 0", "num_tc x", "num_tc", "num_tc 256", "hw x", "hw", "hw 0 mode channel",
			"mode bogus", "mode", "shaper bw_rlimit", "shaper foo", "num_tc 2 queues 1@0 1@1 1@2 hw 0",
			"num_tc 2 queues 1@0 1@1 hw 0 fp P E", "map 0 1 x", "help", "foo", "num_tc 2 queues 1@0 1@1 hw 1",
			"num_tc 2 queues 1@0 1@1 mode channel shaper bw_rlimit min_rate 1mbit", "hw 0 min_rate 1mbit",
			"num_tc 2 queues 2@0 2@2 hw 0 map 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0", "num_tc 2 queues 3@0 2@2 hw 0",
			"num_tc 2 queues x hw 0", "num_tc 2 queues 1 hw 0", "num_tc 2 queues 2@0 2@2 hw 0 fp X", "num_tc 2 queues 2@0 2@2 hw 0 fp E E",
		},
		changes:    []string{"num_tc 1 queues 4@0 hw 0", "hw 0"},
		classQdisc: "num_tc 2 map 0 1 queues 2@0 2@2 hw 0",
		classes: []string{
			"class show dev DEV",
			"qdisc add dev DEV parent 1:1 handle 2: cbs idleslope 20000 sendslope -980000 hicredit 30 locredit -1470",
			"qdisc add dev DEV parent 1:3 handle 3: etf clockid CLOCK_TAI delta 300000 skip_sock_check;qdisc add dev DEV parent 1:2 handle 4: cbs idleslope 666",
		},
		multiqueue: true,
	})
	register(kindCases{
		kind: "taprio",
		valid: []string{
			"num_tc 2 queues 2@0 2@2 sched-entry S 3 1000000 clockid CLOCK_TAI",
			"num_tc 3 map 2 2 1 0 2 2 2 2 2 2 2 2 2 2 2 2 queues 1@0 1@0 1@0 base-time 1000000000 sched-entry S 01 300000 flags 0x1 clockid CLOCK_TAI",
			"num_tc 3 map 2 2 1 0 2 2 2 2 2 2 2 2 2 2 2 2 queues 1@0 1@0 1@0 base-time 1000000000 sched-entry S 01 300000 flags 0x1 txtime-delay 500000 clockid CLOCK_TAI",
			"num_tc 2 queues 1@0 1@1 sched-entry S 01 300000 sched-entry S 02 200000 sched-entry S 3 100000 clockid TAI",
			"num_tc 2 queues 2@0 2@2 sched-entry S 3 1000000 cycle-time 2000000 cycle-time-extension 1000 clockid CLOCK_TAI",
			"num_tc 2 queues 2@0 2@2 sched-entry S 3 1000000 clockid CLOCK_TAI max-sdu 0 0",
			"num_tc 2 queues 2@0 2@2 sched-entry S 3 1000000 clockid CLOCK_TAI fp E E",
			"clockid tai num_tc 4 queues 1@0 1@1 1@2 1@3 sched-entry S f 500000",
			"num_tc 1 queues 4@0 sched-entry S 1 100000 sched-entry S 0 100000 clockid CLOCK_BOOTTIME",
			"num_tc 1 queues 4@0 sched-entry S 1 100000 clockid CLOCK_REALTIME",
			"num_tc 1 queues 4@0 sched-entry S 1 100000 clockid monotonic",
			"num_tc 2 queues 2@0 2@2 sched-entry S 0x3 0x100000 clockid CLOCK_TAI",
			"num_tc 2 queues 2@0 2@2 base-time -1000 sched-entry S 3 1000000 clockid CLOCK_TAI",
			"num_tc 2 map 1 0 queues 2@0 2@2 sched-entry S 3 1000000 clockid CLOCK_TAI base-time 200",
			"num_tc 2 queues 2@0 2@2 sched-entry S 3 1000000 clockid CLOCK_TAI base-time foo bar",
			"num_tc 2 queues 2@0 2@2 sched-entry S 3 1000000 clockid CLOCK_TAI flags 0x1 txtime-delay 0x100",
			"num_tc 2 queues 2@0 2@2 sched-entry S 3 300000 sched-entry S 1 300000 cycle-time 600000 clockid CLOCK_TAI",
			"num_tc 2 queues 2@0 2@2 sched-entry S ffffffff 4294967295 clockid CLOCK_TAI",
		},
		invalid: []string{
			"", "help", "bogus", "clockid foo", "clockid", "num_tc 2 queues 1@0 1@1 sched-entry X 1 300 clockid TAI",
			"sched-entry S zz 300", "sched-entry S 1 x", "sched-entry S 1", "sched-entry", "flags x", "flags 0x1 flags 0x2",
			"clockid TAI clockid TAI", "cycle-time 5 cycle-time 6", "txtime-delay 5 txtime-delay 6",
			"num_tc 2 queues 1@0 1@1 sched-entry S 01 300 sched-entry S 02 1700 clockid CLOCK_TAI",
			"num_tc 2 queues 1@0 1@1 sched-entry S 01 200000 sched-entry S 02 200000 cycle-time 100 clockid CLOCK_TAI",
			"num_tc 2 queues 2@0 2@2 sched-entry S 3 1000000", "num_tc 2 queues 2@0 2@2 sched-entry S 3 1000000 clockid TAI flags 0x4",
			"num_tc 2 queues 2@0 2@2 sched-entry S 3 1000000 clockid TAI max-sdu 99999", "num_tc 2 queues 2@0 2@2 sched-entry S 3 1000000 clockid TAI fp P P",
			"num_tc 2 queues 2@0 2@2 clockid CLOCK_TAI", "num_tc 2 queues 2@0 2@2 sched-entry S 3 1000000 clockid CLOCK_TAI cycle-time -5",
		},
		changes: []string{"sched-entry S 1 500000 clockid CLOCK_TAI", "num_tc 2 queues 2@0 2@2 sched-entry S 3 700000 clockid CLOCK_TAI",
			"sched-entry S 3 700000 cycle-time 1400000"},
		classQdisc: "num_tc 2 queues 2@0 2@2 sched-entry S 3 1000000 clockid CLOCK_TAI",
		classes: []string{
			"class show dev DEV",
			"qdisc add dev DEV parent 1:2 handle 2: cbs idleslope 20000 sendslope -980000 hicredit 30 locredit -1470",
			"qdisc add dev DEV parent 1:4 handle 3: etf clockid CLOCK_TAI delta 300000",
		},
		multiqueue: true,
	})
}
