#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Build (once) a small x86_64 kernel with CAKE, DualPI2 & co. built in, from the
# newest linux-source-* of Debian unstable. Cached by source version + config hash.
#
#   kernel.sh                 build if needed, print the bzImage path
#   kernel.sh --print-paths   build if needed, print shell-assignments:
#                             KERNEL_VERSION BZIMAGE PKT_SCHED_H TC_TESTING LINUX_SRC
#   kernel.sh --source-only   like --print-paths without building (BZIMAGE empty)
#
# Environment: GOTC_CACHE (default ~/.cache/gotc), GOTC_LINUX_SOURCE (package name
# to use instead of the newest linux-source-*).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Everything built in (no modules). olddefconfig silently drops an option whose
# dependencies fail, so each one is checked to be =y afterwards.
OPTIONS="64BIT PRINTK TTY SERIAL_8250 SERIAL_8250_CONSOLE BLK_DEV_INITRD RD_GZIP
 BINFMT_ELF BINFMT_SCRIPT DEVTMPFS DEVTMPFS_MOUNT PROC_FS PROC_SYSCTL SYSFS SHMEM TMPFS
 FUTEX EPOLL SIGNALFD TIMERFD EVENTFD INOTIFY_USER MULTIUSER POSIX_TIMERS HIGH_RES_TIMERS FILE_LOCKING
 NET PACKET UNIX INET IPV6 NAMESPACES NET_NS NETDEVICES NET_CORE VETH DUMMY IFB
 NETDEVSIM DEBUG_FS PCI ACPI X86_PM_TIMER HPET_TIMER
 NET_SCHED NET_SCH_FIFO NET_SCH_HTB NET_SCH_HFSC NET_SCH_PRIO NET_SCH_MULTIQ NET_SCH_RED
 NET_SCH_SFB NET_SCH_SFQ NET_SCH_TEQL NET_SCH_TBF NET_SCH_CBS NET_SCH_ETF NET_SCH_TAPRIO
 NET_SCH_GRED NET_SCH_NETEM NET_SCH_DRR NET_SCH_MQPRIO NET_SCH_SKBPRIO NET_SCH_CHOKE
 NET_SCH_QFQ NET_SCH_CODEL NET_SCH_FQ_CODEL NET_SCH_CAKE NET_SCH_FQ NET_SCH_HHF NET_SCH_PIE
 NET_SCH_FQ_PIE NET_SCH_INGRESS NET_SCH_PLUG NET_SCH_ETS NET_SCH_DUALPI2
 NET_CLS NET_CLS_BASIC NET_CLS_ROUTE4 NET_CLS_FW NET_CLS_U32 CLS_U32_PERF CLS_U32_MARK
 NET_CLS_FLOW NET_CLS_CGROUP NET_CLS_BPF NET_CLS_FLOWER NET_CLS_MATCHALL
 NET_EMATCH NET_EMATCH_CMP NET_EMATCH_NBYTE NET_EMATCH_U32 NET_EMATCH_META NET_EMATCH_TEXT
 NET_EMATCH_CANID NET_EMATCH_IPSET NET_EMATCH_IPT
 NET_CLS_ACT NET_ACT_POLICE NET_ACT_GACT GACT_PROB NET_ACT_MIRRED NET_ACT_SAMPLE NET_ACT_NAT
 NET_ACT_PEDIT NET_ACT_SIMP NET_ACT_SKBEDIT NET_ACT_CSUM NET_ACT_MPLS NET_ACT_VLAN NET_ACT_BPF
 NET_ACT_CONNMARK NET_ACT_CTINFO NET_ACT_SKBMOD NET_ACT_IFE NET_ACT_TUNNEL_KEY NET_ACT_CT
 NET_ACT_GATE NET_IFE_SKBMARK NET_IFE_SKBPRIO NET_IFE_SKBTCINDEX
 NETFILTER NETFILTER_ADVANCED NETFILTER_INGRESS NF_CONNTRACK NF_CONNTRACK_MARK
 NF_CONNTRACK_ZONES NF_CONNTRACK_LABELS NF_NAT NF_TABLES NF_FLOW_TABLE NETFILTER_XTABLES
 IP_SET CGROUPS CGROUP_NET_CLASSID BPF_SYSCALL CAN NET_IP_TUNNEL VXLAN GENEVE PSAMPLE
 PTP_1588_CLOCK_MOCK IP_ADVANCED_ROUTER IP_MULTIPLE_TABLES IP_ROUTE_CLASSID"
# Every qdisc, classifier, ematch and action of net/sched, as the kernel's
# tc-testing/config asks, plus what they depend on: conntrack, NAT and a flow
# table (act_ct), xtables and ipset (ematches), cgroups (cls_cgroup), BPF
# (cls_bpf, act_bpf), CAN (canid ematch), tunnels (tunnel_key), the PTP mock
# clock (taprio's tests), route classids (cls_route4).
# INOTIFY_USER: gotc-agent watches its file or directory with inotify
# (selftests/agent-test.sh).
# PCI, ACPI, X86_PM_TIMER, HPET_TIMER: a fine clocksource. Without ACPI the kernel
# cannot find qemu's HPET or PM timer, and when TSC calibration fails under a
# loaded host (TCG) it falls back to jiffies: 4 ms steps, useless for the
# models' timing comparisons.

mode=${1:-}
need dpkg-deb:dpkg xz:xz-utils tar:tar make:make gcc:gcc bc:bc bison:bison flex:flex \
	sha256sum:coreutils flock:util-linux
# The build's host programs (objtool, sign-file, ...) need these headers; gcc
# without its recommends does not bring libc's.
need_file /usr/include/stdio.h:libc6-dev /usr/include/libelf.h:libelf-dev /usr/include/openssl/ssl.h:libssl-dev

lock
sid_update
newest_source() {
	apt-cache "${APT_OPTS[@]}" pkgnames linux-source- | grep -E '^linux-source-[0-9]+\.[0-9]+$' | sort -V | tail -1
}
pkg=${GOTC_LINUX_SOURCE:-$(memo linux-source newest_source)}
[ -n "$pkg" ] || die "no linux-source-* package in Debian unstable"
kver=${pkg#linux-source-}
printf '%s\n' "$MIN_KERNEL" "$kver" | sort -VC ||
	die "newest kernel source in Debian unstable is $kver; gotc's test bed needs >= $MIN_KERNEL"
debver=$(memo "version-$pkg" sid_versions "$pkg" | cut -d' ' -f2)
[ -n "$debver" ] || die "$pkg is not in Debian unstable"
top=$CACHE/linux-$debver
src=$top/src/$pkg

# Source tree, plus the two things other parts of gotc read from it.
if [ ! -e "$top/.extracted" ]; then
	deb=$(sid_fetch "$pkg")
	log "extracting $pkg $debver"
	rm -rf "$top/src" && mkdir -p "$top/src"
	dpkg-deb --fsys-tarfile "$deb" | tar -xO --wildcards '*/linux-source-*.tar.xz' |
		tar -xJ -C "$top/src" || die "cannot extract $deb"
	[ -d "$src" ] || die "$deb did not contain $pkg/"
	cp "$src/include/uapi/linux/pkt_sched.h" "$top/pkt_sched.h"
	rm -rf "$top/tc-testing" && cp -a "$src/tools/testing/selftests/tc-testing" "$top/tc-testing"
	touch "$top/.extracted"
	# A newer Debian version replaces the older trees (1-2 GB each).
	find "$CACHE" -maxdepth 1 -name 'linux-*' ! -name "linux-$debver" -exec rm -rf {} +
fi

hash=$(echo "$OPTIONS" | sha256sum | cut -c1-12)
bz=$top/bzImage-$hash
if [ "$mode" != --source-only ] && [ ! -s "$bz" ]; then
	obj=$top/build-$hash
	log "building kernel $debver (config $hash) in $obj; about 10 minutes on 2 cores"
	start=$SECONDS
	mkdir -p "$obj"
	k() { make -s -C "$src" O="$obj" ARCH=x86_64 "$@"; }
	{
		k tinyconfig
		"$src/scripts/config" --file "$obj/.config" $(printf -- ' -e %s' $OPTIONS)
		k olddefconfig
	} >"$obj/config.log" 2>&1 || { cat "$obj/config.log" >&2; die "kernel configuration failed"; }
	bad=""
	for o in $OPTIONS; do grep -qx "CONFIG_$o=y" "$obj/.config" || bad+=" $o"; done
	[ -z "$bad" ] || die "kernel config lacks (a dependency blocked them):$bad; see $obj/.config"
	k -j"$(nproc)" bzImage >"$obj/build.log" 2>&1 ||
		{ tail -40 "$obj/build.log" >&2; die "kernel build failed; log: $obj/build.log"; }
	cp "$obj/arch/x86/boot/bzImage" "$bz.tmp" && mv "$bz.tmp" "$bz"
	log "kernel built in $((SECONDS - start)) s: $bz"
fi
[ "$mode" = --source-only ] && [ ! -s "$bz" ] && bz=""

case $mode in
--print-paths | --source-only)
	printf 'KERNEL_VERSION=%q\nBZIMAGE=%q\nPKT_SCHED_H=%q\nTC_TESTING=%q\nLINUX_SRC=%q\n' \
		"$debver" "$bz" "$top/pkt_sched.h" "$top/tc-testing" "$src" ;;
"") echo "$bz" ;;
*) die "usage: kernel.sh [--print-paths|--source-only]" ;;
esac
