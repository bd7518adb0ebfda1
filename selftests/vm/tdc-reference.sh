#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs inside the VM: the kernel's own tdc.py on CAKE, DualPI2 and cake_mq tests
# (or the files named) with the tc binary given (/ref/bin/tc or /gotc/bin/gotc).
#
#   selftests/vm/run -- sh selftests/vm/tdc-reference.sh /ref/bin/tc [FILE...]
#
# FILE is NAME (tc-tests/qdiscs/NAME.json), DIR/NAME (tc-tests/DIR/NAME.json, e.g.
# infra/qdiscs) or a path ending in .json (absolute, or from the current folder);
# it defaults to cake dualpi2 cake_mq. Prints one summary line per file, with
# the file as given, and a total; exits 1 on any failure or skip: a skipped test
# is not a pass.
tc=${1:?usage: tdc-reference.sh TC [FILE...]}
shift
[ $# -gt 0 ] || set -- cake dualpi2 cake_mq
here=$(pwd)
cd /tc-testing || exit 1 # tdc.py must run from its own folder
tp=0 tf=0 ts=0
for f in "$@"; do
	case $f in
	/*.json) json=$f ;;
	*.json) json=$here/$f ;;
	*/*) json=tc-tests/$f.json ;;
	*) json=tc-tests/qdiscs/$f.json ;;
	esac
	f=${f%.json}
	[ -e "$json" ] || { echo "tdc-reference.sh: no $json"; exit 2; }
	tap=/tmp/tdc-$(echo "$f" | tr / _).tap log=${tap%.tap}.log
	start=$(date +%s)
	/ref/bin/python3 tdc.py -p "$tc" -f "$json" --outfile "$tap" >"$log" 2>&1
	rc=$?
	secs=$(($(date +%s) - start))
	if [ -s "$tap" ]; then
		total=$(sed -n 's/^1\.\.//p' "$tap")
		p=$(grep '^ok ' "$tap" | grep -vc '# skipped')
		s=$(grep -c '^ok .*# skipped' "$tap")
		fl=$(grep -c '^not ok ' "$tap")
		# Never-run tests (setup failure ends tdc.py early) count as failed.
		[ $((p + s + fl)) -ge "${total:-0}" ] || fl=$((total - p - s))
		# Show what went wrong: failed/skipped entries with their details.
		awk '/^(not ok|ok .*# skipped)/{show=1; print; next} /^(ok|not ok) /{show=0} show' "$tap"
	else
		echo "tdc.py wrote no results for $f (exit $rc); its output:"; cat "$log"
		p=0 s=0 fl=1
	fi
	[ "$rc" = 0 ] || [ "$fl" -gt 0 ] || { echo "tdc.py exited $rc"; tail -20 "$log"; fl=1; }
	echo "($f.json took ${secs} s)"
	echo "tdc.py $f.json: $p passed, $fl failed, $s skipped"
	tp=$((tp + p)) tf=$((tf + fl)) ts=$((ts + s))
done
echo "tdc: $tp passed, $tf failed, $ts skipped"
[ "$tf" = 0 ] && [ "$ts" = 0 ]
