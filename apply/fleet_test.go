// SPDX-License-Identifier: Apache-2.0

package apply

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

const fleetFile = `fleet:
  - devices:
      ifb0:
        root: fq_codel
  - hosts: [shaper-1, "edge-*"]
    devices:
      eth0:
        root: cake bandwidth 100mbit
  - labels: {gotc.io/role: core, zone: a}
    devices:
      eth1:
        root: cake bandwidth 1gbit
  - hosts: [edge-9]
    labels: {zone: b}
    devices:
      eth2:
        root: fq
`

// TestFleetSelects: each machine gets the devices of the parts that
// select it, by host name, pattern, labels, both or neither.
func TestFleetSelects(t *testing.T) {
	for _, tc := range []struct {
		node Node
		want []string
	}{
		{Node{Name: "other"}, []string{"ifb0"}},
		{Node{Name: "shaper-1"}, []string{"eth0", "ifb0"}},
		{Node{Name: "edge-3"}, []string{"eth0", "ifb0"}},
		{Node{Name: "x", Labels: map[string]string{"gotc.io/role": "core", "zone": "a", "more": "1"}}, []string{"eth1", "ifb0"}},
		{Node{Name: "x", Labels: map[string]string{"gotc.io/role": "core"}}, []string{"ifb0"}}, // zone missing
		{Node{Name: "x", Labels: map[string]string{"gotc.io/role": "core", "zone": "b"}}, []string{"ifb0"}},
		{Node{Name: "edge-9", Labels: map[string]string{"zone": "b"}}, []string{"eth0", "eth2", "ifb0"}},
		{Node{Name: "edge-9", Labels: map[string]string{"zone": "a"}}, []string{"eth0", "ifb0"}}, // host but not label
	} {
		f, err := LoadFleet("fleet.yaml", strings.NewReader(fleetFile), tc.node)
		if err != nil {
			t.Fatalf("%+v: %v", tc.node, err)
		}
		if got := sortedKeys(f.Devices); !slices.Equal(got, tc.want) {
			t.Errorf("%+v: devices %v, want %v", tc.node, got, tc.want)
		}
	}
	f, _ := LoadFleet("fleet.yaml", strings.NewReader(fleetFile), Node{Name: "edge-3"})
	if got := f.Devices["eth0"].Root.Spec; got != "cake bandwidth 100mbit" {
		t.Errorf("edge-3's eth0: %q", got)
	}
}

// TestFleetNoPart: a machine no part selects owns nothing, and its plan
// sends nothing.
func TestFleetNoPart(t *testing.T) {
	f, err := LoadFleet("f", strings.NewReader("fleet:\n  - hosts: [a]\n    devices: {eth0: {root: fq}}\n"), Node{Name: "b"})
	if err != nil || len(f.Devices) != 0 {
		t.Fatalf("%v, %v", f, err)
	}
	p, err := Compute(context.Background(), newFake("eth0"), f)
	if err != nil || len(p.Requests) != 0 {
		t.Fatalf("plan %v, %v", p, err)
	}
}

// TestFleetPlainFile: a file with devices at its top is every machine's,
// and Load, which is gotc apply's, refuses a fleet file.
func TestFleetPlainFile(t *testing.T) {
	f, err := LoadFleet("f", strings.NewReader(routerFile), Node{Name: "any"})
	if err != nil || len(f.Devices) != 2 {
		t.Fatalf("%v, %v", f, err)
	}
	_, err = Load("f", strings.NewReader(fleetFile))
	if err == nil || !strings.Contains(err.Error(), `f:1:1: unknown key "fleet"`) {
		t.Errorf("Load of a fleet file: %v", err)
	}
}

// TestFleetFaults: every part is read strictly, the other machines'
// too, each fault at its line; two selected parts may not give one
// device.
func TestFleetFaults(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"fleet:\n  - hosts: [a]\n    devices: {eth0: {rot: fq}}\n", `f:3:22: unknown key "rot" in a device`},
		{"fleet:\n  - host: [a]\n    devices: {eth0: {root: fq}}\n", `f:2:5: unknown key "host" in a part of the fleet`},
		{"fleet:\n  - hosts: a\n    devices: {eth0: {root: fq}}\n", `f:2:12: "hosts" must be a list`},
		{"fleet:\n  - hosts: [\"[\"]\n    devices: {eth0: {root: fq}}\n", `f:2:13: bad host pattern "["`},
		{"fleet:\n  - labels: {a: [1]}\n    devices: {eth0: {root: fq}}\n", `f:2:17: label "a" must have a value`},
		{"fleet:\n  - hosts: [a]\n", `f:2:5: a part of the fleet names no devices`},
		{"fleet: {a: 1}\n", `f:1:8: "fleet" must be a list of parts`},
		{"fleet:\n  - devices: {eth0: {root: fq}}\n  - hosts: [me]\n    devices: {eth0: {root: pfifo}}\n",
			`f:4:15: device "eth0" is given twice for host "me" (first at line 2)`},
	} {
		_, err := LoadFleet("f", strings.NewReader(tc.file), Node{Name: "me"})
		var bad *BadFile
		if !errors.As(err, &bad) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q:\n got %v\nwant %s", tc.file, err, tc.want)
		}
	}
	// The same device in two parts for different machines is no fault.
	two := "fleet:\n  - hosts: [a]\n    devices: {eth0: {root: fq}}\n  - hosts: [b]\n    devices: {eth0: {root: pfifo}}\n"
	for _, host := range []string{"a", "b", "c"} {
		if _, err := LoadFleet("f", strings.NewReader(two), Node{Name: host}); err != nil {
			t.Errorf("%s: %v", host, err)
		}
	}
}

// TestFleetBlocks: a part's shared blocks come with its devices to the
// machines it selects, and a block two selecting parts give is a fault.
func TestFleetBlocks(t *testing.T) {
	const file = `fleet:
  - devices:
      eth0:
        ingress: ingress_block 5 clsact
    blocks:
      5:
        filters: [protocol ip pref 1 matchall action drop]
  - hosts: [edge-1]
    devices:
      eth1:
        ingress: ingress_block 5 ingress
    blocks:
      5:
        chains: [chain 2]
`
	f, err := LoadFleet("fleet.yaml", strings.NewReader(file), Node{Name: "core-1"})
	if err != nil {
		t.Fatal(err)
	}
	if b := f.Blocks[5]; b == nil || len(b.Filters) != 1 || len(f.Blocks) != 1 {
		t.Errorf("core-1's blocks: %+v", f.Blocks)
	}
	k := newFake("eth0")
	p, err := Compute(context.Background(), k, f)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Run(context.Background(), k, nil); err != nil {
		t.Fatal(err)
	}
	if p, err := Compute(context.Background(), k, f); err != nil {
		t.Fatal(err)
	} else if len(p.Requests) > 0 || len(k.filters) != 1 {
		t.Errorf("core-1's part applied: pending %q, %d filters in the kernel, want none and 1", p.Commands(), len(k.filters))
	}
	_, err = LoadFleet("fleet.yaml", strings.NewReader(file), Node{Name: "edge-1"})
	if err == nil || err.Error() != `fleet.yaml:13:7: block 5 is given twice for host "edge-1" (first at line 6): a block is one part's` {
		t.Errorf("edge-1: %v", err)
	}
}
