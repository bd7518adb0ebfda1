// SPDX-License-Identifier: Apache-2.0

package gotc

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tckind"
)

func TestQdiscMsg(t *testing.T) {
	rate := uint64(125_000)
	m := qdiscMsg(7, Qdisc{Dev: "ignored", Parent: Root, Handle: Handle(1, 0), Kind: "cake", Options: &attrs.CakeAttrs{BaseRate64: &rate}})
	if m.Header.Ifindex != 7 || m.Header.Parent != netlink.HandleRoot || m.Header.Handle != 0x10000 || m.Kind() != "cake" {
		t.Errorf("header %+v kind %q", m.Header, m.Kind())
	}
	if o, ok := m.Attrs.Options.(*attrs.CakeAttrs); !ok || *o.BaseRate64 != rate {
		t.Errorf("options %+v", m.Attrs.Options)
	}
	// A class is the same request with its ID as the handle.
	c := Class{Ifindex: 3, Parent: Handle(1, 0), ClassID: Handle(1, 10), Kind: "htb"}.asQdisc()
	if c.Handle != 0x1000a || c.Parent != 0x10000 || c.Ifindex != 3 {
		t.Errorf("class as request: %+v", c)
	}
}

func TestFilterMsg(t *testing.T) {
	// tc filter add dev D parent ffff: protocol ip pref 10 chain 2 ...:
	// tcm_info is the pref over the protocol in network order.
	m := filterMsg(2, Filter{Parent: Handle(0xffff, 0), Protocol: 0x0800, Pref: 10, Chain: 2, Kind: "u32"})
	if m.Header.Info != 10<<16|0x0008 || *m.Attrs.Chain != 2 || m.Kind() != "u32" {
		t.Errorf("info %#x chain %v kind %q", m.Header.Info, m.Attrs.Chain, m.Kind())
	}
	// Protocol 0 is tc's default, every protocol; chain 0 is not sent.
	m = filterMsg(2, Filter{Kind: "matchall"})
	if m.Header.Info != 0x0300 || m.Attrs.Chain != nil {
		t.Errorf("defaults: info %#x chain %v", m.Header.Info, m.Attrs.Chain)
	}
}

func TestOptionsFromWords(t *testing.T) {
	opts, err := QdiscOptions("cake", "bandwidth 100mbit diffserv4")
	want := tckind.LookupQdisc("cake")
	if err != nil || want == nil {
		t.Fatal(err)
	}
	o, ok := opts.(*attrs.CakeAttrs)
	if !ok || *o.BaseRate64 != 12_500_000 || *o.DiffservMode != attrs.CakeDiffservModeDiffserv4 {
		t.Errorf("cake: %+v", opts)
	}
	var pe *tckind.ParseError
	if _, err := QdiscOptions("cake", "bandwidth lots"); !errors.As(err, &pe) {
		t.Errorf("a bad value: %v, want tc's parse error", err)
	}
	if _, err := QdiscOptions("nosuchkind", ""); err == nil {
		t.Error("an unknown kind was taken")
	}
	if opts, err := QdiscOptions("pfifo_fast", ""); err != nil || opts != nil {
		t.Errorf("pfifo_fast without options: %v, %v", opts, err)
	}
	c, err := ClassOptions("htb", "rate 10mbit ceil 20mbit")
	if h, ok := c.(*attrs.HTBAttrs); err != nil || !ok || h.Parms.Rate.Rate != 1_250_000 || h.Parms.Ceil.Rate != 2_500_000 {
		t.Errorf("htb class: %+v, %v", c, err)
	}
	if _, err := ClassOptions("cake", "rate 1mbit"); err == nil {
		t.Error("a class of a classless kind was taken")
	}
}

func TestStatsOf(t *testing.T) {
	kind := "dualpi2"
	x := &attrs.TCDualPI2Xstats{Prob: 1, ECNMark: 5}
	m := &netlink.Msg{}
	m.Attrs.Kind = &kind
	m.Attrs.Stats2 = &attrs.StatsAttrs{
		Basic: &attrs.GnetStatsBasic{Bytes: 3000, Packets: 2},
		Queue: &attrs.GnetStatsQueue{Qlen: 1, Backlog: 1500, Drops: 4, Requeues: 5, Overlimits: 6},
		App:   x,
	}
	got := statsOf(m)
	want := Stats{Kind: kind, Bytes: 3000, Packets: 2, Drops: 4, Overlimits: 6, Requeues: 5, Backlog: 1500, Qlen: 1, Xstats: x}
	got.Table = nil // compared below
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
	if statsOf(m).Table != tckind.LookupQdisc(kind).Stats {
		t.Error("the kind's table is not given")
	}
	// An htb class's statistics, through htb's table.
	htb, hx := "htb", &attrs.TCHTBXstats{Borrows: 7}
	cl := &netlink.Msg{}
	cl.Attrs.Kind = &htb
	cl.Attrs.Stats2 = &attrs.StatsAttrs{Basic: &attrs.GnetStatsBasic{Packets: 2}, App: hx}
	if s := statsOf(cl); s.Xstats != hx || s.Table != tckind.LookupQdisc(htb).Stats || s.Packets != 2 {
		t.Errorf("class: %+v", s)
	}
	// The older TCA_STATS alone.
	m.Attrs.Stats2 = nil
	m.Attrs.Stats = &attrs.TCStats{Bytes: 10, Packets: 1, Drops: 2}
	if s := statsOf(m); s.Bytes != 10 || s.Packets != 1 || s.Drops != 2 || s.Xstats != nil {
		t.Errorf("TCA_STATS: %+v", s)
	}
}
