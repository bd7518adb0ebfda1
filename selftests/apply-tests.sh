#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# gotc apply on the real kernel (inside the test bed's VM, which has CAKE and
# DualPI2), for three beds: a router (CAKE on a veth's egress, ingress
# redirected through an ifb to CAKE), an ISP tree (mq over 4 tx queues, htb
# per queue, 1,004 classes with fq_codel and cake leaves) and DualPI2 (htb
# with a dualpi2 leaf, dualpi2 at the root), shared blocks and chains
# (two devices sharing a clsact's ingress block, its egress block, chains
# with templates), and standalone actions that two devices' filters bind
# by index. For each bed:
#   1. apply the file (it sends the whole tree), then apply it again: 0 requests;
#   2. traffic, then a changed bandwidth: 1 request, Sent bytes not reset;
#   3. a file whose third change the kernel refuses: the state is restored
#      (tc -d qdisc/class/filter show before and after);
#   4. --from-kernel, then --check of what it wrote: exit 0 (in sync).
# Run: selftests/vm/run --build ./cmd/gotc-traffic -- sh selftests/apply-tests.sh
# Prints each count and ends with "N passed, M failed"; exits 1 on any failure.
GOTC=/gotc/bin/gotc TC=/ref/bin/tc IP=/ref/bin/ip
dir=$(mktemp -d)
passed=0 failed=0 began=$(date +%s)
ok() { passed=$((passed + 1)); echo "ok: $*"; }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }
# The beds' devices go at the end, whatever ends the script: the suite's
# later parts share this VM, and blka's clsact would keep blocks 5 and 6
# alive under the differential test's block cases.
beds="wan ifb0 zlan lan2 isp dpa dpb dpc blka blkb blkc blkd acta actb dropd dropm"
# The actions bed's standalone actions outlive their devices.
trap 'rc=$?; for d in $beds; do $IP link del $d 2>/dev/null; done
for a in "police index 31" "gact index 32" "gact index 33"; do $TC actions del action $a 2>/dev/null; done; exit $rc' EXIT

# sent FILE: apply it; prints the request count gotc reports (empty on failure).
sent() { $GOTC apply "$1" >"$dir/out" 2>"$dir/err"; rc=$?; sed -n 's/^apply: \([0-9]*\) requests sent$/\1/p' "$dir/out"; return $rc; }

# expect_sent BED WHAT FILE N: apply FILE, which must send N requests ("+" any but 0).
expect_sent() {
	start=$(date +%s)
	n=$(sent "$3") || { fail "$1: $2: apply failed: $(cat "$dir/err")"; return; }
	took=$(($(date +%s) - start))
	case $4 in
	+) [ "${n:-0}" -gt 0 ] && ok "$1: $2: $n requests (${took}s)" || fail "$1: $2: $n requests, want some" ;;
	*) [ "$n" = "$4" ] && ok "$1: $2: $n requests (${took}s)" || fail "$1: $2: $n requests, want $4: $(cat "$dir/out")" ;;
	esac
}

# state DEV...: everything tc -d shows of the devices, counters aside; a
# DEV "block=N" is the shared block N's filters and chains, a DEV
# "classes=D" the filters and chains at each of D's classes, a DEV
# "actions=KIND" the standalone actions of KIND.
state() {
	for d in "$@"; do
		case $d in
		actions=*)
			$TC actions list action "${d#actions=}"
			;;
		block=*)
			$TC -d filter show block "${d#block=}"
			$TC chain show block "${d#block=}"
			;;
		classes=*)
			for c in $($TC class show dev "${d#classes=}" | awk '{ print $3 }'); do
				$TC -d filter show dev "${d#classes=}" parent "$c"
				$TC chain show dev "${d#classes=}" parent "$c"
			done
			;;
		*)
			$TC -d qdisc show dev "$d"
			$TC -d class show dev "$d"
			for p in root ingress egress; do
				$TC -d filter show dev "$d" $p 2>/dev/null
				$TC chain show dev "$d" $p 2>/dev/null
			done
			;;
		esac
	done
}

# sentbytes DEV ARGS...: the Sent bytes of the first object "tc -s ARGS" shows.
sentbytes() { $TC -s "$@" | awk '/Sent/ { print $2; exit }'; }

# sentclass DEV CLASSID: the Sent bytes of one class.
sentclass() { $TC -s class show dev "$1" | awk -v id="$2" '$1 == "class" { cur = $3 } /Sent/ && cur == id { print $2; exit }'; }

# traffic NAME DEV NETNS PEER PEER_NETNS SRC DST: 8 UDP flows of 50 packets from DEV to PEER.
traffic() {
	flows=""
	for p in 1 2 3 4 5 6 7 8; do
		flows="$flows${flows:+,}{\"proto\":\"udp\",\"src\":\"$6\",\"dst\":\"$7\",\"sport\":500$p,\"dport\":4000,\"size\":200,\"count\":50,\"interval_us\":200}"
	done
	printf '{"dev":"%s","netns":"%s","peer":"%s","peer_netns":"%s","flows":[%s]}' "$2" "$3" "$4" "$5" "$flows" >"$dir/$1.plan"
	/gotc/bin/gotc-traffic run -plan "$dir/$1.plan" >/dev/null || fail "$1: traffic not sent"
}

# restored BED FILE DEV...: FILE's third change is refused; the state must be as before.
restored() {
	bed=$1 file=$2; shift 2
	# A filter the undo adds again has its actions numbered anew.
	state "$@" | sed 's/index [0-9]* ref/index N ref/' >"$dir/before"
	$GOTC apply -v "$file" >"$dir/out" 2>"$dir/err"; rc=$?
	state "$@" | sed 's/index [0-9]* ref/index N ref/' >"$dir/after"
	applied=$(grep -c '^apply: ' "$dir/out") undone=$(grep -c '^undo: ' "$dir/out")
	if [ $rc = 0 ]; then
		fail "$bed: the refused change: apply exited 0"
	elif ! grep -q 'restored' "$dir/err"; then
		fail "$bed: the refused change: no word of the restore: $(cat "$dir/err")"
	elif [ "$applied" != 3 ] || [ "$undone" != 2 ]; then
		fail "$bed: the refused change: $applied requests and $undone undone, want 3 and 2: $(cat "$dir/out")"
	elif ! cmp -s "$dir/before" "$dir/after"; then
		fail "$bed: the refused change: state not restored:"; diff "$dir/before" "$dir/after"
	else
		ok "$bed: third change refused, $undone undone, state restored ($(head -1 "$dir/err"))"
	fi
}

# in_sync BED CURRENT OTHER DEV...: --from-kernel DEV... then --check of
# what it wrote: exit 0; --check of CURRENT (the state applied last): 0; of
# OTHER: 2.
in_sync() {
	bed=$1 file=$2 other=$3; shift 3
	$GOTC apply --from-kernel "$@" >"$dir/$bed-kernel.yaml" 2>"$dir/err" || { fail "$bed: --from-kernel: $(cat "$dir/err")"; return; }
	$GOTC apply --check "$dir/$bed-kernel.yaml" 2>"$dir/err"; rc=$?
	[ $rc = 0 ] && ok "$bed: --from-kernel then --check: in sync" || { fail "$bed: --check of --from-kernel's file: exit $rc: $(cat "$dir/err")"; $GOTC apply --diff "$dir/$bed-kernel.yaml"; cat "$dir/$bed-kernel.yaml" | head -40; }
	$GOTC apply --check "$file" 2>"$dir/err"; rc=$?
	[ $rc = 0 ] && ok "$bed: --check of the applied file: in sync" || fail "$bed: --check of the applied file: exit $rc"
	$GOTC apply --check "$other" 2>/dev/null; rc=$?
	[ $rc = 2 ] && ok "$bed: --check of another file: exit 2" || fail "$bed: --check of a file with pending changes: exit $rc, want 2"
}

# --- (a) router: CAKE both ways through an ifb -----------------------------
# (with lan2, a clsact of the deployments' other filter forms: u32 with
# ctinfo and mirred, basic with skbedit; zlan's fq_codel refuses the third
# change)
$IP link add wan type veth peer name wanp
$IP link add ifb0 type ifb
$IP link add zlan type dummy
$IP link add lan2 type dummy
$IP netns add tp
$IP link set wanp netns tp
$IP addr add 10.0.0.1/24 dev wan
$IP -n tp addr add 10.0.0.9/24 dev wanp
for d in wan ifb0 zlan lan2; do $IP link set $d up; done
$IP -n tp link set wanp up
router() { # UPLOAD DOWNLOAD FLOWS
	cat <<EOF2
devices:
  wan:
    root: cake bandwidth $1 diffserv4 nat
    ingress:
      qdisc: ingress
      filters:
        - protocol all pref 10 matchall action mirred egress redirect dev ifb0
  ifb0:
    root: cake bandwidth $2 besteffort ingress
  zlan:
    root: fq_codel flows $3
  lan2:
    ingress:
      qdisc: clsact
      filters:
        - protocol all pref 10 u32 match u32 0 0 classid 1:1 action ctinfo dscp 0xfc000000 0x1000000 action mirred egress redirect dev ifb0
      egress_filters:
        - protocol ip pref 1 basic action skbedit priority 1:2
EOF2
}
router 100mbit 500mbit 1024 >"$dir/router.yaml"
router 50mbit 500mbit 1024 >"$dir/router-changed.yaml"
router 40mbit 400mbit 2048 >"$dir/router-refused.yaml" # fq_codel cannot change its flows
expect_sent router "first apply" "$dir/router.yaml" +
expect_sent router "second apply" "$dir/router.yaml" 0
traffic router-up wan "" wanp tp 10.0.0.1 10.0.0.9
traffic router-down wanp tp wan "" 10.0.0.9 10.0.0.1
up=$(sentbytes qdisc show dev wan root) down=$(sentbytes qdisc show dev ifb0 root)
expect_sent router "changed upload bandwidth" "$dir/router-changed.yaml" 1
up2=$(sentbytes qdisc show dev wan root)
[ "${up:-0}" -gt 0 ] && [ "$up2" = "$up" ] && ok "router: Sent bytes kept over the change ($up)" || fail "router: Sent bytes $up before the change, $up2 after"
[ "${down:-0}" -gt 0 ] && ok "router: the download went through the ifb's CAKE ($down bytes)" || fail "router: nothing through the ifb ($down)"
$TC qdisc show dev wan root | grep -q 'bandwidth 50Mbit' && ok "router: bandwidth 50Mbit in the kernel" || fail "router: $($TC qdisc show dev wan root)"
restored router "$dir/router-refused.yaml" wan ifb0 zlan lan2
in_sync router "$dir/router-changed.yaml" "$dir/router.yaml" wan ifb0 zlan lan2

# --- (b) ISP: mq, htb per tx queue, 1,004 classes --------------------------
$IP link add isp numtxqueues 4 type veth peer name ispp
$IP netns add ti
$IP link set ispp netns ti
$IP addr add 10.1.0.1/24 dev isp
$IP -n ti addr add 10.1.0.9/24 dev ispp
$IP link set isp up
$IP -n ti link set ispp up
isp() { # QUEUE RATE-OF-Q0:100 RATES-OF-10:101-10:102 FLOWS-OF-10:103 (Q0:100 is queue Q's default class)
	awk -v cq="$1" -v r100="$2" -v r101="$3" -v r102="$4" -v f103="$5" 'BEGIN {
		print "devices:\n  isp:\n    root:\n      qdisc: mq\n      handle: \"1:\"\n      classes:"
		for (q = 1; q <= 4; q++) {
			printf "        \"1:%x\":\n          leaf:\n            qdisc: htb default 100\n            handle: \"%x0:\"\n            classes:\n", q, q
			printf "              \"%x0:1\":\n                class: htb rate 1gbit\n                classes:\n", q
			for (c = 256; c < 256 + 250; c++) {
				rate = "4mbit"; leaf = "fq_codel"
				if (q == cq && c == 256) rate = r100
				if (q == 1 && c == 257) rate = r101
				if (q == 1 && c == 258) rate = r102
				if (q == 1 && c == 259) leaf = "fq_codel flows " f103
				if (c % 50 == 0) leaf = "cake diffserv4 rtt 180ms"
				printf "                  \"%x0:%x\": { class: htb rate %s ceil 100mbit, leaf: %s }\n", q, c, rate, leaf
			}
		}
	}'
}
isp 1 4mbit 4mbit 4mbit 1024 >"$dir/isp.yaml"
expect_sent isp "first apply (1,004 classes, 1,000 leaves)" "$dir/isp.yaml" +
echo "# isp: $($TC class show dev isp | wc -l) classes, $($TC qdisc show dev isp | wc -l) qdiscs"
expect_sent isp "second apply" "$dir/isp.yaml" 0
traffic isp isp "" ispp ti 10.1.0.1 10.1.0.9
# The change is to the default class of a queue the flows hashed to.
busy=""
for q in 1 2 3 4; do
	[ -z "$busy" ] && [ "$(sentclass isp ${q}0:100)" -gt 0 ] && busy=$q
done
[ -n "$busy" ] || fail "isp: no default class carried the traffic"
isp "${busy:-1}" 8mbit 4mbit 4mbit 1024 >"$dir/isp-changed.yaml"
isp "${busy:-1}" 8mbit 5mbit 5mbit 2048 >"$dir/isp-refused.yaml" # fq_codel cannot change its flows
total=$(sentbytes qdisc show dev isp root) cls=$(sentclass isp ${busy}0:100)
expect_sent isp "changed rate of class ${busy}0:100" "$dir/isp-changed.yaml" 1
total2=$(sentbytes qdisc show dev isp root) cls2=$(sentclass isp ${busy}0:100)
[ "${cls:-0}" -gt 0 ] && [ "$total2" = "$total" ] && [ "$cls2" = "$cls" ] && ok "isp: Sent bytes kept over the change (mq $total, class ${busy}0:100 $cls)" || fail "isp: Sent bytes $total/$cls before the change, $total2/$cls2 after"
$TC class show dev isp | grep "class htb ${busy}0:100 " | grep -q 'rate 8Mbit' && ok "isp: rate 8Mbit in the kernel" || fail "isp: $($TC class show dev isp | grep "class htb ${busy}0:100 ")"
restored isp "$dir/isp-refused.yaml" isp
in_sync isp "$dir/isp-changed.yaml" "$dir/isp.yaml" isp

# --- (c) DualPI2: htb with a dualpi2 leaf, dualpi2 at the root --------------
$IP link add dpa type veth peer name dpap
$IP link add dpb type dummy
$IP link add dpc type dummy
$IP netns add td
$IP link set dpap netns td
$IP addr add 10.2.0.1/24 dev dpa
$IP -n td addr add 10.2.0.9/24 dev dpap
for d in dpa dpb dpc; do $IP link set $d up; done
$IP -n td link set dpap up
dualpi2() { # RATE TARGET-A TARGET-B COUPLING-C
	cat <<EOF2
devices:
  dpa:
    root:
      qdisc: htb default 1
      handle: "1:"
      classes:
        "1:1":
          class: htb rate $1 ceil $1
          leaf: { qdisc: dualpi2 target $2, handle: "10:" }
  dpb:
    root: { qdisc: dualpi2 target $3 l4s_ect, handle: "1:" }
  dpc:
    root: { qdisc: dualpi2 coupling_factor $4, handle: "1:" }
EOF2
}
dualpi2 50mbit 15ms 15ms 2 >"$dir/dualpi2.yaml"
dualpi2 40mbit 15ms 15ms 2 >"$dir/dualpi2-changed.yaml"
dualpi2 40mbit 10ms 10ms 0 >"$dir/dualpi2-refused.yaml" # the kernel refuses coupling_factor 0
expect_sent dualpi2 "first apply" "$dir/dualpi2.yaml" +
expect_sent dualpi2 "second apply" "$dir/dualpi2.yaml" 0
traffic dualpi2 dpa "" dpap td 10.2.0.1 10.2.0.9
leaf=$(sentbytes qdisc show dev dpa parent 1:1)
expect_sent dualpi2 "changed htb rate" "$dir/dualpi2-changed.yaml" 1
leaf2=$(sentbytes qdisc show dev dpa parent 1:1)
[ "${leaf:-0}" -gt 0 ] && [ "$leaf2" = "$leaf" ] && ok "dualpi2: the leaf's Sent bytes kept over the change ($leaf)" || fail "dualpi2: Sent bytes $leaf before the change, $leaf2 after"
restored dualpi2 "$dir/dualpi2-refused.yaml" dpa dpb dpc
in_sync dualpi2 "$dir/dualpi2-changed.yaml" "$dir/dualpi2.yaml" dpa dpb dpc

# --- (d) shared blocks and chains ------------------------------------------
# blka's clsact shares block 5 (with blkb's ingress) and block 6; blkc has
# chains of its own, one with a template; blkd's htb has a filter at a
# class and a chain at another. The refused file's third change is a
# filter whose key does not fit its chain's template.
for d in blka blkb blkc blkd; do $IP link add $d type dummy && $IP link set $d up; done
blocks() { # TEMPLATE-PREFIX BLOCK6-CLASSID FQ_CODEL-LIMIT [BLOCK-5-FILTER]
	cat <<EOF2
devices:
  blka:
    root: fq_codel limit $3
    ingress:
      qdisc: ingress_block 5 egress_block 6 clsact
  blkb:
    ingress: ingress_block 5 ingress
  blkc:
    ingress:
      qdisc: clsact
      chains:
        - chain 3
        - chain 1 protocol ip flower dst_ip 0.0.0.0/16
      filters:
        - protocol ip pref 1 chain 1 flower dst_ip 10.1.0.0/16 action drop
        - protocol all pref 2 matchall action goto chain 1
  blkd:
    root:
      qdisc: htb default 10
      handle: "1:"
      classes:
        "1:1":
          class: htb rate 100mbit
          filters:
            - protocol ip pref 1 u32 match ip dst 10.9.0.1/32 classid 1:10
          classes:
            "1:10": { class: htb rate 10mbit ceil 100mbit, chains: [chain 5] }
blocks:
  5:
    filters:
      - protocol ip pref 1 matchall action drop
      - protocol ip pref 2 chain 1 flower dst_ip 10.0.0.0/16 action pass
${4:+      - $4}
    chains:
      - chain 2
      - chain 1 protocol ip flower dst_ip 0.0.0.0/$1
  6:
    filters:
      - protocol all pref 2 handle 3 matchall classid 1:$2 action pass
EOF2
}
blocks 16 1 1000 >"$dir/blocks.yaml"
blocks 24 1 1000 >"$dir/blocks-changed.yaml" # a wider template: chain del, chain add, its filter again
blocks 24 2 1001 "protocol ip pref 3 chain 1 flower src_ip 10.0.0.1 action drop" >"$dir/blocks-refused.yaml"
expect_sent blocks "first apply" "$dir/blocks.yaml" +
expect_sent blocks "second apply" "$dir/blocks.yaml" 0
$TC filter show block 5 | grep -q 'dst_ip 10.0.0.0/16' && $TC chain show block 5 | grep -q 'chain 2' &&
	$TC filter show dev blkd parent 1:1 | grep -q 'flowid 1:10' && $TC chain show dev blkd parent 1:10 | grep -q 'chain 5' &&
	$TC qdisc show dev blkb ingress | grep -q 'ingress_block 5' && ok "blocks: block 5's filters and chains in the kernel, shared by blkb; blkd's class filter and chain" ||
	fail "blocks: $($TC filter show block 5; $TC chain show block 5; $TC qdisc show dev blkb ingress; $TC filter show dev blkd parent 1:1; $TC chain show dev blkd parent 1:10)"
expect_sent blocks "changed template" "$dir/blocks-changed.yaml" 3
$TC chain show block 5 | grep -q 'dst_ip 0.0.0.0/24' && ok "blocks: the new template in the kernel" || fail "blocks: $($TC chain show block 5)"
restored blocks "$dir/blocks-refused.yaml" blka blkb blkc blkd classes=blkd block=5 block=6
in_sync blocks "$dir/blocks-changed.yaml" "$dir/blocks.yaml" blka blkb blkc blkd
# --from-kernel, the devices wiped (their blocks go with them), then apply:
# the same state, but for the order tc lists chains and filters in (that
# of their making, which the undo above changed) and the actions'
# indexes (the kernel numbers a filter's actions anew).
samestate() { state "$@" | sed 's/index [0-9]* ref/index N ref/' | sort; }
samestate blka blkb blkc blkd classes=blkd block=5 block=6 >"$dir/before"
$GOTC apply --from-kernel blka blkb blkc blkd >"$dir/blocks-kernel.yaml" 2>"$dir/err" || fail "blocks: --from-kernel: $(cat "$dir/err")"
$TC qdisc del dev blka clsact; $TC qdisc del dev blkb ingress; $TC qdisc del dev blkc clsact
$TC qdisc del dev blka root; $TC qdisc del dev blkd root
[ -z "$($TC filter show block 5 2>/dev/null)" ] || fail "blocks: block 5 outlived its qdiscs"
expect_sent blocks "--from-kernel's file on the devices wiped" "$dir/blocks-kernel.yaml" +
samestate blka blkb blkc blkd classes=blkd block=5 block=6 >"$dir/after"
cmp -s "$dir/before" "$dir/after" && ok "blocks: --from-kernel, wipe, apply: the same state" ||
	{ fail "blocks: --from-kernel, wipe, apply: the state differs:"; diff "$dir/before" "$dir/after"; cat "$dir/blocks-kernel.yaml"; }

# --- (e) standalone actions bound by index ---------------------------------
# One police action both devices' filters bind, and a gact one; the
# refused file's third change is a skip_sw filter, which a dummy device
# cannot offload.
for d in acta actb; do $IP link add $d type dummy && $IP link set $d up; done
actions() { # POLICE-RATE [EXTRA-ACTION [ACTA-FILTER]]
	cat <<EOF2
actions:
  - police rate $1 burst 10k conform-exceed drop index 31
  - gact drop index 32
${2:+  - $2}
devices:
  acta:
    ingress:
      qdisc: ingress
      filters:
        - protocol all pref 1 matchall action police index 31
${3:+        - $3}
  actb:
    ingress:
      qdisc: ingress
      filters:
        - protocol ip pref 1 u32 match ip dst 10.0.0.0/8 action police index 31
        - protocol all pref 2 matchall action gact index 32
EOF2
}
actions 1mbit >"$dir/actions.yaml"
actions 2mbit >"$dir/actions-changed.yaml"
actions 3mbit "gact pass index 33" "protocol all pref 2 matchall skip_sw action drop" >"$dir/actions-refused.yaml"
expect_sent actions "first apply" "$dir/actions.yaml" +
expect_sent actions "second apply" "$dir/actions.yaml" 0
$TC actions get action police index 31 | grep -q 'ref 3 bind 2' && ok "actions: police index 31 held by actions and bound by both devices' filters" ||
	fail "actions: police index 31: $($TC actions get action police index 31)"
expect_sent actions "changed rate" "$dir/actions-changed.yaml" 1
$TC actions get action police index 31 | grep -q 'rate 2Mbit' && $TC actions get action police index 31 | grep -q 'ref 3 bind 2' &&
	ok "actions: the rate replaced in place, both filters still bound" || fail "actions: after the replace: $($TC actions get action police index 31)"
# What the kernel answers to deleting an action a filter binds.
if out=$($TC actions del action police index 31 2>&1); then fail "actions: a bound action was deleted"; else ok "actions: the kernel refuses to delete a bound action: $(echo "$out" | head -1)"; fi
restored actions "$dir/actions-refused.yaml" acta actb actions=police actions=gact
in_sync actions "$dir/actions-changed.yaml" "$dir/actions.yaml" acta actb
samestate acta actb actions=police actions=gact >"$dir/before"
$GOTC apply --from-kernel acta actb >"$dir/actions-kernel.yaml" 2>"$dir/err" || fail "actions: --from-kernel: $(cat "$dir/err")"
$TC qdisc del dev acta ingress; $TC qdisc del dev actb ingress
# The kernel lets go of the deleted filters' actions a moment later (the
# other beds' filters bind gact actions too, so no flush).
for a in "police index 31" "gact index 32"; do
	for try in 1 2 3 4 5 6 7 8 9 10; do $TC actions del action $a 2>/dev/null && break; sleep 0.2; done
done
left=$($TC actions list action police; $TC actions list action gact)
echo "$left" | grep -q 'index 3[12] ' && fail "actions: the wipe left: $left"
expect_sent actions "--from-kernel's file on the devices and actions wiped" "$dir/actions-kernel.yaml" +
samestate acta actb actions=police actions=gact >"$dir/after"
cmp -s "$dir/before" "$dir/after" && ok "actions: --from-kernel, wipe, apply: the same state" ||
	{ fail "actions: --from-kernel, wipe, apply: the state differs:"; diff "$dir/before" "$dir/after"; cat "$dir/actions-kernel.yaml"; }
# The file without its actions and the filters that bound them: the
# filters go, then the actions.
printf 'devices:\n  acta:\n    ingress: ingress\n  actb:\n    ingress: ingress\n' >"$dir/actions-none.yaml"
expect_sent actions "actions and filters dropped" "$dir/actions-none.yaml" +
[ -z "$($TC actions list action police | grep 'index 31')" ] && [ -z "$($TC actions list action gact | grep 'index 32')" ] &&
	ok "actions: the actions the file dropped are gone" || fail "actions: left: $($TC actions list action police; $TC actions list action gact)"
expect_sent actions "then in sync" "$dir/actions-none.yaml" 0

# Dropped settings: a qdisc's options removed from the file go back to the
# kind's defaults, as a new qdisc of the file has them (a change keeps what
# it is not sent, so the plan sends the defaults).
$IP link add dropd type dummy
$IP link set dropd up
dropped() { # KIND WITH-OPTIONS (on $dropdev, dropd by default)
	dev=${dropdev:-dropd}
	printf 'devices:\n  %s:\n    root: { qdisc: %s, handle: "1:" }\n' "$dev" "$1" >"$dir/dropped-bare.yaml"
	printf 'devices:\n  %s:\n    root: { qdisc: %s %s, handle: "1:" }\n' "$dev" "$1" "$2" >"$dir/dropped-with.yaml"
	$TC qdisc del dev $dev root 2>/dev/null
	expect_sent "dropped $1" "bare" "$dir/dropped-bare.yaml" +
	ref=$(state $dev)
	expect_sent "dropped $1" "with $2" "$dir/dropped-with.yaml" 1
	[ "$(state $dev)" != "$ref" ] || fail "dropped $1: $2 changed nothing tc shows"
	expect_sent "dropped $1" "settings dropped" "$dir/dropped-bare.yaml" 1
	got=$(state $dev)
	[ "$got" = "$ref" ] && ok "dropped $1: back to the defaults" || fail "dropped $1: tc shows $got, want $ref"
	expect_sent "dropped $1" "then in sync" "$dir/dropped-bare.yaml" 0
}
dropped fq_codel "limit 500 target 7ms interval 50ms noecn memory_limit 1000000 drop_batch 8"
dropped cake "bandwidth 10mbit diffserv8 dual-srchost nat wash ingress no-split-gso ack-filter rtt 50ms overhead 18"
dropped codel "limit 500 target 7ms interval 50ms ecn"
dropped pie "limit 500 target 7ms tupdate 30ms alpha 4 beta 30 ecn bytemode dq_rate_estimator"
dropped fq_pie "limit 500 target 7ms tupdate 30ms alpha 4 beta 30 ecn bytemode dq_rate_estimator memory_limit 1000000 ecn_prob 20"
dropped hhf "limit 500 hh_limit 1000 reset_timeout 20ms admit_bytes 65536 evict_timeout 2s non_hh_weight 4"
dropped dualpi2 "limit 500 target 7ms tupdate 30ms alpha 0.3 beta 4 step_thresh 2ms min_qlen_step 2 coupling_factor 3 overflow drop_enqueue classic_protection 20% any_ect no_split_gso"
dropped dualpi2 "step_thresh 20p"
dropped netem "delay 10ms 2ms loss 1% duplicate 1% 10% reorder 25% 50% corrupt 1% rate 1mbit 20 100 5"
dropped netem "delay 10ms reorder 10% gap 5"
# cake_mq's instances, one per transmit queue, take its options.
$IP link add dropm numtxqueues 4 type dummy
$IP link set dropm up
dropdev=dropm dropped cake_mq "bandwidth 10mbit diffserv8 dual-srchost nat wash ingress no-split-gso ack-filter rtt 50ms overhead 18"
dropped fq "limit 500 flow_limit 50 maxrate 10mbit low_rate_threshold 1mbit refill_delay 20ms orphan_mask 511 timer_slack 20000ns horizon 5s buckets 512 nopacing horizon_cap"

echo "# apply tests took $(($(date +%s) - began)) s"
echo "apply: $passed passed, $failed failed"
[ $failed = 0 ]
