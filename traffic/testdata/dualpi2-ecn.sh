#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# In the test VM (selftests/vm/run): UDP with each ECN codepoint, a GSO
# burst of ECT(1) and crafted pure ACKs through a default DualPI2 on a veth.
# ECT(1) and CE go to the L queue, ECT(0) and not-ECT to C; GSO is split
# into segments; the peer must receive exactly what was sent.
#   GOTC_VM_PAYLOAD=traffic selftests/vm/run --build ./cmd/gotc-traffic -- sh traffic/testdata/dualpi2-ecn.sh
set -e
IP=/ref/bin/ip TC=/ref/bin/tc
$IP netns add peer
$IP link add v0 type veth peer name v1 netns peer
$IP addr add 10.0.0.1/24 dev v0
$IP -n peer addr add 10.0.0.2/24 dev v1
$IP link set v0 up
$IP -n peer link set v1 up
$TC qdisc replace dev v0 root dualpi2
rc=0; gotc-traffic run -plan traffic/testdata/dualpi2-ecn.json -trace /tmp/trace.jsonl -exact >/tmp/summary.json || rc=$?
cat /tmp/summary.json
$TC -s qdisc show dev v0
$TC -s -j qdisc show dev v0 >/tmp/qdisc.json
/ref/bin/python3 - <<'PY'
import json
s = json.load(open("/tmp/summary.json"))
q = json.load(open("/tmp/qdisc.json"))[0]
print("summary: sent", s["sent"], "segs", s["sent_segs"], "exact", s["exact"], "dev_tx_packets", s["dev_tx_packets"])
print("pkts-in-l", q["pkts-in-l"], "pkts-in-c", q["pkts-in-c"], "maxq", q["maxq"], "max-memory-used", q["max-memory-used"])
# ECT(1) and CE: 10 UDP + 8 GSO segments in L; ECT(0), not-ECT: 10 UDP + 10 ACKs in C.
ok = q["pkts-in-l"] == 18 and q["pkts-in-c"] == 20 and q["packets"] == 38 and s["exact"] and s["split"] == 2
print("TRAFFIC-DEMO", "PASS" if ok else "FAIL")
raise SystemExit(0 if ok else 1)
PY
echo "--- BEGIN TRACE ---"; cat /tmp/trace.jsonl; echo "--- END TRACE ---"
echo "--- BEGIN QDISC ---"; cat /tmp/qdisc.json; echo; echo "--- END QDISC ---"
exit $rc
