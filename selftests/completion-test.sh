#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Bash completion of gotc in a real shell: bash runs in tmux, in a network
# namespace of its own with two veth devices, with completion/gotc.bash
# sourced; the test types with send-keys, presses Tab and reads the screen
# with capture-pane. Run by ./test.sh; on its own (as root):
#
#   selftests/completion-test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source selftests/vm/lib.sh # need: install what the host lacks
need tmux:tmux unshare:util-linux ip:iproute2

tmp=$(mktemp -d)
sock=gotc-completion-$$
cleanup() { tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
CGO_ENABLED=0 go build -o "$tmp/bin/" ./cmd/gotc
touch "$tmp/gotc-test-state.yaml"

# The tmux server is started inside the new namespace, so its shell and
# every gotc it runs see only lo and the veth pair made here.
unshare --net -- sh -c '
	ip link add gotc-cmpl0 type veth peer name gotc-cmpl1
	exec tmux -L "$1" -f /dev/null new-session -d -x 200 -y 50 -c "$2" \
		env -i PATH="$2/bin:/usr/sbin:/usr/bin:/sbin:/bin" HOME="$2" HISTFILE=/dev/null TERM=xterm bash --norc --noprofile
' sh "$sock" "$tmp"

pass=0 fail=0
screen() { tmux -L "$sock" capture-pane -p -J; }
# waitfor TEXT: the screen shows TEXT within 5 s.
waitfor() {
	local i
	for i in $(seq 50); do
		screen | grep -qF -- "$1" && return 0
		sleep 0.1
	done
	return 1
}
# check NAME KEYS EXPECTED: clear the screen and the line, type KEYS (a Tab
# is "Tab" between them), and look for EXPECTED on the screen. A Tab that
# completes a common prefix resets readline's count: the list of what is
# left takes two more.
check() {
	local name=$1 expected=$3
	tmux -L "$sock" send-keys C-u C-l
	# shellcheck disable=SC2086 # KEYS are tmux's key words
	tmux -L "$sock" send-keys $2
	if waitfor "$expected"; then
		echo "ok: $name"
		pass=$((pass + 1))
	else
		echo "FAIL: $name: the screen does not show \"$expected\":"
		screen | sed '/^$/d; s/^/    /'
		fail=$((fail + 1))
	fi
}

tmux -L "$sock" send-keys "PS1='gotc-test\$ '; source '$PWD/completion/gotc.bash'" Enter
waitfor 'gotc-test$' || { echo "FAIL: the shell did not start:"; screen; exit 1; }

check "an object" "gotc Space qd Tab" 'gotc-test$ gotc qdisc '
check "a verb" "gotc Space -s Space qdisc Space sh Tab" 'gotc-test$ gotc -s qdisc show '
check "gotc's commands and objects listed" "gotc Space Tab Tab" 'exporter'
check "the kernel's devices" "gotc Space qdisc Space show Space dev Space gotc-c Tab Tab Tab" 'gotc-cmpl1'
check "a kind" "gotc Space qdisc Space add Space dev Space lo Space root Space fq_c Tab" 'root fq_codel '
check "kinds listed" "gotc Space qdisc Space add Space dev Space lo Space root Space ca Tab Tab Tab" 'cake_mq'
check "a kind's keyword" "gotc Space qdisc Space add Space dev Space lo Space root Space cake Space bandw Tab" 'cake bandwidth '
check "an action's keyword" "gotc Space filter Space add Space dev Space lo Space ingress Space matchall Space action Space mirr Tab egr Tab" 'action mirred egress '
check "a handle left alone" "gotc Space class Space add Space dev Space lo Space parent Space 1: Space classid Space 1:10 Space ht Tab" 'classid 1:10 htb '
check "a file for apply" "gotc Space apply Space --diff Space gotc-test-st Tab" 'apply --diff gotc-test-state.yaml'

echo "bash completion: $pass passed, $fail failed"
[ "$fail" = 0 ]
