#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Capture the reference tc's CAKE output on a real kernel. Runs inside the test
# bed VM (busybox sh); from the repository root:
#
#   selftests/vm/run -- sh testdata/cake/capture.sh >testdata/cake/reference.txt
#
# (qdisc/cake_test.go reads reference.txt; the VM's console lines around the
# output, if any, are ignored.)
#
# Each case prints a header line "#### NAME|FORMAT|COMMAND" followed by the
# command's stdout, then "#### end rc=N". NAME is the case, FORMAT one of text
# (-s -d), json (-s -j) or pretty (-s -j -p); COMMAND is the exact tc command.
TC=/ref/bin/tc
IP=/ref/bin/ip

show() { # NAME DEV [class]
	what=${3:-qdisc}
	for f in "text:-s -d" "json:-s -j" "pretty:-s -j -p"; do
		fmt=${f%%:*} flags=${f#*:}
		echo "#### $1|$fmt|tc $flags $what show dev $2"
		# shellcheck disable=SC2086 # flags are words
		$TC $flags $what show dev "$2"
		echo "#### end rc=$?"
	done
}

# Plain cake on a dummy device: every case replaces the root qdisc.
$IP link add d0 type dummy
$IP link set d0 up
one() { # NAME ARGS...
	name=$1
	shift
	$TC qdisc del dev d0 root 2>/dev/null
	echo "#### $name|cmd|tc qdisc add dev d0 root handle 1: cake $*"
	$TC qdisc add dev d0 root handle 1: cake "$@" 2>&1
	echo "#### end rc=$?"
	show "$name" d0
}

one default
one bw100-diffserv4 bandwidth 100mbit diffserv4
one unlimited-besteffort unlimited besteffort
one autorate autorate-ingress
one diffserv8 bandwidth 20mbit diffserv8 rtt 20ms
one precedence bandwidth 1gbit precedence
one diffserv3-flags bandwidth 1Kbit diffserv3 dsthost nat wash ingress ack-filter no-split-gso
one atm-conservative bandwidth 8mbit conservative
one ptm-pppoe bandwidth 50mbit pppoe-ptm ether-vlan
one ethernet bandwidth 900mbit ethernet ack-filter-aggressive dual-srchost
one docsis bandwidth 300mbit docsis
one raw-atm-fwmark raw atm fwmark 0x8 memlimit 10000
one overhead-mpu overhead 128 mpu 256 noatm memlimit 32mb satellite
one overhead-neg overhead -20 mpu 64 lan egress nonat nowash
one interplanetary interplanetary bandwidth 1500kbit
one rtt-200us rtt 200
one unknown-zero-rate bandwidth 0

# Change and replace keep what is not named (kernel tdc 2342/2313).
$TC qdisc del dev d0 root 2>/dev/null
$TC qdisc add dev d0 root handle 1: cake bandwidth 10mbit diffserv8 ptm overhead 30
$TC qdisc change dev d0 root handle 1: cake mpu 128
show change-mpu d0

# Traffic through a slow shaper, so that tins count packets and flows hold
# a backlog; then the per-flow classes.
$TC qdisc del dev d0 root 2>/dev/null
$TC qdisc add dev d0 root handle 1: cake bandwidth 16kbit besteffort flows
$IP addr add 192.0.2.1/24 dev d0
ping -c 6 -i 0.2 -W 1 -s 400 192.0.2.2 >/dev/null 2>&1
ping -c 4 -i 0.2 -W 1 -s 1000 192.0.2.3 >/dev/null 2>&1
show traffic d0
show traffic-class d0 class
$IP addr del 192.0.2.1/24 dev d0

# cake_mq on a netdevsim device with 4 queues (as the kernel's cake_mq tests).
if [ -e /sys/bus/netdevsim/new_device ]; then
	echo "1 1 4" >/sys/bus/netdevsim/new_device
	sleep 1
	eth=$(ls /sys/bus/netdevsim/devices/netdevsim1/net/ 2>/dev/null | head -1)
	$IP link set "$eth" up
	echo "#### mq|cmd|tc qdisc add dev $eth handle 1: root cake_mq bandwidth 1000 diffserv4"
	$TC qdisc add dev "$eth" handle 1: root cake_mq bandwidth 1000 diffserv4 2>&1
	echo "#### end rc=$?"
	show mq "$eth"
	show mq-class "$eth" class
	echo "#### mq-autorate|cmd|tc qdisc change dev $eth handle 1: root cake_mq autorate-ingress"
	$TC qdisc change dev "$eth" handle 1: root cake_mq autorate-ingress 2>&1
	echo "#### end rc=$?"
fi
