// SPDX-License-Identifier: Apache-2.0

package traffic

import (
	"os"
	"strings"
	"testing"
)

// mixedPlan has UDP with DSCP and ECN cycles, UDP GSO, and TCP ACKs with
// options; model/predict's tests convert it too.
var mixedPlan = func() string {
	b, err := os.ReadFile("testdata/mixed-plan.json")
	if err != nil {
		panic(err)
	}
	return string(b)
}()

func TestParsePlan(t *testing.T) {
	p, err := ParsePlan([]byte(mixedPlan))
	if err != nil {
		t.Fatal(err)
	}
	if p.Dev != "v0" || p.PeerNetns != "nsb" || len(p.Flows) != 3 {
		t.Fatalf("parsed %+v", p)
	}
	if got := p.Sends(); got != 20 {
		t.Errorf("Sends = %d, want 20", got)
	}
	if got := p.Segments(); got != 8+2*8+10 {
		t.Errorf("Segments = %d, want 34", got)
	}
	if sp := p.SinkPorts(); len(sp) != 2 || sp[0] != (SinkPort{5000, true}) || sp[1] != (SinkPort{5001, true}) {
		t.Errorf("SinkPorts = %v", sp)
	}
}

func TestParsePlanErrors(t *testing.T) {
	udp := `{"proto":"udp","dst":"10.0.0.2","dport":1,"size":100,"count":1`
	for _, tc := range []struct{ plan, want string }{
		{`{"dev":"v0","flows":[` + udp + `}], "bogus": 1}`, "unknown field"},
		{`{"flows":[` + udp + `}]}`, "dev is required"},
		{`{"dev":"v0","flows":[]}`, "no flows"},
		{`{"dev":"v0","flows":[` + udp + `}]} {}`, "trailing"},
		{`{"dev":"v0","peer_mac":"xx","flows":[` + udp + `}]}`, "peer_mac"},
		{`{"dev":"v0","flows":[` + udp + `,"dscp":64}]}`, "dscp 64"},
		{`{"dev":"v0","flows":[` + udp + `,"ecn":4}]}`, "ecn 4"},
		{`{"dev":"v0","flows":[` + udp + `,"dscps":[1,70]}]}`, "dscps"},
		{`{"dev":"v0","flows":[` + udp + `,"ecns":[9]}]}`, "ecns"},
		{`{"dev":"v0","flows":[` + udp + `,"src":"fe80::1"}]}`, "different families"},
		{`{"dev":"v0","flows":[{"proto":"udp","dst":"10.0.0.2","dport":1,"size":27,"count":1}]}`, "size 27"},
		{`{"dev":"v0","flows":[{"proto":"udp","dst":"10.0.0.2","dport":1,"size":1501,"count":1}]}`, "size 1501"},
		{`{"dev":"v0","flows":[{"proto":"udp","dst":"::2","dport":1,"size":47,"count":1}]}`, "size 47 out of range 48"},
		{`{"dev":"v0","flows":[` + udp + `,"gso_segs":1}]}`, "gso_segs 1"},
		{`{"dev":"v0","flows":[` + udp + `,"gso_segs":65}]}`, "gso_segs 65"},
		{`{"dev":"v0","flows":[{"proto":"udp","dst":"10.0.0.2","dport":1,"size":28,"count":1,"gso_segs":2}]}`, "GSO needs a payload"},
		{`{"dev":"v0","flows":[{"proto":"udp","dst":"10.0.0.2","dport":1,"size":100,"count":3}]}`, "set burst"},
		{`{"dev":"v0","flows":[{"proto":"udp","dst":"10.0.0.2","size":100,"count":1}]}`, "dport"},
		{`{"dev":"v0","flows":[{"proto":"udp","dst":"10.0.0.2","dport":1,"size":100,"count":0}]}`, "count"},
		{`{"dev":"v0","flows":[{"proto":"sctp","dst":"10.0.0.2","dport":1,"count":1}]}`, "proto"},
		{`{"dev":"v0","flows":[{"proto":"tcp-ack","dst":"10.0.0.2","sport":1,"dport":1,"count":1}]}`, "src is required"},
		{`{"dev":"v0","flows":[{"proto":"tcp-ack","src":"10.0.0.1","dst":"10.0.0.2","dport":1,"count":1}]}`, "sport"},
		{`{"dev":"v0","flows":[{"proto":"tcp-ack","src":"10.0.0.1","dst":"10.0.0.2","sport":1,"dport":1,"count":1,"size":60}]}`, "do not apply"},
		{`{"dev":"v0","flows":[{"proto":"tcp-ack","src":"10.0.0.1","dst":"10.0.0.2","sport":1,"dport":1,"count":1,"tcp":{"flags":"AX"}}]}`, "unknown TCP flag"},
		{`{"dev":"v0","flows":[{"proto":"tcp-ack","src":"10.0.0.1","dst":"10.0.0.2","sport":1,"dport":1,"count":1,"tcp":{"ts":true,"sack":[[1,2],[3,4],[5,6],[7,8]]}}]}`, "SACK"},
		{`{"dev":"v0","flows":[{"proto":"tcp-ack","src":"10.0.0.1","dst":"10.0.0.2","sport":1,"dport":1,"count":1,"tcp":{"payload":1500}}]}`, "payload"},
	} {
		_, err := ParsePlan([]byte(tc.plan))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s\n  error %v, want one containing %q", tc.plan, err, tc.want)
		}
	}
}

func TestSchedule(t *testing.T) {
	p := &Plan{Dev: "v0", Flows: []Flow{
		{Proto: ProtoUDP, Dst: "10.0.0.2", DPort: 1, Size: 100, Count: 5, Burst: 2, StartUS: 10, IntervalUS: 100},
		{Proto: ProtoUDP, Dst: "10.0.0.2", DPort: 2, Size: 100, Count: 2, StartUS: 110, IntervalUS: 100},
	}}
	got := p.Schedule()
	want := []Slot{
		{10_000, 0, 0}, {10_000, 0, 1}, {110_000, 0, 2}, {110_000, 0, 3},
		{110_000, 1, 0}, {210_000, 0, 4}, {210_000, 1, 1},
	}
	if len(got) != len(want) {
		t.Fatalf("Schedule = %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("slot %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestTCPFlags(t *testing.T) {
	for s, want := range map[string]uint16{"": 0x10, "A": 0x10, "pa": 0x18, "AEC": 0xd0, "AN": 0x110, "FSRPAUEC": 0xff} {
		got, err := ParseTCPFlags(s)
		if err != nil || got != want {
			t.Errorf("ParseTCPFlags(%q) = %#x, %v; want %#x", s, got, err, want)
		}
	}
}

func TestDryRun(t *testing.T) {
	p, err := ParsePlan([]byte(mixedPlan))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := DryRun(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 20 {
		t.Fatalf("%d records", len(recs))
	}
	// Flow 0 cycles DSCP and ECN together.
	var combos []uint8
	for _, r := range recs {
		if r.Flow == 0 {
			combos = append(combos, r.DSCP<<2|r.ECN)
		}
	}
	if want := []uint8{0, 46<<2 | 1, 10<<2 | 2, 1<<2 | 3, 0, 46<<2 | 1, 10<<2 | 2, 1<<2 | 3}; string(combos) != string(want) {
		t.Errorf("flow 0 DS bytes %v, want %v", combos, want)
	}
	for _, r := range recs {
		switch r.Flow {
		case 0:
			if r.Len != 214 || r.Payload != 172 || r.Tag != r.I || !r.L4Hash || r.GSOSegs != 0 {
				t.Errorf("udp record %+v", r)
			}
		case 1:
			// 8 segments of 1000-28 bytes behind one set of headers.
			if r.Len != 14+28+8*972 || r.GSOSegs != 8 || r.GSOSize != 972 || r.HdrLen != 42 || r.Segs() != 8 {
				t.Errorf("gso record %+v", r)
			}
		case 2:
			// 20 IP + 20 TCP + 12 timestamps + 12 one-block SACK.
			if r.Len != 14+20+20+12+12 || r.Proto != 6 || r.Priority != 7 || r.Mark != 3 || r.IPID != uint16(r.I) {
				t.Errorf("tcp record %+v", r)
			}
			k := uint32(r.K)
			tc := r.TCP
			if tc.Flags != 0x10 || tc.Ack != 1000+1448*k || tc.TSVal != 100+k || tc.TSEcr != 7 ||
				len(tc.SACK) != 1 || tc.SACK[0] != [2]uint32{tc.Ack + 1448, tc.Ack + 2896} {
				t.Errorf("tcp fields %+v", tc)
			}
		}
	}
	if recs[4].Flow != 1 || recs[4].T != 300_000 || recs[5].T != 300_000 {
		t.Errorf("GSO burst at %d, %d", recs[4].T, recs[5].T)
	}
}
