// SPDX-License-Identifier: Apache-2.0

package main

func init() {
	register(kindCases{
		kind: "red",
		valid: []string{"limit 1M avpkt 1500 min 100K max 300K", "adaptive limit 1M avpkt 1500 min 100K max 300K",
			"ecn limit 1M avpkt 1500 min 100K max 300K", "ecn adaptive limit 1M avpkt 1500 min 100K max 300K",
			"ecn harddrop limit 1M avpkt 1500 min 100K max 300K", "ecn nodrop limit 1M avpkt 1500 min 100K max 300K",
			"ecn harddrop nodrop limit 1M avpkt 1500 min 100K max 300K", "limit 400000 avpkt 1000",
			"limit 400000 avpkt 1000 min 30000", "limit 400000 avpkt 1000 max 90000",
			"limit 1M avpkt 1500 min 100K max 300K burst 80 bandwidth 100mbit probability 0.1",
			"limit 1M avpkt 1500 min 100K max 300K probability 1", "limit 1M avpkt 1500 min 100K max 300K probability 0.5e-3",
			"limit 2mb avpkt 1k min 200kb max 600kb bandwidth 1gbit adaptative",
			"limit 1M avpkt 1500 min 100K max 300K qevent early_drop block 10",
			"limit 1M avpkt 1500 min 100K max 300K qevent mark block 20 ecn",
			"limit 1M avpkt 1500 min 100K max 300K qevent mark block 3 qevent early_drop block 4 ecn",
			"limit 1M avpkt 1500 min 100K max 300K qe mark block 7 ecn", "limit 1M avpkt 1500 min 100K max 100K",
			"limit 100k avpkt 1000 min 30k max 90k burst 55 bandwidth 10kbit",
			"limit 1M avpkt 1500 min 100K max 300K bandwidth 5%"},
		invalid: []string{"", "limit 1M", "avpkt 1500", "nodrop limit 1M avpkt 1500 min 100K max 300K",
			"limit 1M avpkt 1500 min 300K max 100K", "limit x avpkt 1500", "limit 1M avpkt 1500 burst -",
			"limit 1M avpkt 1500 probability x", "limit 1M avpkt 1500 bandwidth y", "limit 1M avpkt 1500 foo", "help",
			"limit 1M avpkt 1500 min 100K max 300K burst 1", "limit 1M avpkt 1500 qevent",
			"limit 1M avpkt 1500 qevent bogus block 1", "limit 1M avpkt 1500 qevent mark",
			"limit 1M avpkt 1500 qevent mark block 0", "limit 1M avpkt 1500 qevent mark foo",
			"limit 1M avpkt 1500 qevent mark block 1 block 2", "limit 1M avpkt 1500 qevent mark block 1 qevent mark block 2",
			"limit 1M avpkt 1500 min", "limit 1M avpkt 1500 min 100K max 300K probability 2"},
		changes: []string{"limit 2M avpkt 1500 min 200K max 600K", "limit 1M avpkt 1000 ecn",
			"limit 1M avpkt 1500 min 100K max 300K adaptive"},
	})
	register(kindCases{
		kind: "choke",
		valid: []string{"limit 1000 bandwidth 10000", "limit 1000 bandwidth 10000 min 100", "limit 1000 bandwidth 10000 max 900",
			"limit 1000 bandwidth 10000 ecn", "limit 1000 bandwidth 10000 burst 100", "limit 100 bandwidth 1mbit",
			"limit 1000 bandwidth 100mbit min 10 max 500 burst 30 avpkt 500 probability 0.1",
			"limit 1000 bandwidth 10mbit probability 0.5", "limit 1000 bandwidth 10mbit avpkt 1500",
			"limit 0x200 bandwidth 1gbit", "limit 10 bandwidth 10kbit", "limit 5000 bandwidth 10mbit ecn min 1000 max 5000",
			"limit 1000 bandwidth 10mbit probability 1", "limit 1000 bandwidth 8% ecn",
			"limit 1000 bandwidth 10mbit burst 400 min 300 max 600"},
		invalid: []string{"", "limit 1000", "bandwidth 10mbit", "limit 1000 bandwidth 10mbit max 2000",
			"limit 1000 bandwidth 10mbit min 300 max 200", "limit 1000 bandwidth 10mbit min 300 max 300",
			"limit x bandwidth 1mbit", "limit 1000 bandwidth z", "limit 1000 bandwidth 1mbit avpkt q",
			"limit 1000 bandwidth 1mbit foo", "help", "limit 1000 bandwidth 1mbit min 100 burst 1", "limit 1000 bandwidth",
			"limit 1000 bandwidth 1mbit probability 3"},
		changes: []string{"limit 1000 bandwidth 10000 min 100", "limit 2000 bandwidth 1mbit ecn"},
	})
	register(kindCases{
		kind: "sfb",
		valid: []string{"", "rehash 60", "db 100", "limit 100", "max 100", "target 100", "increment 0.1", "decrement 0.1",
			"penalty_rate 4000", "penalty_burst 64", "max 50 target 10", "increment 1 decrement 0",
			"rehash 0x1000 db 0 limit 0", "rehash 10000 db 2000 limit 1000 max 40 target 30 increment 0.002 decrement 0.0001 penalty_rate 20 penalty_burst 40",
			"rehash 5000000", "increment 1e-3", "target 1", "max 1"},
		invalid: []string{"rehash", "rehash x", "db -", "increment 2", "decrement -0.5", "increment x", "limit 1 foo", "help",
			"max 5000000000", "penalty_burst"},
		changes: []string{"rehash 100", "limit 500 max 30", "increment 0.01"},
	})
	register(kindCases{
		kind: "sfq",
		valid: []string{"", "limit 8", "perturb 10", "quantum 9000", "divisor 512", "flows 20", "depth 64", "headdrop",
			"redflowlimit 100000 min 8000 max 60000 probability 0.20 ecn headdrop", "limit 2 depth 1",
			"redflowlimit 100000", "redflowlimit 100000 ecn harddrop", "redflowlimit 200000 min 10000 max 50000 avpkt 1500 burst 20",
			"redflowlimit 100000 max 40000 probability 0.01", "quantum 1500 perturb 60 limit 100 divisor 256 flows 100 depth 50",
			"quantum 3k", "perturb 0", "redflowlimit 100000 harddrop headdrop depth 10", "limit 0x10 divisor 0x20",
			"redflowlimit 1000000 min 100000 max 300000 probability 1"},
		invalid: []string{"limit 2 depth 1 flows 1", "limit 2 depth 1 divisor 1", "perturb -10", "perturb 1000000000",
			"limit 1", "limit x", "quantum y", "depth z", "ecn", "min 100", "redflowlimit 1000 max 2000",
			"redflowlimit 1000 min 500 max 400", "foo", "help", "perturb", "redflowlimit 100000 probability q",
			"redflowlimit 100000 burst 1"},
		changes: []string{"limit 50", "perturb 5", "quantum 3000 depth 20"},
	})
}
