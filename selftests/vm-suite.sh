#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The real-kernel suite, run inside the test bed's VM by ../test.sh, in two
# halves that ../test.sh boots as two VMs side by side (the host has two CPUs
# and each VM one):
#
#   sh selftests/vm-suite.sh runner    1. our tdc JSON tests (selftests/tests,
#        among them the deployments' end-to-end tests) with gotc as $TC; 2. the
#        kernel's tdc files of filters and actions under the kernel's own
#        tdc.py, each checked against the reference tc's verdicts
#        (selftests/tdc-expected.txt); 3. the first half of the differential
#        test against the reference tc (with the batches); 4. CAKE options
#        decoded a second time by go-tc; 5. gotc-cni against the bandwidth
#        CNI plugin (selftests/cni: same kernel state, verdicts and errors;
#        AQM options; CHECK on drift; 100 pods' ADD and DEL timed, fewer
#        than the 500 of a full run because the VM runs under TCG); 6. the
#        Ansible module by ansible-playbook, --check --diff and runs, on a
#        veth (selftests/ansible-test.sh --vm).
#   sh selftests/vm-suite.sh kernel    7. the kernel's tdc files of qdiscs
#        under tdc.py, as in 2; 8. the model-vs-kernel cases
#        (selftests/model-tests); 9. the library's examples, gotc monitor and
#        the rate-change benchmark (selftests/lib-examples.sh); 10. gotc
#        apply's beds (selftests/apply-tests.sh), and what each request it
#        sends does to queued packets (selftests/live-change.sh, about
#        2.5 min); 11. the second half of the
#        differential test; 12. gotc-agent on a fleet file: changes, drift
#        repaired, metrics scraped, two nodes (selftests/agent-test.sh).
#
# tdc.py and the model cases are timing-sensitive, so nothing runs beside
# them. The runner half's tdc.py takes longer than the kernel half's, so it
# runs 4 of the differential test's 9 shares, the kernel half 5. Each part prints its own "N passed, M failed" line; a half's status
# is non-zero if any of its parts failed.
half=${1:?usage: vm-suite.sh runner|kernel}
status=0
start=$(date +%s) last=$start
part() {
	now=$(date +%s)
	[ "$now" = "$start" ] || echo "# part took $((now - last)) s"
	last=$now
	printf '\n--- %s\n' "$*"
}
# The kernel tdc files (DIR/NAME) on which gotc must get the reference tc's
# verdicts: every file selftests/tdc-expected.txt measured, except those of
# kinds gotc does not have yet ($pending), which are named in the output,
# never passed over silently. Qdiscs' files go to the kernel half, the others
# (filters, actions, their infra files) to the runner half.
pending=""
tdcfiles=$(awk '/^[a-z]/ { print $1 }' selftests/tdc-expected.txt | grep -vxF "$(printf '%s\n' $pending)")
[ -z "$pending" ] || echo "# NOT RUN, kinds gotc does not have yet:" $pending
qdiscfiles=$(echo "$tdcfiles" | grep -E '^(qdiscs/|infra/qdiscs$)')
otherfiles=$(echo "$tdcfiles" | grep -vE '^(qdiscs/|infra/qdiscs$)')

finish() {
	now=$(date +%s)
	echo "# part took $((now - last)) s; the $half half took $((now - start)) s"
	exit $status
}

if [ "$half" = kernel ]; then
	part "kernel tdc files of qdiscs under the kernel's tdc.py, against the reference tc's verdicts (gotc as \$TC)"
	sh selftests/vm/tdc-match.sh /gotc/bin/gotc $qdiscfiles || status=1

	part "model-vs-kernel tests: traffic through the real qdisc, statistics against the models"
	/gotc/bin/tdc -tc /gotc/bin/gotc -ip /ref/bin/ip selftests/model-tests/cake.json selftests/model-tests/dualpi2.json selftests/model-tests/fq_codel.json selftests/model-tests/replay.json || status=1

	part "the netlink library: examples, gotc monitor against tc monitor, in-process rate change"
	sh selftests/lib-examples.sh || status=1

	part "gotc apply on the real kernel: router, ISP (1,004 classes) and DualPI2 beds"
	sh selftests/apply-tests.sh || status=1

	part "live changes: what each request gotc apply sends does to queued packets"
	sh selftests/live-change.sh || status=1

	part "differential test against the reference tc, second half of the kinds"
	/gotc/bin/difftest -shard 5-9/9 || status=1

	part "gotc-agent: a fleet file applied, changes, drift repaired, metrics scraped"
	sh selftests/agent-test.sh || status=1
	finish
fi

part "our tdc tests (gotc as \$TC)"
/gotc/bin/tdc -tc /gotc/bin/gotc -ip /ref/bin/ip selftests/tests/*.json || status=1

part "kernel tdc files of filters and actions under the kernel's tdc.py, against the reference tc's verdicts (gotc as \$TC)"
sh selftests/vm/tdc-match.sh /gotc/bin/gotc $otherfiles || status=1

part "differential test against the reference tc, first half of the kinds and the batches"
/gotc/bin/difftest -shard 1-4/9 || status=1

part "CAKE options: gotc vs go-tc"
# go-tc fails a whole dump on kinds it lacks (dualpi2): give it a namespace.
{ /ref/bin/ip netns add crossdecode && /ref/bin/ip netns exec crossdecode /gotc/bin/crossdecode; } || status=1

part "gotc-cni against the bandwidth CNI plugin v1.10.0: differential, AQM, drift, 100 pods timed"
/gotc/bin/cni -pods 100 || status=1

part "Ansible: gotc.gotc.apply by ansible-playbook (Debian's ansible-core) on a veth, --check --diff and runs"
bash selftests/ansible-test.sh --vm || status=1

finish
