// SPDX-License-Identifier: Apache-2.0

package tckind_test

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	_ "github.com/gotc/gotc/allkinds"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// A qdisc request's options from tc's keywords, and the options a dump
// brings back printed as tc prints them, in text and in JSON.
func ExampleQdisc() {
	cake := tckind.LookupQdisc("cake")
	opts, err := cake.ParseQdisc(strings.Fields("bandwidth 100mbit diffserv4 nat"), tckind.ParseEnv{})
	if err != nil {
		fmt.Println(err)
		return
	}
	// The options are typed (*attrs.CakeAttrs): a request's TCA_OPTIONS
	// (netlink.Msg's Attrs.Options), which the generated encoder writes in
	// tc's order.
	kind := "cake"
	var e attrs.Encoder
	(&attrs.TCAttrs{Kind: &kind, Options: opts}).Encode(&e)
	fmt.Printf("TCA_KIND and TCA_OPTIONS: %d bytes\n", len(e.Bytes()))

	// A dump decodes TCA_OPTIONS by the message's TCA_KIND. (The kernel
	// dumps every option; these are only the request's.)
	var back attrs.TCAttrs
	if err := back.Decode(e.Bytes()); err != nil {
		fmt.Println(err)
		return
	}
	decoded := back.Options
	for _, o := range []tcfmt.Options{{}, {JSON: true}} {
		var out bytes.Buffer
		p := tcfmt.NewPrinter(&out, o)
		p.Start()
		p.QdiscHead(&tcfmt.QdiscHeader{Kind: "cake", Handle: 0x10000, Parent: tcfmt.HandleRoot, Info: 2, Dev: "eth0", ShowDev: true})
		p.OpenObject("options")
		cake.PrintOptions(p, decoded)
		p.CloseObject()
		p.NL()
		p.QdiscTail("", false)
		p.Finish()
		fmt.Printf("%q\n", out.String()) // quoted to show tc's trailing blank
	}
	// Output:
	// TCA_KIND and TCA_OPTIONS: 52 bytes
	// "qdisc cake 1: dev eth0 root refcnt 2 bandwidth 100Mbit diffserv4 nat nowash no-ack-filter no-split-gso noatm overhead 0 \n"
	// "[{\"kind\":\"cake\",\"handle\":\"1:\",\"dev\":\"eth0\",\"root\":true,\"refcnt\":2,\"options\":{\"bandwidth\":12500000,\"diffserv\":\"diffserv4\",\"nat\":true,\"wash\":false,\"ingress\":false,\"ack-filter\":\"disabled\",\"split_gso\":false,\"rtt\":0,\"raw\":false,\"atm\":\"noatm\",\"overhead\":0,\"fwmark\":\"0\"}}]\n"
}

// A kind's statistics table reads its statistics without code of the
// kind's own: what package watch and package exporter do for every kind.
func ExampleStatsTable() {
	used, limit := uint32(1514), uint32(4<<20)
	sent := uint32(10)
	x := tckind.Xstats{App: &attrs.CakeStatsAttrs{
		MemoryUsed: &used, MemoryLimit: &limit,
		TinStats: []attrs.CakeTinStatsAttrs{{SentPackets: &sent}},
	}}
	t := tckind.LookupQdisc("cake").Stats
	s := t.Of(x)
	for i := range t.Fields {
		f := &t.Fields[i]
		if v, ok := f.Get(s); ok {
			fmt.Printf("%s = %s (%s)\n", f.Key, strconv.FormatFloat(f.Value(v), 'f', -1, 64), f.Metric)
		}
	}
	r := t.Records
	for i := range r.Len(s) {
		for j := range r.Fields {
			f := &r.Fields[j]
			if v, ok := f.Get(r.Record(s, i)); ok {
				fmt.Printf("%s %s: %s = %g, counter %v\n", r.Key, r.Name(r.Len(s), i), f.Key, f.Value(v), f.Counter)
			}
		}
	}
	// Output:
	// memory_used = 1514 (gotc_cake_memory_used_bytes)
	// memory_limit = 4194304 (gotc_cake_memory_limit_bytes)
	// tins Tin 0: sent_packets = 10, counter true
}
