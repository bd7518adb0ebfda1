#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Build (once) the VM's base initramfs and print its path: busybox-static with all
# applets in /bin, Debian unstable's iproute2 and python3.14 (with scapy and ansible-core) under /ref
# (run through their own loader by wrappers in /ref/bin), netem's distribution
# tables at /usr/lib/tc, the kernel's tc-testing tree at /tc-testing. The per-run part (gotc binaries, payload, command, /init) is a
# second cpio appended by `run`, so rebuilding gotc never rebuilds this.
#
#   image.sh TC_TESTING_DIR   (kernel.sh --print-paths gives it)
# The unpacked tree stays at $CACHE/image/ref-KEY ($CACHE/image/current links the
# newest), so the host can run the reference tools too (see `gotc`).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
tct=${1:?usage: image.sh TC_TESTING_DIR}
[ -e "$tct/tdc.py" ] || die "$tct has no tdc.py"

# Library lists measured with iproute2 7.3 / python 3.14; checked below with ld.so.
REF_PKGS="libc6 libgcc-s1 iproute2 libbpf1 libcap2 libdb5.3t64 libelf1t64 libmnl0
 libselinux1 libtirpc3t64 libxtables12 libzstd1 zlib1g libpcre2-8-0 libgssapi-krb5-2
 libk5crypto3 libkrb5-3 libkrb5support0 libkeyutils1 libcom-err2 libssl3t64
 python3.14-minimal libpython3.14-minimal libpython3.14-stdlib libexpat1 libffi8
 libbz2-1.0 liblzma5 libncursesw6 libtinfo6 libreadline8t64 libuuid1 libsqlite3-0
 python3-scapy bash jq libjq1 libonig5
 ansible-core python3-jinja2 python3-markupsafe python3-yaml libyaml-0-2 python3-packaging
 python3-resolvelib libc-bin"
# python3-scapy (pure Python): tdc's scapyPlugin, which many qdisc files load
# (fq_codel, fq, codel, pie, qfq, ...); without the module tdc.py runs none of
# their cases. It unpacks into usr/lib/python3/dist-packages, which Debian's
# python finds under PYTHONHOME.
# bash and jq: tdc cases run `bash -c '...'` (the batches of 32 actions, of
# 2048 filters) and taprio's probe `jq`; without bash a failed batch case
# makes tdc.py skip every case after it ("previous setup failed").
# ansible-core and what it imports (jinja2, markupsafe, yaml, packaging,
# resolvelib): ansible-playbook runs gotc's Ansible module in the VM
# (selftests/ansible-test.sh --vm). From Debian, not the package index, which
# this host cannot reach; the rest of its Depends (ssh, cryptography, ...)
# a local connection without vault does not use. libc-bin: the C.UTF-8
# locale, without which ansible-core does not start (it wants a UTF-8 one).
BUSYBOX=/bin/busybox # from the host's busybox-static: statically linked

need cpio:cpio gzip:gzip dpkg-deb:dpkg sha256sum:coreutils flock:util-linux
# The dynamic busybox (Debian's default) would not run in the VM, which has no
# host libc; busybox-static replaces it.
static_busybox() { [ -x "$BUSYBOX" ] && ! ldd "$BUSYBOX" >/dev/null 2>&1; }
static_busybox || host_install "a static $BUSYBOX:busybox-static"
static_busybox || die "busybox-static is installed but $BUSYBOX is not a static executable"

lock
sid_update
deblist=$(sid_fetch $REF_PKGS)
mapfile -t debs <<<"$deblist"
key=$( { printf '%s\n' "${debs[@]##*/}"; cat "$BUSYBOX" "${BASH_SOURCE[0]}" | sha256sum;
	find "$tct" -type f -print0 | sort -z | xargs -0 sha256sum; } | sha256sum | cut -c1-12)
img=$CACHE/image/base-$key.cpio.gz
# An image's mtime is its last use (see the clean-up at the end).
if [ -s "$img" ]; then touch "$img"; ln -sfn "ref-$key" "$CACHE/image/current"; echo "$img"; exit 0; fi

log "building base image $key"
st=$CACHE/image/ref-$key
rm -rf "$st" && mkdir -p "$st"/{bin,usr/bin,ref/bin,proc,sys,dev,tmp,run,root,etc,var}
for d in "${debs[@]}"; do dpkg-deb -x "$d" "$st/ref/root" || die "cannot unpack $d"; done
R=/ref/root L=/ref/root/usr/lib/x86_64-linux-gnu
rm -rf "$st$R"/usr/share/{doc,man,info,locale,lintian,bug,vim} "$st$L/gconv" # smaller, faster boot
[ -x "$st$L/ld-linux-x86-64.so.2" ] || die "libc6 from unstable has no $L/ld-linux-x86-64.so.2"

# busybox's own `ip`/`tc` applets win over $PATH in its shell, so the reference
# tools get distinct full paths; tdc's nsPlugin runs commands with an empty
# environment, hence the applets in /bin and python3 in /usr/bin for `env python3`.
cp "$BUSYBOX" "$st/bin/busybox"
for a in $("$BUSYBOX" --list); do [ -e "$st/bin/$a" ] || ln -s busybox "$st/bin/$a"; done
ln -s bin "$st/sbin"; ln -s /bin/busybox "$st/usr/bin/env"; ln -s ../run "$st/var/run"
wrap() { # NAME PROGRAM [ENV=VALUE]: /ref/bin/NAME runs PROGRAM via unstable's loader
	printf '#!/bin/sh\n%sexec %s --library-path %s %s "$@"\n' "${3:+export $3; }" \
		"$L/ld-linux-x86-64.so.2" "$L" "$2" >"$st/ref/bin/$1"
	chmod +x "$st/ref/bin/$1"
}
wrap tc $R/usr/sbin/tc; wrap ip $R/usr/sbin/ip
wrap python3 $R/usr/bin/python3.14 "PYTHONHOME=$R/usr"
ln -s /ref/bin/python3 "$st/usr/bin/python3"
# Neither is a busybox applet, so a command's PATH search (tdc's nsPlugin
# clears the environment: ash's default PATH) finds them in /usr/bin.
# tc-testing's scripts start with #!/bin/bash.
wrap bash $R/usr/bin/bash; ln -s /ref/bin/bash "$st/usr/bin/bash"; ln -s /ref/bin/bash "$st/bin/bash"
wrap jq $R/usr/bin/jq; ln -s /ref/bin/jq "$st/usr/bin/jq"
# netem's "distribution NAME" makes tc read LIBDIR/tc/NAME.dist, LIBDIR built into
# it: Debian's is /usr/lib/x86_64-linux-gnu (where it ships the tables), upstream's
# /usr/lib. The reference iproute2's tables are at both.
tcdist=usr/lib/x86_64-linux-gnu/tc
ls "$st$R/$tcdist"/*.dist >/dev/null 2>&1 || die "iproute2 from unstable has no $tcdist/*.dist (netem's tables)"
mkdir -p "$st/usr/lib/x86_64-linux-gnu"
ln -s "$R/$tcdist" "$st/usr/lib/tc"; ln -s "$R/$tcdist" "$st/$tcdist"
# tc reads its name tables (ematch_map: the ematches' kind numbers, rt_realms,
# rt_dsfield, ...) from /usr/share/iproute2, where the package installs them.
[ -e "$st$R/usr/share/iproute2/ematch_map" ] || die "iproute2 from unstable has no usr/share/iproute2/ematch_map"
mkdir -p "$st/usr/share" && ln -s "$R/usr/share/iproute2" "$st/usr/share/iproute2"
# The loader of unstable's libc looks for locales in /usr/lib/locale.
[ -e "$st$R/usr/lib/locale/C.utf8/LC_CTYPE" ] || die "libc-bin from unstable has no usr/lib/locale/C.utf8"
ln -s "$R/usr/lib/locale" "$st/usr/lib/locale"
echo "root:x:0:0:root:/root:/bin/sh" >"$st/etc/passwd"; echo "root:x:0:" >"$st/etc/group"

# Check on the host that every program finds its libraries and python its modules.
for p in usr/sbin/tc usr/sbin/ip usr/bin/python3.14 usr/bin/bash usr/bin/jq; do
	"$st$L/ld-linux-x86-64.so.2" --list --library-path "$st$L" "$st$R/$p" | grep 'not found' &&
		die "$p lacks libraries (a Debian package was renamed?); fix REF_PKGS in image.sh"
done
v=$(PYTHONHOME=$st$R/usr "$st$L/ld-linux-x86-64.so.2" --library-path "$st$L" "$st$R/usr/bin/python3.14" -c \
	'import json, argparse, subprocess, socket, resource, multiprocessing, importlib, signal, random, re, struct, sys, scapy, scapy.all; print(sys.version.split()[0], "scapy", scapy.VERSION)') ||
	die "reference python3 cannot import what tdc.py (and its scapy plugin) needs"
a=$(LC_ALL=C.UTF-8 LOCPATH=$st$R/usr/lib/locale PYTHONHOME=$st$R/usr "$st$L/ld-linux-x86-64.so.2" --library-path "$st$L" "$st$R/usr/bin/python3.14" -c \
	'import locale; locale.setlocale(locale.LC_ALL, ""); import ansible, ansible.cli.playbook, jinja2, markupsafe, yaml, packaging, resolvelib; print(ansible.__version__)') ||
	die "reference python3 cannot import ansible-core and what it needs; fix REF_PKGS in image.sh"
log "reference tc: $("$st$L/ld-linux-x86-64.so.2" --library-path "$st$L" "$st$R/usr/sbin/tc" -V), python $v, ansible-core $a"

# The kernel's tc-testing suite, set up for this image (tdc_config_local.py is ours).
cp -a "$tct" "$st/tc-testing"
cat >"$st/tc-testing/tdc_config_local.py" <<'EOF'
# Written by gotc's selftests/vm/image.sh: tools of the test VM.
EXTRA_NAMES = {'TC': '/ref/bin/tc', 'IP': '/ref/bin/ip', 'ETHTOOL': '/bin/true'}
EOF

(cd "$st" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -6 >"$img.tmp") && mv "$img.tmp" "$img"
ln -sfn "ref-$key" "$CACHE/image/current"
# Other keys' images go once unused for a day, not at once: checkouts of
# different branches on one host share the cache, each with its own key, and
# deleting the other's image made each rebuild it (or pulled it from under a
# starting run).
for old in "$CACHE"/image/base-*.cpio.gz; do
	k=${old##*/base-} && k=${k%.cpio.gz}
	[ "$k" = "$key" ] || [ -z "$(find "$old" -mmin +1440)" ] || rm -rf "$old" "$CACHE/image/ref-$k"
done
log "base image: $img ($(du -h "$img" | cut -f1))"
echo "$img"
