// SPDX-License-Identifier: Apache-2.0

package apply

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gotc/gotc/netlink"
)

// blocksFile shares block 5 between two devices' ingress hooks and gives
// eth0's egress block 6; block 5 has chains, one with a template.
const blocksFile = `
devices:
  eth0:
    ingress:
      qdisc: ingress_block 5 egress_block 6 clsact
  ifb0:
    ingress: ingress_block 5 ingress
blocks:
  5:
    filters:
      - protocol ip pref 1 matchall action drop
      - protocol ip pref 2 chain 1 flower dst_ip 10.0.0.0/16 action pass
    chains:
      - chain 2
      - chain 1 protocol ip flower dst_ip 0.0.0.0/16
  6:
    filters:
      - protocol all pref 2 handle 3 matchall classid 1:1 action pass
`

// wantPlan checks a plan's command lines.
func wantPlan(t *testing.T, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("plan:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// inSync applies a file and checks that nothing is left to do after.
func inSync(t *testing.T, k *fakeKernel, file string) {
	t.Helper()
	if _, err := applyFile(t, k, file); err != nil {
		t.Fatal(err)
	}
	if again := commands(t, k, file); len(again) > 0 {
		t.Fatalf("changes pending after apply:\n%s", strings.Join(again, "\n"))
	}
}

// TestBlocks makes shared blocks from nothing: the qdiscs that share
// them first, then the blocks' chains (templates before their filters)
// and filters; the file is then in sync.
func TestBlocks(t *testing.T) {
	k := newFake("eth0", "ifb0")
	wantPlan(t, commands(t, k, blocksFile),
		"qdisc replace dev eth0 ingress_block 5 egress_block 6 clsact",
		"qdisc replace dev ifb0 ingress_block 5 ingress",
		"chain add block 5 chain 2",
		"chain add block 5 chain 1 protocol ip flower dst_ip 0.0.0.0/16",
		"filter add block 5 protocol ip pref 1 matchall action drop",
		"filter add block 5 protocol ip pref 2 chain 1 flower dst_ip 10.0.0.0/16 action pass",
		"filter add block 6 protocol all pref 2 handle 0x3 matchall classid 1:1 action pass")
	inSync(t, k, blocksFile)

	// A block's filter changed, one gone, a chain gone: the deletes
	// before the devices' requests, the adds after.
	changed := strings.Replace(blocksFile, "      - protocol ip pref 1 matchall action drop\n", "", 1)
	changed = strings.Replace(changed, "      - chain 2\n", "", 1)
	changed = strings.Replace(changed, "classid 1:1 action pass", "classid 1:2 action pass", 1)
	wantPlan(t, commands(t, k, changed),
		"chain del block 5 chain 0",
		"chain del block 5 chain 2",
		"filter del block 6 protocol all pref 2 handle 0x3 matchall",
		"filter add block 6 protocol all pref 2 handle 0x3 matchall classid 1:2 action pass")
	inSync(t, k, changed)
}

// TestBlockGone: a qdisc that stops sharing a block deletes it when it was
// the last; a block made anew by the plan gets all its filters, and
// undoing the plan brings the old block back with its filters.
func TestBlockGone(t *testing.T) {
	const one = `
devices:
  eth0:
    ingress: ingress_block 5 ingress
blocks:
  5:
    filters: [protocol ip pref 1 matchall action drop]
`
	k := newFake("eth0", "ifb0")
	inSync(t, k, one)
	// ingress to clsact: the block goes with the ingress qdisc, and
	// comes back with the clsact.
	clsact := strings.Replace(one, "ingress_block 5 ingress", "ingress_block 5 clsact", 1)
	wantPlan(t, commands(t, k, clsact),
		"qdisc del dev eth0 ingress",
		"qdisc add dev eth0 ingress_block 5 clsact",
		"filter add block 5 protocol ip pref 1 matchall action drop")
	before := [][]netlink.Msg{slices.Clone(k.qdiscs), slices.Clone(k.filters), slices.Clone(k.chains)}
	k.failAt = k.requests + 3
	var perr *Error
	if _, err := applyFile(t, k, clsact); !errors.As(err, &perr) || perr.UndoErr != nil {
		t.Fatalf("err = %v", err)
	}
	if after := [][]netlink.Msg{k.qdiscs, k.filters, k.chains}; !reflect.DeepEqual(after, before) {
		t.Errorf("state not restored:\n%+v\nwant\n%+v", after, before)
	}
	k.failAt = 0
	inSync(t, k, clsact)

	// Another block: the qdisc is made again, block 5 goes with it, and
	// "blocks" names the new one.
	seven := strings.Replace(strings.Replace(clsact, "ingress_block 5", "ingress_block 7", 1), "  5:", "  7:", 1)
	wantPlan(t, commands(t, k, seven),
		"qdisc del dev eth0 clsact",
		"qdisc add dev eth0 ingress_block 7 clsact",
		"filter add block 7 protocol ip pref 1 matchall action drop")
	inSync(t, k, seven)

	// A block that another device shares too stays: its filters are
	// compared, not made again.
	both := strings.Replace(seven, "devices:\n", "devices:\n  ifb0:\n    ingress: ingress_block 7 ingress\n", 1)
	inSync(t, k, both)
	moved := strings.Replace(both, "ingress: ingress_block 7 clsact", "ingress: clsact", 1)
	wantPlan(t, commands(t, k, moved),
		"qdisc del dev eth0 clsact",
		"qdisc add dev eth0 clsact")
	inSync(t, k, moved)
}

// TestBlocksFromKernel writes shared blocks and chains as a file that
// applies, to the devices wiped, the same state.
func TestBlocksFromKernel(t *testing.T) {
	k := newFake("eth0", "ifb0")
	chains := strings.Replace(blocksFile, "    ingress: ingress_block 5 ingress\n", `    root:
      qdisc: htb
      handle: "1:"
      chains: [chain 4, chain 0]
      filters: [protocol ip pref 1 chain 3 matchall classid 1:1]
    ingress: ingress_block 5 ingress
`, 1)
	inSync(t, k, chains)
	before := [][]netlink.Msg{slices.Clone(k.qdiscs), slices.Clone(k.filters), slices.Clone(k.chains)}
	f, err := FromKernel(context.Background(), k, []string{"eth0", "ifb0"})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := f.Write(&out); err != nil {
		t.Fatal(err)
	}
	k.qdiscs, k.filters, k.chains = nil, nil, nil
	inSync(t, k, out.String())
	if after := [][]netlink.Msg{k.qdiscs, k.filters, k.chains}; len(after[0]) != len(before[0]) || len(after[1]) != len(before[1]) || len(after[2]) != len(before[2]) {
		t.Errorf("--from-kernel wrote\n%s\nwhich made %d qdiscs, %d filters, %d chains; want %d, %d, %d", out.String(),
			len(after[0]), len(after[1]), len(after[2]), len(before[0]), len(before[1]), len(before[2]))
	}
	for _, want := range []string{"ingress_block 5 egress_block 6 clsact", "blocks:", "chain 1 protocol ip flower dst_ip 0.0.0.0/16", "- chain 2", "- chain 4", "- chain 0"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--from-kernel wrote\n%s\nwithout %q", out.String(), want)
		}
	}
}

// TestChains plans a device's chains: a template that differs is made
// again with its chain's filters, a chain the file drops is deleted with
// its filters, and a chain named without filters stays when its filters
// go.
func TestChains(t *testing.T) {
	const file = `
devices:
  eth0:
    ingress:
      qdisc: clsact
      chains:
        - chain 1 protocol ip flower dst_ip 0.0.0.0/16
        - chain 3
      filters:
        - protocol ip pref 1 chain 1 flower dst_ip 10.0.0.0/16 action drop
        - protocol all pref 1 chain 3 matchall action pass
      egress_chains: [chain 9]
      egress_filters:
        - protocol all pref 1 chain 7 matchall action pass
`
	k := newFake("eth0", "ifb0")
	wantPlan(t, commands(t, k, file),
		"qdisc replace dev eth0 clsact",
		"chain add dev eth0 ingress chain 1 protocol ip flower dst_ip 0.0.0.0/16",
		"chain add dev eth0 ingress chain 3",
		"chain add dev eth0 egress chain 9",
		"filter add dev eth0 ingress protocol ip pref 1 chain 1 flower dst_ip 10.0.0.0/16 action drop",
		"filter add dev eth0 ingress protocol all pref 1 chain 3 matchall action pass",
		"filter add dev eth0 egress protocol all pref 1 chain 7 matchall action pass")
	inSync(t, k, file)

	changed := strings.Replace(file, "chain 1 protocol ip flower dst_ip 0.0.0.0/16", "chain 1 protocol ip flower dst_ip 0.0.0.0/8", 1)
	changed = strings.Replace(changed, "        - protocol all pref 1 chain 3 matchall action pass\n", "", 1)
	changed = strings.Replace(changed, "      egress_filters:\n        - protocol all pref 1 chain 7 matchall action pass\n", "", 1)
	wantPlan(t, commands(t, k, changed),
		"chain del dev eth0 ingress chain 1",
		"chain del dev eth0 ingress chain 3",
		"chain del dev eth0 egress chain 7",
		"chain add dev eth0 ingress chain 1 protocol ip flower dst_ip 0.0.0.0/8",
		"chain add dev eth0 ingress chain 3",
		"filter add dev eth0 ingress protocol ip pref 1 chain 1 flower dst_ip 10.0.0.0/16 action drop")
	inSync(t, k, changed)
}

// TestBlockFaults are the faults of blocks and chains, each at its line.
func TestBlockFaults(t *testing.T) {
	for _, tt := range []struct{ name, file, want string }{
		{"block no qdisc shares", "devices:\n  eth0:\n    ingress: ingress\nblocks:\n  5:\n    filters: [pref 1 matchall]\n",
			`tc.yaml:5:3: block 5 is shared by no qdisc of the file: a block is there while an ingress or clsact qdisc shares it ("ingress_block 5 clsact")`},
		{"not a block index", "devices:\n  eth0:\n    ingress: ingress_block 5 ingress\nblocks:\n  x5:\n    filters: [pref 1 matchall]\n",
			`tc.yaml:5:3: "x5" is not a block index: a number from 1 to 4294967295`},
		{"typo in a block", "devices:\n  eth0:\n    ingress: ingress_block 5 ingress\nblocks:\n  5:\n    filter: [pref 1 matchall]\n",
			`tc.yaml:6:5: unknown key "filter" in a block: did you mean "filters"?`},
		{"block given twice", "devices:\n  eth0:\n    ingress: ingress_block 5 ingress\nblocks:\n  5: {}\n  5: {}\n",
			`tc.yaml:6:3: "5" is given twice (first at line 5)`},
		{"filters of a shared hook", "devices:\n  eth0:\n    ingress:\n      qdisc: ingress_block 5 ingress\n      filters: [pref 1 matchall]\n",
			`tc.yaml:4:14: qdisc "ingress_block 5 ingress": its ingress hook shares block 5, so its filters and chains are the block's: write them under "blocks"`},
		{"egress block of ingress", "devices:\n  eth0:\n    ingress: egress_block 5 ingress\n",
			`tc.yaml:3:14: qdisc "egress_block 5 ingress": ingress has no egress hook to share (clsact has)`},
		{"block of a root qdisc", "devices:\n  eth0:\n    root: ingress_block 5 fq_codel\n",
			`tc.yaml:3:11: qdisc "ingress_block 5 fq_codel": fq_codel has no ingress hook to share (ingress and clsact have)`},
		{"block 0", "devices:\n  eth0:\n    ingress: ingress_block 0 clsact\n",
			`tc.yaml:3:14: qdisc "ingress_block 0 clsact": Error: argument "0" is wrong: invalid ingress block index value`},
		{"chain without its index", "devices:\n  eth0:\n    ingress:\n      qdisc: clsact\n      chains: [protocol ip flower dst_ip 10.0.0.0/8]\n",
			`tc.yaml:5:16: chain "protocol ip flower dst_ip 10.0.0.0/8": "chain N" is required`},
		{"chain twice", "devices:\n  eth0:\n    ingress:\n      qdisc: clsact\n      chains: [chain 1, chain 1]\n",
			`tc.yaml:5:25: chain 1 is given twice (first at line 5)`},
		{"chain with a pref", "devices:\n  eth0:\n    ingress:\n      qdisc: clsact\n      chains: [chain 1 pref 2]\n",
			`tc.yaml:5:16: chain "chain 1 pref 2": a chain takes "chain N" and a template's protocol, kind and options, no pref, handle or estimator`},
		{"template of a bad option", "devices:\n  eth0:\n    ingress:\n      qdisc: clsact\n      chains: [chain 1 protocol ip flower dst_ipp 1]\n",
			`tc.yaml:5:16: chain "chain 1 protocol ip flower dst_ipp 1": What is "dst_ipp"?`},
		{"filter of another kind than its chain's template", "devices:\n  eth0:\n    ingress:\n      qdisc: clsact\n      chains: [chain 1 protocol ip flower dst_ip 10.0.0.0/8]\n      filters: [protocol ip pref 1 chain 1 matchall]\n",
			`tc.yaml:5:16: chain 1's template is flower, but its filter of pref 1 is matchall: the filters of a chain with a template are of its kind`},
		{"egress chains of ingress", "devices:\n  eth0:\n    ingress:\n      qdisc: ingress\n      egress_chains: [chain 1]\n",
			`tc.yaml:5:23: egress_chains are clsact's, not ingress's`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			k := newFake("eth0", "ifb0")
			err := loadAndApply(k, tt.file)
			var bad *BadFile
			if !errors.As(err, &bad) {
				t.Fatalf("error %v (%T), want a *BadFile", err, err)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("error\n%s\nwant\n%s", got, tt.want)
			}
			if len(k.log) != 0 {
				t.Errorf("requests sent: %q", k.log)
			}
		})
	}
}

// classFiltersFile has filters and a chain on htb classes.
const classFiltersFile = `
devices:
  eth0:
    root:
      qdisc: htb default 10
      handle: "1:"
      classes:
        "1:1":
          class: htb rate 100mbit
          filters:
            - protocol ip pref 1 u32 match ip dst 192.0.2.1/32 classid 1:10
          classes:
            "1:10":
              class: htb rate 10mbit ceil 100mbit
              chains: [chain 5]
            "1:20":
              class: htb rate 20mbit ceil 100mbit
              filters:
                - protocol ip pref 2 handle 7 fw classid 1:20
`

// TestClassFilters plans filters and chains at classes: added after their
// class, compared and changed in place, gone with a class the file drops
// (no request of their own), and written by FromKernel.
func TestClassFilters(t *testing.T) {
	k := newFake("eth0", "ifb0")
	wantPlan(t, commands(t, k, classFiltersFile),
		"qdisc replace dev eth0 root handle 1: htb default 10",
		"class add dev eth0 parent 1: classid 1:1 htb rate 100mbit",
		"class add dev eth0 parent 1:1 classid 1:10 htb rate 10mbit ceil 100mbit",
		"class add dev eth0 parent 1:1 classid 1:20 htb rate 20mbit ceil 100mbit",
		"chain add dev eth0 parent 1:10 chain 5",
		"filter add dev eth0 parent 1:20 protocol ip pref 2 handle 0x7 fw classid 1:20",
		"filter add dev eth0 parent 1:1 protocol ip pref 1 u32 match ip dst 192.0.2.1/32 classid 1:10")
	inSync(t, k, classFiltersFile)

	changed := strings.Replace(classFiltersFile, "dst 192.0.2.1/32", "dst 192.0.2.2/32", 1)
	got := commands(t, k, changed)
	if len(got) != 1 || !strings.HasPrefix(got[0], "filter replace dev eth0 parent 1:1 protocol ip pref 1 handle 0:0:1 u32 match ip dst 192.0.2.2/32") {
		t.Errorf("a class's filter changed: %q", got)
	}
	inSync(t, k, changed)

	f, err := FromKernel(context.Background(), k, []string{"eth0"})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := f.Write(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"- chain 5", "fw classid 1:20", "u32 match u32 0xc0000202 0xffffffff at 16 classid 1:10"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--from-kernel wrote\n%s\nwithout %q", out.String(), want)
		}
	}
	filters := len(k.filters)
	k.qdiscs, k.classes, k.filters, k.chains = nil, nil, nil, nil
	inSync(t, k, out.String())
	if len(k.filters) != filters || len(k.chains) != 1 {
		t.Errorf("--from-kernel's file made %d filters and %d chains, want %d and 1", len(k.filters), len(k.chains), filters)
	}

	dropped := strings.Replace(changed, `            "1:20":
              class: htb rate 20mbit ceil 100mbit
              filters:
                - protocol ip pref 2 handle 7 fw classid 1:20
`, "", 1)
	wantPlan(t, commands(t, k, dropped), "class del dev eth0 parent 1:1 classid 1:20")
	inSync(t, k, dropped)

	prio := "devices:\n  eth0:\n    root:\n      qdisc: prio\n      handle: \"1:\"\n      classes:\n        \"1:1\":\n          filters: [protocol ip pref 1 matchall classid 1:1]\n"
	var bad *BadFile
	if err := loadAndApply(newFake("eth0"), prio); !errors.As(err, &bad) || err.Error() != `tc.yaml:7:9: class 1:1: the classes of qdisc prio hold no filters of their own: its filters are the qdisc's` {
		t.Errorf("filters at a band of prio: %v", err)
	}
}

// TestChain0Dropped: a chain 0 that "tc chain add" made outlives its
// filters, and a dump cannot tell it from the chain 0 its filters make.
// A file that drops both goes in one apply: chain 0's delete takes its
// filters and the chain. While the file keeps a filter in chain 0, the
// others go by their own deletes.
func TestChain0Dropped(t *testing.T) {
	k := newFake("eth0")
	const with = `
devices:
  eth0:
    ingress:
      qdisc: clsact
      chains: [chain 0]
      filters:
        - protocol ip pref 1 matchall action drop
        - protocol ip pref 2 matchall action pass
`
	inSync(t, k, with)
	oneLeft := strings.Replace(with, "        - protocol ip pref 2 matchall action pass\n", "", 1)
	wantPlan(t, commands(t, k, strings.Replace(oneLeft, "      chains: [chain 0]\n", "", 1)),
		"filter del dev eth0 ingress pref 2")
	const without = `
devices:
  eth0:
    ingress: clsact
`
	wantPlan(t, commands(t, k, without), "chain del dev eth0 ingress chain 0")
	inSync(t, k, without)
}
