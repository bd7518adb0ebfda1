// SPDX-License-Identifier: Apache-2.0

package main

func init() {
	register(kindCases{
		kind: "cake",
		valid: []string{"", "bandwidth 100mbit", "bandwidth 97500kbit", "unlimited", "autorate-ingress", "rtt 50ms",
			"datacentre", "lan", "metro", "regional", "internet", "oceanic", "satellite", "interplanetary",
			"besteffort", "precedence", "diffserv8", "diffserv4", "diffserv3", "flowblind", "srchost", "dsthost",
			"hosts", "flows", "dual-srchost", "dual-dsthost", "triple-isolate", "nonat", "wash", "nowash",
			"split-gso", "no-split-gso", "ack-filter", "ack-filter-aggressive", "no-ack-filter", "ingress", "egress",
			"memlimit 32mb", "fwmark 0xff", "ptm", "atm", "noatm", "overhead 18", "overhead -10", "mpu 64", "raw",
			"conservative", "ipoa-vcmux", "ipoa-llcsnap", "bridged-vcmux", "bridged-llcsnap", "pppoa-vcmux",
			"pppoa-llc", "pppoe-vcmux", "pppoe-llcsnap", "pppoe-ptm", "bridged-ptm", "via-ethernet", "ethernet",
			"ether-vlan", "docsis", "bandwidth 1gbit diffserv4 dual-dsthost wash ack-filter rtt 30ms ptm overhead 30 mpu 64"},
		invalid: []string{"bandwidth foo", "overhead 300", "mpu 300", "nosuchword", "rtt", "fwmark x"},
		changes: []string{"mpu 128", "bandwidth 20mbit", "besteffort", "rtt 10ms", "overhead 4", "ack-filter", "wash"},
	})
}
