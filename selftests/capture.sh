#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Record output goldens from the reference tc on the test bed's kernel:
# testdata/golden/scenarios.txt in, one testdata/golden/NAME.golden per scenario out.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp) && trap 'rm -f "$out"' EXIT
selftests/vm/run --build ./selftests/capture -- /gotc/bin/capture testdata/golden/scenarios.txt >"$out"
rm -f testdata/golden/*.golden
awk '/^=== scenario /{f="testdata/golden/" $3 ".golden"} f{print > f}' "$out"
ls testdata/golden/*.golden | wc -l
