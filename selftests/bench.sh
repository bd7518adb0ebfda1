#!/usr/bin/env bash
# Benchmark gotc against iproute2's tc in the real-kernel test bed (qemu VM):
# batch apply, -s -j dump, one show process, and 100 Hz sampling; prints each
# ratio gotc/tc as the median of per-pair ratios with their range, and
# "N passed, M failed" against the targets. Absolute times in TCG are
# meaningless; read the ratios.
#
#   selftests/bench.sh [bench flags]     e.g. -runs 3 -devs 500
#
# Defaults (-runs 5 -devs 1000 -slots 10 -mon-devs 100 -mon-samples 1000) take
# about 15 minutes of VM time (most of it tc's 100 Hz loop). The VM has one
# CPU (the test kernel is built without SMP) and enough memory for one CAKE
# instance (~0.7 MB of kernel memory) per device.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
exec selftests/vm/run --timeout "${BENCH_TIMEOUT:-3600}" --mem "${BENCH_MEM:-2560}" \
	--build ./selftests/bench -- /gotc/bin/bench "$@"
