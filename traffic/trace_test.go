// SPDX-License-Identifier: Apache-2.0

package traffic

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

func mustDryRun(t *testing.T, plan string) []Record {
	t.Helper()
	p, err := ParsePlan([]byte(plan))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := DryRun(p)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func TestTraceRoundTrip(t *testing.T) {
	recs := mustDryRun(t, mixedPlan)
	recs[3].Err = errNoBufs
	recs[5].Dur = 1234
	var buf bytes.Buffer
	if err := WriteTrace(&buf, recs); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "\n"); n != len(recs) {
		t.Fatalf("%d lines for %d records", n, len(recs))
	}
	back, err := ReadTrace(strings.NewReader(buf.String() + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, recs) {
		t.Fatalf("round trip differs:\n%+v\n%+v", back[0], recs[0])
	}
	if _, err := ReadTrace(strings.NewReader(`{"i":0,"surprise":1}`)); err == nil {
		t.Error("unknown field accepted")
	}
	if _, err := ReadTrace(strings.NewReader("{\"i\":0}\nnot json\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("bad line: %v", err)
	}
	path := t.TempDir() + "/t.jsonl"
	if err := WriteTraceFile(path, recs[:2]); err != nil {
		t.Fatal(err)
	}
	if back, err := ReadTraceFile(path); err != nil || !reflect.DeepEqual(back, recs[:2]) {
		t.Errorf("file round trip: %v", err)
	}
}

func TestCompare(t *testing.T) {
	sent := mustDryRun(t, mixedPlan)
	if rep := Compare(sent, sent); !rep.Exact() || rep.Matched != 20 || rep.SentSegs != 34 || rep.ReceivedSegs != 34 {
		t.Fatalf("identical capture: %+v", rep)
	}
	// Capture: swap two packets, CE-mark an ECT(1) packet, wash a DSCP,
	// lose one, add an ARP frame.
	recv := append([]Record(nil), sent...)
	for i := range recv {
		recv[i].Flow, recv[i].K, recv[i].Priority, recv[i].Mark, recv[i].L4Hash = -1, 0, 0, 0, false
		if recv[i].Proto == protoTCP {
			tc := *recv[i].TCP
			recv[i].TCP = &tc
		}
	}
	recv[1].ECN = 3 // sent ECT(1)
	recv[2].DSCP = 0
	recv[6], recv[7] = recv[7], recv[6]
	recv = append(recv[:10], recv[11:]...)
	recv = append(recv, Record{L3: "arp", Tag: -1})
	rep := Compare(sent, recv)
	if rep.Exact() || rep.Matched != 19 || rep.CEMarked != 1 || rep.Reordered != 1 ||
		!reflect.DeepEqual(rep.Missing, []int{10}) || !reflect.DeepEqual(rep.Unexpected, []int{19}) || len(rep.Mismatched) != 1 ||
		!strings.Contains(rep.Mismatched[0], "dscp 10→0") {
		t.Errorf("report %+v", rep)
	}
	if rep.ByECN[3] != 3 || rep.ByDSCP[8] != 10 {
		t.Errorf("by ECN %v, by DSCP %v", rep.ByECN, rep.ByDSCP)
	}
	// GSO sends split by the qdisc arrive as tagged segments.
	sent = mustDryRun(t, mixedPlan)
	recv = nil
	for i := range sent {
		if sent[i].GSOSegs == 0 {
			recv = append(recv, sent[i])
			continue
		}
		for range sent[i].GSOSegs {
			seg := sent[i]
			seg.GSOSegs, seg.GSOSize, seg.HdrLen = 0, 0, 0
			seg.Len, seg.Payload = 42+972, 972
			recv = append(recv, seg)
		}
	}
	if rep := Compare(sent, recv); !rep.Exact() || rep.Split != 2 || rep.Received != 18+16 || rep.ReceivedSegs != 34 {
		t.Errorf("split GSO: %+v", rep)
	}
	recv[5].Len++ // a segment of the wrong size
	recv = append(recv, recv[6])
	if rep := Compare(sent, recv); rep.Exact() || len(rep.Mismatched) != 1 || len(rep.Unexpected) != 1 {
		t.Errorf("split GSO with a bad and an extra segment: %+v", rep)
	}
	// Duplicate ACKs (same header) are told apart by the IP ID.
	dup := `{"dev":"v0","flows":[{"proto":"tcp-ack","src":"10.0.0.1","dst":"10.0.0.2","sport":1,"dport":2,"count":3,"burst":3}]}`
	sent = mustDryRun(t, dup)
	recv = []Record{sent[2], sent[0], sent[1]}
	if rep := Compare(sent, recv); rep.Matched != 3 || rep.Reordered != 2 {
		t.Errorf("duplicate ACKs: %+v", rep)
	}
}
