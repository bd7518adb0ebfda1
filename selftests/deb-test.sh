#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Debian package, end to end: packaging/build-deb.sh builds it; lintian
# must find no error or warning that the package does not override (and
# explain, in packaging/debian/lintian-overrides); then it is installed
# with dpkg into a throwaway root, an overlay of this machine's / in a
# mount and network namespace of its own, so that nothing of the host
# changes: gotc -V names the commit, man -w finds gotc(8), a command runs,
# the units verify, the completion loads, and dpkg -r and -P remove every
# file it installed. Run by ./test.sh; on its own (as root):
#
#   selftests/deb-test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source selftests/vm/lib.sh # need: install what the host lacks
need lintian:lintian dpkg-deb:dpkg man:man-db unshare:util-linux systemd-analyze:systemd

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
deb=$(packaging/build-deb.sh "$tmp")
echo "built $(basename "$deb")"

# Info tags (I:) are reported, not failed on: see the overrides file and
# the README of packaging/ for those that remain.
status=0
lintian --tag-display-limit 0 --fail-on error,warning -I "$deb" >"$tmp/lintian" 2>&1 || status=$?
grep -v 'running with root privileges' "$tmp/lintian" || true
[ "$status" = 0 ] || { echo "FAIL: lintian (status $status)"; exit 1; }
echo "ok: lintian (no error or warning left)"

# What gotc -V must name: the commit, where Go can record it (a clone;
# a git worktree's .git is a file, which Go does not read).
commit=""
[ -d .git ] && commit=$(git rev-parse --short=12 HEAD)

cp "$deb" "$tmp/gotc.deb"
cat >"$tmp/inside.sh" <<'EOF'
set -eu
fail() { echo "FAIL: $*"; exit 1; }
dpkg -i /tmp/gotc.deb >/tmp/dpkg.log 2>&1 || { cat /tmp/dpkg.log; fail "dpkg -i"; }
echo "ok: installed"
v=$(gotc -V)
case "$v" in "tc utility, gotc-"*", commit $1"*) ;; "tc utility, gotc-"*) [ -z "$1" ] ;; *) false ;; esac ||
	fail "gotc -V: $v (commit ${1:-unknown here})"
echo "ok: $v"
[ "$(man -w gotc)" = /usr/share/man/man8/gotc.8.gz ] || fail "man -w gotc: $(man -w gotc 2>&1)"
for page in gotc-apply.8 gotc-apply.5 gotc-stats gotc-model gotc-exporter gotc-agent; do
	man -w "${page%.*}" >/dev/null || fail "man -w $page"
done
man -w 5 gotc-apply | grep -q man5/gotc-apply.5.gz || fail "man -w 5 gotc-apply"
echo "ok: man -w finds gotc(8), gotc-apply(8) and (5), gotc-stats(8), gotc-model(8), gotc-exporter(8), gotc-agent(8)"
ip link set lo up
out=$(gotc qdisc show dev lo)
[ "$out" = "qdisc noqueue 0: root refcnt 2 " ] || fail "gotc qdisc show dev lo: $out"
echo "ok: gotc qdisc show dev lo: $out"
gotc -s model cake bandwidth 10mbit diffserv3 trace /usr/share/doc/gotc/examples/cake-diffserv3.trace.jsonl 2>/dev/null |
	grep -q '^ Sent 7296 bytes 64 pkt' || fail "gotc model on the example trace"
echo "ok: gotc model on the packaged example trace"
gotc apply --example | grep -q '^devices:' || fail "gotc apply --example"
echo "ok: gotc apply --example (gotc-apply)"
systemd-analyze verify /usr/lib/systemd/system/gotc-exporter.service /usr/lib/systemd/system/gotc-apply.service \
	/usr/lib/systemd/system/gotc-agent.service /usr/lib/systemd/system/gotc-agent.path ||
	fail "systemd-analyze verify"
echo "ok: the systemd units verify (their binaries and man pages are there)"
bash -c '. /usr/share/bash-completion/completions/gotc && complete -p gotc' | grep -q _gotc || fail "bash completion"
echo "ok: the bash completion loads"
dpkg -L gotc | while read -r f; do [ -d "$f" ] || echo "$f"; done >/tmp/files
dpkg -r gotc >/tmp/dpkg.log 2>&1 || { cat /tmp/dpkg.log; fail "dpkg -r"; }
while read -r f; do [ ! -e "$f" ] || fail "dpkg -r left $f"; done </tmp/files
dpkg -P gotc >/tmp/dpkg.log 2>&1 || { cat /tmp/dpkg.log; fail "dpkg -P"; }
! dpkg -s gotc >/dev/null 2>&1 || fail "dpkg -s gotc: still known after purge"
hash -r # the shell remembers where gotc was
! command -v gotc >/dev/null || fail "gotc still on PATH"
echo "ok: removed and purged: none of its $(wc -l </tmp/files) files is left"
EOF

# The throwaway root: / below, a tmpfs above it, in namespaces that end
# with the command. The new network namespace has only lo.
unshare --mount --net --pid --fork -- sh -c '
	set -e
	t=$1
	mount --make-rprivate /
	mkdir -p "$t/ovl" && mount -t tmpfs tmpfs "$t/ovl"
	mkdir -p "$t/ovl/upper" "$t/ovl/work" "$t/root"
	mount -t overlay overlay -o "lowerdir=/,upperdir=$t/ovl/upper,workdir=$t/ovl/work" "$t/root"
	mount -t proc proc "$t/root/proc"
	mount --rbind /dev "$t/root/dev"
	mount --rbind /sys "$t/root/sys"
	mount -t tmpfs tmpfs "$t/root/tmp"
	mount -t tmpfs tmpfs "$t/root/run"
	cp "$t/gotc.deb" "$t/inside.sh" "$t/root/tmp/"
	exec chroot "$t/root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 sh /tmp/inside.sh "$2"
' sh "$tmp" "$commit"
echo "package: all checks passed"
