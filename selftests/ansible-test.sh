#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Ansible module gotc.gotc.apply (ansible/collections) run by
# ansible-playbook against this machine, as root, on a device in a network
# namespace of its own:
#   - --check --diff shows the tc commands and changes nothing;
#   - a run changes the kernel, a second run is ok (unchanged);
#   - a new rate, in check mode, shows the one class change;
#   - a file with a fault (src) fails the task and sends nothing.
#
#   selftests/ansible-test.sh        on the host, on an ifb0, with gotc's
#       show; ansible-core from the package index into a virtual environment
#       this script makes; where the index cannot be reached, the venv sees
#       Debian's ansible-core (installed with need) through its system site
#       packages, and the script says so.
#   bash selftests/ansible-test.sh --vm    in the test bed's VM (../test.sh
#       runs it there), on a veth, the kernel's state read by the reference
#       tc -d: ansible-core and its modules from Debian unstable, in the
#       image under /ref (selftests/vm/image.sh), because the package index
#       (PyPI) cannot be reached from the host that builds the image; gotc
#       (and gotc-apply) from /gotc/bin.
set -euo pipefail
cd "$(dirname "$0")/.."
source selftests/vm/lib.sh # need, need_file, die
[ "$(id -u)" = 0 ] || die "ansible-test.sh needs root (a network namespace)"

tmp=$(mktemp -d)
ns=gotc-ansible-$$
trap 'ip netns del "$ns" 2>/dev/null || true; rm -rf "$tmp"' EXIT
passed=0
ok() { passed=$((passed + 1)); echo "ok: $*"; }
fail() { echo "FAIL: $*"; [ ! -f "$tmp/out" ] || cat "$tmp/out"; echo "ansible: $passed passed, 1 failed ($SECONDS s)"; exit 1; }

if [ "${1:-}" = --vm ]; then
	gotc=/gotc/bin/gotc python=/ref/bin/python3 dev=v0
	# Debian's python has no locale but C.UTF-8 there; ansible-core
	# refuses to start in a locale whose encoding is not UTF-8.
	export LC_ALL=C.UTF-8
	ip() { /ref/bin/ip "$@"; }
	kernel() { /ref/bin/tc -n "$ns" -d class show dev $dev; /ref/bin/tc -n "$ns" -d qdisc show dev $dev; }
	ok "ansible-core $($python -c 'import ansible; print(ansible.__version__)') from Debian unstable, in the VM's image (PyPI is unreachable from the host that builds it)"
	ip netns add "$ns"
	ip -n "$ns" link add v0 type veth peer name v1
	ip -n "$ns" link set v0 up
	ip -n "$ns" link set v1 up
else
	need ip:iproute2 go:golang
	need_file /usr/bin/python3:python3
	/usr/bin/python3 -c 'import ensurepip' 2>/dev/null || host_install ensurepip:python3-venv
	CGO_ENABLED=0 go build -o "$tmp/" ./cmd/gotc ./cmd/gotc-apply # gotc runs gotc-apply for "gotc apply"
	gotc=$tmp/gotc python=$tmp/venv/bin/python3 dev=ifb0
	kernel() { "$gotc" -n "$ns" class show dev $dev; "$gotc" -n "$ns" qdisc show dev $dev; }
	/usr/bin/python3 -m venv --system-site-packages "$tmp/venv"
	# --ignore-installed: from the index even where Debian's is installed.
	if "$tmp/venv/bin/pip" install -q --retries 1 --timeout 15 --ignore-installed ansible-core >"$tmp/pip.log" 2>&1; then
		ok "ansible-core $($python -c 'import ansible; print(ansible.__version__)') from the package index, in a venv"
	else
		tail -1 "$tmp/pip.log"
		need ansible-playbook:ansible-core
		$python -c 'import ansible' || die "the venv does not see Debian's ansible-core"
		ok "the package index is unreachable: Debian's ansible-core $($python -c 'import ansible; print(ansible.__version__)'), seen from the venv"
	fi
	ip netns add "$ns"
	ip -n "$ns" link add ifb0 type ifb
	ip -n "$ns" link set ifb0 up
fi

cat >"$tmp/hosts" <<HOSTS
localhost ansible_connection=local ansible_python_interpreter=$python
HOSTS
export ANSIBLE_COLLECTIONS_PATH=$PWD/ansible/collections ANSIBLE_NOCOLOR=1 ANSIBLE_LOCALHOST_WARNING=0 \
	ANSIBLE_HOME=$tmp/ansible-home ANSIBLE_LOCAL_TEMP=$tmp/ansible-tmp
# play PLAYBOOK ARGS...: runs it, its output in $tmp/out; the status is
# the play's.
play() {
	local book=$1
	shift
	"$python" -m ansible.cli.playbook -i "$tmp/hosts" -e "gotc=$gotc ns=$ns dev=$dev" "$@" \
		"selftests/ansible/$book" >"$tmp/out" 2>&1
}
recap() { grep -Eo 'ok=[0-9]+ +changed=[0-9]+ +unreachable=[0-9]+ +failed=[0-9]+' "$tmp/out" | tr -s ' '; }

"$python" -m ansible.cli.doc -t module gotc.gotc.apply >"$tmp/out" 2>&1 &&
	! grep -q WARNING "$tmp/out" && grep -q "Supports check_mode and diff" "$tmp/out" || fail "ansible-doc gotc.gotc.apply"
ok "ansible-doc reads the module's documentation"

before=$(kernel)
play shape.yml -e rate=10mbit --check --diff || fail "check mode"
[ "$(recap)" = "ok=1 changed=1 unreachable=0 failed=0" ] || fail "check mode: $(recap)"
for line in "tc qdisc replace dev $dev root handle 1: htb default 10" \
	"tc class add dev $dev parent 1: classid 1:10 htb rate 10mbit" \
	"tc qdisc add dev $dev parent 1:10 pfifo limit 50"; do
	grep -qF "$line" "$tmp/out" || fail "--check --diff does not show: $line"
done
[ "$(kernel)" = "$before" ] || fail "check mode changed the kernel: $(kernel)"
ok "--check --diff shows the 3 tc commands, changed=1, and the kernel is as it was"

play shape.yml -e rate=10mbit --diff || fail "the run"
[ "$(recap)" = "ok=1 changed=1 unreachable=0 failed=0" ] || fail "the run: $(recap)"
grep -q "class htb 1:10 root leaf .* rate 10Mbit" <<<"$(kernel)" || fail "after the run: $(kernel)"
grep -q "qdisc pfifo .* parent 1:10 limit 50p" <<<"$(kernel)" || fail "after the run: $(kernel)"
ok "the run changed the kernel: htb, class 1:10 at 10Mbit, its pfifo"

play shape.yml -e rate=10mbit --diff || fail "the second run"
[ "$(recap)" = "ok=1 changed=0 unreachable=0 failed=0" ] || fail "the second run: $(recap)"
ok "the second run: ok, unchanged"

after=$(kernel)
play shape.yml -e rate=20mbit --check --diff || fail "check mode, a new rate"
[ "$(recap)" = "ok=1 changed=1 unreachable=0 failed=0" ] || fail "check mode, a new rate: $(recap)"
[ "$(grep -c '^tc ' "$tmp/out")" = 1 ] && grep -qF "tc class change dev $dev parent 1: classid 1:10 htb rate 20mbit" "$tmp/out" ||
	fail "a new rate's diff is not the one class change"
[ "$(kernel)" = "$after" ] || fail "check mode changed the kernel"
ok "a new rate in check mode: the one class change shown, nothing sent"

printf 'devices:\n  %s:\n    root:\n      qdisc: htb default 10\n      handle: "1:"\n      clases: {}\n' "$dev" >"$tmp/bad.yaml"
! play bad.yml -e "src=$tmp/bad.yaml" || fail "a bad file: the play succeeded"
[ "$(recap)" = "ok=0 changed=0 unreachable=0 failed=1" ] || fail "a bad file: $(recap)"
grep -qF "bad.yaml:6:7: unknown key \\\"clases\\\" in a qdisc" "$tmp/out" || fail "a bad file: the fault is not named"
[ "$(kernel)" = "$after" ] || fail "a bad file changed the kernel"
ok "a file with a fault fails the task, names the fault at its line, sends nothing"
echo "ansible: $passed passed, 0 failed ($SECONDS s)"
