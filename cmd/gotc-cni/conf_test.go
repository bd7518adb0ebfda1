// SPDX-License-Identifier: Apache-2.0

package main

import (
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
)

// TestParseConfErrors: bad configurations are refused with the bandwidth
// plugin's messages (for its keys) or gotc-cni's own.
func TestParseConfErrors(t *testing.T) {
	for _, c := range []struct{ conf, want string }{
		{`{"ingressRate": 1000}`, "if rate is set, burst must also be set"},
		{`{"egressBurst": 1000}`, "if burst is set, rate must also be set"},
		{`{"runtimeConfig": {"bandwidth": {"ingressRate": 8, "ingressBurst": 34359738368}}}`, "burst cannot be more than 4GB"},
		{`{"ingressRate": "fast"}`, "failed to parse network configuration: "},
		{`{"aqm": "red"}`, `aqm "red": want cake, fq_codel or fq`},
		{`{"unshapedSubnets": ["10.0.0.0/8"]}`, "shapedSubnets and unshapedSubnets are not supported"},
		{`{"ingressRate": 8000, "ingressBurst": 800, "tree": {"root": "fq"}}`, "tree is the host interface's whole state"},
	} {
		_, err := parseConf([]byte(c.conf))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.conf, err, c.want)
		}
	}
}

// TestLimits: the top level's rates win over runtimeConfig's, as in the
// bandwidth plugin, even when they are zero.
func TestLimits(t *testing.T) {
	c, err := parseConf([]byte(`{"ingressRate": 0, "runtimeConfig": {"bandwidth": {"egressRate": 8000, "egressBurst": 800}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if c.shapes() {
		t.Errorf("top-level zero rates: shapes, want not (runtimeConfig is not read)")
	}
	c, err = parseConf([]byte(`{"runtimeConfig": {"bandwidth": {"egressRate": 8000, "egressBurst": 800}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if !c.shapes() || !c.shapesEgress() {
		t.Errorf("runtimeConfig egress: shapes %t, egress %t; want both", c.shapes(), c.shapesEgress())
	}
}

// TestTBF: the bandwidth plugin's arithmetic, worked by hand for a kernel
// of 15.625 ticks a microsecond (64 ns ticks): 1 Mbit/s is 125,000 bytes/s;
// a burst of 80,000 bits is 10,000 bytes, 80,000 us, 1,250,000 ticks; the
// limit is 25 ms of the rate (3,125 bytes) plus the burst.
func TestTBF(t *testing.T) {
	o := tbf(1_000_000, 80_000, 15.625)
	want := attrs.TCTBFQopt{Rate: attrs.TCRatespec{Rate: 125000}, Limit: 13125, Buffer: 1250000}
	if *o.Parms != want || o.Rate64 != nil || o.Rtab != nil || o.Burst != nil {
		t.Errorf("tbf(1mbit, 10kB) = %+v, want %+v alone", *o.Parms, want)
	}
	// 40 Gbit/s does not fit 32 bits: the 64-bit rate goes along, the
	// 32-bit one saturated, as the kernel dumps it.
	o = tbf(40_000_000_000, 8_000_000, 15.625)
	if o.Rate64 == nil || *o.Rate64 != 5_000_000_000 || o.Parms.Rate.Rate != 0xffffffff {
		t.Errorf("tbf(40gbit): rate %d, rate64 %v", o.Parms.Rate.Rate, o.Rate64)
	}
	// The time truncates to whole microseconds before it becomes ticks:
	// 3 bytes at 7 bytes/s are 428,571.43 us, 428,571 us, 6,696,421 ticks.
	if got := tbf(56, 24, 15.625).Parms.Buffer; got != 6696421 {
		t.Errorf("tbf(56bit, 3B) buffer %d, want 6696421", got)
	}
}

// TestDesired: the trees each configuration asks for.
func TestDesired(t *testing.T) {
	for _, c := range []struct {
		conf string
		// what the host veth's root, its ingress and the ifb's root are
		hostRoot, hostIngress, ifbRoot string
	}{
		{`{"ingressRate": 8000000, "ingressBurst": 80000}`, "tbf", "", ""},
		{`{"egressRate": 8000000, "egressBurst": 80000}`, "", "ingress", "tbf"},
		{`{"ingressRate": 8000000, "ingressBurst": 80000, "egressRate": 8000000, "egressBurst": 80000, "aqm": "cake"}`, "cake bandwidth 8000000bit", "ingress", "cake bandwidth 8000000bit"},
		{`{"ingressRate": 8000000, "ingressBurst": 80000, "aqm": "fq_codel"}`, "tbf/fq_codel", "", ""},
		{`{"tree": {"root": "fq_codel", "ingress": {"qdisc": "ingress"}}}`, "fq_codel", "ingress", ""},
	} {
		conf, err := parseConf([]byte(c.conf))
		if err != nil {
			t.Fatalf("%s: %v", c.conf, err)
		}
		f, err := conf.desired("veth0", "bwp0", 15.625)
		if err != nil {
			t.Fatalf("%s: %v", c.conf, err)
		}
		host := f.Devices["veth0"]
		root, ingress, ifbRoot := "", "", ""
		if host.Root != nil {
			root = host.Root.Spec
			if cl := host.Root.Classes["1:1"]; cl != nil {
				root += "/" + cl.Leaf.Spec
			}
		}
		if host.Ingress != nil {
			ingress = host.Ingress.Spec
			if conf.shapesEgress() && (len(host.Ingress.Filters) != 1 || host.Ingress.Filters[0] != redirectFilter("bwp0")) {
				t.Errorf("%s: ingress filters %q", c.conf, host.Ingress.Filters)
			}
		}
		if d := f.Devices["bwp0"]; d != nil {
			ifbRoot = d.Root.Spec
		}
		if root != c.hostRoot || ingress != c.hostIngress || ifbRoot != c.ifbRoot {
			t.Errorf("%s: host root %q, ingress %q, ifb root %q; want %q, %q, %q", c.conf, root, ingress, ifbRoot, c.hostRoot, c.hostIngress, c.ifbRoot)
		}
	}
	conf, _ := parseConf([]byte(`{"tree": {"root": "fq_codel", "clases": {}}}`))
	if _, err := conf.desired("veth0", "bwp0", 15.625); err == nil || !strings.Contains(err.Error(), "clases") {
		t.Errorf("a misspelt key in tree: %v, want it named", err)
	}
}
