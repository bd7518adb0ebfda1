#!/bin/sh
# The real-kernel suite, run inside the test bed's VM by ../test.sh:
#  1. our tdc JSON tests (selftests/tests) with gotc as $TC, under our runner;
#  2. the kernel's cake.json, dualpi2.json and cake_mq.json with gotc as $TC,
#     under our runner and under the kernel's own tdc.py;
#  3. the kernel's tdc files of $matchfiles under tdc.py, each checked against
#     the reference tc's count (selftests/tdc-expected.txt), if any;
#  4. the differential test against the reference tc;
#  5. CAKE options decoded a second time by go-tc;
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
tcfiles="/tc-testing/tc-tests/qdiscs/cake.json /tc-testing/tc-tests/qdiscs/dualpi2.json /tc-testing/tc-tests/qdiscs/cake_mq.json"
# Kernel tdc files (DIR/NAME, as in selftests/tdc-expected.txt) on which gotc
# must do as well as the reference tc, case for case: add a kind's file here
# (e.g. qdiscs/fq_codel) once gotc has the kind.
matchfiles=""

# tdc_match FILE...: gotc under the kernel's tdc.py on each file; fails when
# gotc passes fewer cases than the reference tc did, or skips any.
tdc_match() { sh selftests/vm/tdc-match.sh /gotc/bin/gotc "$@"; }

# The differential test and the second decoder use devices of the root
# namespace and a namespace of their own, so they run beside the tdc suites
# (which use a fresh namespace per test), in the time those spend waiting.
# The VM has one CPU (the test kernel is built without SMP): the model tests,
# whose packets' timing the models predict, run after them, alone.
(
	/gotc/bin/difftest >/tmp/difftest.log 2>&1 || echo fail >/tmp/difftest.status
	# go-tc fails a whole dump on kinds it lacks (dualpi2): give it a namespace.
	{ /ref/bin/ip netns add crossdecode && /ref/bin/ip netns exec crossdecode /gotc/bin/crossdecode; } \
		>/tmp/crossdecode.log 2>&1 || echo fail >/tmp/crossdecode.status
) &
side=$!

part "our tdc tests (gotc as \$TC)"
/gotc/bin/tdc -tc /gotc/bin/gotc -ip /ref/bin/ip selftests/tests/*.json || status=1

part "kernel tdc files under our runner (gotc as \$TC)"
for f in $tcfiles; do
	echo "# $f"
	/gotc/bin/tdc -tc /gotc/bin/gotc -ip /ref/bin/ip "$f" || status=1
done

part "kernel tdc files under the kernel's tdc.py (gotc as \$TC)"
sh selftests/vm/tdc-reference.sh /gotc/bin/gotc || status=1

if [ -n "$matchfiles" ]; then
	part "kernel tdc files against the reference tc's counts (gotc as \$TC)"
	tdc_match $matchfiles || status=1
fi

part "differential test against the reference tc (ran alongside)"
wait $side
cat /tmp/difftest.log
[ -e /tmp/difftest.status ] && status=1

part "CAKE options: gotc vs go-tc (ran alongside)"
cat /tmp/crossdecode.log
[ -e /tmp/crossdecode.status ] && status=1

part "model-vs-kernel tests: traffic through the real qdisc, statistics against the models"
/gotc/bin/tdc -tc /gotc/bin/gotc -ip /ref/bin/ip selftests/model-tests/cake.json selftests/model-tests/dualpi2.json || status=1

now=$(date +%s)
echo "# part took $((now - last)) s; suite took $((now - start)) s"
exit $status
