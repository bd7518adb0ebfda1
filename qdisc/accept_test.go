// SPDX-License-Identifier: Apache-2.0

package qdisc

import (
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/tckind"
)

func TestChangeAccepted(t *testing.T) {
	u32 := func(v uint32) *uint32 { return &v }
	parsed := func(kind, args string) attrs.TCOptionsMsg {
		opts, err := tckind.LookupQdisc(kind).ParseQdisc(strings.Fields(args), tckind.ParseEnv{})
		if err != nil {
			t.Fatalf("%s %s: %v", kind, args, err)
		}
		return opts
	}
	for _, tc := range []struct {
		name       string
		kind       string
		opts       attrs.TCOptionsMsg
		parentKind string
		want       bool
	}{
		{"dualpi2 options", "dualpi2", parsed("dualpi2", "limit 1000 target 15ms tupdate 4s"), "mq", true},
		{"dualpi2 every keyword", "dualpi2", parsed("dualpi2", "limit 100 memlimit 2000000 target 5ms tupdate 10ms alpha 0.2 beta 4 step_thresh 2ms min_qlen_step 1 coupling_factor 3 drop_on_overload drop_enqueue classic_protection 20 any_ect split_gso"), "", true},
		{"dualpi2 without options (the kernel requires some)", "dualpi2", parsed("dualpi2", ""), "", false},
		{"dualpi2 alpha 0 (below the policy)", "dualpi2", (&attrs.DualPI2Attrs{Alpha: u32(0)}), "", false},
		{"dualpi2 limit 0", "dualpi2", (&attrs.DualPI2Attrs{Limit: u32(0)}), "", false},
		{"dualpi2 both step thresholds", "dualpi2", (&attrs.DualPI2Attrs{StepThreshPkts: u32(1), StepThreshUS: u32(1)}), "", false},
		{"dualpi2 options built by a library user", "dualpi2", &attrs.DualPI2Attrs{Limit: u32(5)}, "", true},
		{"dualpi2 options kept raw", "dualpi2", attrs.TCOptionsMsgRaw{8, 0, 1, 0, 5, 0, 0, 0}, "", false},
		{"cake options", "cake", parsed("cake", "bandwidth 100mbit diffserv4"), "mq", true},
		{"cake with nat (needs conntrack)", "cake", parsed("cake", "bandwidth 100mbit nat"), "", false},
		{"cake with nonat (still needs conntrack)", "cake", parsed("cake", "nonat"), "", false},
		{"cake below cake_mq", "cake", parsed("cake", "bandwidth 100mbit"), "cake_mq", false},
		{"cake without options", "cake", parsed("cake", ""), "", true},
	} {
		if got := tckind.LookupQdisc(tc.kind).ChangeAccepted(tc.opts, tc.parentKind); got != tc.want {
			t.Errorf("%s: ChangeAccepted = %v, want %v", tc.name, got, tc.want)
		}
	}
	if tckind.LookupQdisc("cake_mq").ChangeAccepted != nil {
		t.Error("cake_mq's changes are assumed accepted")
	}
}

// BenchmarkChangeAccepted is the per-line cost of a batch's acceptance check
// for the bench's two lines.
func BenchmarkChangeAccepted(b *testing.B) {
	for _, line := range []struct{ kind, args string }{
		{"cake", "bandwidth 100mbit diffserv4"},
		{"dualpi2", "limit 1000 target 15ms tupdate 4s"},
	} {
		k := tckind.LookupQdisc(line.kind)
		opts, err := k.ParseQdisc(strings.Fields(line.args), tckind.ParseEnv{})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(line.kind, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if !k.ChangeAccepted(opts, "mq") {
					b.Fatal("not accepted")
				}
			}
		})
	}
}
