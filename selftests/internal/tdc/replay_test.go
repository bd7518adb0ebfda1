// SPDX-License-Identifier: Apache-2.0

package tdc

import (
	"strings"
	"testing"

	_ "github.com/gotc/gotc/allkinds" // the qdiscs' parsers
	"github.com/gotc/gotc/model/predict"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
	"github.com/gotc/gotc/tcline"
	"github.com/gotc/gotc/traffic"
)

// TestReplayCases checks the replayed-capture cases the VM runs
// (selftests/model-tests/replay.json) on the host: each is a model case
// whose capture reads, and the model's prediction of a replay sent
// exactly on time is decidable (every timing margin at least the
// kernel's uncertainty), which a real replay needs to be.
func TestReplayCases(t *testing.T) {
	t.Chdir("../../..") // the capture paths are the repository's
	cases, err := Load("selftests/model-tests/replay.json")
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for i := range cases {
		c := &cases[i]
		rawPlan, mc, ok, err := modelCase(c)
		if !ok || err != nil {
			t.Fatalf("%s: not a model case (%v)", c.ID, err)
		}
		plan, err := traffic.ParsePlan([]byte(Substitute(string(rawPlan), map[string]string{"DEV1": "v0"})))
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		trace, err := traffic.DryRun(plan)
		if err != nil {
			t.Fatal(err)
		}
		_, words, found := strings.Cut(c.CmdUnderTest, " root handle 1: ")
		if !found {
			t.Fatalf("%s: %q", c.ID, c.CmdUnderTest)
		}
		w := strings.Fields(words)
		opts, err := tcline.ParseKindOptions(netlink.Qdisc, w[0], w[1:], tckind.ParseEnv{})
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		res, err := predict.Run(predict.Config{Kind: w[0], Options: opts, Handle: 0x10000, Offset: 10_000_000_000}, trace)
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		if m := res.Margins.Min(); m < int64(mc.MinMarginUS)*1000 {
			t.Errorf("%s: margin %d ns at the capture's own times: undecidable", c.ID, m)
		}
		kinds[w[0]]++
	}
	if len(cases) < 8 || kinds["cake"] == 0 || kinds["dualpi2"] == 0 {
		t.Errorf("%d replay cases %v", len(cases), kinds)
	}
}

// TestShapedFQCodelCases checks the cases of an fq_codel leaf below HTB
// (selftests/model-tests/fq_codel-htb.json) on the host: each names the
// leaf and what drains it, and sent exactly on time its prediction keeps
// every timing margin at 900 µs or more, as the README says they are
// designed to (the VM's late timers need far more than 200 µs).
func TestShapedFQCodelCases(t *testing.T) {
	t.Chdir("../../..")
	cases, err := Load("selftests/model-tests/fq_codel-htb.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < 8 {
		t.Errorf("%d cases", len(cases))
	}
	for i := range cases {
		c := &cases[i]
		rawPlan, mc, ok, err := modelCase(c)
		if !ok || err != nil || mc.Parent == "" || mc.Rate == "" || mc.Burst == "" {
			t.Fatalf("%s: not a model case of a leaf (%v)", c.ID, err)
		}
		plan, err := traffic.ParsePlan([]byte(Substitute(string(rawPlan), map[string]string{"DEV1": "v0"})))
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		trace, err := traffic.DryRun(plan)
		if err != nil {
			t.Fatal(err)
		}
		_, words, found := strings.Cut(c.CmdUnderTest, " parent "+mc.Parent+" handle 10: ")
		if !found {
			t.Fatalf("%s: %q", c.ID, c.CmdUnderTest)
		}
		w := strings.Fields(words)
		opts, err := tcline.ParseKindOptions(netlink.Qdisc, w[0], w[1:], tckind.ParseEnv{})
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		rate, _ := tcfmt.ParseRate(mc.Rate)
		burst, _ := tcfmt.ParseSize(mc.Burst)
		res, err := predict.Run(predict.Config{Kind: w[0], Options: opts, Handle: 0x100000, Offset: 10_000_000_000,
			Rate: rate, Burst: burst}, trace)
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		if m := res.Margins.Min(); m < 900_000 {
			t.Errorf("%s: margin %d ns at the plan's own times", c.ID, m)
		}
	}
}
