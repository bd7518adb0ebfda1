#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The library against the VM's kernel: its examples (add CAKE, change a
# bandwidth, read statistics, an ingress redirect through an ifb, watch
# events; package gotc's example_test.go, whose outputs the test binary
# checks), then the cost of one bandwidth change in process against a
# forked tc. Run in the VM, with the test binary and ratechange built:
#
#   selftests/vm/run --test . --build ./selftests/ratechange -- sh selftests/lib-examples.sh
#
# Prints "N passed, M failed" over the examples and the benchmark; exits
# non-zero if any failed.
ip=/ref/bin/ip tc=/ref/bin/tc
pass=0 fail=0 start=$(date +%s)
check() { if [ "$1" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAILED: $2"; fi; }

# The examples' namespace: eth0 and ifb0, up.
$ip netns add example && $ip -n example link add eth0 type dummy && $ip -n example link add ifb0 type ifb &&
	$ip -n example link set eth0 up && $ip -n example link set ifb0 up && $ip -n example link set lo up
check $? "the examples' namespace"

/gotc/bin/gotc.test -test.run '^Example' -test.v >examples.out 2>&1
rc=$?
cat examples.out
n=$(grep -c '^--- PASS: Example' examples.out)
bad=$(grep -c '^--- FAIL: Example' examples.out)
[ "$n" -ge 5 ] || { echo "FAILED: $n examples passed, 5 expected"; bad=$((bad + 1)); }
pass=$((pass + n)) fail=$((fail + bad))
[ "$rc" = 0 ] || [ "$bad" -gt 0 ] || { echo "FAILED: the test binary exited $rc"; fail=$((fail + 1)); }

# gotc monitor (netlink.Conn.Events) against tc monitor, both listening
# while tc makes and undoes a small tree.
$ip netns add mon && $ip -n mon link add m0 type dummy && $ip -n mon link set m0 up
check $? "the monitor's namespace"
$tc -n mon monitor >tc.mon 2>&1 &
tcmon=$!
/gotc/bin/gotc -n mon monitor >gotc.mon 2>&1 &
gotcmon=$!
sleep 2
while read -r line; do
	$tc -n mon $line || echo "FAILED: tc $line"
done <<'LINES'
qdisc add dev m0 root handle 1: htb default 1
class add dev m0 parent 1: classid 1:1 htb rate 10mbit
qdisc add dev m0 parent 1:1 handle 10: cake bandwidth 10mbit
qdisc change dev m0 parent 1:1 handle 10: cake bandwidth 20mbit
qdisc replace dev m0 parent 1:1 handle 10: cake bandwidth 30mbit
qdisc add dev m0 handle ffff: ingress
filter add dev m0 parent ffff: protocol all pref 1 matchall action gact drop
filter replace dev m0 parent ffff: protocol all pref 2 matchall action gact pass
filter del dev m0 parent ffff: pref 1
filter del dev m0 parent ffff: pref 2
actions add action gact pass index 5
actions del action gact index 5
qdisc del dev m0 ingress
class change dev m0 parent 1: classid 1:1 htb rate 20mbit
qdisc del dev m0 root
LINES
sleep 2
kill $tcmon $gotcmon
wait $tcmon $gotcmon 2>/dev/null
if cmp -s tc.mon gotc.mon && [ -s tc.mon ]; then
	check 0 "gotc monitor"
	echo "gotc monitor printed what tc monitor did: $(wc -l <tc.mon) lines"
else
	echo "--- tc monitor"; cat tc.mon; echo "--- gotc monitor"; cat gotc.mon
	check 1 "gotc monitor differs from tc monitor"
fi

# One bandwidth change: in process (a kept Conn) against fork(tc).
$ip netns add bench && $ip -n bench link add d0 type dummy && $ip -n bench link set d0 up &&
	$tc -n bench qdisc add dev d0 root cake bandwidth 10mbit &&
	/gotc/bin/ratechange -netns bench -dev d0 -kind cake -tc $tc -n 50 -rounds 3
check $? "ratechange"

echo "# lib-examples took $(($(date +%s) - start)) s"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
