# SPDX-License-Identifier: Apache-2.0
# Shared helpers of the real-kernel test bed; sourced by kernel.sh, image.sh, run.
# Everything downloaded or built lives under $CACHE, never in the repository.
set -euo pipefail

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$VM_DIR/../.." && pwd)
CACHE=${GOTC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gotc}
MIN_KERNEL=6.17 # first release with DualPI2 and cake_mq's tests

die() { echo "selftests/vm: error: $*" >&2; exit 1; }
log() { echo "selftests/vm: $*" >&2; }

# need CMD:DEBIAN-PACKAGE... (a command on $PATH) and need_file PATH:DEBIAN-PACKAGE...
# (a file, e.g. a header): what the host lacks is installed from the host's own
# Debian on first use, so that the README's two commands are the whole set-up.
need() {
	local t missing=()
	for t; do command -v "${t%%:*}" >/dev/null || missing+=("$t"); done
	[ ${#missing[@]} -eq 0 ] || host_install "${missing[@]}"
	for t in "${missing[@]}"; do command -v "${t%%:*}" >/dev/null || die "${t#*:} is installed but there is still no ${t%%:*} on PATH"; done
}
need_file() {
	local t missing=()
	for t; do [ -e "${t%%:*}" ] || missing+=("$t"); done
	[ ${#missing[@]} -eq 0 ] || host_install "${missing[@]}"
	for t in "${missing[@]}"; do [ -e "${t%%:*}" ] || die "${t#*:} is installed but there is still no ${t%%:*}"; done
}

# host_install WHAT:DEBIAN-PACKAGE...: as root with apt-get, install the packages
# (saying which and for what); otherwise fail with the one command that fixes it.
# The index is refreshed once per top-level command: the exported flag reaches
# kernel.sh and image.sh, which `run` starts.
host_install() {
	local t pkgs=() why=""
	for t; do pkgs+=("${t#*:}"); why+="${why:+, }${t#*:} for ${t%%:*}"; done
	if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
		die "missing host packages ($why); run as root: apt-get install --no-install-recommends ${pkgs[*]}"
	fi
	# One install at a time on the host: two of gotc's processes may find
	# the same package missing (test.sh's two VM halves on a fresh
	# machine), and apt-get update does not wait for another's lock. The
	# second then installs what the first did, which apt takes as done.
	local hostlock
	exec {hostlock}>"${TMPDIR:-/tmp}/gotc-host-install.lock"
	flock "$hostlock"
	log "installing missing host packages ($why)"
	# CI keeps apt's and dpkg's whole output in its log; elsewhere it shows on failure.
	local out=/dev/stderr; [ "${CI:-}" = true ] || out=$(mktemp)
	# -o DPkg::Lock::Timeout: wait for another apt (a second engineer's first run).
	a() { DEBIAN_FRONTEND=noninteractive apt-get -q -o DPkg::Lock::Timeout=600 "$@" >>"$out" 2>&1 ||
		{ [ "$out" = /dev/stderr ] || cat "$out" >&2; die "apt-get $1 failed"; }; }
	[ -n "${GOTC_HOST_APT_UPDATED:-}" ] || { a update; export GOTC_HOST_APT_UPDATED=1; }
	a install -y --no-install-recommends "${pkgs[@]}"
	[ "$out" = /dev/stderr ] || rm -f "$out"
	exec {hostlock}>&-
}

# lock: one builder per cache at a time (held until the calling script exits).
lock() { mkdir -p "$CACHE"; exec 9>"$CACHE/.lock"; flock 9; }

# --- Debian unstable through a private apt configuration -------------------
# The system's sources stay untouched (adding unstable there would upgrade libc).
APT_DIR=$CACHE/apt
APT_OPTS=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$APT_DIR/sources"
	-o "Dir::State::Lists=$APT_DIR/lists" -o "Dir::Cache=$APT_DIR/cache"
	-o Dir::State::Status=/dev/null -o Debug::NoLocking=1 -o APT::Sandbox::User=root
	-o Dir::Cache::pkgcache=pkgcache.bin -o Dir::Cache::srcpkgcache=srcpkgcache.bin
	-o Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false
	-o Acquire::IndexTargets::deb::DEP-11-icons::DefaultEnabled=false
	-o Acquire::IndexTargets::deb::DEP-11-icons-small::DefaultEnabled=false)

sid_sources() { # $1 = keyring(s) that verify unstable's Release
	mkdir -p "$APT_DIR"/{sources,lists/partial,cache/archives/partial}
	echo "deb [signed-by=$1] http://deb.debian.org/debian unstable main" >"$APT_DIR/sources/sid.list"
}

# Refresh the unstable index at most once a day (a fresh machine always does).
SIG_ERR='NO_PUBKEY\|not signed\|EXPKEYSIG\|EXPSIG\|BADSIG'
sid_update() {
	local stamp=$APT_DIR/updated keys=/usr/share/keyrings/debian-archive-keyring.gpg ulog=$APT_DIR/update.log
	if [ -e "$stamp" ] && [ -z "$(find "$stamp" -mmin +1440)" ]; then return; fi
	need apt-get:apt gpgv:gpgv
	[ -s "$APT_DIR/newer-keyring.gpg" ] && keys+=",$APT_DIR/newer-keyring.gpg"
	sid_sources "$keys"
	if apt-get "${APT_OPTS[@]}" -qq update >"$ulog" 2>&1 && ! grep -q "$SIG_ERR" "$ulog"; then
		:
	elif grep -q "$SIG_ERR" "$ulog"; then
		# Unstable may be signed by a key newer than this host's keyring. Take
		# the newest debian-archive-keyring of the current stable release, whose
		# index the host's own keyring verifies, and retry with it.
		log "unstable's signature not verified with the host keyring; fetching stable's newer keyring"
		local tmp; tmp=$(mktemp -d)
		echo "deb [signed-by=$keys] http://deb.debian.org/debian stable main" >"$APT_DIR/sources/sid.list"
		apt-get "${APT_OPTS[@]}" -qq update >"$ulog" 2>&1 && ! grep -q "$SIG_ERR" "$ulog" &&
			(cd "$tmp" && apt-get "${APT_OPTS[@]}" -qq download debian-archive-keyring && dpkg-deb -x ./*.deb x) >>"$ulog" 2>&1 ||
			{ cat "$ulog" >&2; die "cannot get a keyring that verifies Debian unstable (see above)"; }
		cp "$tmp/x/usr/share/keyrings/debian-archive-keyring.gpg" "$APT_DIR/newer-keyring.gpg"
		rm -rf "$tmp" "$APT_DIR/lists"
		sid_sources "$keys,$APT_DIR/newer-keyring.gpg"
		apt-get "${APT_OPTS[@]}" -qq update >"$ulog" 2>&1 && ! grep -q "$SIG_ERR" "$ulog" ||
			{ cat "$ulog" >&2; die "apt-get update of Debian unstable failed even with stable's newest keyring"; }
	elif [ -e "$stamp" ]; then # offline: the older index still names cached files
		log "warning: apt-get update of Debian unstable failed; using the index of $(date -r "$stamp")"
		return
	else
		cat "$ulog" >&2; die "apt-get update of Debian unstable failed"
	fi
	rm -rf "$APT_DIR/memo"
	touch "$stamp"
}

# memo NAME CMD...: CMD's output, remembered until the next index refresh, so a
# cached run does not pay apt-cache's index loading (a second or more) each time.
memo() {
	local f=$APT_DIR/memo/$1; shift
	[ -s "$f" ] || { mkdir -p "$APT_DIR/memo"; "$@" >"$f.tmp" && mv "$f.tmp" "$f"; }
	cat "$f"
}

# sid_versions PKG...: "PACKAGE VERSION" lines of unstable's candidates.
sid_versions() {
	apt-cache "${APT_OPTS[@]}" show --no-all-versions "$@" 2>/dev/null |
		awk '/^Package:/{p=$2} /^Version:/{print p, $2}'
}

# sid_fetch PKG...: download .debs of unstable (cached in $CACHE/debs), print their paths.
sid_fetch() {
	local p v f want=() out=()
	mkdir -p "$CACHE/debs"
	# One apt-cache call for all: loading unstable's index takes about a second.
	while read -r p v; do
		f=$CACHE/debs/${p}_${v/:/%3a}_$(dpkg --print-architecture).deb
		[ -e "$f" ] || f=${f%_*}_all.deb
		[ -e "$f" ] || want+=("$p")
		out+=("${p}_${v/:/%3a}_")
	done < <(memo "show-$(echo "$*" | sha256sum | cut -c1-12)" sid_versions "$@")
	[ ${#out[@]} -eq $# ] || die "not all of these are in Debian unstable: $*"
	[ ${#want[@]} -eq 0 ] || (cd "$CACHE/debs" && apt-get "${APT_OPTS[@]}" -qq download "${want[@]}") >&2 ||
		die "download of ${want[*]} from Debian unstable failed"
	for f in "${out[@]}"; do ls "$CACHE/debs/$f"*.deb; done
}
