// SPDX-License-Identifier: Apache-2.0

package predict

import (
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/model/cake"
	"github.com/gotc/gotc/model/dualpi2"
	"github.com/gotc/gotc/traffic"
)

func mustDryRun(t *testing.T, plan string) []traffic.Record {
	t.Helper()
	p, err := traffic.ParsePlan([]byte(plan))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := traffic.DryRun(p)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// mixedPlan is package traffic's test plan: UDP with DSCP and ECN cycles,
// UDP GSO, and TCP ACKs with options.
func mixedPlan(t *testing.T) string {
	b, err := os.ReadFile("../../traffic/testdata/mixed-plan.json")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// One UDP packet per DSCP through a default CAKE (diffserv3): the model
// must give the per-tin counts measured on a kernel (2/57/5), which checks
// that the converter carries the DS field through.
func TestCakeArrivalsDiffserv3(t *testing.T) {
	dscps := make([]string, 64)
	for i := range dscps {
		dscps[i] = strconv.Itoa(i)
	}
	plan := `{"dev":"v0","flows":[{"proto":"udp","src":"10.0.0.1","dst":"10.0.0.2","sport":4000,"dport":5000,
		"dscps":[` + strings.Join(dscps, ",") + `],"size":100,"count":64,"interval_us":100}]}`
	recs := mustDryRun(t, plan)
	arr := CakeArrivals(recs, &ModelOptions{Offset: 10e9, Truesize: func(*traffic.Record) (uint32, uint32) { return 768, 0 }})
	if len(arr) != 64 || arr[0].At != 10e9 || arr[63].At != 10e9+63*100e3 {
		t.Fatalf("arrivals %d, times %d..%d", len(arr), arr[0].At, arr[len(arr)-1].At)
	}
	p := arr[46].Pkt
	if p.Len != 114 || p.L3 != cake.L3IPv4 || p.Proto != 17 || p.DSField != 46<<2 || p.NetOffset != 14 ||
		p.Src != [16]byte{10, 0, 0, 1} || p.Dst != [16]byte{10, 0, 0, 2} || p.SrcPort != 4000 || p.DstPort != 5000 ||
		!p.L4Hash || p.SKBHash != FlowHash(0) || p.Truesize != 768 || p.ID != 46 {
		t.Errorf("packet %+v", p)
	}
	q, err := cake.New(attrs.CakeAttrs{})
	if err != nil {
		t.Fatal(err)
	}
	cake.Simulate(q, arr, cake.Link{})
	var got []uint32
	for _, ts := range q.Stats().Cake.TinStats {
		got = append(got, *ts.SentPackets)
	}
	if !reflect.DeepEqual(got, []uint32{2, 57, 5}) {
		t.Errorf("diffserv3 tins %v, want [2 57 5]", got)
	}
}

func TestCakePacketGSOAndTCP(t *testing.T) {
	recs := mustDryRun(t, mixedPlan(t))
	g := CakePacket(&recs[4], nil)
	if g.GSOSegs != 8 || g.GSOSize != 972 || g.HdrLen != 42 || g.PktLen() != 14+28+8*972+7*42 {
		t.Errorf("GSO packet %+v (PktLen %d)", g, g.PktLen())
	}
	a := CakePacket(&recs[8], nil)
	if a.Proto != 6 || a.TCPFlags != 0x10 || a.Ack != 1000 || !a.HasTS || a.TSVal != 100 || a.TSEcr != 7 ||
		a.NumSACK != 1 || a.SACK[0] != (cake.SACKBlock{Start: 2448, End: 3896}) || a.PayloadLen != 0 ||
		a.L4Hash || a.Priority != 7 || a.Mark != 3 || a.DSField != 8<<2 {
		t.Errorf("ACK packet %+v", a)
	}
	arp := CakePacket(&traffic.Record{L3: "arp", DSCP: 5, Len: 42}, nil)
	if arp.L3 != cake.L3ARP || arp.DSField != 0 {
		t.Errorf("ARP packet %+v", arp)
	}
	// Failed sends that never reached the qdisc are left out.
	recs[0].Err = "network is unreachable"
	recs[1].Err = "no buffer space available" // ENOBUFS: a qdisc drop, still enqueued
	if n := len(CakeArrivals(recs, nil)); n != 19 {
		t.Errorf("%d arrivals, want 19", n)
	}
	o := &ModelOptions{AtEnd: true}
	recs[2].T, recs[2].Dur = 1000, 50
	if at := CakeArrivals(recs, o)[1].At; at != 1050 {
		t.Errorf("AtEnd arrival at %d", at)
	}
}

func TestDualPI2Arrivals(t *testing.T) {
	recs := mustDryRun(t, mixedPlan(t))
	arr := DualPI2Arrivals(recs, &ModelOptions{Truesize: func(r *traffic.Record) (uint32, uint32) { return 2304, 1280 }})
	if len(arr) != 20 {
		t.Fatalf("%d arrivals", len(arr))
	}
	g := arr[4].Packet
	if g.Len != 14+28+8*972 || g.GSOSize != 972 || g.HdrLen != 42 || g.Segs() != 8 || g.PktLen() != uint32(recs[4].Len+7*42) ||
		g.ECN != 1 || g.Truesize != 2304 || g.SegTruesize != 1280 || g.ID != 4 {
		t.Errorf("GSO packet %+v", g)
	}
	if p := arr[8].Packet; p.Priority != 7 || p.ECN != 0 || p.GSOSize != 0 || p.Len != 78 {
		t.Errorf("ACK packet %+v", p)
	}
	if p := DualPI2Packet(&traffic.Record{L3: "arp", ECN: 3}, nil); p.ECN != 0 {
		t.Errorf("non-IP packet keeps ECN %d", p.ECN)
	}
	// Classification through the model: ECT(1) and CE go to L, the rest to C.
	q, err := dualpi2.New(attrs.DualPI2Attrs{})
	if err != nil {
		t.Fatal(err)
	}
	res := dualpi2.Simulate(q, arr, dualpi2.Immediate())
	l, c := 0, 0
	for _, o := range res.Outcomes {
		if o.Class == dualpi2.ClassC {
			c++
		} else {
			l++
		}
	}
	// Flow 0: ECN 0,1,2,3 twice → 4 L; flow 1: 2 GSO packets of ECT(1)
	// split into 16 L segments; flow 2: 10 not-ECT → C.
	if l != 20 || c != 14 {
		t.Errorf("L %d, C %d segments; want 20, 14", l, c)
	}
}
