#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# gotc-agent on the real kernel (inside the test bed's VM, whose kernel has
# inotify, CAKE and fq_codel): a fleet file in a directory laid out as a
# mounted ConfigMap, three parts of it (this node's by host name, this
# node's by label, another node's), the devices a veth pair and a dummy in
# a network namespace. Each step is checked in the kernel (the reference
# tc) and in the agent's metrics, scraped from its /metrics:
#   1. at start it applies this node's two parts and leaves the other's;
#   2. a ConfigMap update (the "..data" symlink swapped), then a CRM sync's
#      atomic rename over the file, are each applied: one request each;
#   3. a burst of renames and a slow write in place is one pass, of the last;
#   4. drift made with tc (the root qdisc deleted, a class's rate changed)
#      is repaired on the periodic pass, counted as found and repaired;
#   5. a bad file is refused: nothing sent, the failure counted (at each
#      resync while it stays) with the file's line, the tree kept and still
#      repaired towards;
#   6. a good file again is applied, and no more failures counted;
#   7. a second node's agent (edge-2, owning d0) on the same file: a file
#      whose edge-2 part names a device that node lacks fails there only,
#      where the last good tree stays; edge-1 applies its part;
#   8. SIGTERM stops it, exit status 0, the trees in place; with
#      -delete-on-exit, SIGTERM deletes them.
# Run: selftests/vm/run --build ./cmd/gotc-agent -- sh selftests/agent-test.sh
# Prints each check and ends with "N passed, M failed"; exits 1 on any failure.
TC=/ref/bin/tc IP=/ref/bin/ip AGENT=/gotc/bin/gotc-agent
ns=agent
dir=$(mktemp -d) cm=$(mktemp -d) # the test's files; the ConfigMap's mount
passed=0 failed=0 began=$(date +%s)
ok() { passed=$((passed + 1)); echo "ok: $*"; }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }
# check WHAT CMD...: ok or fail by CMD's status.
check() { what=$1; shift; if "$@"; then ok "$what"; else fail "$what"; fi; }

# The agent passes again once the directory is quiet for SETTLE, and
# compares the kernel with the file in force every RESYNC.
SETTLE=2 RESYNC=3

# fleet RATE [TYPO [EDGE2DEV]]: the fleet file, v0's class 1:10 at RATE;
# TYPO misspells "classes" (on line 8); EDGE2DEV is the device of edge-2's
# part (line 18), d0 by default.
fleet() {
	cat <<EOF
fleet:
  - hosts: [edge-1]
    devices:
      v0:
        root:
          qdisc: htb default 10
          handle: "1:"
          ${2:-classes}:
            "1:10":
              class: htb rate $1
              leaf: fq_codel
  - labels: {role: uplink}
    devices:
      v1:
        root: cake bandwidth 50mbit
  - hosts: [edge-2]
    devices:
      ${3:-d0}:
        root: tbf rate 1mbit burst 10k latency 50ms
EOF
}

# configmap N RATE: the kubelet's update of a ConfigMap's mount: the data
# in a new directory, the "..data" symlink swapped to it by rename.
configmap() {
	mkdir "$cm/..$1" && fleet "$2" >"$cm/..$1/tc.yaml" &&
		ln -s "..$1" "$cm/..data_tmp" && mv -T "$cm/..data_tmp" "$cm/..data"
}
# sync RATE [TYPO]: a CRM sync's output, written aside and renamed over the file.
sync() { fleet "$@" >"$cm/.tc.yaml.new" && mv "$cm/.tc.yaml.new" "$cm/tc.yaml"; }

# state DEV...: what tc -d shows of the devices' qdiscs and classes, the
# handles the kernel picks (8001: on) as "8xxx:": a leaf made again after
# a drift gets a new one.
state() {
	for d in "$@"; do
		$TC -n $ns -d qdisc show dev "$d"
		$TC -n $ns -d class show dev "$d"
	done | sed 's/\b8[0-9a-f][0-9a-f][0-9a-f]:/8xxx:/g'
}
# rate_is RATE: v0's class 1:10 has RATE (as tc prints it) and its fq_codel leaf.
rate_is() {
	$TC -n $ns -d class show dev v0 | grep -q "^class htb 1:10 root leaf .* rate $1 " &&
		$TC -n $ns qdisc show dev v0 | grep -q "^qdisc fq_codel .* parent 1:10 "
}

# metric NAME [PORT]: NAME's value (NAME with its labels, as the text
# format prints them) on the agent's /metrics.
metric() {
	wget -q -O - "http://127.0.0.1:${2:-9979}/metrics" | awk -v n="$1" '$1 == n { print $2 }'
}
# metric_is NAME VALUE [PORT]; metric_ge NAME VALUE [PORT]: at least VALUE.
metric_is() { [ "$(metric "$1" "${3:-9979}")" = "$2" ]; }
metric_ge() { v=$(metric "$1" "${3:-9979}") && [ -n "$v" ] && [ "$v" -ge "$2" ]; }
# metrics_are NAME=VALUE...: each of the agent's metrics (without their
# gotc_agent_ prefix) at its value; says which are not.
metrics_are() {
	wget -q -O - http://127.0.0.1:9979/metrics >"$dir/metrics" || { echo "  /metrics cannot be read"; return 1; }
	bad=""
	for nv in "$@"; do
		n=gotc_agent_${nv%=*} want=${nv##*=}
		got=$(awk -v n="$n" '$1 == n { print $2 }' "$dir/metrics")
		[ "$got" = "$want" ] || bad="$bad $n=$got (want $want)"
	done
	[ -z "$bad" ] || { echo "  metrics:$bad"; return 1; }
}
# since T: the last success is at or after T (seconds), and not in the future.
since() {
	awk -v t="$1" -v now="$(date +%s)" '$1 == "gotc_agent_last_success_timestamp_seconds" { s = $2 + 0; found = 1 }
		END { if (!found || s < t || s > now + 1) { print "  last success " s ", want in [" t ", " now "]"; exit 1 } }' "$dir/metrics"
}

# until_true SECS CMD...: polls CMD every half second for up to SECS s.
until_true() {
	t=$1 && shift
	end=$(($(date +%s) + t))
	until "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.5
	done
}

# The devices: v0 and v1, a veth pair, and d0, another node's, all up.
{ $IP netns add $ns && $IP -n $ns link add v0 type veth peer name v1 && $IP -n $ns link add d0 type dummy &&
	for d in v0 v1 d0 lo; do $IP -n $ns link set $d up || exit 1; done; } ||
	{ echo "FAIL: the namespace cannot be set up"; exit 1; }
pristine=$(state v0 v1) pristine_d0=$(state d0)

# 1. Start: this node (edge-1, label role=uplink) owns v0 and v1, 4
# requests: htb, its class and its fq_codel leaf on v0, cake on v1.
configmap 1 10mbit && ln -s ..data/tc.yaml "$cm/tc.yaml"
start=$(date +%s)
# 127.0.0.1, not the default localhost: the VM has no /etc/hosts.
$AGENT -netns $ns -node edge-1 -label role=uplink -listen 127.0.0.1:9979 -settle ${SETTLE}s -resync ${RESYNC}s \
	"$cm/tc.yaml" 2>"$dir/agent.log" &
agent=$!
until_true 60 metric_is gotc_agent_applies_total 1 || {
	kill -0 $agent 2>/dev/null || { echo "FAIL: the agent exited at start:"; cat "$dir/agent.log"; exit 1; }
	fail "start: not applied within 60 s"
}
check "start: 4 requests sent; 2 devices; nothing failed" \
	metrics_are 'passes_total{trigger="start"}=1' applies_total=1 requests_sent_total=4 devices=2 file_refused=0 \
	'failures_total{reason="bad_file"}=0' 'failures_total{reason="kernel"}=0' 'failures_total{reason="read"}=0' \
	drifts_found_total=0 drifts_repaired_total=0
check "start: the last success is now" since "$start"
check "start: v0 has htb, class 1:10 at 10Mbit, an fq_codel leaf" rate_is 10Mbit
check "start: v1 has cake at 50Mbit" sh -c "$TC -n $ns qdisc show dev v1 | grep -q '^qdisc cake .* root .* bandwidth 50Mbit '"
check "start: d0, another node's, is untouched" [ "$(state d0)" = "$pristine_d0" ]
check "/status: devices v0 and v1, nothing refused" sh -c "wget -q -O - http://127.0.0.1:9979/status | tr -d ' \n' | grep -q '\"devices\":\[\"v0\",\"v1\"\]' &&
	! wget -q -O - http://127.0.0.1:9979/status | grep -q refused"

# 2. A ConfigMap update, then a CRM sync's rename: one class change each.
configmap 2 20mbit
until_true 60 rate_is 20Mbit && check "ConfigMap update (..data swapped): applied, 1 request" \
	metrics_are applies_total=2 requests_sent_total=5 drifts_found_total=0 ||
	fail "ConfigMap update: v0 not at 20Mbit within 60 s"
sync 30mbit
until_true 60 rate_is 30Mbit && check "atomic rename over the file: applied, 1 request" \
	metrics_are applies_total=3 requests_sent_total=6 drifts_found_total=0 ||
	fail "atomic rename: v0 not at 30Mbit within 60 s"

# 3. A burst within the settle time: renames, then the file written in
# place in two halves (the first alone is a file with no class): one pass,
# of the last contents.
for r in 31 32 33 34 35; do sync ${r}mbit; done
fleet 40mbit >"$dir/whole"
{ head -n 8 "$dir/whole"; sleep 0.5; tail -n +9 "$dir/whole"; } >"$cm/tc.yaml"
until_true 60 rate_is 40Mbit || fail "burst: v0 not at 40Mbit within 60 s"
sleep $((SETTLE + 1)) # no later pass of an earlier version
check "burst of 6 writes: one pass, the last applied, nothing failed" \
	metrics_are applies_total=4 requests_sent_total=7 'failures_total{reason="bad_file"}=0' drifts_found_total=0
check "burst: v0 is at 40Mbit" rate_is 40Mbit

# 4. Drift, repaired on the next resync.
good=$(state v0 v1 d0)
t=$(date +%s)
$TC -n $ns qdisc del dev v0 root
until_true 60 metric_is gotc_agent_drifts_repaired_total 1 || fail "drift (root deleted): not repaired within 60 s"
check "drift (root deleted): found, repaired with 3 requests" \
	metrics_are drifts_found_total=1 drifts_repaired_total=1 requests_sent_total=10 applies_total=4
check "drift (root deleted): the last success is after it" since "$t"
check "drift (root deleted): the tree is back" [ "$(state v0 v1 d0)" = "$good" ]
$TC -n $ns class change dev v0 parent 1: classid 1:10 htb rate 1mbit
until_true 60 metric_is gotc_agent_drifts_repaired_total 2 || fail "drift (rate changed): not repaired within 60 s"
check "drift (rate changed): found, repaired with 1 request" \
	metrics_are drifts_found_total=2 drifts_repaired_total=2 requests_sent_total=11
check "drift (rate changed): the tree is back" [ "$(state v0 v1 d0)" = "$good" ]

# 5. A bad file: refused, nothing sent, the good tree stays and is repaired
# towards. It is tried again, and its failure counted, at each resync.
sync 50mbit clases
until_true 60 metric_ge 'gotc_agent_failures_total{reason="bad_file"}' 1 || fail "bad file: no failure counted within 60 s"
check "bad file: refused, nothing sent" \
	metrics_are file_refused=1 requests_sent_total=11 applies_total=4 devices=2 'failures_total{reason="kernel"}=0'
n=$(metric 'gotc_agent_failures_total{reason="bad_file"}')
check "bad file: tried again at the next resync, counted again" \
	until_true $((RESYNC * 3)) metric_ge 'gotc_agent_failures_total{reason="bad_file"}' $((n + 1))
check "bad file: the log names its line" grep -q 'tc.yaml:8:11: unknown key \\"clases\\"' "$dir/agent.log"
check "bad file: /status says why" sh -c "wget -q -O - http://127.0.0.1:9979/status | grep -q '\"refused\": \".*clases'"
check "bad file: the tree is as before" [ "$(state v0 v1 d0)" = "$good" ]
$TC -n $ns qdisc del dev v0 root
until_true 60 metric_is gotc_agent_drifts_repaired_total 3 || fail "drift under a bad file: not repaired within 60 s"
check "drift under a bad file: the last good tree is back, still refused" \
	metrics_are drifts_found_total=3 drifts_repaired_total=3 requests_sent_total=14 file_refused=1
check "drift under a bad file: the tree is back" [ "$(state v0 v1 d0)" = "$good" ]

# 6. A good file again.
sync 50mbit
until_true 60 rate_is 50Mbit && check "good file again: applied, no longer refused" \
	metrics_are applies_total=5 file_refused=0 requests_sent_total=15 ||
	fail "good file again: v0 not at 50Mbit within 60 s"
n=$(metric 'gotc_agent_failures_total{reason="bad_file"}')
sleep $((RESYNC + 1))
check "good file again: no failure counted at the next resync" metric_is 'gotc_agent_failures_total{reason="bad_file"}' "$n"

# 7. edge-2's agent on the same file; then a file that fails on edge-2 only.
$AGENT -netns $ns -node edge-2 -listen 127.0.0.1:9981 -settle ${SETTLE}s -resync ${RESYNC}s \
	"$cm/tc.yaml" 2>"$dir/edge2.log" &
edge2=$!
until_true 60 metric_is gotc_agent_applies_total 1 9981 || fail "edge-2: not applied within 60 s"
check "edge-2: d0 has its tbf" sh -c "$TC -n $ns qdisc show dev d0 | grep -q '^qdisc tbf .* root .* rate 1Mbit '"
edge2_good=$(state d0)
sync 60mbit classes d9
until_true 60 rate_is 60Mbit && check "a file edge-2 refuses: edge-1 applies its part" \
	metrics_are applies_total=6 file_refused=0 requests_sent_total=16 ||
	fail "a file edge-2 refuses: v0 not at 60Mbit within 60 s"
until_true 60 metric_is gotc_agent_file_refused 1 9981 || fail "edge-2: the file not refused within 60 s"
check "edge-2: the failure counted" metric_ge 'gotc_agent_failures_total{reason="bad_file"}' 1 9981
check "edge-2: the requests sent are those of its first apply" metric_is gotc_agent_requests_sent_total 1 9981
check "edge-2: the log names d9 at its line" grep -q 'tc.yaml:18:[0-9]*: no device \\"d9\\" on this machine' "$dir/edge2.log"
check "edge-2: d0 keeps its last good tree" [ "$(state d0)" = "$edge2_good" ]
kill -TERM $edge2
wait $edge2
check "edge-2: SIGTERM, its tree stays" [ "$(state d0)" = "$edge2_good" ]

# 8. SIGTERM: the trees stay; with -delete-on-exit they go.
before=$(state v0 v1 d0)
kill -TERM $agent
wait $agent
rc=$?
check "SIGTERM: exit status 0 (got $rc)" [ $rc = 0 ]
check "SIGTERM: the trees stay" [ "$(state v0 v1 d0)" = "$before" ]
check "SIGTERM: the log says so" grep -q 'stopped; the trees stay as they are' "$dir/agent.log"
$AGENT -netns $ns -node edge-1 -label role=uplink -listen 127.0.0.1:9980 -delete-on-exit "$cm/tc.yaml" 2>"$dir/agent2.log" &
agent=$!
until_true 60 metric_is gotc_agent_applies_total 1 9980 || fail "-delete-on-exit: not applied within 60 s"
check "-delete-on-exit: the tree as it is, taken in force with no request" metric_is gotc_agent_requests_sent_total 0 9980
kill -TERM $agent
wait $agent
rc=$?
check "-delete-on-exit, SIGTERM: exit status 0 (got $rc)" [ $rc = 0 ]
check "-delete-on-exit, SIGTERM: v0's and v1's trees deleted" [ "$(state v0 v1)" = "$pristine" ]
check "-delete-on-exit, SIGTERM: d0, edge-2's, untouched" [ "$(state d0)" = "$edge2_good" ]
check "-delete-on-exit: the log says so" grep -q 'stopped; the trees are deleted' "$dir/agent2.log"

if [ $failed -gt 0 ]; then
	echo "--- the agent's log"
	cat "$dir/agent.log"
	echo "--- edge-2's agent's log"
	cat "$dir/edge2.log" 2>/dev/null
	echo "--- the -delete-on-exit agent's log"
	cat "$dir/agent2.log" 2>/dev/null
fi
$IP netns del $ns
echo "agent: $passed passed, $failed failed ($(($(date +%s) - began)) s)"
[ $failed = 0 ]
