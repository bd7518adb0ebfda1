#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The README's quick start and its "one line each", pasted as a reader
# would: each command of their sh blocks runs, with the gotc of this clone
# on PATH in place of the go install line, and must succeed (the two that
# run until stopped, monitor and the exporter, for a second). It runs in a
# mount namespace with its own /run/netns, so the quick start's gotc-demo
# namespace is this test's alone. Every gotc line must name that namespace
# or change nothing: no README command touches a real device. Run by
# ./test.sh; on its own (as root): selftests/readme-test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source selftests/vm/lib.sh # need: install what the host lacks
need unshare:util-linux ip:iproute2 timeout:coreutils

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/bin/" ./cmd/...

# block TITLE: the commands of the sh block under "## TITLE", one a line.
block() {
	awk -v title="## $1" '
		$0 == title { in_section = 1; next }
		/^## / { in_section = 0 }
		in_section && /^```sh/ { in_block = 1; next }
		in_block && /^```/ { exit }
		in_block' README.md
}
{
	block "Quick start" | grep -v '^CGO_ENABLED=0 go install'
	block "One line each"
} >"$tmp/lines"
[ "$(wc -l <"$tmp/lines")" -ge 12 ] || die "README: the quick start and one-line blocks have $(wc -l <"$tmp/lines") commands"

# A gotc line that changes something names the demo namespace.
bad=$(grep -E '^gotc ' "$tmp/lines" | grep -vE -- '-n gotc-demo|^gotc (apply --example|-s model|model|help)' || true)
[ -z "$bad" ] || { echo "FAIL: README commands outside the demo namespace:"; echo "$bad"; exit 1; }

unshare --mount --propagation private -- bash -c '
	set -uo pipefail
	mount -t tmpfs tmpfs /run/netns 2>/dev/null || { mkdir -p /run/netns && mount -t tmpfs tmpfs /run/netns; }
	export PATH="$1/bin:$PATH"
	fail=0 pass=0
	while IFS= read -r line; do
		cmd=${line%%  #*}
		case $cmd in
		*" monitor"* | *" exporter "*) timeout 1 bash -c "$cmd" >"$1/out" 2>&1; status=$?; [ $status = 124 ] && status=0 ;;
		*) bash -c "$cmd" >"$1/out" 2>&1; status=$? ;;
		esac
		if [ $status = 0 ]; then
			echo "ok: $cmd"; pass=$((pass + 1))
		else
			echo "FAIL ($status): $cmd"; sed "s/^/    /" "$1/out"; fail=$((fail + 1))
		fi
	done <"$1/lines"
	ip netns del gotc-demo 2>/dev/null
	echo "README commands: $pass passed, $fail failed"
	[ $fail = 0 ]
' bash "$tmp"
