// SPDX-License-Identifier: Apache-2.0

package main

import (
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tckind"
)

func TestAcceptance(t *testing.T) {
	places := []netlink.QdiscPlace{
		{Ifindex: 1, Handle: 0x10000, Parent: netlink.HandleRoot, Kind: "mq"},
		{Ifindex: 1, Handle: 0x80010000, Parent: 0x10001, Kind: "cake"},
		{Ifindex: 1, Handle: 0x80020000, Parent: 0x10002, Kind: "dualpi2"},
		{Ifindex: 1, Handle: 0, Parent: 0x10003, Kind: "pfifo_fast"},
		{Ifindex: 2, Handle: 0x20000, Parent: netlink.HandleRoot, Kind: "cake_mq"},
		{Ifindex: 2, Handle: 0x80030000, Parent: 0x20001, Kind: "cake"},
		{Ifindex: 3, Handle: 0x30000, Parent: netlink.HandleRoot, Kind: "cake"},
		{Ifindex: 3, Handle: 0xFFFF0000, Parent: netlink.HandleIngress, Kind: "ingress"},
		{Ifindex: 4, Handle: 0x40000, Parent: netlink.HandleRoot, Kind: "dualpi2"},
	}
	req := func(op netlink.Op, ifindex int32, parent uint32, kind, args string) netlink.PipelineRequest {
		m := &netlink.Msg{}
		m.Header.Ifindex, m.Header.Parent = ifindex, parent
		m.Attrs.Kind = &kind
		opts, err := tckind.LookupQdisc(kind).ParseQdisc(strings.Fields(args), tckind.ParseEnv{})
		if err != nil {
			t.Fatal(err)
		}
		m.Attrs.Options = opts
		return netlink.PipelineRequest{Object: netlink.Qdisc, Op: op, Msg: m}
	}
	dumps := 0
	a := &acceptance{list: func(fn func(netlink.QdiscPlace)) error {
		dumps++
		for _, p := range places {
			fn(p)
		}
		return nil
	}}
	// The first acceptanceAfter candidates go one by one, without a dump.
	for range acceptanceAfter {
		if a.accepted(req(netlink.Replace, 1, 0x10001, "cake", "bandwidth 1mbit"), true) || dumps != 0 {
			t.Fatalf("accepted before the qdiscs were read (dumps %d)", dumps)
		}
	}
	// The next one waits for a moment with nothing in flight.
	if a.accepted(req(netlink.Replace, 1, 0x10001, "cake", "bandwidth 1mbit"), false) || dumps != 0 {
		t.Fatal("read the qdiscs with requests in flight")
	}
	withHandle := req(netlink.Replace, 1, 0x10001, "cake", "")
	withHandle.Msg.Header.Handle = 0x80010000
	withRate := req(netlink.Replace, 1, 0x10001, "cake", "")
	withRate.Msg.Attrs.Rate = &attrs.GnetEstimator{Interval: 0, EwmaLog: 2}
	class := req(netlink.Replace, 1, 0x10001, "cake", "")
	class.Object = netlink.Class
	for _, tc := range []struct {
		name string
		r    netlink.PipelineRequest
		want bool
	}{
		{"cake below mq, same kind", req(netlink.Replace, 1, 0x10001, "cake", "bandwidth 1mbit diffserv4"), true},
		{"change instead of replace", req(netlink.Change, 1, 0x10001, "cake", "rtt 10ms"), true},
		{"dualpi2 below mq", req(netlink.Replace, 1, 0x10002, "dualpi2", "limit 100"), true},
		{"dualpi2 at the root", req(netlink.Replace, 4, netlink.HandleRoot, "dualpi2", "target 5ms"), true},
		{"another kind there (a create)", req(netlink.Replace, 1, 0x10002, "cake", ""), false},
		{"a default qdisc without handle there", req(netlink.Replace, 1, 0x10003, "cake", ""), false},
		{"no qdisc there", req(netlink.Replace, 1, 0x10004, "cake", ""), false},
		{"unknown device", req(netlink.Replace, 9, netlink.HandleRoot, "cake", ""), false},
		{"add (refused when it exists)", req(netlink.Add, 1, 0x10001, "cake", ""), false},
		{"with a handle", withHandle, false},
		{"with an estimator", withRate, false},
		{"a class", class, false},
		{"cake below cake_mq", req(netlink.Replace, 2, 0x20001, "cake", ""), false},
		{"options the kernel may refuse", req(netlink.Replace, 1, 0x10001, "cake", "nat"), false},
		{"root of device 3", req(netlink.Replace, 3, netlink.HandleRoot, "cake", "besteffort"), true},
		{"below ingress", req(netlink.Replace, 3, 0xFFFF0001, "cake", ""), false},
	} {
		if got := a.accepted(tc.r, true); got != tc.want {
			t.Errorf("%s: accepted %v, want %v", tc.name, got, tc.want)
		}
	}
	if dumps != 1 {
		t.Errorf("%d dumps, want 1", dumps)
	}
	// Lines not shown accepted above touched devices 1, 2, 3 and 9: their
	// places are not trusted any more; device 4's still are.
	if a.accepted(req(netlink.Replace, 1, 0x10001, "cake", ""), true) || a.accepted(req(netlink.Replace, 3, netlink.HandleRoot, "cake", ""), true) {
		t.Error("a device changed by a line not shown accepted is still trusted")
	}
	if !a.accepted(req(netlink.Replace, 4, netlink.HandleRoot, "dualpi2", "limit 9"), true) {
		t.Error("an untouched device is no longer trusted")
	}
	// A request without a device ends every proof.
	a.accepted(req(netlink.Replace, 0, netlink.HandleRoot, "cake", ""), true)
	if a.accepted(req(netlink.Replace, 4, netlink.HandleRoot, "dualpi2", "limit 9"), true) {
		t.Error("still trusted after a request without a device")
	}
}

func TestCandidateLine(t *testing.T) {
	for line, want := range map[string]bool{
		"qdisc replace dev d1 root cake":                  true,
		"q r dev d1 root cake":                            true,
		"qdisc change dev d1 root cake":                   true,
		"qdisc c dev d1 root cake":                        true,
		"qdisc add dev d1 root cake":                      false,
		"qdisc a dev d1 root cake":                        false,
		"qdisc show":                                      false,
		"qdisc":                                           false,
		"class replace dev d1 classid 1:1 parent 1: cake": false,
		`qdisc "replace dev d1 root cake`:                 false,
		"  # qdisc replace dev d1 root cake":              false,
	} {
		if got := candidateLine(line); got != want {
			t.Errorf("candidateLine(%q) = %v, want %v", line, got, want)
		}
	}
}
