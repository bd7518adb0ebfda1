// SPDX-License-Identifier: Apache-2.0

package predict

import (
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/traffic"
)

// fqCodelTrace is two UDP flows of 1000-byte datagrams every 200 µs each,
// the second pinned to flow 1:3 by its priority.
func fqCodelTrace(t *testing.T) []traffic.Record {
	t.Helper()
	p, err := traffic.ParsePlan([]byte(`{"dev":"eth0","flows":[
		{"proto":"udp","src":"10.0.0.1","dst":"10.0.0.2","dport":5000,"size":1000,"count":2000,"interval_us":200},
		{"proto":"udp","src":"10.0.0.1","dst":"10.0.0.2","dport":5001,"size":1000,"count":2000,"interval_us":200,"priority":65539}]}`))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := traffic.DryRun(p)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func fqCodelStats(t *testing.T, res *Result) (*attrs.GnetStatsBasic, *attrs.GnetStatsQueue, attrs.TCFQCodelQdStats) {
	t.Helper()
	x, ok := res.Attrs.Stats2.App.(*attrs.TCFQCodelXstats)
	if !ok || x.Type != 0 {
		t.Fatalf("xstats %#v", res.Attrs.Stats2.App)
	}
	var s attrs.TCFQCodelQdStats
	if err := s.Decode(x.Union[:]); err != nil {
		t.Fatal(err)
	}
	return res.Attrs.Stats2.Basic, res.Attrs.Stats2.Queue, s
}

// TestFQCodelRun: on a veth every packet bypasses the empty qdisc; below
// a rate of about half the offered load the queue builds, CoDel marks
// nothing (not-ECT) and drops, and every packet is accounted for once.
func TestFQCodelRun(t *testing.T) {
	tr := fqCodelTrace(t)
	res, err := Run(Config{Kind: KindFQCodel, Handle: 0x10000, Offset: 1e10}, tr)
	if err != nil {
		t.Fatal(err)
	}
	b, q, x := fqCodelStats(t, res)
	if b.Packets != 4000 || q.Drops != 0 || x.NewFlowCount != 0 || len(res.Outcomes) != 4000 {
		t.Errorf("veth: %+v %+v %+v, %d outcomes", b, q, x, len(res.Outcomes))
	}
	res, err = Run(Config{Kind: KindFQCodel, Handle: 0x10000, Offset: 1e10, Rate: 5_000_000}, tr)
	if err != nil {
		t.Fatal(err)
	}
	b, q, x = fqCodelStats(t, res)
	dropped := 0
	for _, o := range res.Outcomes {
		if o.Dropped {
			dropped++
		}
	}
	if q.Drops == 0 || int(q.Drops) != dropped || int(b.Packets)+dropped != 4000 || len(res.Outcomes) != 4000 ||
		x.ECNMark != 0 || x.Maxpacket == 0 || x.NewFlowCount < 2 {
		t.Errorf("at 40 Mbit/s: %+v %+v %+v, %d dropped", b, q, x, dropped)
	}
	if res.Margins.Names[0] != "codel" || res.Margins.Min() == NoMargin || len(res.Queues) != 1 {
		t.Errorf("margins %+v, queues %v", res.Margins, res.Queues)
	}
	if !TakesRate(KindFQCodel) || TakesRate(KindCake) {
		t.Error("TakesRate")
	}
}
