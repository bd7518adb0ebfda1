#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# In the test VM (selftests/vm/run): one UDP packet per DSCP value through a
# CAKE diffserv3 qdisc on a veth must count 2/57/5 packets in the Bulk, Best
# Effort and Voice tins, and the peer must receive exactly those 64 packets.
#   GOTC_VM_PAYLOAD=traffic selftests/vm/run --build ./cmd/gotc-traffic -- sh traffic/testdata/cake-diffserv3.sh
set -e
IP=/ref/bin/ip TC=/ref/bin/tc
$IP netns add peer
$IP link add v0 type veth peer name v1 netns peer
$IP addr add 10.0.0.1/24 dev v0
$IP -n peer addr add 10.0.0.2/24 dev v1
$IP link set v0 up
$IP -n peer link set v1 up
$TC qdisc replace dev v0 root cake diffserv3
rc=0; gotc-traffic run -plan traffic/testdata/cake-diffserv3.json -trace /tmp/trace.jsonl -exact >/tmp/summary.json || rc=$?
cat /tmp/summary.json
$TC -s qdisc show dev v0
$TC -s -j qdisc show dev v0 >/tmp/qdisc.json
/ref/bin/python3 - <<'PY'
import json
s = json.load(open("/tmp/summary.json"))
q = json.load(open("/tmp/qdisc.json"))[0]
tins = [t["sent_packets"] for t in q["options"]["tins"]] if "tins" in q.get("options", {}) else [t["sent_packets"] for t in q["tins"]]
print("per-tin sent_packets (Bulk, Best Effort, Voice):", tins, "qdisc packets:", q["packets"])
ok = tins == [2, 57, 5] and q["packets"] == 64 and s["exact"] and s["dev_tx_packets"] == 64
print("TRAFFIC-DEMO", "PASS" if ok else "FAIL")
raise SystemExit(0 if ok else 1)
PY
echo "clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
# Between markers, for traffic/testdata (a recorded kernel run that the
# model tests replay): the trace and the qdisc dump.
echo "--- BEGIN TRACE ---"; cat /tmp/trace.jsonl; echo "--- END TRACE ---"
echo "--- BEGIN QDISC ---"; cat /tmp/qdisc.json; echo; echo "--- END QDISC ---"
exit $rc
