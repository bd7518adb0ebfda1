// SPDX-License-Identifier: Apache-2.0

package main

import (
	"runtime/debug"
	"testing"
)

// TestVersionLine: -V says the version and the commit as each kind of
// build records them.
func TestVersionLine(t *testing.T) {
	setting := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		ok   bool
		want string
	}{
		{"a clone at a tag", &debug.BuildInfo{Main: debug.Module{Version: "v0.2.0"}, Settings: setting("vcs.revision", "b23787f9ac53c302f97bb330c043a9860ffc94a4", "vcs.modified", "false")},
			true, "tc utility, gotc-0.2.0, commit b23787f9ac53"},
		{"a clone with changes", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261204201549-b23787f9ac53+dirty"}, Settings: setting("vcs.revision", "b23787f9ac53c302f97bb330c043a9860ffc94a4", "vcs.modified", "true")},
			true, "tc utility, gotc-0.0.0-20261204201549-b23787f9ac53+dirty, commit b23787f9ac53 (modified)"},
		{"go install @latest of a commit", &debug.BuildInfo{Main: debug.Module{Version: "v0.2.1-0.20261204201549-b23787f9ac53"}},
			true, "tc utility, gotc-0.2.1-0.20261204201549-b23787f9ac53, commit b23787f9ac53"},
		{"go install @v0.2.0", &debug.BuildInfo{Main: debug.Module{Version: "v0.2.0"}}, true, "tc utility, gotc-0.2.0"},
		{"no VCS (a tarball)", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true, "tc utility, gotc-devel"},
		{"no build info", nil, false, "tc utility, gotc-devel"},
	} {
		if got := versionLine(tc.bi, tc.ok); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
