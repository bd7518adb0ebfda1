// SPDX-License-Identifier: Apache-2.0

package main

import (
	"runtime/debug"
	"strings"
)

// versionLine is what -V prints, in tc's form ("tc utility, iproute2-6.1.0"):
// gotc's version and the commit it was built from, as Go's build info has
// them, so that no release step has to stamp them. A build in a clone has
// the module's version from the git tag (a pseudo-version after it or
// without one, "+dirty" for uncommitted changes) and the commit; "go
// install ...@VERSION" has the version, and the commit only inside a
// pseudo-version; a build without either says "devel".
func versionLine(bi *debug.BuildInfo, ok bool) string {
	version, commit, modified := "devel", "", false
	if ok {
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			version = strings.TrimPrefix(v, "v")
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if commit == "" {
			commit = pseudoRevision(bi.Main.Version)
		}
	}
	line := "tc utility, gotc-" + version
	if commit != "" {
		line += ", commit " + commit[:min(12, len(commit))]
		if modified {
			line += " (modified)"
		}
	}
	return line
}

// pseudoRevision is the commit of a pseudo-version, its last part
// (v0.0.0-20261204201549-b23787f9ac53, v1.2.4-0.20261204201549-b23787f9ac53+dirty),
// "" for a release's version. Parsed by hand: gotc compiles no regular
// expression at start.
func pseudoRevision(v string) string {
	v, _, _ = strings.Cut(v, "+")
	parts := strings.Split(v, "-")
	if len(parts) < 3 {
		return ""
	}
	rev, stamp := parts[len(parts)-1], parts[len(parts)-2]
	stamp = stamp[strings.LastIndexByte(stamp, '.')+1:]
	if len(rev) != 12 || strings.Trim(rev, "0123456789abcdef") != "" || len(stamp) != 14 || strings.Trim(stamp, "0123456789") != "" {
		return ""
	}
	return rev
}
