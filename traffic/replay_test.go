// SPDX-License-Identifier: Apache-2.0

package traffic_test

import (
	"bytes"
	"flag"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/gopacket/layers"

	"github.com/gotc/gotc/traffic"
	_ "github.com/gotc/gotc/traffic/pcapread" // sets traffic.OpenCapture
)

var updateCaptures = flag.Bool("update", false, "rewrite selftests/model-tests/captures")

// capturesDir holds the captures the model-vs-kernel replay cases
// (selftests/model-tests/replay.json) send through the real qdiscs.
const capturesDir = "../selftests/model-tests/captures"

// Addresses of the replay captures: the test's DEV1 is 10.10.10.1/24, and
// no destination is an address of its peer, which drops them unanswered.
var (
	repSrc = "10.10.10.1"
	repDst = []string{"10.10.10.2", "10.10.10.3", "10.10.10.4", "10.10.10.5"}
)

func repTCP(t testing.TB, dst string, sport uint16, dsfield uint8, payload int, h traffic.TCPFields) []byte {
	f, err := traffic.BuildTCPFrame(traffic.FrameSpec{SrcMAC: traffic.MacA, DstMAC: traffic.MacB, Src: netip.MustParseAddr(repSrc),
		Dst: netip.MustParseAddr(dst), SPort: sport, DPort: 443, DSField: dsfield, Payload: payload}, &h)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func repIP(proto, dsfield uint8, dst string, sport, dport uint16, l4len int) []byte {
	l4 := make([]byte, l4len)
	s := traffic.FrameSpec{SrcMAC: traffic.MacA, DstMAC: traffic.MacB, Src: netip.MustParseAddr(repSrc), Dst: netip.MustParseAddr(dst), DSField: dsfield}
	if proto == traffic.IPProtoUDP {
		l4[0], l4[1], l4[2], l4[3] = byte(sport>>8), byte(sport), byte(dport>>8), byte(dport)
		l4[4], l4[5] = byte(l4len>>8), byte(l4len)
		return traffic.BuildIPFrame(s, proto, l4, 6)
	}
	l4[0] = 8 // ICMP echo request
	return traffic.BuildIPFrame(s, proto, l4, -1)
}

// replayCaptures are the replay cases' captures, by file name.
func replayCaptures(t testing.TB) map[string][]capPkt {
	caps := map[string][]capPkt{}
	// mixed: 64 packets 400 µs apart, UDP of every size class and many
	// DSCPs, each ECN codepoint, TCP data and ACKs, pings.
	dscps := []uint8{0, 8, 10, 46, 48, 56, 32, 4, 1, 24, 40, 18}
	var mixed []capPkt
	for k := range 64 {
		at := time.Duration(k) * 400 * time.Microsecond
		ds := dscps[k%len(dscps)]<<2 | uint8(k%4)
		var f []byte
		switch k % 4 {
		case 0, 1:
			f = repIP(traffic.IPProtoUDP, ds, repDst[k%3], uint16(4000+k%3), 5000, 8+[]int{80, 400, 1000, 1400}[k/4%4])
		case 2:
			f = repTCP(t, repDst[3], 40000, ds, 1448, traffic.TCPFields{Flags: 0x18, Seq: uint32(1 + 1448*k), Ack: 1, Window: 500,
				HasTS: true, TSVal: uint32(k)})
		default:
			if k%8 == 3 {
				f = repIP(1, ds, repDst[0], 0, 0, 64)
			} else {
				f = repTCP(t, repDst[3], 40001, ds, 0, traffic.TCPFields{Flags: 0x10, Seq: 1, Ack: uint32(1000 * k), Window: 500})
			}
		}
		mixed = append(mixed, capPkt{at: at, frame: f})
	}
	caps["mixed.pcap"] = mixed
	// bulk-ping: four TCP uploads' bursts of 6 full segments at once (a
	// sender with a full window), then a ping every 4 ms for 60 ms.
	var bp []capPkt
	for f := range 4 {
		for k := range 6 {
			bp = append(bp, capPkt{frame: repTCP(t, repDst[f], uint16(50000+f), 0, 1448,
				traffic.TCPFields{Flags: 0x10, Seq: uint32(1 + 1448*k), Ack: 1, Window: 500, HasTS: true, TSVal: 7})})
		}
	}
	for k := range 15 {
		bp = append(bp, capPkt{at: time.Duration(k)*4*time.Millisecond + time.Millisecond, frame: repIP(1, 0, repDst[0], 0, 0, 64)})
	}
	caps["bulk-ping.pcap"] = bp
	// ack-upload: a download's ACKs as an uploading host sends them, 24
	// back to back (a receive burst), SACK on some, and a data segment
	// of the host's own upload between them.
	var au []capPkt
	for k := range 24 {
		h := traffic.TCPFields{Flags: 0x10, Seq: 1, Ack: uint32(1 + 2896*(k+1)), Window: 1000, HasTS: true, TSVal: uint32(100 + k), TSEcr: 9}
		if k >= 12 && k < 16 {
			h.SACK = [][2]uint32{{h.Ack + 2896, h.Ack + 5792}}
		}
		au = append(au, capPkt{at: time.Duration(k) * 20 * time.Microsecond, frame: repTCP(t, repDst[1], 40100, 0, 0, h)})
		if k%8 == 7 {
			au = append(au, capPkt{at: time.Duration(k)*20*time.Microsecond + 10*time.Microsecond,
				frame: repTCP(t, repDst[2], 40200, 0, 1200, traffic.TCPFields{Flags: 0x18, Seq: uint32(1 + 1200*k), Ack: 1, Window: 500})})
		}
	}
	caps["ack-upload.pcap"] = au
	// Headers are all a replay needs: snapped, as "tcpdump -s 96" does.
	for _, pkts := range caps {
		for i := range pkts {
			pkts[i].snap = 96
		}
	}
	return caps
}

// TestReplayCaptures keeps the replay cases' captures what
// replayCaptures makes (go test -update rewrites them), and checks that a
// plan replaying each sends exactly the capture: the same packets, in
// the same order, at the same offsets.
func TestReplayCaptures(t *testing.T) {
	caps := replayCaptures(t)
	names := make([]string, 0, len(caps))
	for n := range caps {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		b := writePcap(t, layers.LinkTypeEthernet, caps[name])
		path := filepath.Join(capturesDir, name)
		if *updateCaptures {
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if old, err := os.ReadFile(path); err != nil || !bytes.Equal(old, b) {
			t.Errorf("%s is not what replayCaptures makes (%v): go test ./traffic -run ReplayCaptures -update", path, err)
			continue
		}
		plan, err := traffic.ParsePlan([]byte(`{"dev": "v0", "flows": [{"proto": "pcap", "pcap": "` + path + `", "start_us": 100, "priority": 7}]}`))
		if err != nil {
			t.Fatal(err)
		}
		recs, err := traffic.DryRun(plan)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := traffic.ReadPcap(b, traffic.PcapOptions{})
		if len(recs) != len(want) {
			t.Fatalf("%s: %d sends of %d packets", name, len(recs), len(want))
		}
		for i := range recs {
			r, w := recs[i], want[i]
			if r.T != 100_000+w.T-want[0].T || r.Len != w.Len || r.DSCP != w.DSCP || r.ECN != w.ECN || r.Proto != w.Proto ||
				r.Src != w.Src || r.Dst != w.Dst || r.SPort != w.SPort || r.DPort != w.DPort || r.Payload != w.Payload ||
				r.Priority != 7 || (w.TCP != nil && (r.TCP == nil || r.TCP.Ack != w.TCP.Ack || r.TCP.Flags != w.TCP.Flags ||
				r.TCP.TSVal != w.TCP.TSVal || !slices.Equal(r.TCP.SACK, w.TCP.SACK))) {
				t.Errorf("%s: send %d %+v, captured %+v", name, i, r, w)
			}
		}
	}
}

// TestReplayOtherOptions checks that a captured TCP header's options the
// sender does not write itself (here MSS and window scale on a SYN) are
// replayed as an option of the same room: the length and the ACK
// filter's view (other options present) stay the capture's.
func TestReplayOtherOptions(t *testing.T) {
	syn := repTCP(t, repDst[0], 1234, 0, 0, traffic.TCPFields{Flags: 0x02, Seq: 1, HasTS: true})
	// NOP NOP TS is 12 bytes; put MSS (4) and NOP+WS (4) after it.
	opts := []byte{2, 4, 5, 0xb4, 1, 3, 3, 7}
	f := append(append([]byte{}, syn...), opts...)
	f[14+2], f[14+3] = byte((len(f)-14)>>8), byte(len(f)-14) // IPv4 total length
	f[14+20+12] = byte((20+12+8)/4) << 4                     // TCP data offset
	path := filepath.Join(t.TempDir(), "syn.pcap")
	if err := os.WriteFile(path, writePcap(t, layers.LinkTypeEthernet, []capPkt{{frame: f}}), 0o644); err != nil {
		t.Fatal(err)
	}
	plan, err := traffic.ParsePlan([]byte(`{"dev": "v0", "flows": [{"proto": "pcap", "pcap": "` + path + `"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	recs, _ := traffic.DryRun(plan)
	if len(recs) != 1 || recs[0].Len != len(f) || recs[0].TCP == nil || !recs[0].TCP.OtherOpts || !recs[0].TCP.HasTS || recs[0].Payload != 0 {
		t.Errorf("replayed as %+v %+v", recs, recs[0].TCP)
	}
	// What a pcap flow refuses.
	for _, c := range []struct{ plan, want string }{
		{`{"proto": "pcap"}`, "needs pcap"},
		{`{"proto": "pcap", "pcap": "` + path + `", "dst": "10.0.0.1"}`, "only pcap, start_us"},
		{`{"proto": "udp", "pcap": "` + path + `", "dst": "10.0.0.1", "dport": 1, "size": 100, "count": 1}`, "only for proto"},
		{`{"proto": "pcap", "pcap": "/nonexistent.pcap"}`, "nonexistent"},
	} {
		if _, err := traffic.ParsePlan([]byte(`{"dev": "v0", "flows": [` + c.plan + `]}`)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.plan, err, c.want)
		}
	}
	big := filepath.Join(t.TempDir(), "big.pcap")
	os.WriteFile(big, writePcap(t, layers.LinkTypeEthernet, []capPkt{{frame: repTCP(t, repDst[0], 1, 0, 3000, traffic.TCPFields{Flags: 0x10})}}), 0o644)
	if _, err := traffic.ParsePlan([]byte(`{"dev": "v0", "flows": [{"proto": "pcap", "pcap": "` + big + `"}]}`)); err == nil ||
		!strings.Contains(err.Error(), "at most 1514") {
		t.Errorf("a GSO packet in a replay: %v", err)
	}
}
