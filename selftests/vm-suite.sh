#!/bin/sh
# The real-kernel suite, run inside the test bed's VM by ../test.sh:
#  1. our tdc JSON tests (selftests/tests) with gotc as $TC, under our runner;
#  2. the kernel's tdc files of the kinds gotc has ($matchfiles) under our
#     runner, with gotc and with the reference tc as $TC: the same verdict
#     for every case;
#  3. the differential test against the reference tc;
#  4. CAKE options decoded a second time by go-tc;
#  5. the files of 2 under the kernel's own tdc.py, each checked against the
#     reference tc's count (selftests/tdc-expected.txt);
#  6. the model-vs-kernel cases (selftests/model-tests), alone.
# Each part prints its own "N passed, M failed" line; the suite's status is
# non-zero if any part failed.
status=0
start=$(date +%s) last=$start
part() {
	now=$(date +%s)
	[ "$now" = "$start" ] || echo "# part took $((now - last)) s"
	last=$now
	printf '\n--- %s\n' "$*"
}
# Kernel tdc files (DIR/NAME, as in selftests/tdc-expected.txt) on which gotc
# must do as well as the reference tc, case for case, under both runners:
# add a kind's file here once gotc has the kind.
matchfiles="qdiscs/cake qdiscs/dualpi2 qdiscs/cake_mq qdiscs/fq_codel qdiscs/htb qdiscs/tbf
 qdiscs/ingress qdiscs/pfifo_fast qdiscs/prio qdiscs/multiq qdiscs/fifo qdiscs/plug qdiscs/codel
 qdiscs/skbprio qdiscs/mqprio qdiscs/taprio qdiscs/etf qdiscs/cbs"

# tdc_match FILE...: gotc under the kernel's tdc.py on each file; fails when
# gotc passes fewer cases than the reference tc did, or skips any.
tdc_match() { sh selftests/vm/tdc-match.sh /gotc/bin/gotc "$@"; }

# The differential test and the second decoder use devices of the root
# namespace and a namespace of their own, so they run beside our runner's
# tdc parts (which use a fresh namespace per test), in the time those spend
# waiting. The VM has one CPU (the test kernel is built without SMP): tdc.py,
# whose counts move under load (selftests/tdc-expected.txt), and the model
# tests, whose packets' timing the models predict, run after them, alone.
(
	/gotc/bin/difftest >/tmp/difftest.log 2>&1 || echo fail >/tmp/difftest.status
	# go-tc fails a whole dump on kinds it lacks (dualpi2): give it a namespace.
	{ /ref/bin/ip netns add crossdecode && /ref/bin/ip netns exec crossdecode /gotc/bin/crossdecode; } \
		>/tmp/crossdecode.log 2>&1 || echo fail >/tmp/crossdecode.status
) &
side=$!

part "our tdc tests (gotc as \$TC)"
/gotc/bin/tdc -tc /gotc/bin/gotc -ip /ref/bin/ip selftests/tests/*.json || status=1

# verdicts FILE: "ok ID", "not ok ID" or "ok ID skip", one per case, from
# our runner's output.
verdicts() {
	awk '/^(ok|not ok) / { v = ($1 == "ok") ? "ok" : "not ok"; id = (v == "ok") ? $3 : $4
		print v, id ((index($0, "# skip") > 0) ? " skip" : "") }' "$1"
}

part "kernel tdc files under our runner, case for case as the reference tc (gotc as \$TC)"
for f in $matchfiles; do
	echo "# $f"
	/gotc/bin/tdc -tc /gotc/bin/gotc -ip /ref/bin/ip "/tc-testing/tc-tests/$f.json" >/tmp/ours-gotc.out 2>&1
	/gotc/bin/tdc -tc /ref/bin/tc -ip /ref/bin/ip "/tc-testing/tc-tests/$f.json" >/tmp/ours-tc.out 2>&1
	verdicts /tmp/ours-gotc.out >/tmp/ours-gotc.v
	verdicts /tmp/ours-tc.out >/tmp/ours-tc.v
	if [ -s /tmp/ours-tc.v ] && cmp -s /tmp/ours-gotc.v /tmp/ours-tc.v; then
		echo "$f: gotc's verdicts are the reference tc's, case for case: $(tail -1 /tmp/ours-gotc.out)"
	else
		echo "$f: FAIL: verdicts differ from the reference tc's (< gotc, > tc):"
		diff /tmp/ours-gotc.v /tmp/ours-tc.v
		cat /tmp/ours-gotc.out
		status=1
	fi
done

part "differential test against the reference tc (ran alongside)"
wait $side
cat /tmp/difftest.log
[ -e /tmp/difftest.status ] && status=1

part "CAKE options: gotc vs go-tc (ran alongside)"
cat /tmp/crossdecode.log
[ -e /tmp/crossdecode.status ] && status=1

part "kernel tdc files under the kernel's tdc.py, against the reference tc's counts (gotc as \$TC)"
tdc_match $matchfiles || status=1

part "model-vs-kernel tests: traffic through the real qdisc, statistics against the models"
/gotc/bin/tdc -tc /gotc/bin/gotc -ip /ref/bin/ip selftests/model-tests/cake.json selftests/model-tests/dualpi2.json || status=1

now=$(date +%s)
echo "# part took $((now - last)) s; suite took $((now - start)) s"
exit $status
