#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmark gotc against iproute2's tc in the real-kernel test bed (qemu VM):
# batch apply, -s -j dump, one-shot processes, 100 Hz sampling, and the ISP
# scenario (issue 14: mq + htb per queue + 20,000 subscriber classes with
# CAKE/fq_codel leaves, reloaded, changed, dumped, sampled, scraped); prints
# each ratio gotc/tc as the median of per-pair ratios with their range, and
# "N passed, M failed" against the targets. Absolute times in TCG are
# meaningless; read the ratios.
#
#   selftests/bench.sh [bench flags]          e.g. -runs 3 -devs 500 -subs 2000 -skip isp
#   selftests/bench.sh --host [bench flags]   natively, in a network namespace of its own
#
# Both run the peers phase last (-skip peers leaves it out): gotc's library
# beside vishvananda/netlink, florianl/go-tc and pyroute2, gotc's exporter
# beside node_exporter's qdisc collector, and gotc beside tc, each ratio
# with its kernel floor (selftests/bench/peers.go). The Go peers are built
# from their own module, selftests/bench/peers (pinned in its go.mod);
# pyroute2 is Debian's python3-pyroute2, installed on the host if missing
# (the package index is out of reach here), and whatever the VM's python
# finds there (the bench says "not run" if none). A -skip replaces --host's
# default list: the peers phase alone natively is
#   selftests/bench.sh --host -skip semantics,monitoring,batch,oneshot,isp
#
# Defaults (-runs 5 -devs 1000 -slots 10 -mon-devs 100 -mon-samples 1000) take
# about 15 minutes of VM time (most of it tc's 100 Hz loop) before the ISP
# phase. The VM has one CPU (the test kernel is built without SMP) and
# BENCH_MEM MB of memory; CAKE takes ~0.7 MB of kernel memory per instance,
# so -subs is bounded by memory (-skip isp leaves the phase out).
#
# --host runs on this machine's kernel, as root, with its tc and ip as the
# reference: the one-shot processes (qdisc show, qdisc change, filter show,
# -V: wall and CPU against tc and a Go hello-world, with perf stat's page
# faults and instructions; perf is installed from the host's Debian if
# missing) and the ISP tree on an ifb device with pfifo/bfifo leaves (kinds
# every kernel has) and 20,000 u32 filters, at -subs 20000 unless told.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# peers_build DIR: the peers phase's Go peers (their own module). nomdadm
# leaves out node_exporter's mdadm collector, which does not build against
# the procfs that gotc's client_golang needs; the qdisc collector is whole.
peers_build() {
	local out
	out=$(realpath -m "$1")
	(cd selftests/bench/peers && CGO_ENABLED=0 go build -tags nomdadm -o "$out/" .)
}
if [ "${1-}" = --host ]; then
	shift
	tc=$(command -v tc) || { echo "bench.sh --host: no tc on PATH to compare with" >&2; exit 1; }
	ip=$(command -v ip) || { echo "bench.sh --host: no ip on PATH" >&2; exit 1; }
	source selftests/vm/lib.sh # need: install what the host lacks
	need perf:linux-perf
	bin=$(mktemp -d)
	ns=gotc-bench-$$
	trap 'ip netns del "$ns" 2>/dev/null || true; rm -rf "$bin"' EXIT
	CGO_ENABLED=0 go build -o "$bin/" ./cmd/gotc ./cmd/gotc-exporter ./cmd/gotc-bpf ./cmd/gotc-model ./cmd/gotc-apply ./selftests/bench ./selftests/bench/hello
	peers_build "$bin"
	source selftests/vm/lib.sh # need_file: install what the host lacks
	need_file /usr/lib/python3/dist-packages/pyroute2:python3-pyroute2
	ip netns add "$ns"
	ip netns exec "$ns" "$ip" link set lo up
	# Outputs are compared with the test bed's tc (iproute2 7.x, which gotc
	# follows) run by its own loader, when its unpacked image is here.
	ref=${GOTC_CACHE:-$HOME/.cache/gotc}/image/current/ref/root
	oracle=$tc
	if [ -x "$ref/usr/sbin/tc" ]; then
		lib=$ref/usr/lib/x86_64-linux-gnu
		oracle="$lib/ld-linux-x86-64.so.2 --library-path $lib $ref/usr/sbin/tc"
	fi
	echo "host: $(uname -r), timed against $("$tc" -V), outputs compared with $($oracle -V)"
	ip netns exec "$ns" "$bin/bench" -tc "$tc" -tc-oracle "$oracle" -ip "$ip" -gotc "$bin/gotc" -hello "$bin/hello" -perf "$(command -v perf)" -dir "$bin/scratch" \
		-skip semantics,monitoring,batch -isp-dev ifb -isp-leaf-a "pfifo limit 1000" -isp-leaf-b "bfifo limit 150000" \
		-peers "$bin/peers" -pyroute2 "/usr/bin/python3 $PWD/selftests/bench/peers/pyroute2_peer.py" "$@"
	exit
fi
# The peers command is built into the payload the VM copies (selftests/):
# selftests/vm/run builds only packages of gotc's own module.
peers_build selftests/bench/peers/.bin
exec selftests/vm/run --timeout "${BENCH_TIMEOUT:-3600}" --mem "${BENCH_MEM:-2560}" \
	--build ./selftests/bench --build ./selftests/bench/hello -- /gotc/bin/bench \
	-peers /gotc/src/selftests/bench/peers/.bin/peers -pyroute2 "/ref/bin/python3 /gotc/src/selftests/bench/peers/pyroute2_peer.py" "$@"
