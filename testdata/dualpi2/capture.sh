#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs inside the test VM (selftests/vm/run) and prints a transcript of the
# reference tc (Debian unstable's iproute2, /ref/bin/tc) driving DualPI2 on a
# dummy device: for each command, its exit status, stdout and stderr.
# Regenerate reference.txt from the repository root with
#   selftests/vm/run -- sh testdata/dualpi2/capture.sh > testdata/dualpi2/reference.txt
# (the VM starts in the repository; see README.md).
TC=/ref/bin/tc
IP=/ref/bin/ip
# No IPv6 on the new device: its router solicitations would pass through the
# qdisc and move the counters of the -s listings.
echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6 2>/dev/null
$IP link add d0 type dummy
$IP link set d0 up

# run WORDS...: one transcript record (the VM has no other way to hand back
# the three streams separately).
run() {
	"$@" >/tmp/out 2>/tmp/err
	rc=$?
	echo "### CMD: $*"
	echo "### EXIT: $rc"
	echo "### STDOUT:"
	cat /tmp/out
	echo "### STDERR:"
	cat /tmp/err
	echo "### END"
}

# show ARGS...: create handle 1: with ARGS, list it in every output form, delete.
show() {
	run $TC qdisc add dev d0 handle 1: root dualpi2 "$@"
	run $TC qdisc show dev d0
	run $TC -s -d qdisc show dev d0
	run $TC -j qdisc show dev d0
	run $TC -s -j -p qdisc show dev d0
	run $TC qdisc del dev d0 root
}

show
show memlimit 20000000
show limit 500
show limit 4294967295
show typical_rtt 20ms max_rtt 200ms
show max_rtt 300ms
show max_rtt 100ms
show max_rtt 1
show typical_rtt 10ms
show any_ect
show overflow
show drop_enqueue
show no_split_gso
show step_thresh 3p
show step_thresh 4294967295p
show step_thresh 5s
show min_qlen_step 1
show coupling_factor 1
show coupling_factor 255
show classic_protection 0
show classic_protection 100
show classic_protection 50.5
show alpha 0.5 beta 4
show alpha 8388607.99 beta 0.00390625
show target 1234567 tupdate 999999
show target 5000s tupdate 4295s
show limit 1000 memlimit 1000000 target 10ms tupdate 12ms alpha 0.5 beta 4 step_thresh 5p min_qlen_step 2 coupling_factor 3 overflow drop_enqueue classic_protection 25 any_ect no_split_gso

# change and replace keep what is not named.
run $TC qdisc add dev d0 handle 1: root dualpi2 limit 100 any_ect step_thresh 7p
run $TC qdisc change dev d0 handle 1: root dualpi2 coupling_factor 4
run $TC qdisc show dev d0
run $TC qdisc change dev d0 handle 1: root dualpi2 limit 200
run $TC qdisc show dev d0
run $TC qdisc change dev d0 handle 1: root dualpi2 step_thresh 2ms
run $TC qdisc show dev d0
run $TC qdisc replace dev d0 handle 1: root dualpi2 classic_protection 30
run $TC -s qdisc show dev d0
# an empty TCA_OPTIONS nest is refused by change
run $TC qdisc change dev d0 handle 1: root dualpi2
run $TC qdisc change dev d0 handle 1: root dualpi2 limit 0
run $TC qdisc del dev d0 root

# Values the kernel refuses (extack), and tc's own errors.
run $TC qdisc add dev d0 handle 1: root dualpi2 coupling_factor 0
run $TC qdisc add dev d0 handle 1: root dualpi2 alpha 0
run $TC qdisc add dev d0 handle 1: root dualpi2 beta 0.001
run $TC qdisc add dev d0 handle 1: root dualpi2 alpha 8388608
run $TC qdisc add dev d0 handle 1: root dualpi2 alpha nan
run $TC qdisc add dev d0 handle 1: root dualpi2 alpha 16777216
run $TC qdisc add dev d0 handle 1: root dualpi2 classic_protection 101
run $TC qdisc add dev d0 handle 1: root dualpi2 limit
run $TC qdisc add dev d0 handle 1: root dualpi2 foo
run $TC qdisc add dev d0 handle 1: root dualpi2 help
run $TC qdisc add dev d0 handle 1: root dualpi2 typical_rtt 300ms max_rtt 200ms
run $TC qdisc add dev d0 handle 1: root dualpi2 max_rtt 5s
run $TC qdisc add dev d0 handle 1: root dualpi2 typical_rtt 2147483648
run $TC qdisc add dev d0 handle 1: root dualpi2 alpha 1 max_rtt 30ms
run $TC qdisc show dev d0
run $TC qdisc del dev d0 root
run $TC qdisc add dev d0 handle 1: root dualpi2 step_thresh 3P
run $TC qdisc show dev d0
