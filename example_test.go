// SPDX-License-Identifier: Apache-2.0

package gotc_test

// These examples change a kernel's traffic control: they need CAKE, ifb,
// matchall and mirred, and the network namespace "example" with the
// devices eth0 and ifb0 (up; the VM boots with IPv6 off, so nothing is
// sent) that selftests/lib-examples.sh makes. They compile everywhere;
// the test binary runs them (and checks their output) when built with the
// tag gotckernel, as the script does in the test VM. They run in this
// order, each on the state the one before left.

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/gotc/gotc"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tcfmt"
)

// dial connects to the examples' namespace.
func dial() *gotc.Client {
	ns, err := netlink.OpenNetNS("example")
	if err != nil {
		log.Fatal(err)
	}
	defer ns.Close()
	c, err := gotc.Dial(ns)
	if err != nil {
		log.Fatal(err)
	}
	return c
}

// Add CAKE as eth0's root qdisc, from tc's own words, and read its options
// back.
func ExampleClient_AddQdisc() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c := dial()
	defer c.Close()

	// tc qdisc add dev eth0 root handle 1: cake bandwidth 100mbit diffserv4
	opts, err := gotc.QdiscOptions("cake", "bandwidth 100mbit diffserv4")
	if err != nil {
		log.Fatal(err)
	}
	q := gotc.Qdisc{Dev: "eth0", Parent: gotc.Root, Handle: gotc.Handle(1, 0), Kind: "cake", Options: opts}
	if err := c.AddQdisc(ctx, q); err != nil {
		log.Fatal(err)
	}
	// Adding it again is refused: the refusal is ErrExists, with the
	// kernel's message.
	if err := c.AddQdisc(ctx, q); errors.Is(err, netlink.ErrExists) {
		fmt.Println("add again:", err)
	}
	st, err := c.QdiscStats(ctx, "eth0", gotc.Root)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(st.Kind, st.Packets, "packets")
	// Output:
	// add again: Exclusivity flag on, cannot modify
	// cake 0 packets
}

// An autorate daemon's step: change the bandwidth of eth0's CAKE in place,
// with one request, its queues and counters kept.
func ExampleClient_ChangeQdisc() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c := dial()
	defer c.Close()

	// tc qdisc change dev eth0 root cake bandwidth 50mbit
	rate := uint64(50_000_000 / 8)
	if err := c.ChangeQdisc(ctx, gotc.Qdisc{Dev: "eth0", Parent: gotc.Root, Kind: "cake",
		Options: &attrs.CakeAttrs{BaseRate64: &rate}}); err != nil {
		log.Fatal(err)
	}
	for q, err := range c.Conn().Msgs(ctx, netlink.Qdisc, netlink.DumpFilter{}) {
		if err != nil {
			log.Fatal(err)
		}
		if cake, ok := q.Attrs.Options.(*attrs.CakeAttrs); ok {
			fmt.Printf("%s: %d bit/s\n", q.Kind(), *cake.BaseRate64*8)
		}
	}
	// A device without CAKE is refused, as a not-found or invalid request.
	err := c.ChangeQdisc(ctx, gotc.Qdisc{Dev: "lo", Parent: gotc.Root, Kind: "cake", Options: &attrs.CakeAttrs{BaseRate64: &rate}})
	fmt.Println("lo:", errors.Is(err, netlink.ErrNotFound) || errors.Is(err, netlink.ErrInvalid))
	// Output:
	// cake: 50000000 bit/s
	// lo: true
}

// Read eth0's CAKE statistics: the counters of every qdisc, and the kind's
// own as typed values and by name through the kind's statistics table.
func ExampleClient_QdiscStats() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c := dial()
	defer c.Close()

	st, err := c.QdiscStats(ctx, "eth0", gotc.Root)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %d bytes, %d packets, %d dropped, %d queued\n", st.Kind, st.Bytes, st.Packets, st.Drops, st.Qlen)
	if cake, ok := st.Xstats.(*attrs.CakeStatsAttrs); ok {
		fmt.Printf("%d tins, %d bytes of memory used\n", len(cake.TinStats), *cake.MemoryUsed)
	}
	// The table names every field, here of the second tin (diffserv4's
	// best effort, shaped at the whole 50mbit the example before set).
	tins := st.Table.Records
	for _, f := range tins.Fields {
		if v, ok := f.Get(tins.Record(st.Xstats, 1)); ok && f.Key == "threshold_rate" {
			fmt.Printf("%s %s: %d bytes/s\n", tins.Name(tins.Len(st.Xstats), 1), f.Key, v)
		}
	}
	// Output:
	// cake: 0 bytes, 0 packets, 0 dropped, 0 queued
	// 4 tins, 0 bytes of memory used
	// Best Effort threshold_rate: 6250000 bytes/s
}

// Redirect everything eth0 receives to ifb0 (to shape it there): an
// ingress qdisc and a matchall filter whose action is mirred, both from
// tc's words.
func ExampleClient_AddFilter() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c := dial()
	defer c.Close()

	// tc qdisc replace dev eth0 handle ffff: ingress
	if err := c.ReplaceQdisc(ctx, gotc.Qdisc{Dev: "eth0", Parent: gotc.Ingress, Handle: gotc.Handle(0xffff, 0), Kind: "ingress"}); err != nil {
		log.Fatal(err)
	}
	// tc filter add dev eth0 parent ffff: protocol all pref 1 matchall \
	//	action mirred egress redirect dev ifb0
	opts, err := c.FilterOptions(ctx, "matchall", 0, "action mirred egress redirect dev ifb0")
	if err != nil {
		log.Fatal(err)
	}
	f := gotc.Filter{Dev: "eth0", Parent: gotc.Handle(0xffff, 0), Pref: 1, Kind: "matchall", Options: opts}
	if err := c.AddFilter(ctx, f); err != nil {
		log.Fatal(err)
	}

	eth0, _ := c.Conn().LinkIndex(ctx, "eth0")
	ifb0, _ := c.Conn().LinkIndex(ctx, "ifb0")
	for m, err := range c.Conn().Msgs(ctx, netlink.Filter, netlink.DumpFilter{Ifindex: eth0, Parent: f.Parent}) {
		if err != nil {
			log.Fatal(err)
		}
		opts, ok := m.Attrs.Options.(*attrs.MatchallAttrs)
		if !ok {
			continue
		}
		for _, act := range opts.Act {
			if p, ok := act.Options.(*attrs.ActMirredAttrs); ok {
				fmt.Printf("%s pref %d: %s to ifindex of ifb0: %v\n", m.Kind(), m.Header.Info>>16, *act.Kind, p.Parms.Ifindex == uint32(ifb0))
			}
		}
	}
	// Output:
	// matchall pref 1: mirred to ifindex of ifb0: true
}

// Watch the kernel's announcements, as tc monitor does, while another
// connection adds and deletes ifb0's root qdisc.
func ExampleClient_Conn() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	watcher := dial()
	defer watcher.Close()
	events := watcher.Conn().Events(ctx) // subscribed from here on

	c := dial()
	defer c.Close()
	q := gotc.Qdisc{Dev: "ifb0", Parent: gotc.Root, Handle: gotc.Handle(2, 0), Kind: "cake"}
	if err := c.ReplaceQdisc(ctx, q); err != nil {
		log.Fatal(err)
	}
	if err := c.DeleteQdisc(ctx, q); err != nil {
		log.Fatal(err)
	}

	for ev, err := range events {
		if err != nil {
			log.Fatal(err) // ctx's deadline, for one
		}
		// Replacing the device's default qdisc announces its removal too.
		if ev.Object != netlink.Qdisc || ev.Msg.Kind() != "cake" {
			continue
		}
		fmt.Printf("%s %s %s deleted=%v\n", ev.Object, ev.Msg.Kind(), tcfmt.FormatClassID(ev.Msg.Header.Handle), ev.Deleted)
		if ev.Deleted {
			break
		}
	}
	// Output:
	// qdisc cake 2: deleted=false
	// qdisc cake 2: deleted=true
}
