// SPDX-License-Identifier: Apache-2.0

package tcline

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tckind"
)

func TestParseFilterWhere(t *testing.T) {
	for _, tt := range []struct {
		verb FilterVerb
		line string
		want FilterWhere
	}{
		{FilterModify, "", FilterWhere{}},
		{FilterModify, "dev eth0 parent 1: handle 800::1 pref 10 protocol ip chain 3 u32 match u32 0 0",
			FilterWhere{Dev: "eth0", Parent: 0x10000, Handle: "800::1", HandleSet: true, Prio: 10, Protocol: 0x0800, ProtocolSet: true, Chain: 3, ChainSet: true, Kind: "u32", Opts: []string{"match", "u32", "0", "0"}}},
		// tc's prefixes of the long keywords.
		{FilterModify, "bl 7 prio 2 proto all ch 0 est 1s 8s matchall",
			FilterWhere{Block: 7, Prio: 2, Protocol: tckind.EthPAll, ProtocolSet: true, ChainSet: true, Estimator: &attrs.GnetEstimator{Interval: 0, EwmaLog: 3}, Kind: "matchall", Opts: []string{}}},
		{FilterModify, "dev lo root basic", FilterWhere{Dev: "lo", Parent: netlink.HandleRoot, Kind: "basic", Opts: []string{}}},
		{FilterModify, "dev lo ingress", FilterWhere{Dev: "lo", Parent: ParentIngress}},
		{FilterModify, "dev lo egress", FilterWhere{Dev: "lo", Parent: ParentEgress}},
		{FilterModify, "dev lo preference 65535", FilterWhere{Dev: "lo", Prio: 65535}},
		{FilterModify, "dev lo help u32", FilterWhere{Dev: "lo", Help: true}},
		{FilterGet, "dev lo help", FilterWhere{Dev: "lo", Help: true}},
		// "estimator" is the kind for get, as tc's reader has no such keyword.
		{FilterGet, "dev lo estimator 1s 8s", FilterWhere{Dev: "lo", Kind: "estimator", Opts: []string{"1s", "8s"}}},
		// The listing reads on after "help", takes priorities beyond 16
		// bits, and protocol 0 as unset.
		{FilterList, "dev lo help pref 70000", FilterWhere{Dev: "lo", Prio: 70000}},
		{FilterList, "protocol 0 protocol ip", FilterWhere{Protocol: 0x0800, ProtocolSet: true}},
	} {
		var stderr strings.Builder
		got, err := ParseFilterWhere(tt.verb, strings.Fields(tt.line), &stderr)
		if err != nil {
			t.Errorf("%d %q: %v", tt.verb, tt.line, err)
			continue
		}
		if got.Opts != nil && len(got.Opts) == 0 {
			got.Opts = []string{}
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%d %q:\n got %+v\nwant %+v", tt.verb, tt.line, got, tt.want)
		}
		wantUsage := tt.verb == FilterList && strings.Contains(tt.line, "help")
		if (stderr.Len() > 0) != wantUsage || wantUsage && stderr.String() != FilterUsage() {
			t.Errorf("%d %q: printed %q", tt.verb, tt.line, stderr.String())
		}
	}
}

func TestParseFilterWhereErrors(t *testing.T) {
	const incomplete = `Command line is not complete. Try option "help"`
	for _, tt := range []struct {
		verb FilterVerb
		line string
		msg  string
		code int
	}{
		{FilterModify, "dev", incomplete, 255},
		{FilterModify, "dev lo block", incomplete, 255},
		{FilterModify, "parent", incomplete, 255},
		{FilterModify, "handle", incomplete, 255},
		{FilterModify, "pref", incomplete, 255},
		{FilterModify, "protocol", incomplete, 255},
		{FilterModify, "chain", incomplete, 255},
		{FilterModify, "estimator", incomplete, 255},
		{FilterModify, "estimator 1s", incomplete, 255},
		{FilterModify, "dev a dev b", `Error: duplicate "dev": "b" is the second value.`, 255},
		{FilterModify, "block 1 dev a", `Error: "dev" and "block" are mutually exclusive`, 255},
		{FilterGet, "dev a block 1", `Error: "dev" and "block" are mutually exclusive`, 255},
		{FilterList, "block 1 dev a", `Error: "dev" cannot be used in the same time as "block"`, 255},
		{FilterList, "dev a block 1", `Error: "block" cannot be used in the same time as "dev"`, 255},
		{FilterModify, "block 1 block 2", `Error: duplicate "block": "2" is the second value.`, 255},
		{FilterModify, "block 0", `Error: argument "0" is wrong: invalid block index value`, 255},
		{FilterList, "block x", `Error: argument "x" is wrong: invalid block index value`, 255},
		{FilterModify, "root ingress", `Error: "ingress" is duplicate parent ID`, 255},
		{FilterModify, "parent 1: egress", `Error: "egress" is duplicate parent ID`, 255},
		{FilterModify, "root parent 1:", `Error: duplicate "parent": "1:" is the second value.`, 255},
		{FilterModify, "parent zz", `Error: argument "zz" is wrong: Invalid parent ID`, 255},
		{FilterGet, "parent zz", `Error: argument "zz" is wrong: Invalid parent ID`, 255},
		{FilterList, "parent zz", `Error: argument "zz" is wrong: invalid parent ID`, 255},
		{FilterModify, "handle 1 handle 2", `Error: duplicate "handle": "2" is the second value.`, 255},
		{FilterModify, "pref 1 prio 2", `Error: duplicate "priority": "2" is the second value.`, 255},
		{FilterModify, "pref x", `Error: argument "x" is wrong: invalid priority value`, 255},
		{FilterGet, "prio 65536", `Error: argument "65536" is wrong: invalid priority value`, 255},
		{FilterList, "pref x", `Error: argument "x" is wrong: invalid preference`, 255},
		{FilterModify, "protocol ip protocol ip", `Error: duplicate "protocol": "ip" is the second value.`, 255},
		{FilterList, "protocol all protocol ip", `Error: duplicate "protocol": "ip" is the second value.`, 255},
		{FilterModify, "protocol bogus", `Error: argument "bogus" is wrong: invalid protocol`, 255},
		{FilterModify, "chain 1 chain 2", `Error: duplicate "chain": "2" is the second value.`, 255},
		{FilterModify, "chain x", `Error: argument "x" is wrong: invalid chain index value`, 255},
		// tc's parse_estimator names its messages' arguments the wrong way round.
		{FilterModify, "estimator x 8s", `Error: argument "invalid estimator interval" is wrong: estimator`, 255},
		{FilterModify, "estimator 1s 8s estimator 1s 8s", `Error: duplicate "estimator": "1s" is the second value.`, 255},
		{FilterModify, "estimator 10s 8s", "Error: estimator parameters are out of range.", 255},
		{FilterList, "estimator 1s 8s", ` What is "estimator"? Try "tc filter help"`, 255},
		{FilterList, "dev lo u32", ` What is "u32"? Try "tc filter help"`, 255},
	} {
		checkParseError(t, tt.verb, strings.Fields(tt.line), tt.msg, tt.code)
	}
	// An empty word where get's kind stands (as a batch line can give).
	checkParseError(t, FilterGet, []string{"dev", "lo", ""}, `Error: argument "" is wrong: invalid filter name`, 255)
}

func checkParseError(t *testing.T, verb FilterVerb, args []string, msg string, code int) {
	t.Helper()
	_, err := ParseFilterWhere(verb, args, nil)
	var perr *tckind.ParseError
	if !errors.As(err, &perr) {
		t.Errorf("%d %q: %v, want a ParseError", verb, args, err)
		return
	}
	if perr.Msg != msg || perr.ExitCode() != code || perr.ShowUsage || perr.NoNewline {
		t.Errorf("%d %q: %q (exit %d, usage %v), want %q (exit %d)", verb, args, perr.Msg, perr.ExitCode(), perr.ShowUsage, msg, code)
	}
}

// TestFilterUsage lists the registered filter kinds; this package's tests
// register none, so the list is empty.
func TestFilterUsage(t *testing.T) {
	if u := FilterUsage(); !strings.Contains(u, "\nFILTER_TYPE := {  }\n") {
		t.Errorf("usage without kinds:\n%s", u)
	}
}

func TestKindList(t *testing.T) {
	names := strings.Fields("basic bpf cgroup flow flower fw matchall route u32 aaaaaaaaaa bbbbbbbbbb cccccccccc")
	// The first line counts "QDISC_KIND := " before the brace.
	want := "{ basic | bpf | cgroup | flow | flower | fw | matchall | route |\n" +
		"               u32 | aaaaaaaaaa | bbbbbbbbbb | cccccccccc }"
	if got := kindList(names); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
