#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds gotc's Debian package from this clone, with dpkg-deb:
#
#   packaging/build-deb.sh [OUTDIR]     writes OUTDIR/gotc_VERSION_ARCH.deb (default: .)
#
# It holds the five static binaries (CGO_ENABLED=0), the man pages
# (internal/manual/mkman), the bash, zsh and fish completions, the systemd
# units (not enabled), example traces and a file for gotc apply, and the
# licenses of everything linked in. The version is the git tag (vX.Y.Z,
# without the v) or, between tags, the last one (0.0.0 before the first)
# with +gitDATE.COMMIT, and +dirty for uncommitted changes; the binaries'
# own version (gotc -V) is what Go records of the same tag and commit.
# It prints the package's path. selftests/deb-test.sh lints, installs and
# removes it.
set -euo pipefail
cd "$(dirname "$0")/.."
source selftests/vm/lib.sh # need: install what the host lacks
need dpkg-deb:dpkg gzip:gzip git:git
mkdir -p "${1:-.}"
out=$(realpath "${1:-.}")

# The version, from git.
if tag=$(git describe --tags --exact-match --match 'v[0-9]*' 2>/dev/null); then
	version=${tag#v}
else
	base=$(git describe --tags --abbrev=0 --match 'v[0-9]*' 2>/dev/null || echo v0.0.0)
	version=${base#v}+git$(git log -1 --format=%cd --date=format:%Y%m%d).$(git rev-parse --short=12 HEAD)
fi
[ -z "$(git status --porcelain --untracked-files=no)" ] || version+=+dirty
arch=$(dpkg --print-architecture)
# The date of the commit, not of the build: the same commit builds the
# same package.
date=$(git log -1 --format=%cI)
export SOURCE_DATE_EPOCH=$(git log -1 --format=%ct)
maintainer=${GOTC_DEB_MAINTAINER:-$(git log -1 --format='%an <%ae>')}

stage=$(mktemp -d) && trap 'rm -rf "$stage"' EXIT
root=$stage/gotc
doc=$root/usr/share/doc/gotc
mkdir -p "$root/DEBIAN" "$root/usr/bin" "$doc/examples" "$root/usr/share/man" \
	"$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
	"$root/usr/share/fish/vendor_completions.d" "$root/usr/lib/systemd/system" "$root/usr/share/lintian/overrides"

# Static (no libc: the package depends on nothing), without paths of this
# machine, stripped (-s -w) as Debian ships binaries; -buildvcs records
# the tag and commit that gotc -V prints (GOFLAGS may turn it off).
CGO_ENABLED=0 go build -trimpath -buildvcs=true -ldflags='-s -w' -o "$root/usr/bin/" \
	./cmd/gotc ./cmd/gotc-exporter ./cmd/gotc-bpf ./cmd/gotc-traffic ./cmd/gotc-model ./cmd/gotc-apply ./cmd/gotc-cni ./cmd/gotc-agent

go run ./internal/manual/mkman -o "$root/usr/share/man" -date "${date%%T*}" -source "gotc $version"
install -m 644 completion/gotc.bash "$root/usr/share/bash-completion/completions/gotc"
install -m 644 completion/_gotc "$root/usr/share/zsh/vendor-completions/_gotc"
install -m 644 completion/gotc.fish "$root/usr/share/fish/vendor_completions.d/gotc.fish"
install -m 644 packaging/gotc-exporter.service packaging/gotc-apply.service deploy/systemd/gotc-agent.service \
	deploy/systemd/gotc-agent.path "$root/usr/lib/systemd/system/"
install -m 644 packaging/debian/lintian-overrides "$root/usr/share/lintian/overrides/gotc"
install -m 644 traffic/testdata/cake-diffserv3.trace.jsonl traffic/testdata/dualpi2-ecn.trace.jsonl \
	traffic/testdata/mixed-plan.json "$doc/examples/"
"$root/usr/bin/gotc" apply --example >"$doc/examples/tc.yaml"
install -m 644 README.md "$doc/"
install -m 755 packaging/debian/postinst packaging/debian/prerm packaging/debian/postrm "$root/DEBIAN/"

# A native package's changelog: this build's entry.
cat >"$stage/changelog" <<EOF
gotc ($version) unstable; urgency=medium

  * Built from commit $(git rev-parse HEAD).

 -- $maintainer  $(date -R -d "$date")
EOF
packaging/debian/copyright.sh "$root"/usr/bin/* >"$doc/copyright"

find "$root/usr/share/man" -type f -exec gzip -9n {} +
gzip -9n "$doc/README.md"
gzip -9n -c "$stage/changelog" >"$doc/changelog.gz"
find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s|@VERSION@|$version|" -e "s|@ARCH@|$arch|" -e "s|@MAINTAINER@|$maintainer|" -e "s|@SIZE@|$size|" \
	packaging/debian/control.in >"$root/DEBIAN/control"
(cd "$root" && find usr -type f | sort | xargs -d '\n' md5sum) >"$root/DEBIAN/md5sums"
chmod 644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"

deb=$out/gotc_${version}_$arch.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
