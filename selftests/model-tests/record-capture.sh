#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Records selftests/model-tests/captures/recorded-bulk-ping.pcap in the test VM:
# the kernel's own traffic (four TCP bulk uploads from real sockets, and a ping)
# crossing a veth, recorded on the peer by "gotc-traffic record" with headers
# only (-snap 96), printed as base64 between BEGIN and END lines:
#   GOTC_VM_PAYLOAD=selftests/model-tests GOTC_VM_BUILD= vm-slot selftests/vm/run \
#     --build ./cmd/gotc-traffic -- sh selftests/model-tests/record-capture.sh |
#     sed -n '/^BEGIN recorded/,/^END/p' | sed '1d;$d' | base64 -d >selftests/model-tests/captures/recorded-bulk-ping.pcap
# The sender's addresses are the replay cases' (DEV1 is 10.10.10.1/24). Its
# veth sends no GSO packets (gso_max_segs 1): a replay sends MTU-sized frames.
set -e
IP=/ref/bin/ip PY=/ref/bin/python3
$IP netns add a
$IP netns add b
$IP link add v0 netns a type veth peer name v1 netns b
$IP -n a link set v0 gso_max_segs 1
$IP -n a addr add 10.10.10.1/24 dev v0
$IP -n b addr add 10.10.10.2/24 dev v1
$IP -n a link set v0 up
$IP -n b link set v1 up
$IP -n a link set lo up
$IP -n b link set lo up
# Resolve the peer's address first: the capture holds no ARP.
$IP netns exec a ping -c 1 -W 2 10.10.10.2 >/dev/null
$IP netns exec b $PY -c '
import socket, threading
def sink(port):
    s = socket.socket(); s.bind(("10.10.10.2", port)); s.listen(1)
    c, _ = s.accept()
    while c.recv(65536): pass
for p in range(5001, 5005): threading.Thread(target=sink, args=(p,)).start()
' &
sleep 1
$IP netns exec b /gotc/bin/gotc-traffic record -dev v1 -duration 3s -snap 96 -out /tmp/rec.pcap &
rec=$!
sleep 0.5
# Four connections, then a ping every 5 ms alongside four uploads of
# 24000 bytes each, written at once: the kernel sends them as fast as
# the window allows. The ping starts from here, not before, because
# Python starts slowly in the VM.
$IP netns exec a $PY -c '
import socket, subprocess, threading, time
ss = [socket.create_connection(("10.10.10.2", p)) for p in range(5001, 5005)]
time.sleep(0.02)
ping = subprocess.Popen(["ping", "-c", "16", "-i", "0.005", "10.10.10.2"], stdout=subprocess.DEVNULL)
time.sleep(0.012)
def up(s):
    s.sendall(b"x" * 24000); s.close()
ts = [threading.Thread(target=up, args=(s,)) for s in ss]
for t in ts: t.start()
for t in ts: t.join()
ping.wait()
'
wait $rec
echo "BEGIN recorded-bulk-ping.pcap"
base64 /tmp/rec.pcap
echo "END"
