#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs inside the VM: the kernel's tdc.py on the files named, with the tc given
# (/gotc/bin/gotc in the suite), and checks each file's result against the
# reference tc's, measured once and kept in selftests/tdc-expected.txt.
#
#   selftests/vm/run -- sh selftests/vm/tdc-match.sh /gotc/bin/gotc qdiscs/htb infra/qdiscs
#
# FILE is DIR/NAME (tc-tests/DIR/NAME.json), as in tdc-expected.txt. A file
# fails unless the tool passes exactly the cases the reference tc passed: the
# same count, and the same cases left unpassed (failed or skipped: the ones
# that need what the VM lacks, such as iputils ping). A different number of cases means the file changed, and a case the
# tool passes where the reference did not means the record is stale or the
# environment changed: measure again rather than guess.
tc=${1:?usage: tdc-match.sh TC DIR/NAME...}
shift
[ $# -gt 0 ] || { echo "tdc-match.sh: no files given"; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
expected=$here/../tdc-expected.txt
out=/tmp/tdc-match.out
sh "$here/tdc-reference.sh" "$tc" "$@" | tee "$out"
bad=0
for f in "$@"; do
	# "tdc.py qdiscs/htb.json: 12 passed, 0 failed, 0 skipped"
	set -- $(sed -n "s|^tdc.py $f.json: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$|\1 \2 \3|p" "$out")
	p=${1:-} fl=${2:-} s=${3:-}
	set -- $(awk -v f="$f" '$1 == f { print $2, $3, $5 }' "$expected")
	ep=${1:-} et=${2:-} eids=${3:-}
	# The cases the tool did not pass, from tdc.py's TAP (tdc-reference.sh's).
	tap=/tmp/tdc-$(echo "$f" | tr / _).tap
	ids=$(awk '/^not ok / { print $4 } /^ok .*# skipped/ { print $3 }' "$tap" 2>/dev/null | sort | tr '\n' , | sed 's/,$//')
	eids=$(echo "$eids" | tr , '\n' | grep -vx -- - | sort | tr '\n' , | sed 's/,$//')
	if [ -z "$ep" ]; then
		echo "tdc-match $f: FAIL: no reference count in selftests/tdc-expected.txt (measure it with the reference tc)"; bad=1
	elif [ -z "$p" ]; then
		echo "tdc-match $f: FAIL: no result from tdc.py"; bad=1
	elif [ "$p" != "$ep" ] || [ $((p + fl + s)) != "$et" ] || [ "$ids" != "$eids" ]; then
		echo "tdc-match $f: FAIL: $p of $((p + fl + s)) passed, $s skipped, not passed: ${ids:-none}; the reference tc passes $ep of $et, not passed: ${eids:-none}"; bad=1
	else
		echo "tdc-match $f: ok, $p of $et passed, as with the reference tc"
	fi
done
exit $bad
