#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# What each operation gotc apply sends does to the packets a qdisc holds
# (LibreQoS#515: "tc class change and tc class replace still drop the
# contents of the qdisc's buffer"). Each case builds a slow tree on veth v0
# (netns lc, peer v1 in netns lcp): a 200kbit shaper, where the kind
# shapes at the root, or else the kind as the leaf of an htb class of
# 200kbit. A burst of $N UDP packets of 1000 bytes, sent at once, waits in
# it (its backlog is read and must be > 0), the operation runs, and the
# queue drains. "Delivered" is what v1 received (its rx_packets), so kept
# means delivered, not only "not counted as dropped".
# Each line prints the requests (an apply's plan), the root qdisc's
# backlog before and after them (and what it still counts when the queue
# has drained, or after 10 s), its drop counter before and after, the
# Sent packets of the object operated on before and after (fewer after:
# its counters were reset), and the packets delivered. The outcome each
# case must have (kept, lost, refused) is asserted, and that an object
# whose queue is kept keeps its counters, so a kernel that behaves
# otherwise fails the test; docs/live-changes.md is the table of one run.
# The cases are selftests/live-change.cases; the last ones apply files.
# Run: selftests/vm/run --build ./cmd/gotc-traffic -- sh selftests/live-change.sh
GOTC=/gotc/bin/gotc TC=/ref/bin/tc IP=/ref/bin/ip
N=50 RATE=200kbit FAST=400kbit
dir=$(mktemp -d)
passed=0 failed=0 began=$(date +%s)
$IP netns add lc && $IP netns add lcp || exit 1
$IP -n lc link add v0 type veth peer name v1 netns lcp
$IP -n lc addr add 10.77.0.1/24 dev v0 && $IP -n lc link set v0 up
$IP -n lcp addr add 10.77.0.2/24 dev v1 && $IP -n lcp link set v1 up
# The receiver counts and drops: no socket answers with ICMP errors, which
# would fail the next burst's sends (ECONNREFUSED).
$TC -n lcp qdisc add dev v1 clsact && $TC -n lcp filter add dev v1 ingress matchall action drop || exit 1
# plan PRIORITY DSCP: the burst, its packets' skb->priority set to
# PRIORITY, which sends them to that class of htb, hfsc, drr, qfq and ets
# (1:10 is 65552, 1:1 is 65537), their DS field to DSCP (cake's tins).
plan() {
	printf '{"dev":"v0","netns":"lc","peer":"v1","peer_netns":"lcp","flows":[{"proto":"udp","src":"10.77.0.1","dst":"10.77.0.2","sport":5000,"dport":4000,"size":1000,"count":%d,"burst":%d,"priority":%d,"dscp":%d}]}' $N $N "$1" "$2" >"$dir/plan"
}

g() { $GOTC -n lc "$@"; }
rx() { $IP netns exec lcp cat /sys/class/net/v1/statistics/rx_packets; }
rootstats() { $TC -n lc -s qdisc show dev v0 root; }
# backlog [STATS]: the root's backlog in packets, of STATS (rootstats's
# output) or read now; drops STATS: its drop counter.
backlog() { echo "${1:-$(rootstats)}" | sed -n 's/.*backlog [^ ]* \([0-9]*\)p.*/\1/p' | head -1; }
drops() { echo "$1" | sed -n 's/.*(dropped \([0-9]*\),.*/\1/p' | head -1; }
# sentpkts WHAT...: the Sent packets of the first object "tc -s WHAT dev v0 ..." shows.
sentpkts() {
	obj=$1
	shift
	$TC -n lc -s "$obj" show dev v0 "$@" | awk '/Sent/ { print $4; exit }'
}
# run ARGS...: one gotc command line per line of ARGS (";" separates
# them); fails at the first the kernel refuses, its error in $dir/err.
run() {
	echo "$1" | tr ';' '\n' | {
		while read -r c; do
			[ -z "$c" ] || g $c >"$dir/out" 2>"$dir/err" || exit 1
		done
	}
}

# check NAME SETUP TARGET OP WANT [PRIORITY [DSCP]]: SETUP and OP are gotc
# command lines separated by ";" ("apply FILE" is apply's plan); TARGET is
# "qdisc root", "qdisc parent 1:10" or "class classid 1:10", whose Sent
# packets are read; WANT is kept, lost or refused. PRIORITY and DSCP are
# the burst's (default 1:10 and 0).
check() {
	name=$1 setup=$2 target=$3 op=$4 want=$5
	plan "${6:-65552}" "${7:-0}"
	$TC -n lc qdisc del dev v0 root 2>/dev/null
	run "$setup" || { failed=$((failed + 1)); echo "FAIL: $name: setup refused: $(cat "$dir/err")"; return; }
	# The requests, as tc command lines (an apply's, its plan's).
	steps=" [$(echo "$op" | sed 's/;/; /g')]"
	case $op in
	apply*)
		g apply --diff ${op#apply } 2>&1 | grep -v '^apply: ' >"$dir/diff"
		steps=" [$(tr '\n' ';' <"$dir/diff" | sed 's/;$//; s/;/; /g')]"
		;;
	esac
	rx0=$(rx)
	/gotc/bin/gotc-traffic send -plan "$dir/plan" >/dev/null || { failed=$((failed + 1)); echo "FAIL: $name: traffic not sent"; return; }
	st=$(rootstats) s0=$(sentpkts $target)
	b0=$(backlog "$st") d0=$(drops "$st")
	rc=0
	run "$op" || rc=1
	st=$(rootstats) s1=$(sentpkts $target)
	b1=$(backlog "$st") d1=$(drops "$st")
	# $N packets of 1042 bytes drain in about 2 s at 200kbit.
	for _ in $(seq 50); do
		[ "$(backlog)" = 0 ] && break
		sleep 0.2
	done
	sleep 0.1
	got=$(($(rx) - rx0)) b2=$(backlog)
	if [ $rc != 0 ]; then
		outcome=refused
	elif [ "$got" = $N ]; then
		outcome=kept
	else
		outcome=lost
	fi
	reset=no
	[ -n "$s1" ] && [ -n "$s0" ] && [ "$s1" -lt "$s0" ] && reset=yes
	line="$name$steps | backlog ${b0}p -> ${b1}p (${b2}p left) | dropped ${d0} -> ${d1} | sent ${s0} -> ${s1} (reset: $reset) | delivered $got/$N | $outcome"
	[ $rc = 0 ] || line="$line: $(head -1 "$dir/err")"
	# What keeps the queue keeps the object, and so its counters.
	if [ "${b0:-0}" -gt 0 ] && [ "$outcome" = "$want" ] && { [ $outcome != kept ] || [ $reset = no ]; }; then
		passed=$((passed + 1))
		echo "ok: $line"
	else
		failed=$((failed + 1))
		echo "FAIL: $line (want $want, with a backlog before, and counters kept if kept)"
		rootstats | sed 's/^/	/'
	fi
}

# H: an htb root whose class 1:10 holds the burst; L: the same with a leaf
# of handle 10: (its kind and options follow).
H="qdisc add dev v0 root handle 1: htb default 10;class add dev v0 parent 1: classid 1:10 htb rate $RATE burst 2k"
L="$H;qdisc add dev v0 parent 1:10 handle 10:"
TBF="tbf rate $RATE burst 5k limit 200k"

# trim TEXT: TEXT without its leading and trailing blanks.
trim() {
	t=$1
	t=${t#"${t%%[! ]*}"}
	printf '%s' "${t%"${t##*[! ]}"}"
}
while IFS='|' read -r name setup target op want extra <&3; do
	case $name in
	'## '*) echo "# ${name#\#\# }" && continue ;;
	'#'* | '') continue ;;
	esac
	eval "setup=\"$(trim "$setup")\" op=\"$(trim "$op")\""
	[ "$op" != - ] || op=""
	check "$(trim "$name")" "$setup" "$(trim "$target")" "$op" "$(trim "$want")" $extra
done 3<selftests/live-change.cases

echo "# gotc apply: the plan's requests, on a tree it made"
tree() { # FILE ROOT CLASS LEAF: an htb tree with class 1:10 and its leaf 10:
	printf 'devices:\n  v0:\n    root:\n      qdisc: %s\n      handle: "1:"\n      classes:\n        "1:10": { class: %s, leaf: { qdisc: %s, handle: "10:" } }\n' "$2" "$3" "$4" >"$dir/$1.yaml"
}
tree base "htb default 10" "htb rate $RATE burst 2k" "fq_codel target 5s interval 10s"
tree rate "htb default 10" "htb rate $FAST burst 2k" "fq_codel target 5s interval 10s"
tree leafopt "htb default 10" "htb rate $RATE burst 2k" "fq_codel target 6s interval 10s"
tree dropped "htb default 10" "htb rate $RATE burst 2k" "fq_codel target 5s interval 10s limit 2000"
tree leafkind "htb default 10" "htb rate $RATE burst 2k" "sfq"
tree default "htb default 20" "htb rate $RATE burst 2k" "fq_codel target 5s interval 10s"
tree sfq "htb default 10" "htb rate $RATE burst 2k" "sfq perturb 10"
tree sfqopt "htb default 10" "htb rate $RATE burst 2k" "sfq perturb 20"
check "apply: class rate changed" "apply $dir/base.yaml" "class classid 1:10" "apply $dir/rate.yaml" kept
check "apply: leaf option changed" "apply $dir/base.yaml" "qdisc parent 1:10" "apply $dir/leafopt.yaml" kept
check "apply: leaf option removed" "apply $dir/dropped.yaml" "qdisc parent 1:10" "apply $dir/base.yaml" kept
check "apply: leaf kind changed" "apply $dir/base.yaml" "qdisc parent 1:10" "apply $dir/leafkind.yaml" lost
check "apply: htb default changed" "apply $dir/base.yaml" "qdisc root" "apply $dir/default.yaml" lost
check "apply: sfq option changed" "apply $dir/sfq.yaml" "qdisc parent 1:10" "apply $dir/sfqopt.yaml" lost
printf 'devices:\n  v0:\n    root: { qdisc: cake bandwidth %s rtt 100s, handle: "1:" }\n' $RATE >"$dir/cake.yaml"
printf 'devices:\n  v0:\n    root: { qdisc: cake bandwidth %s rtt 100s, handle: "1:" }\n' $FAST >"$dir/cakefast.yaml"
printf 'devices:\n  v0:\n    root: { qdisc: cake bandwidth %s rtt 100s nat wash ack-filter, handle: "1:" }\n' $RATE >"$dir/cakemore.yaml"
check "apply: cake bandwidth changed" "apply $dir/cake.yaml" "qdisc root" "apply $dir/cakefast.yaml" kept
check "apply: cake settings removed" "apply $dir/cakemore.yaml" "qdisc root" "apply $dir/cake.yaml" kept

echo "# kernel $(uname -r); live changes took $(($(date +%s) - began)) s"
echo "live changes: $passed passed, $failed failed"
$IP netns del lc
$IP netns del lcp
rm -rf "$dir"
[ $failed = 0 ]
