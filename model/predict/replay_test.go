// SPDX-License-Identifier: Apache-2.0

package predict

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/model/cake"
	"github.com/gotc/gotc/model/dualpi2"
	"github.com/gotc/gotc/traffic"
)

// kernelCakeDump is the part of "tc -s -j qdisc show" for CAKE that a
// replay compares (iproute2 7.3's key names).
type kernelCakeDump struct {
	Bytes, Packets, Drops, Overlimits uint64
	MemoryUsed                        uint32 `json:"memory_used"`
	MemoryLimit                       uint32 `json:"memory_limit"`
	MinNetworkSize                    uint32 `json:"min_network_size"`
	MaxNetworkSize                    uint32 `json:"max_network_size"`
	MinAdjSize                        uint32 `json:"min_adj_size"`
	MaxAdjSize                        uint32 `json:"max_adj_size"`
	AvgHdrOffset                      uint32 `json:"avg_hdr_offset"`
	Tins                              []struct {
		SentBytes       uint64 `json:"sent_bytes"`
		SentPackets     uint32 `json:"sent_packets"`
		TargetUS        uint32 `json:"target_us"`
		IntervalUS      uint32 `json:"interval_us"`
		WayIndirectHits uint32 `json:"way_indirect_hits"`
		WayMisses       uint32 `json:"way_misses"`
		WayCollisions   uint32 `json:"way_collisions"`
		Drops           uint32 `json:"drops"`
		ECNMark         uint32 `json:"ecn_mark"`
		AckDrops        uint32 `json:"ack_drops"`
		SparseFlows     uint32 `json:"sparse_flows"`
		BulkFlows       uint32 `json:"bulk_flows"`
		MaxPktLen       uint32 `json:"max_pkt_len"`
		FlowQuantum     uint32 `json:"flow_quantum"`
	}
}

// TestReplayKernelCakeDiffserv3 replays a trace recorded by gotc-traffic in
// the test VM (traffic/testdata/cake-diffserv3.sh: 64 UDP packets, one per DSCP,
// through "cake diffserv3" on a veth, kernel 7.2.13) into the CAKE model
// and compares every timing-independent counter with the kernel's dump of
// that run. Truesize is calibrated from the same run (memory_used after
// packets that never queue behind each other is one skb's truesize).
func TestReplayKernelCakeDiffserv3(t *testing.T) {
	recs, err := traffic.ReadTraceFile("../../traffic/testdata/cake-diffserv3.trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("../../traffic/testdata/cake-diffserv3.qdisc.json")
	if err != nil {
		t.Fatal(err)
	}
	var dumps []kernelCakeDump
	if err := json.Unmarshal(b, &dumps); err != nil || len(dumps) != 1 {
		t.Fatalf("qdisc dump: %v", err)
	}
	k := dumps[0]
	q, err := cake.New(attrs.CakeAttrs{})
	if err != nil {
		t.Fatal(err)
	}
	truesize := k.MemoryUsed
	cake.Simulate(q, CakeArrivals(recs, &ModelOptions{Truesize: func(*traffic.Record) (uint32, uint32) { return truesize, 0 }}), cake.Link{})
	s := q.Stats()
	c := s.Cake
	check := func(name string, model, kernel uint64) {
		t.Helper()
		if model != kernel {
			t.Errorf("%s: model %d, kernel %d", name, model, kernel)
		}
	}
	check("bytes", s.Basic.Bytes, k.Bytes)
	check("packets", uint64(s.Basic.Packets), k.Packets)
	check("drops", uint64(s.Queue.Drops), k.Drops)
	check("overlimits", uint64(s.Queue.Overlimits), k.Overlimits)
	check("memory_used", uint64(*c.MemoryUsed), uint64(k.MemoryUsed))
	check("memory_limit", uint64(*c.MemoryLimit), uint64(k.MemoryLimit))
	check("min_network_size", uint64(*c.MinNetlen), uint64(k.MinNetworkSize))
	check("max_network_size", uint64(*c.MaxNetlen), uint64(k.MaxNetworkSize))
	check("min_adj_size", uint64(*c.MinAdjlen), uint64(k.MinAdjSize))
	check("max_adj_size", uint64(*c.MaxAdjlen), uint64(k.MaxAdjSize))
	check("avg_hdr_offset", uint64(*c.AvgNetoff), uint64(k.AvgHdrOffset))
	if len(c.TinStats) != len(k.Tins) {
		t.Fatalf("model has %d tins, kernel %d", len(c.TinStats), len(k.Tins))
	}
	for i, kt := range k.Tins {
		mt := c.TinStats[i]
		name := []string{"Bulk", "Best Effort", "Voice"}[i] + " "
		check(name+"sent_packets", uint64(*mt.SentPackets), uint64(kt.SentPackets))
		check(name+"sent_bytes", *mt.SentBytes64, kt.SentBytes)
		check(name+"target_us", uint64(*mt.TargetUS), uint64(kt.TargetUS))
		check(name+"interval_us", uint64(*mt.IntervalUS), uint64(kt.IntervalUS))
		check(name+"way_indirect_hits", uint64(*mt.WayIndirectHits), uint64(kt.WayIndirectHits))
		check(name+"way_misses", uint64(*mt.WayMisses), uint64(kt.WayMisses))
		check(name+"way_collisions", uint64(*mt.WayCollisions), uint64(kt.WayCollisions))
		check(name+"drops", uint64(*mt.DroppedPackets), uint64(kt.Drops))
		check(name+"ecn_mark", uint64(*mt.ECNMarkedPackets), uint64(kt.ECNMark))
		check(name+"ack_drops", uint64(*mt.AcksDroppedPackets), uint64(kt.AckDrops))
		check(name+"sparse_flows", uint64(*mt.SparseFlows), uint64(kt.SparseFlows))
		check(name+"bulk_flows", uint64(*mt.BulkFlows), uint64(kt.BulkFlows))
		check(name+"max_pkt_len", uint64(*mt.MaxSkblen), uint64(kt.MaxPktLen))
		check(name+"flow_quantum", uint64(*mt.FlowQuantum), uint64(kt.FlowQuantum))
	}
}

// TestReplayKernelDualPI2 replays the trace of traffic/testdata/dualpi2-ecn.sh (UDP
// with each ECN codepoint, a split GSO burst, pure ACKs through a default
// DualPI2 on a veth, kernel 7.2.13) into the DualPI2 model and compares the
// kernel's dump. The segments' truesize is calibrated from the same run
// (max-memory-used / 4 segments queued together).
func TestReplayKernelDualPI2(t *testing.T) {
	recs, err := traffic.ReadTraceFile("../../traffic/testdata/dualpi2-ecn.trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("../../traffic/testdata/dualpi2-ecn.qdisc.json")
	if err != nil {
		t.Fatal(err)
	}
	var dumps []map[string]any
	if err := json.Unmarshal(b, &dumps); err != nil || len(dumps) != 1 {
		t.Fatalf("qdisc dump: %v", err)
	}
	k := dumps[0]
	segTruesize := uint32(k["max-memory-used"].(float64)) / 4
	arr := DualPI2Arrivals(recs, &ModelOptions{Truesize: func(r *traffic.Record) (uint32, uint32) {
		if r.GSOSegs > 1 {
			return 4 * segTruesize, segTruesize
		}
		return 1280, 0
	}})
	// The qdisc was created shortly before the first send; with nothing
	// ever queued for long, prob stays 0 whatever the timer's phase.
	q, err := dualpi2.New(attrs.DualPI2Attrs{}, dualpi2.WithStart(dualpi2.Time(recs[0].T)-dualpi2.Second))
	if err != nil {
		t.Fatal(err)
	}
	res := dualpi2.Simulate(q, arr, dualpi2.Immediate())
	s, x := res.Stats, res.Stats.Xstats
	for _, c := range []struct {
		name  string
		model int64
	}{
		{"bytes", int64(s.Basic.Bytes)}, {"packets", int64(s.Basic.Packets)},
		{"drops", int64(s.Queue.Drops)}, {"overlimits", int64(s.Queue.Overlimits)},
		{"prob", int64(x.Prob)}, {"pkts-in-c", int64(x.PacketsInC)}, {"pkts-in-l", int64(x.PacketsInL)},
		{"maxq", int64(x.Maxq)}, {"ecn-mark", int64(x.ECNMark)}, {"step-mark", int64(x.StepMarks)},
		{"credit", int64(x.Credit)}, {"memory-used", int64(x.MemoryUsed)}, {"max-memory-used", int64(x.MaxMemoryUsed)},
	} {
		if kv := int64(k[c.name].(float64)); kv != c.model {
			t.Errorf("%s: model %d, kernel %d", c.name, c.model, kv)
		}
	}
}
