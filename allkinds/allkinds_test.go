// SPDX-License-Identifier: Apache-2.0

package allkinds_test

import (
	"slices"
	"strings"
	"testing"

	_ "github.com/gotc/gotc/allkinds"
	"github.com/gotc/gotc/tckind"
)

// Every family registers through the one import, and each registry lists
// its kinds sorted by name.
func TestEveryFamilyRegistered(t *testing.T) {
	names := func(n int, name func(int) string) []string {
		var s []string
		for i := range n {
			s = append(s, name(i))
		}
		return s
	}
	q, f, a := tckind.Qdiscs(), tckind.Filters(), tckind.Actions()
	for _, c := range []struct {
		what  string
		names []string
		want  []string
	}{
		{"qdiscs", names(len(q), func(i int) string { return q[i].Name }), []string{"cake", "dualpi2", "htb", "pfifo_fast"}},
		{"filters", names(len(f), func(i int) string { return f[i].Name }), []string{"bpf", "matchall", "u32"}},
		{"actions", names(len(a), func(i int) string { return a[i].Name }), []string{"bpf", "gact", "mirred", "police"}},
	} {
		if !slices.IsSorted(c.names) {
			t.Errorf("%s not sorted: %s", c.what, strings.Join(c.names, " "))
		}
		for _, w := range c.want {
			if !slices.Contains(c.names, w) {
				t.Errorf("%s lack %s: %s", c.what, w, strings.Join(c.names, " "))
			}
		}
	}
}
