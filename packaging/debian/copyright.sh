#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Writes the package's copyright file for the Go binaries given: gotc's
# license, then every module linked into them (as Go's build info lists
# them) with its license, from the module cache, and Go's own for the
# standard library. Apache-2.0 texts are named, not copied: Debian has
# them in /usr/share/common-licenses; a NOTICE file goes with them.
set -euo pipefail
modcache=$(go env GOMODCACHE)
cat <<'HEAD'
gotc: traffic control (tc) in Go, with desired state and statistics.
Source: https://github.com/gotc/gotc

Copyright: the gotc authors
License: Apache-2.0
 On Debian systems the full text of the Apache License, Version 2.0, is
 in /usr/share/common-licenses/Apache-2.0.

The binaries are static Go programs: they hold the Go standard library
and the modules below, each under its own license.
HEAD
license() { # DIR NAME: the license of the module or tree in DIR
	local f
	f=$(find "$1" -maxdepth 1 -type f \( -iname 'LICENSE*' -o -iname 'COPYING*' \) | sort | head -1)
	[ -n "$f" ] || { echo "no license file in $1" >&2; exit 1; }
	echo
	echo "Files: $2"
	if grep -q 'Apache License' "$f" && grep -q 'Version 2.0' "$f" && [ "$(wc -l <"$f")" -gt 150 ]; then
		echo "License: Apache-2.0 (/usr/share/common-licenses/Apache-2.0)"
	else
		echo "License:"
		sed -e 's/^$/./' -e 's/^/ /' "$f"
	fi
	if [ -f "$1/NOTICE" ]; then
		echo "Notice:"
		sed -e 's/^$/./' -e 's/^/ /' "$1/NOTICE"
	fi
}
license "$(go env GOROOT)" "the Go standard library ($(go env GOVERSION))"
go version -m "$@" | awk '$1 == "dep" { print $2, $3 }' | sort -u | while read -r mod ver; do
	# The module cache escapes capitals as !lower.
	dir=$modcache/$(echo "$mod" | sed 's/[A-Z]/!\L&/g')@$ver
	license "$dir" "$mod $ver"
done
