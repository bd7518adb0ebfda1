#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Measures skb->truesize of gotc-traffic sends in the test VM: one send per fresh
# qdisc, then memory_used (cake) or max-memory-used (dualpi2). The output is
# model/predict/testdata/truesize-7.2.13.txt, which KernelTruesize is checked against.
#   GOTC_VM_PAYLOAD=selftests/model-tests GOTC_VM_BUILD= selftests/vm/run --build ./cmd/gotc-traffic -- sh selftests/model-tests/calibrate-truesize.sh
IP=/ref/bin/ip TC=/ref/bin/tc
$IP netns add peer
$IP link add v0 type veth peer name v1 netns peer
$IP addr add 10.0.0.1/24 dev v0
$IP -n peer addr add 10.0.0.2/24 dev v1
$IP link set v0 up
$IP -n peer link set v1 up
one() { # desc qdisc-opts flow-json
  $TC qdisc replace dev v0 root $2
  printf '{"dev":"v0","peer":"v1","peer_netns":"peer","flows":[%s]}' "$3" > /tmp/p.json
  gotc-traffic run -plan /tmp/p.json -trace /tmp/t.jsonl > /tmp/s.json 2>/tmp/e.txt || { echo "ERR $1"; cat /tmp/e.txt; }
  len=$(head -1 /tmp/t.jsonl | sed 's/.*"len":\([0-9]*\).*/\1/')
  m=$($TC -s -j qdisc show dev v0 | /ref/bin/python3 -c 'import json,sys; q=json.load(sys.stdin)[0]; print(q.get("memory_used"), q.get("max-memory-used"), q.get("packets"))')
  echo "CALIB $1 len=$len $m"
  $TC qdisc del dev v0 root
}
for s in 28 60 100 200 250 300 350 400 450 500 600 700 800 900 1000 1100 1200 1300 1400 1500; do
  one "udp size=$s" "cake" "{\"proto\":\"udp\",\"src\":\"10.0.0.1\",\"dst\":\"10.0.0.2\",\"sport\":4000,\"dport\":5000,\"size\":$s,\"count\":1}"
done
for s in 100 500 1000 1500; do
  one "udp dualpi2 size=$s" "dualpi2" "{\"proto\":\"udp\",\"src\":\"10.0.0.1\",\"dst\":\"10.0.0.2\",\"sport\":4000,\"dport\":5000,\"size\":$s,\"count\":1}"
done
for p in 0 100 500 1000 1400; do
  one "tcp-ack payload=$p" "cake" "{\"proto\":\"tcp-ack\",\"src\":\"10.0.0.1\",\"dst\":\"10.0.0.2\",\"sport\":4001,\"dport\":80,\"count\":1,\"tcp\":{\"payload\":$p}}"
  one "tcp-ack ts payload=$p" "cake" "{\"proto\":\"tcp-ack\",\"src\":\"10.0.0.1\",\"dst\":\"10.0.0.2\",\"sport\":4001,\"dport\":80,\"count\":1,\"tcp\":{\"payload\":$p,\"ts\":true,\"sack\":[[1,2]]}}"
done
for g in 2 4 8 16; do for s in 200 1000 1500; do
  one "gso split segs=$g size=$s" "cake" "{\"proto\":\"udp\",\"src\":\"10.0.0.1\",\"dst\":\"10.0.0.2\",\"sport\":4000,\"dport\":5000,\"size\":$s,\"count\":1,\"gso_segs\":$g}"
  one "gso nosplit segs=$g size=$s" "cake no-split-gso" "{\"proto\":\"udp\",\"src\":\"10.0.0.1\",\"dst\":\"10.0.0.2\",\"sport\":4000,\"dport\":5000,\"size\":$s,\"count\":1,\"gso_segs\":$g}"
  one "gso dualpi2 segs=$g size=$s" "dualpi2" "{\"proto\":\"udp\",\"src\":\"10.0.0.1\",\"dst\":\"10.0.0.2\",\"sport\":4000,\"dport\":5000,\"size\":$s,\"count\":1,\"gso_segs\":$g}"
done; done
