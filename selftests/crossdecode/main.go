// SPDX-License-Identifier: Apache-2.0

// Command crossdecode checks gotc's decoding of CAKE options against a second,
// independent decoder, florianl/go-tc, on a real kernel: it creates CAKE
// qdiscs with gotc's library, dumps them with both libraries and compares the
// options field by field with go-cmp. It runs inside the test bed's VM.
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"

	gotc "github.com/florianl/go-tc"
	"github.com/google/go-cmp/cmp"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/qdisc"
)

// configs are cake keyword lines, each applied to its own dummy device.
var configs = []string{
	"",
	"bandwidth 100mbit diffserv4 dual-dsthost nat wash ack-filter",
	"unlimited besteffort flows no-split-gso",
	"bandwidth 1gbit diffserv8 atm overhead 44 mpu 64 memlimit 32mb",
	"bandwidth 20mbit ptm overhead -10 fwmark 0xff ingress",
	"autorate-ingress precedence srchost ack-filter-aggressive rtt 300ms",
	"bandwidth 50mbit docsis raw",
}

func main() {
	c, err := netlink.Dial(nil)
	if err != nil {
		fail(err)
	}
	defer c.Close()
	want := map[uint32]*attrs.CakeAttrs{}
	for i, line := range configs {
		dev := fmt.Sprintf("xd%d", i)
		if out, err := exec.Command("/ref/bin/ip", "link", "add", dev, "type", "dummy").CombinedOutput(); err != nil {
			fail(fmt.Errorf("ip link add %s: %v: %s", dev, err, out))
		}
		idx, err := c.LinkIndex(context.Background(), dev)
		if err != nil {
			fail(err)
		}
		opts, err := qdisc.ParseCake(strings.Fields(line))
		if err != nil {
			fail(fmt.Errorf("cake %s: %v", line, err))
		}
		kind := "cake"
		m := &netlink.Msg{}
		m.Header.Ifindex, m.Header.Parent, m.Header.Handle = idx, netlink.HandleRoot, netlink.MakeHandle(1, 0)
		m.Attrs.Kind, m.Attrs.Options = &kind, opts
		if err := c.Do(context.Background(), netlink.Qdisc, netlink.Add, m); err != nil {
			fail(fmt.Errorf("cake %s: %v", line, err))
		}
		// What gotc decodes from the kernel's dump of this device.
		err = c.Dump(context.Background(), netlink.Qdisc, netlink.DumpFilter{Ifindex: idx}, func(m *netlink.Msg, decodeErr error) error {
			if decodeErr != nil {
				return decodeErr
			}
			if o, ok := m.Attrs.Options.(*attrs.CakeAttrs); ok {
				copied := *o
				want[uint32(idx)] = &copied
			}
			return nil
		})
		if err != nil {
			fail(err)
		}
	}

	other, err := gotc.Open(&gotc.Config{})
	if err != nil {
		fail(err)
	}
	defer other.Close()
	objs, err := other.Qdisc().Get()
	if err != nil {
		fail(fmt.Errorf("go-tc dump: %v", err))
	}
	passed, failed := 0, 0
	for _, o := range objs {
		ours, ok := want[o.Ifindex]
		if !ok || o.Kind != "cake" {
			continue
		}
		if o.Cake == nil {
			fmt.Printf("not ok - ifindex %d: go-tc decoded no cake options\n", o.Ifindex)
			failed++
			continue
		}
		if d := cmp.Diff(fromGoTC(o.Cake), toComparable(ours)); d != "" {
			fmt.Printf("not ok - ifindex %d: decoders disagree (-go-tc +gotc):\n%s", o.Ifindex, d)
			failed++
			continue
		}
		fmt.Printf("ok - ifindex %d: cake options decoded alike by go-tc and gotc\n", o.Ifindex)
		passed++
		delete(want, o.Ifindex)
	}
	for idx := range want {
		fmt.Printf("not ok - ifindex %d: go-tc's dump lacks this cake qdisc\n", idx)
		failed++
	}
	fmt.Printf("%d passed, %d failed\n", passed, failed)
	if failed > 0 {
		os.Exit(1)
	}
}

// comparable is the common ground of both decoders: every CAKE option as an
// optional number.
type comparable struct {
	BaseRate                                       *uint64
	Diffserv, ATM, FlowMode, Overhead, RTT, Target *uint32
	Autorate, Memory, NAT, Raw, Wash, MPU, Ingress *uint32
	AckFilter, SplitGSO, Fwmark                    *uint32
}

func fromGoTC(c *gotc.Cake) comparable {
	return comparable{
		BaseRate: c.BaseRate, Diffserv: c.DiffServMode, ATM: c.Atm, FlowMode: c.FlowMode,
		Overhead: c.Overhead, RTT: c.Rtt, Target: c.Target, Autorate: c.Autorate, Memory: c.Memory,
		NAT: c.Nat, Raw: c.Raw, Wash: c.Wash, MPU: c.Mpu, Ingress: c.Ingress, AckFilter: c.AckFilter,
		SplitGSO: c.SplitGso, Fwmark: c.FwMark,
	}
}

func toComparable(o *attrs.CakeAttrs) comparable {
	var diffserv, atm, flow, ack, overhead *uint32
	if o.DiffservMode != nil {
		v := uint32(*o.DiffservMode)
		diffserv = &v
	}
	if o.ATM != nil {
		v := uint32(*o.ATM)
		atm = &v
	}
	if o.FlowMode != nil {
		v := uint32(*o.FlowMode)
		flow = &v
	}
	if o.AckFilter != nil {
		v := uint32(*o.AckFilter)
		ack = &v
	}
	if o.Overhead != nil {
		// go-tc reads the signed overhead as unsigned: compare the same bits.
		v := uint32(*o.Overhead)
		overhead = &v
	}
	return comparable{
		BaseRate: o.BaseRate64, Diffserv: diffserv, ATM: atm, FlowMode: flow, Overhead: overhead,
		RTT: o.RTT, Target: o.Target, Autorate: o.Autorate, Memory: o.Memory, NAT: o.NAT,
		Raw: o.Raw, Wash: o.Wash, MPU: o.MPU, Ingress: o.Ingress, AckFilter: ack,
		SplitGSO: o.SplitGSO, Fwmark: o.Fwmark,
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "crossdecode:", err)
	os.Exit(1)
}
