#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Ansible module gotc.gotc.apply (ansible/collections) run by
# ansible-playbook against this host, as root, on an ifb0 in a network
# namespace of its own:
#   - --check --diff shows the tc commands and changes nothing;
#   - a run changes the kernel, a second run is ok (unchanged);
#   - a new rate, in check mode, shows the one class change;
#   - a file with a fault (src) fails the task and sends nothing.
# ansible-core comes from the package index into a virtual environment
# this script makes; where the index cannot be reached, the venv sees
# Debian's ansible-core (installed with need) through its system site
# packages, and the script says so.
set -euo pipefail
cd "$(dirname "$0")/.."
source selftests/vm/lib.sh # need, need_file, die
[ "$(id -u)" = 0 ] || die "ansible-test.sh needs root (a network namespace)"
need ip:iproute2 go:golang
need_file /usr/bin/python3:python3
/usr/bin/python3 -c 'import ensurepip' 2>/dev/null || host_install ensurepip:python3-venv

tmp=$(mktemp -d)
ns=gotc-ansible-$$
trap 'ip netns del "$ns" 2>/dev/null || true; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; [ ! -f "$tmp/out" ] || cat "$tmp/out"; exit 1; }

CGO_ENABLED=0 go build -o "$tmp/" ./cmd/gotc ./cmd/gotc-apply # gotc runs gotc-apply for "gotc apply"
gotc=$tmp/gotc
/usr/bin/python3 -m venv --system-site-packages "$tmp/venv"
# --ignore-installed: from the index even where Debian's is installed.
if "$tmp/venv/bin/pip" install -q --retries 1 --timeout 15 --ignore-installed ansible-core >"$tmp/pip.log" 2>&1; then
	echo "ok: ansible-core $("$tmp/venv/bin/python3" -c 'import ansible; print(ansible.__version__)') from the package index, in a venv"
else
	tail -1 "$tmp/pip.log"
	need ansible-playbook:ansible-core
	"$tmp/venv/bin/python3" -c 'import ansible' || die "the venv does not see Debian's ansible-core"
	echo "ok: the package index is unreachable: Debian's ansible-core $("$tmp/venv/bin/python3" -c 'import ansible; print(ansible.__version__)'), seen from the venv"
fi

ip netns add "$ns"
ip -n "$ns" link add ifb0 type ifb
ip -n "$ns" link set ifb0 up
cat >"$tmp/hosts" <<HOSTS
localhost ansible_connection=local ansible_python_interpreter=$tmp/venv/bin/python3
HOSTS
export ANSIBLE_COLLECTIONS_PATH=$PWD/ansible/collections ANSIBLE_NOCOLOR=1 ANSIBLE_LOCALHOST_WARNING=0 \
	ANSIBLE_HOME=$tmp/ansible-home ANSIBLE_LOCAL_TEMP=$tmp/ansible-tmp
# play PLAYBOOK ARGS...: runs it, its output in $tmp/out; the status is
# the play's.
play() {
	local book=$1
	shift
	"$tmp/venv/bin/python3" -m ansible.cli.playbook -i "$tmp/hosts" -e "gotc=$gotc ns=$ns" "$@" \
		"selftests/ansible/$book" >"$tmp/out" 2>&1
}
recap() { grep -Eo 'ok=[0-9]+ +changed=[0-9]+ +unreachable=[0-9]+ +failed=[0-9]+' "$tmp/out" | tr -s ' '; }
kernel() { "$gotc" -n "$ns" class show dev ifb0; "$gotc" -n "$ns" qdisc show dev ifb0; }

"$tmp/venv/bin/python3" -m ansible.cli.doc -t module gotc.gotc.apply >"$tmp/out" 2>&1 &&
	! grep -q WARNING "$tmp/out" && grep -q "Supports check_mode and diff" "$tmp/out" || fail "ansible-doc gotc.gotc.apply"
echo "ok: ansible-doc reads the module's documentation"

before=$(kernel)
play shape.yml -e rate=10mbit --check --diff || fail "check mode"
[ "$(recap)" = "ok=1 changed=1 unreachable=0 failed=0" ] || fail "check mode: $(recap)"
for line in "tc qdisc replace dev ifb0 root handle 1: htb default 10" \
	"tc class add dev ifb0 parent 1: classid 1:10 htb rate 10mbit" \
	"tc qdisc add dev ifb0 parent 1:10 pfifo limit 50"; do
	grep -qF "$line" "$tmp/out" || fail "--check --diff does not show: $line"
done
[ "$(kernel)" = "$before" ] || fail "check mode changed the kernel: $(kernel)"
echo "ok: --check --diff shows the 3 tc commands, changed=1, and the kernel is as it was"

play shape.yml -e rate=10mbit --diff || fail "the run"
[ "$(recap)" = "ok=1 changed=1 unreachable=0 failed=0" ] || fail "the run: $(recap)"
grep -q "class htb 1:10 root leaf .* rate 10Mbit" <<<"$(kernel)" || fail "after the run: $(kernel)"
grep -q "qdisc pfifo .* parent 1:10 limit 50p" <<<"$(kernel)" || fail "after the run: $(kernel)"
echo "ok: the run changed the kernel: htb, class 1:10 at 10Mbit, its pfifo"

play shape.yml -e rate=10mbit --diff || fail "the second run"
[ "$(recap)" = "ok=1 changed=0 unreachable=0 failed=0" ] || fail "the second run: $(recap)"
echo "ok: the second run: ok, unchanged"

after=$(kernel)
play shape.yml -e rate=20mbit --check --diff || fail "check mode, a new rate"
[ "$(recap)" = "ok=1 changed=1 unreachable=0 failed=0" ] || fail "check mode, a new rate: $(recap)"
[ "$(grep -c '^tc ' "$tmp/out")" = 1 ] && grep -qF "tc class change dev ifb0 parent 1: classid 1:10 htb rate 20mbit" "$tmp/out" ||
	fail "a new rate's diff is not the one class change"
[ "$(kernel)" = "$after" ] || fail "check mode changed the kernel"
echo "ok: a new rate in check mode: the one class change shown, nothing sent"

printf 'devices:\n  ifb0:\n    root:\n      qdisc: htb default 10\n      handle: "1:"\n      clases: {}\n' >"$tmp/bad.yaml"
! play bad.yml -e "src=$tmp/bad.yaml" || fail "a bad file: the play succeeded"
[ "$(recap)" = "ok=0 changed=0 unreachable=0 failed=1" ] || fail "a bad file: $(recap)"
grep -qF "bad.yaml:6:7: unknown key \\\"clases\\\" in a qdisc" "$tmp/out" || fail "a bad file: the fault is not named"
[ "$(kernel)" = "$after" ] || fail "a bad file changed the kernel"
echo "ok: a file with a fault fails the task, names the fault at its line, sends nothing"
