// SPDX-License-Identifier: Apache-2.0

package main

// gred's grammar is two: "setup" builds the table (the valid option
// lists), and a virtual queue's parameters change it (the changes, and
// the per-queue command lines run as class cases).
func init() {
	vq := "qdisc change dev DEV root handle 1: gred "
	register(kindCases{
		kind: "gred",
		valid: []string{"setup vqs 10 default 1", "setup vqs 10 default 1 grio", "setup vqs 10 default 1 limit 1000",
			"setup vqs 10 default 2 ecn", "setup vqs 10 default 2 harddrop", "setup vqs 16 default 15",
			"setup vqs 1 default 0", "setup DPs 4 default 3 grio limit 100k ecn harddrop", "setup vqs 4 default 0 limit 2mb",
			"ecn setup vqs 3 default 1", "setup vqs 8 default 7 grio ecn"},
		invalid: []string{"", "setup", "setup vqs 4", "setup default 1 vqs 4", "setup vqs 17 default 1",
			"setup vqs 4 default 4", "setup vqs x default 0", "setup vqs 4 default y", "setup vqs 4 default 0 limit z",
			"setup vqs 4 default 0 foo", "limit 10k setup vqs 4 default 0", "help", "foo",
			"limit 60KB min 15K max 25K avpkt 1500 DP 1", "DP 16 limit 60KB min 15K max 25K avpkt 1500",
			"limit 60KB min 15K max 25K avpkt 1500", "vq x", "ecn"},
		changes: []string{"limit 60KB min 15K max 25K burst 64 avpkt 1500 bandwidth 10Mbit DP 1 probability 0.1",
			"vq 0 limit 100k min 20k max 60k avpkt 1000", "vq 2 prio 3 limit 100k min 20k max 60k avpkt 1000 ecn harddrop",
			"vq 1 limit 100k min 20k max 60k avpkt 1000 bandwidth 100mbit burst 30"},
		classQdisc: "setup vqs 4 default 1 grio",
		classes: []string{
			vq + "vq 0 prio 2 limit 60KB min 15K max 25K avpkt 1500;" + vq + "vq 1 prio 5 limit 100k min 20k max 60k avpkt 1000 probability 0.05",
			vq + "vq 3 limit 1mb min 100k max 300k avpkt 1500 burst 100 bandwidth 1gbit ecn;" + vq + "vq 2 limit 1mb min 100k max 300k avpkt 1500 harddrop",
			vq + "vq 1 limit 1mb min 100k max 300k avpkt 1500 probability 1;" + vq + "vq 0 limit 1mb min 300k max 100k avpkt 1500",
			vq + "vq 4 limit 1mb min 100k max 300k avpkt 1500;" + vq + "vq 1 limit 1mb min 100k max 300k avpkt 1500 burst 1",
			vq + "vq 1 prio 300 limit 10k min 2k max 6k avpkt 500 bandwidth 5%;" + vq + "setup vqs 6 default 2",
		},
	})
}
