// SPDX-License-Identifier: Apache-2.0

package predict

import (
	"net/netip"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/traffic"
)

// overload returns n 1000-byte UDP sends 100 µs apart (80 Mbit/s) over
// four flows of DSCPs 0, 8 (CS1), 46 (EF) and 0, with ECN cycling through
// not-ECT, ECT(1) and ECT(0).
func overload(n int) []traffic.Record {
	var recs []traffic.Record
	dscps := []uint8{0, 8, 46, 0}
	for i := range n {
		f := i % 4
		recs = append(recs, traffic.Record{I: i, Flow: f, T: 10_000_000_000 + int64(i)*100_000, Len: 1014, L3: "ipv4", Proto: 17,
			Src: netip.MustParseAddr("10.0.0.1"), Dst: netip.MustParseAddr("10.0.0.2"), SPort: uint16(4000 + f), DPort: 5000,
			DSCP: dscps[f], ECN: uint8(i % 3), Payload: 972, L4Hash: true, Tag: -1})
	}
	return recs
}

// tally sums outcomes by queue.
type tally struct{ sent, dropped, marked int }

func tallies(r *Result, queues int) []tally {
	t := make([]tally, queues)
	for _, o := range r.Outcomes {
		switch {
		case o.Dropped:
			t[o.Queue].dropped++
		case o.Done != 0:
			t[o.Queue].sent++
		}
		if o.Marked {
			t[o.Queue].marked++
		}
	}
	return t
}

// TestOutcomesAgreeWithCakeCounters checks that the per-packet outcomes
// add up, tin by tin, to the model's own counters, on a trace that makes
// the shaper queue, drop and mark.
func TestOutcomesAgreeWithCakeCounters(t *testing.T) {
	bw := uint64(20e6 / 8)
	ds := attrs.CakeDiffservModeDiffserv3
	r, err := Run(Config{Kind: KindCake, Options: &attrs.CakeAttrs{BaseRate64: &bw, DiffservMode: &ds}}, overload(2000))
	if err != nil {
		t.Fatal(err)
	}
	tins := r.Attrs.Stats2.App.(*attrs.CakeStatsAttrs).TinStats
	got := tallies(r, len(tins))
	var drops, marks int
	for i, ts := range tins {
		// CAKE counts a tin's packets at enqueue (b->packets): sent
		// includes the packets COBALT dropped later.
		want := tally{int(*ts.SentPackets) - int(*ts.DroppedPackets), int(*ts.DroppedPackets), int(*ts.ECNMarkedPackets)}
		if got[i] != want {
			t.Errorf("tin %d: outcomes %+v, counters %+v", i, got[i], want)
		}
		drops += want.dropped
		marks += want.marked
	}
	if len(tins) != 3 || drops == 0 || marks == 0 || got[0].sent == 0 || got[2].sent == 0 {
		t.Fatalf("the trace should drop, mark and use Bulk and Voice: %+v", got)
	}
	late := 0
	for _, o := range r.Outcomes {
		if o.Done < o.Arrived || o.Arrived < 10_000_000_000 {
			t.Fatalf("outcome out of time: %+v", o)
		}
		if !o.Dropped && o.Done-o.Arrived > 5_000_000 {
			late++
		}
	}
	if late == 0 {
		t.Errorf("a 4x overload through the shaper should delay some packets by > 5 ms")
	}
}

// TestOutcomesAgreeWithDualPI2Counters does the same for DualPI2 below a
// 20 Mbit/s link, where ECT(1) goes to the L queue.
func TestOutcomesAgreeWithDualPI2Counters(t *testing.T) {
	r, err := Run(Config{Kind: KindDualPI2, Rate: 20e6 / 8}, overload(2000))
	if err != nil {
		t.Fatal(err)
	}
	x := r.Attrs.Xstats.(*attrs.TCDualPI2Xstats)
	got := tallies(r, 2)
	q := r.Attrs.Stats2.Queue
	if in := got[0].sent + got[0].dropped; in < int(x.PacketsInC)-int(q.Drops) || in > int(x.PacketsInC)+int(q.Drops) {
		t.Errorf("C queue: %+v, %d enqueued", got[0], x.PacketsInC)
	}
	// ecn_mark counts marking events: a packet the PI stage marked and the
	// step marked again counts twice (and that second one is a step mark).
	marked := got[0].marked + got[1].marked
	if got[0].dropped+got[1].dropped != int(q.Drops) || marked > int(x.ECNMark) || marked < int(x.ECNMark-x.StepMarks) {
		t.Errorf("outcomes %+v, counters drops %d marks %d (step %d)", got, q.Drops, x.ECNMark, x.StepMarks)
	}
	if got[1].sent == 0 || got[1].marked == 0 || q.Drops == 0 {
		t.Errorf("L queue should carry and mark ECT(1), C should drop: %+v", got)
	}
}
