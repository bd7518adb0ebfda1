#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs every test of gotc, from a clean clone on a fresh machine (as root):
# static checks, generated-code drift, unit tests, the README's commands,
# bash completion and the Debian package on the host, a short fuzzing round,
# and the real-kernel suite in the test bed's VM (built on first use, ~10 min).
# It never skips the real-kernel tests: without a kernel it fails and says why.
# Host packages it lacks are installed on first use (as root; otherwise it
# prints the apt-get line); Go itself must be on PATH.
#
#   ./test.sh                     everything
#   FUZZEXECS=2000000 ./test.sh   longer fuzzing (default 200000 inputs per target)
#   CI=true ./test.sh             the same, with apt's whole output when it installs
set -euo pipefail
cd "$(dirname "$0")"
source selftests/vm/lib.sh # need, need_file: install what the host lacks
section() { printf '\n=== %s\n' "$*"; }

command -v go >/dev/null || die "go is not on PATH: install Go $(sed -n 's/^go //p' go.mod) or newer (https://go.dev/dl/)"
# git ls-files below; the Go module proxy is reached over HTTPS.
need git:git
need_file /etc/ssl/certs/ca-certificates.crt:ca-certificates
# The man pages' test (internal/manual/mkman) formats them with man(1).
need man:man-db

section "static checks: gofmt, SPDX headers, go vet (Linux and macOS), staticcheck"
unformatted=$(gofmt -l $(git ls-files '*.go'))
[ -z "$unformatted" ] || { echo "not gofmt-formatted:"; echo "$unformatted"; exit 1; }
# Every source file says its license (LICENSE, Apache-2.0) in its first lines.
unlicensed=$(git ls-files '*.go' '*.sh' | grep -v testdata/ | xargs grep -L -m1 'SPDX-License-Identifier: ' || true)
[ -z "$unlicensed" ] || { echo "no SPDX-License-Identifier line:"; echo "$unlicensed"; exit 1; }
go vet ./...
# The examples that need a kernel with CAKE, with the tag that runs them
# (they run in the VM below).
go vet -tags gotckernel .
# The library builds elsewhere too: what needs Linux fails at run time there.
GOOS=darwin go vet ./...
# Pinned, as a new release may add checks: v0.8.2 is the newest release the
# module proxy serves, and it analyses go1.26 code.
go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

section "generated code: go generate reproduces attrs/ and qdisc/ byte for byte"
before=$(mktemp -d) && trap 'rm -rf "$before"' EXIT
generated=$(git ls-files '*_gen.go')
for f in $generated; do
	mkdir -p "$before/$(dirname "$f")" && cp "$f" "$before/$f"
done
go generate ./...
for f in $generated; do
	cmp -s "$f" "$before/$f" || { echo "drift: $f differs from what go generate writes; commit the regenerated file"; exit 1; }
done

section "kernel source and test-bed kernel"
eval "$(selftests/vm/kernel.sh --print-paths)"
echo "kernel $KERNEL_VERSION: $BZIMAGE"
export GOTC_KERNEL_UAPI="$LINUX_SRC/include/uapi" GOTC_TC_TESTING="$TC_TESTING"

section "unit tests"
# Root on a kernel with ifb: a host-kernel test that cannot run fails
# here rather than skips (internal/hostns).
GOTC_KERNEL_TESTS=required go test -count=1 ./...

# On the host, in namespaces of their own, about a minute: the README's
# quick start and one-line commands run as pasted; bash in tmux completes
# gotc's lines; the .deb is built, linted, installed into a throwaway
# overlay of /, run and removed; ansible-playbook runs the Ansible module
# (its check mode and diff too) on an ifb, with ansible-core from the
# package index in a venv where it can be reached (the VM's runner half
# runs it again with Debian unstable's ansible-core, on a veth).
section "the README's quick start and one-line commands"
selftests/readme-test.sh
section "bash completion in a real shell (tmux)"
selftests/completion-test.sh
section "Debian package: build, lintian, install, run, remove"
selftests/deb-test.sh
section "Ansible: gotc.gotc.apply by ansible-playbook, --check --diff and runs"
selftests/ansible-test.sh

# A count, not a duration: with -fuzztime 5s, go1.26's fuzzing coordinator
# sometimes reports "context deadline exceeded" as a failure when the time is
# up (golang/go#75804, fixed in go1.27); a count has no deadline to race.
section "fuzzing (${FUZZEXECS:=200000} inputs per target)"
fuzzlog=$(mktemp) && trap 'rm -rf "$before" "$fuzzlog"' EXIT
for pkg in $(go list ./...); do
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
		go test -run '^$' -fuzz "^$target\$" -fuzztime "${FUZZEXECS}x" "$pkg" >"$fuzzlog" 2>&1 ||
			{ echo "fuzz $pkg $target failed:"; cat "$fuzzlog"; exit 1; }
		echo "fuzz $target ($pkg): ok"
	done
done

section "real kernel: tdc suites, model-vs-kernel cases, differential tests, second decoder (two VMs)"
# The two halves of the suite boot side by side, one VM per host CPU: the
# runner half (our tdc tests, tdc.py on the kernel's files of filters and
# actions, half the differential test) streams here; the kernel half (tdc.py
# on the files of qdiscs, the model tests, the other half) is shown when both
# are done. The base image is built first, so
# that the two runs do not both build it.
selftests/vm/image.sh "$TC_TESTING" >/dev/null
# What selftests/vm/run needs, installed here once: the two halves would
# otherwise both find qemu missing on a fresh machine and race for apt.
need qemu-system-x86_64:qemu-system-x86 timeout:coreutils cpio:cpio gzip:gzip
vmbuild=(--build ./selftests/tdc --build ./selftests/difftest --build ./selftests/crossdecode --build ./cmd/gotc-traffic --test . --build ./selftests/ratechange
	--build ./cmd/gotc-cni --build github.com/containernetworking/plugins/plugins/meta/bandwidth --build ./selftests/cni
	--build ./cmd/gotc-agent)
kernellog=$(mktemp) runnerlog=$(mktemp) && trap 'rm -rf "$before" "$fuzzlog" "$kernellog" "$runnerlog"' EXIT
suite_start=$(date +%s)
selftests/vm/run --timeout 2700 "${vmbuild[@]}" -- sh selftests/vm-suite.sh kernel >"$kernellog" 2>&1 &
kernel_half=$!
runner_status=0
selftests/vm/run --timeout 2700 "${vmbuild[@]}" -- sh selftests/vm-suite.sh runner 2>&1 | tee "$runnerlog" || runner_status=$?
kernel_status=0
wait $kernel_half || kernel_status=$?
echo
echo "=== the kernel half (tdc.py on qdiscs, model tests), which ran alongside"
cat "$kernellog"
# The failing halves' "not ok" lines again, each with its indented
# detail, where a reader of the log's tail finds them. tdc.py's lines
# among them may be ones the reference tc fails too (tdc-match's verdict
# above says which count).
failures() { awk '/^not ok/ { on = 1; print; next } on && /^[ \t]/ { print; next } { on = 0 }' "$@"; }
[ "$runner_status" = 0 ] || { echo "=== runner half: not ok, with detail"; failures "$runnerlog"; }
[ "$kernel_status" = 0 ] || { echo "=== kernel half: not ok, with detail"; failures "$kernellog"; }
echo "real-kernel suite: $(($(date +%s) - suite_start)) s; runner half status $runner_status, kernel half status $kernel_status"
[ "$runner_status" = 0 ] && [ "$kernel_status" = 0 ]
