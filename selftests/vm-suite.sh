#!/bin/sh
# The real-kernel suite, run inside the test bed's VM by ../test.sh, in two
# halves that ../test.sh boots as two VMs side by side (the host has two CPUs
# and each VM one):
#
#   sh selftests/vm-suite.sh runner    1. our tdc JSON tests (selftests/tests)
#        with gotc as $TC; 2. the kernel's tdc files ($tdcfiles) under our
#        runner, with gotc and with the reference tc as $TC: the same verdict
#        for every case; 3. the first half of the differential test against
#        the reference tc (with the batches), alongside; 4. CAKE options
#        decoded a second time by go-tc.
#   sh selftests/vm-suite.sh kernel    5. the files of 2 under the kernel's own
#        tdc.py, each checked against the reference tc's count
#        (selftests/tdc-expected.txt); 6. the model-vs-kernel cases
#        (selftests/model-tests). Both are timing-sensitive, so they run
#        alone, and then 7. the second half of the differential test.
#
# Each part prints its own "N passed, M failed" line; a half's status is
# non-zero if any of its parts failed.
half=${1:?usage: vm-suite.sh runner|kernel}
status=0
start=$(date +%s) last=$start
part() {
	now=$(date +%s)
	[ "$now" = "$start" ] || echo "# part took $((now - last)) s"
	last=$now
	printf '\n--- %s\n' "$*"
}
# The kernel tdc files (DIR/NAME) gotc must do as well on as the reference tc,
# case for case, under both runners: every file selftests/tdc-expected.txt
# measured, except those of kinds gotc does not have yet ($pending), which
# are named in the output, never passed over silently.
pending=""
tdcfiles=$(awk '/^[a-z]/ { print $1 }' selftests/tdc-expected.txt | grep -vxF "$(printf '%s\n' $pending)")
[ -z "$pending" ] || echo "# NOT RUN, kinds gotc does not have yet:" $pending

# verdicts FILE: "ok ID", "not ok ID" or "ok ID skip", one per case, from
# our runner's output.
verdicts() {
	awk '/^(ok|not ok) / { v = ($1 == "ok") ? "ok" : "not ok"; id = (v == "ok") ? $3 : $4
		print v, id ((index($0, "# skip") > 0) ? " skip" : "") }' "$1"
}

finish() {
	now=$(date +%s)
	echo "# part took $((now - last)) s; the $half half took $((now - start)) s"
	exit $status
}

if [ "$half" = kernel ]; then
	part "kernel tdc files under the kernel's tdc.py, against the reference tc's counts (gotc as \$TC)"
	sh selftests/vm/tdc-match.sh /gotc/bin/gotc $tdcfiles || status=1

	part "model-vs-kernel tests: traffic through the real qdisc, statistics against the models"
	/gotc/bin/tdc -tc /gotc/bin/gotc -ip /ref/bin/ip selftests/model-tests/cake.json selftests/model-tests/dualpi2.json || status=1

	part "differential test against the reference tc, second half of the kinds"
	/gotc/bin/difftest -shard 2/2 || status=1
	finish
fi

# The differential test and the second decoder use devices of the root
# namespace and a namespace of their own, so they run beside our runner's
# tdc parts (which use a fresh namespace per test), in the time those spend
# waiting.
(
	/gotc/bin/difftest -shard 1/2 >/tmp/difftest.log 2>&1 || echo fail >/tmp/difftest.status
	# go-tc fails a whole dump on kinds it lacks (dualpi2): give it a namespace.
	{ /ref/bin/ip netns add crossdecode && /ref/bin/ip netns exec crossdecode /gotc/bin/crossdecode; } \
		>/tmp/crossdecode.log 2>&1 || echo fail >/tmp/crossdecode.status
) &
side=$!

part "our tdc tests (gotc as \$TC)"
/gotc/bin/tdc -tc /gotc/bin/gotc -ip /ref/bin/ip selftests/tests/*.json || status=1

part "kernel tdc files under our runner, case for case as the reference tc (gotc as \$TC)"
for f in $tdcfiles; do
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

part "differential test against the reference tc, first half of the kinds and the batches (ran alongside)"
wait $side
cat /tmp/difftest.log
[ -e /tmp/difftest.status ] && status=1

part "CAKE options: gotc vs go-tc (ran alongside)"
cat /tmp/crossdecode.log
[ -e /tmp/crossdecode.status ] && status=1

finish
