//go:build gotckernel

// These examples change a kernel's traffic control: they need CAKE, ifb,
// matchall and mirred, and the network namespace "example" with the
// devices eth0 and ifb0 (up; the VM boots with IPv6 off, so nothing is sent) that
// selftests/lib-examples.sh makes. The build tag gotckernel keeps them out
// of an ordinary go test; the script builds the test binary with it and
// runs them in the test VM, where the test binary checks each one's
// output. They run in this order, each on the state the one before left.

package netlink_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"strings"
	"time"

	_ "github.com/gotc/gotc/allkinds"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// Add CAKE as eth0's root qdisc, from tc's own keywords, and print its
// options back as tc prints them.
func Example_addCake() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ns, err := netlink.OpenNetNS("example")
	if err != nil {
		log.Fatal(err)
	}
	defer ns.Close()
	c, err := ns.Dial(nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	eth0, err := c.LinkIndex(ctx, "eth0")
	if err != nil {
		log.Fatal(err)
	}

	// tc qdisc replace dev eth0 root handle 1: cake bandwidth 100mbit diffserv4
	cake := tckind.LookupQdisc("cake")
	opts, err := cake.ParseQdisc(strings.Fields("bandwidth 100mbit diffserv4"), tckind.ParseEnv{})
	if err != nil {
		log.Fatal(err)
	}
	kind := "cake"
	m := &netlink.Msg{}
	m.Header.Ifindex = eth0
	m.Header.Parent = netlink.HandleRoot
	m.Header.Handle = netlink.MakeHandle(1, 0)
	m.Attrs.Kind = &kind
	m.Attrs.Options = opts
	if err := c.Do(ctx, netlink.Qdisc, netlink.Replace, m); err != nil {
		log.Fatal(err)
	}
	// Adding it again is refused: the refusal is ErrExists.
	if err := c.Do(ctx, netlink.Qdisc, netlink.Add, m); errors.Is(err, netlink.ErrExists) {
		fmt.Println("add again:", err)
	}

	for q, err := range c.Msgs(ctx, netlink.Qdisc, netlink.DumpFilter{Ifindex: eth0}) {
		if err != nil {
			log.Fatal(err)
		}
		p := tcfmt.NewPrinter(os.Stdout, tcfmt.Options{})
		p.Text(fmt.Sprintf("%s %s ", q.Kind(), tcfmt.FormatClassID(q.Header.Handle)))
		cake.PrintOptions(p, q.Attrs.Options)
		p.Text("\n")
		p.Flush()
	}
	// Output:
	// add again: Exclusivity flag on, cannot modify
	// cake 1: bandwidth 100Mbit diffserv4 triple-isolate nonat nowash no-ack-filter split-gso rtt 100ms raw overhead 0
}

// An autorate daemon's step: change the bandwidth of eth0's CAKE in place,
// with one request and without a process per change.
func ExampleConn_SetCakeBandwidth() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ns, err := netlink.OpenNetNS("example")
	if err != nil {
		log.Fatal(err)
	}
	defer ns.Close()
	c, err := ns.Dial(nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	eth0, err := c.LinkIndex(ctx, "eth0")
	if err != nil {
		log.Fatal(err)
	}

	// tc qdisc change dev eth0 root cake bandwidth 50mbit
	if err := c.SetCakeBandwidth(ctx, eth0, netlink.HandleRoot, 50_000_000/8); err != nil {
		log.Fatal(err)
	}
	for q, err := range c.Msgs(ctx, netlink.Qdisc, netlink.DumpFilter{Ifindex: eth0}) {
		if err != nil {
			log.Fatal(err)
		}
		if cake, ok := q.Attrs.Options.(*attrs.CakeAttrs); ok {
			fmt.Printf("%s: %d bit/s\n", q.Kind(), *cake.BaseRate64*8)
		}
	}
	// A device without CAKE is refused, as a not-found or invalid request.
	lo, err := c.LinkIndex(ctx, "lo")
	if err != nil {
		log.Fatal(err)
	}
	err = c.SetCakeBandwidth(ctx, lo, netlink.HandleRoot, 1_000_000)
	fmt.Println("lo:", errors.Is(err, netlink.ErrNotFound) || errors.Is(err, netlink.ErrInvalid))
	// Output:
	// cake: 50000000 bit/s
	// lo: true
}

// Dump eth0's qdiscs with their statistics: one socket, one pass that the
// kernel did not interrupt, each message the caller's to keep.
func ExampleConn_Msgs() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ns, err := netlink.OpenNetNS("example")
	if err != nil {
		log.Fatal(err)
	}
	defer ns.Close()
	c, err := ns.Dial(nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	// One link dump names every device, instead of a lookup per object.
	names, err := c.LinkNames(ctx)
	if err != nil {
		log.Fatal(err)
	}

	for q, err := range c.Msgs(ctx, netlink.Qdisc, netlink.DumpFilter{}) {
		if err != nil {
			log.Fatal(err)
		}
		if names[q.Header.Ifindex] != "eth0" {
			continue
		}
		basic := q.Attrs.Stats2.Basic
		fmt.Printf("%s %s dev %s: %d bytes, %d packets\n", q.Kind(), tcfmt.FormatClassID(q.Header.Handle),
			names[q.Header.Ifindex], basic.Bytes, basic.Packets)
		if cake, ok := q.Attrs.Stats2.App.(*attrs.CakeStatsAttrs); ok {
			fmt.Printf("  %d tins, %d bytes of memory used\n", len(cake.TinStats), *cake.MemoryUsed)
		}
	}
	// Output:
	// cake 1: dev eth0: 0 bytes, 0 packets
	//   4 tins, 0 bytes of memory used
}

// Redirect everything eth0 receives to ifb0 (to shape it there): an
// ingress qdisc and a matchall filter whose action is mirred.
func Example_ingressRedirect() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ns, err := netlink.OpenNetNS("example")
	if err != nil {
		log.Fatal(err)
	}
	defer ns.Close()
	c, err := ns.Dial(nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	eth0, err := c.LinkIndex(ctx, "eth0")
	if err != nil {
		log.Fatal(err)
	}
	ifb0, err := c.LinkIndex(ctx, "ifb0")
	if err != nil {
		log.Fatal(err)
	}

	// tc qdisc replace dev eth0 handle ffff: ingress
	ingress := "ingress"
	q := &netlink.Msg{}
	q.Header.Ifindex = eth0
	q.Header.Parent = netlink.HandleIngress
	q.Header.Handle = netlink.MakeHandle(0xffff, 0)
	q.Attrs.Kind = &ingress
	if err := c.Do(ctx, netlink.Qdisc, netlink.Replace, q); err != nil {
		log.Fatal(err)
	}

	// tc filter add dev eth0 parent ffff: protocol all pref 1 matchall \
	//	action mirred egress redirect dev ifb0
	const (
		ethPAll        = 0x0003 // ETH_P_ALL
		tcActStolen    = 4      // TC_ACT_STOLEN: the packet is redirected, not passed on
		tcaEgressRedir = 1      // TCA_EGRESS_REDIR
	)
	matchall, mirred := "matchall", "mirred"
	f := &netlink.Msg{}
	f.Header.Ifindex = eth0
	f.Header.Parent = netlink.MakeHandle(0xffff, 0)
	f.Header.Info = netlink.MakeHandle(1, ethPAll<<8) // priority 1, protocol in network order
	f.Attrs.Kind = &matchall
	f.Attrs.Options = &attrs.MatchallAttrs{Act: []attrs.ActAttrs{{
		Kind:    &mirred,
		Options: &attrs.ActMirredAttrs{Parms: &attrs.TCMirred{Action: tcActStolen, Eaction: tcaEgressRedir, Ifindex: uint32(ifb0)}},
	}}}
	if err := c.Do(ctx, netlink.Filter, netlink.Add, f); err != nil {
		log.Fatal(err)
	}

	for m, err := range c.Msgs(ctx, netlink.Filter, netlink.DumpFilter{Ifindex: eth0, Parent: f.Header.Parent}) {
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
// connection changes ifb0's root qdisc.
func ExampleConn_Events() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ns, err := netlink.OpenNetNS("example")
	if err != nil {
		log.Fatal(err)
	}
	defer ns.Close()
	watcher, err := ns.Dial(nil)
	if err != nil {
		log.Fatal(err)
	}
	defer watcher.Close()
	events := watcher.Events(ctx) // subscribed from here on

	c, err := ns.Dial(nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	ifb0, err := c.LinkIndex(ctx, "ifb0")
	if err != nil {
		log.Fatal(err)
	}
	if err := c.SetCakeBandwidth(ctx, ifb0, netlink.HandleRoot, 1); !errors.Is(err, netlink.ErrNotFound) && !errors.Is(err, netlink.ErrInvalid) {
		log.Fatal("ifb0 has a CAKE already: ", err)
	}
	cake := "cake"
	m := &netlink.Msg{}
	m.Header.Ifindex = ifb0
	m.Header.Parent = netlink.HandleRoot
	m.Header.Handle = netlink.MakeHandle(2, 0)
	m.Attrs.Kind = &cake
	if err := c.Do(ctx, netlink.Qdisc, netlink.Replace, m); err != nil {
		log.Fatal(err)
	}
	if err := c.Do(ctx, netlink.Qdisc, netlink.Delete, m); err != nil {
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
