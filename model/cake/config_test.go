// SPDX-License-Identifier: Apache-2.0

package cake

import (
	"reflect"
	"testing"

	"github.com/gotc/gotc/attrs"
)

func TestDefaultsAndDump(t *testing.T) {
	q := mustNew(t, attrs.CakeAttrs{})
	c := q.Config()
	fm, dm := attrs.CakeFlowModeTriple, attrs.CakeDiffservModeDiffserv3
	atm, af := attrs.CakeATMModeNone, attrs.CakeAckFilterNone
	ov := int32(0)
	want := attrs.CakeAttrs{
		BaseRate64: p64(0), FlowMode: &fm, RTT: p32(100000), Target: p32(5000),
		Memory: p32(0), Autorate: p32(0), Ingress: p32(0), AckFilter: &af, NAT: p32(0),
		DiffservMode: &dm, Wash: p32(0), Overhead: &ov, Raw: p32(0), ATM: &atm,
		MPU: p32(0), SplitGSO: p32(1), Fwmark: p32(0),
	}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("defaults:\n got %+v\nwant %+v", c, want)
	}
	s := q.Stats()
	if *s.Cake.MemoryLimit != 10240*1514 || *s.Cake.MinNetlen != 65535 || *s.Cake.MaxNetlen != 0 ||
		*s.Cake.CapacityEstimate64 != 0 || len(s.Cake.TinStats) != 3 {
		t.Fatalf("default stats %+v", s.Cake)
	}
	for _, ts := range s.Cake.TinStats {
		if *ts.FlowQuantum != 1514 || *ts.TargetUS != 5000 || *ts.IntervalUS != 100000 || *ts.ThresholdRate64 != 0 {
			t.Fatalf("unlimited tin %+v", ts)
		}
	}

	// overhead sets the flag (no RAW in the dump); raw clears it and
	// keeps the value; rtt 0 becomes 1; the flow mode keeps NAT apart.
	if err := q.Change(attrs.CakeAttrs{Overhead: ptrI32(-10), RTT: p32(0)}); err != nil {
		t.Fatal(err)
	}
	c = q.Config()
	if c.Raw != nil || *c.Overhead != -10 || *c.RTT != 1 {
		t.Fatalf("after overhead: raw %v overhead %d rtt %d", c.Raw, *c.Overhead, *c.RTT)
	}
	if err := q.Change(attrs.CakeAttrs{Raw: p32(0), NAT: p32(1)}); err != nil {
		t.Fatal(err)
	}
	c = q.Config()
	if c.Raw == nil || *c.Overhead != -10 || *c.NAT != 1 || *c.FlowMode != attrs.CakeFlowModeTriple {
		t.Fatalf("after raw: %+v", c)
	}
}

func ptrI32(v int32) *int32 { return &v }

func TestTinParameters(t *testing.T) {
	// 1,000,000 bytes/s, diffserv3: tins BE=R, Bulk=R>>4, Voice=R>>2,
	// dumped Bulk, BE, Voice.
	q := mustNew(t, attrs.CakeAttrs{BaseRate64: p64(1000000)})
	s := q.Stats()
	type row struct {
		rate          uint64
		target, intvl uint32
		quantum       uint32
	}
	// Bulk: mtu_time = 1514 B at 62500 B/s = 24.224 ms; target = 1.5×.
	want := []row{
		{62500, 36336, 131336, 300},
		{1000000, 5000, 100000, 300},
		{250000, 9084, 104084, 300},
	}
	for i, w := range want {
		ts := s.Cake.TinStats[i]
		got := row{*ts.ThresholdRate64, *ts.TargetUS, *ts.IntervalUS, *ts.FlowQuantum}
		if got != w {
			t.Errorf("tin %d: got %+v want %+v", i, got, w)
		}
	}
	if *s.Cake.MemoryLimit != 4<<20 || *s.Cake.CapacityEstimate64 != 1000000 {
		t.Errorf("memory limit %d capacity %d", *s.Cake.MemoryLimit, *s.Cake.CapacityEstimate64)
	}
	// rate_ns/shift: 1e9<<34/1e6 = 1000<<34, halved 10 times.
	if q.rateNs != 1000<<24 || q.rateShift != 24 {
		t.Errorf("rate_ns %d shift %d", q.rateNs, q.rateShift)
	}

	// A big rate: buffer_limit = R*rtt/250ms, capped at 10240*mtu.
	q = mustNew(t, attrs.CakeAttrs{BaseRate64: p64(125000000)})
	if got := *q.Stats().Cake.MemoryLimit; got != 10240*1514 {
		t.Errorf("1 Gbit/s memory limit %d", got)
	}
	q = mustNew(t, attrs.CakeAttrs{BaseRate64: p64(25000000)})
	if got := *q.Stats().Cake.MemoryLimit; got != 25000000*100000/250000 {
		t.Errorf("200 Mbit/s memory limit %d", got)
	}
	q = mustNew(t, attrs.CakeAttrs{Memory: p32(1000000)})
	if got := *q.Stats().Cake.MemoryLimit; got != 1000000 {
		t.Errorf("memlimit %d", got)
	}

	// diffserv8: r_i = r_{i-1}*7>>3, tin quanta 256 down to 98.
	dm := attrs.CakeDiffservModeDiffserv8
	q = mustNew(t, attrs.CakeAttrs{BaseRate64: p64(8000000), DiffservMode: &dm})
	r, qu := uint64(8000000), uint16(256)
	for i, ts := range q.Stats().Cake.TinStats {
		if *ts.ThresholdRate64 != r || q.tins[i].tinQuantum != qu {
			t.Errorf("diffserv8 tin %d: rate %d quantum %d, want %d %d", i, *ts.ThresholdRate64, q.tins[i].tinQuantum, r, qu)
		}
		r, qu = r*7>>3, qu*7>>3
	}
	if q.tins[7].tinQuantum != 98 {
		t.Errorf("last quantum %d", q.tins[7].tinQuantum)
	}
}

// tinCounts enqueues one packet per DSCP and returns the per-tin enqueue
// counts in dump order.
func tinCounts(t *testing.T, mode attrs.CakeDiffservMode) []uint32 {
	q := mustNew(t, attrs.CakeAttrs{DiffservMode: &mode})
	d := Driver{Q: q}
	for dscp := 0; dscp < 64; dscp++ {
		p := udp4(ip4(10, 0, 0, 1), ip4(10, 0, 0, 2), 1000, 2000, 100)
		p.DSField = uint8(dscp<<2) | ECT0
		d.Send(t0+int64(dscp)*1000, &p)
	}
	var n []uint32
	for _, ts := range q.Stats().Cake.TinStats {
		n = append(n, *ts.SentPackets)
	}
	return n
}

func TestTinSelectionTables(t *testing.T) {
	for _, c := range []struct {
		mode attrs.CakeDiffservMode
		want []uint32
	}{
		// Measured on a kernel (research notes): diffserv3 and diffserv8.
		{attrs.CakeDiffservModeDiffserv3, []uint32{2, 57, 5}},
		{attrs.CakeDiffservModeDiffserv8, []uint32{1, 5, 40, 7, 4, 1, 4, 2}},
		// From the tables: Bulk (LE, CS1), BE, Video (TOS4, CS2, AF2x,
		// CS3, AF3x, AF4x), Voice (CS4, CS5, VA, EF, CS6, CS7).
		{attrs.CakeDiffservModeDiffserv4, []uint32{2, 44, 12, 6}},
		{attrs.CakeDiffservModePrecedence, []uint32{8, 8, 8, 8, 8, 8, 8, 8}},
		{attrs.CakeDiffservModeBesteffort, []uint32{64}},
	} {
		if got := tinCounts(t, c.mode); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v: got %v want %v", c.mode, got, c.want)
		}
	}
}

func TestTinOverrides(t *testing.T) {
	q := mustNew(t, attrs.CakeAttrs{Fwmark: p32(0xf0), Wash: p32(1)}, WithHandle(0x00010000))
	base := udp4(ip4(10, 0, 0, 1), ip4(10, 0, 0, 2), 1, 2, 100)
	ef := base
	ef.DSField = 46<<2 | ECT1
	if got := q.TinOf(ef); got != 2 {
		t.Errorf("EF → dump tin %d, want 2 (Voice)", got)
	}
	// fwmark 0x10 >> 4 = 1 → tin_order[0] = tin 1 = Bulk (dump 0).
	m := ef
	m.Mark = 0x10
	if got := q.TinOf(m); got != 0 {
		t.Errorf("mark 1 → %d, want 0", got)
	}
	// Out-of-range marks fall through to the priority, then DSCP.
	m.Mark = 0x40
	m.Priority = 0x00010001 // 1:1 → tin_order[0]
	if got := q.TinOf(m); got != 0 {
		t.Errorf("priority 1:1 → %d, want 0", got)
	}
	m.Priority = 0x00020001 // another qdisc's major: ignored
	if got := q.TinOf(m); got != 2 {
		t.Errorf("priority 2:1 → %d, want 2", got)
	}
	arp := Packet{Len: 42, Truesize: 768, NetOffset: 14, L3: L3ARP}
	if got := q.TinOf(arp); got != 2 {
		t.Errorf("ARP → %d, want 2 (CS7)", got)
	}
	// Wash clears DSCP but keeps ECN, after choosing the tin.
	d := Driver{Q: q, Link: Link{Deliver: func(now int64, p *Packet) {
		if p.DSField != ECT1 {
			t.Errorf("washed DSField %#x", p.DSField)
		}
	}}}
	d.Send(t0, &ef)
	if n := *q.Stats().Cake.TinStats[2].SentPackets; n != 1 {
		t.Errorf("voice tin packets %d", n)
	}
}
