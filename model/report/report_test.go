// SPDX-License-Identifier: Apache-2.0

package report

import (
	"bytes"
	"encoding/binary"
	"flag"
	"image/png"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/model/predict"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tckind"
	"github.com/gotc/gotc/tcline"
	"github.com/gotc/gotc/traffic"
	_ "github.com/gotc/gotc/traffic/pcapread" // sets traffic.OpenCapture
)

var update = flag.Bool("update", false, "rewrite testdata/uplink.pcap")

// ipv4Frame is an Ethernet/IPv4 frame of protocol proto (UDP or ICMP)
// carrying an l4 header and n bytes of payload.
func ipv4Frame(proto, dsfield uint8, src, dst string, sport, dport uint16, n int) []byte {
	l4 := make([]byte, 8+n)
	if proto == 17 {
		binary.BigEndian.PutUint16(l4, sport)
		binary.BigEndian.PutUint16(l4[2:], dport)
		binary.BigEndian.PutUint16(l4[4:], uint16(len(l4)))
	} else {
		l4[0] = 8 // echo request
	}
	f := make([]byte, 14+20, 14+20+len(l4))
	f[12], f[13] = 0x08, 0x00
	ip := f[14:]
	ip[0], ip[1], ip[8], ip[9] = 0x45, dsfield, 64, proto
	binary.BigEndian.PutUint16(ip[2:], uint16(20+len(l4)))
	a, b := netip.MustParseAddr(src).As4(), netip.MustParseAddr(dst).As4()
	copy(ip[12:], a[:])
	copy(ip[16:], b[:])
	return append(f, l4...)
}

// uplink is a capture of an uplink busy for 400 ms: four TCP uploads at
// 8 Mbit/s each (1448-byte segments, the first two ECN-capable), their
// flows' ACKs of a download, a 20 ms voice call marked EF, and a ping
// every 10 ms. Snapped at 80 bytes, as "tcpdump -s 80" keeps it small.
func uplink(t testing.TB) []byte {
	type pkt struct {
		at    time.Duration
		frame []byte
	}
	var pkts []pkt
	mac := []byte{2, 0, 0, 0, 0, 1}
	for f := range 4 {
		ds := uint8(0)
		if f < 2 {
			ds = 2 // ECT(0)
		}
		every := 1448 * 8 * time.Second / 8e6
		for i := 0; time.Duration(i)*every < 400*time.Millisecond; i++ {
			h := traffic.TCPFields{Flags: 0x10, Seq: uint32(1 + 1448*i), Ack: 1, Window: 1000, HasTS: true, TSVal: uint32(i)}
			fr, err := traffic.BuildTCPFrame(traffic.FrameSpec{SrcMAC: mac, DstMAC: mac, Src: netip.MustParseAddr("192.168.1.10"),
				Dst: netip.MustParseAddr("203.0.113.5"), SPort: uint16(50000 + f), DPort: 443, DSField: ds, Payload: 1448}, &h)
			if err != nil {
				t.Fatal(err)
			}
			pkts = append(pkts, pkt{time.Duration(i)*every + time.Duration(f)*300*time.Microsecond, fr})
		}
	}
	for i := 0; i < 400; i += 2 {
		h := traffic.TCPFields{Flags: 0x10, Seq: 1, Ack: uint32(1 + 2*1448*i), Window: 2000, HasTS: true, TSVal: uint32(i)}
		fr, _ := traffic.BuildTCPFrame(traffic.FrameSpec{SrcMAC: mac, DstMAC: mac, Src: netip.MustParseAddr("192.168.1.10"),
			Dst: netip.MustParseAddr("198.51.100.9"), SPort: 40000, DPort: 443}, &h)
		pkts = append(pkts, pkt{time.Duration(i) * time.Millisecond, fr})
	}
	for i := 0; i < 400; i += 20 {
		pkts = append(pkts, pkt{time.Duration(i)*time.Millisecond + 5*time.Millisecond,
			ipv4Frame(17, 46<<2, "192.168.1.10", "198.51.100.20", 16384, 16384, 160)})
	}
	for i := 0; i < 400; i += 10 {
		pkts = append(pkts, pkt{time.Duration(i)*time.Millisecond + 3*time.Millisecond,
			ipv4Frame(1, 0, "192.168.1.10", "8.8.8.8", 0, 0, 56)})
	}
	var b bytes.Buffer
	w := pcapgo.NewWriterNanos(&b)
	if err := w.WriteFileHeader(80, layers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	start := time.Unix(1_733_300_000, 0)
	for _, p := range pkts {
		ci := gopacket.CaptureInfo{Timestamp: start.Add(p.at), CaptureLength: min(80, len(p.frame)), Length: len(p.frame)}
		if err := w.WritePacket(ci, p.frame[:ci.CaptureLength]); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

// TestUplinkCapture keeps testdata/uplink.pcap (the README's example) what
// uplink makes; go test -update rewrites it.
func TestUplinkCapture(t *testing.T) {
	b := uplink(t)
	if *update {
		if err := os.WriteFile("testdata/uplink.pcap", b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old, err := os.ReadFile("testdata/uplink.pcap")
	if err != nil || !bytes.Equal(old, b) {
		t.Fatalf("testdata/uplink.pcap is not what uplink makes (%v): go test -update", err)
	}
}

// run runs a qdisc given in tc's words over the uplink capture.
func run(t *testing.T, rate uint64, words ...string) ([]traffic.Record, *predict.Result) {
	t.Helper()
	trace, err := traffic.ReadPcap(uplink(t), traffic.PcapOptions{})
	if err != nil {
		t.Fatal(err)
	}
	opts, err := tcline.ParseKindOptions(netlink.Qdisc, words[0], words[1:], tckind.ParseEnv{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := predict.Run(predict.Config{Kind: words[0], Options: opts, Rate: rate}, trace)
	if err != nil {
		t.Fatal(err)
	}
	return trace, res
}

func TestCakeReport(t *testing.T) {
	trace, res := run(t, 0, "cake", "bandwidth", "20mbit", "diffserv4")
	r := New("cake", trace, res)
	b := res.Attrs.Stats2.Basic
	q := res.Attrs.Stats2.Queue
	if r.Total.Packets != len(trace) || r.Total.Sent != int(b.Packets) || r.Total.Drops != int(q.Drops) {
		t.Errorf("total %+v; qdisc sent %d dropped %d of %d", r.Total, b.Packets, q.Drops, len(trace))
	}
	if len(r.Queues) != 4 || r.Queues[3].Name != "Voice" || r.Queues[1].Name != "Best Effort" {
		t.Fatalf("queues %+v", r.Queues)
	}
	tins := res.Attrs.Stats2.App.(*attrs.CakeStatsAttrs).TinStats
	sum := Group{}
	for i, g := range r.Queues {
		if g.Marks != int(*tins[i].ECNMarkedPackets) || g.Drops != int(*tins[i].DroppedPackets) {
			t.Errorf("%s: %+v, tin counters %d marks %d drops", g.Name, g, *tins[i].ECNMarkedPackets, *tins[i].DroppedPackets)
		}
		if d := g.Delay; d.P50 > d.P95 || d.P95 > d.P99 || d.P99 > d.Max {
			t.Errorf("%s: percentiles out of order %+v", g.Name, d)
		}
		sum.Packets += g.Packets
		sum.Sent += g.Sent
	}
	if sum.Packets != r.Total.Packets || sum.Sent != r.Total.Sent {
		t.Errorf("queues add up to %+v, total %+v", sum, r.Total)
	}
	// 32 Mbit/s of uploads into 20 Mbit/s, from senders that do not slow
	// down: the bulk queues for a long while and is dropped (not-ECT) or
	// marked (ECT); the voice call (Voice tin) and the pings and ACKs
	// (sparse flows in Best Effort) pass almost at once.
	voice, be := r.Queues[3], r.Queues[1]
	if voice.Sent != 20 || voice.Delay.Max > 2 || be.Drops == 0 || be.Marks == 0 {
		t.Errorf("voice %+v, best effort %+v", voice, be)
	}
	var bulk, ping Group
	for _, c := range r.Classes {
		switch c.Name {
		case "TCP data":
			bulk = c
		case "ICMP":
			ping = c
		}
	}
	if ping.Sent != 40 || ping.Delay.P99 > 2 || bulk.Delay.P50 < 50 {
		t.Errorf("ping %+v, bulk %+v", ping, bulk)
	}
	if r.Total.Throughput > 20.5e6 || r.Total.Throughput < 15e6 {
		t.Errorf("throughput %.0f bit/s through a 20 Mbit/s shaper", r.Total.Throughput)
	}
	if len(r.Flows) != 7 || r.Flows[0].Class != "TCP data" || r.Flows[6].Name != "icmp 192.168.1.10 > 8.8.8.8" {
		t.Errorf("flows %+v", r.Flows)
	}
	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cake over 0.", "queue", "Voice", "TCP ACK", "udp 192.168.1.10.16384 > 198.51.100.20.16384"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
}

func TestDualPI2Report(t *testing.T) {
	trace, res := run(t, 20e6/8, "dualpi2")
	r := New("dualpi2", trace, res)
	if len(r.Queues) != 2 || r.Queues[0].Name != "C" || r.Queues[1].Name != "L" {
		t.Fatalf("queues %+v", r.Queues)
	}
	// Nothing is ECT(1): the L queue stays empty. The C queue's senders
	// do not respond to its drops, so it stays above PI2's 15 ms target.
	if r.Queues[1].Packets != 0 || r.Queues[0].Drops == 0 || r.Queues[0].Delay.P50 < 15 {
		t.Errorf("queues %+v", r.Queues)
	}
}

// TestPlots draws both pictures and checks that the PNG is 800 pixels
// wide and not blank, and that the SVG names its axes and legend.
func TestPlots(t *testing.T) {
	trace, res := run(t, 0, "cake", "bandwidth", "20mbit", "diffserv4")
	r := New("cake", trace, res)
	dir := t.TempDir()
	pngPath, svgPath := filepath.Join(dir, "r.png"), filepath.Join(dir, "r.svg")
	if err := r.Plot(pngPath); err != nil {
		t.Fatal(err)
	}
	if err := r.Plot(svgPath); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(pngPath)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if w := img.Bounds().Dx(); w != 800 {
		t.Errorf("PNG %d pixels wide", w)
	}
	colours := map[uint32]bool{}
	for y := 0; y < img.Bounds().Dy(); y += 3 {
		for x := 0; x < img.Bounds().Dx(); x += 3 {
			r, g, b, _ := img.At(x, y).RGBA()
			colours[r>>8<<16|g>>8<<8|b>>8] = true
		}
	}
	if len(colours) < 8 {
		t.Errorf("PNG of %d colours", len(colours))
	}
	svg, _ := os.ReadFile(svgPath)
	for _, want := range []string{"queueing delay (ms, log scale)", "time since the first packet (s)", "fraction of delivered packets", "Voice", "TCP data"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	sw := &Sweep{Kind: "cake", Param: "bandwidth", Unit: "mbit"}
	for _, bw := range []string{"10", "20", "40"} {
		trace, res := run(t, 0, "cake", "bandwidth", bw+"mbit", "diffserv4")
		sw.Add(bw+"mbit", float64(len(bw)), New("cake", trace, res))
	}
	if err := sw.Plot(filepath.Join(dir, "s.svg"), "p99"); err != nil {
		t.Fatal(err)
	}
	svg, _ = os.ReadFile(filepath.Join(dir, "s.svg"))
	if !bytes.Contains(svg, []byte("bandwidth (mbit)")) || !bytes.Contains(svg, []byte("p99 delay (ms, log scale)")) {
		t.Errorf("sweep SVG lacks its axis labels")
	}
	if err := sw.Plot(filepath.Join(dir, "s.gif"), "p99"); err == nil || !strings.Contains(err.Error(), ".svg or .png") {
		t.Errorf("a .gif plot: %v", err)
	}
}

func TestSweepWords(t *testing.T) {
	rng, err := ParseRange("5mbit", "50mbit", "10")
	if err != nil {
		t.Fatal(err)
	}
	xs, ws := rng.Values()
	if len(ws) != 10 || ws[0] != "5mbit" || ws[1] != "10mbit" || ws[9] != "50mbit" || xs[9] != 50 {
		t.Errorf("values %v %v", xs, ws)
	}
	if _, ws := (Range{From: 1, To: 2, Steps: 4, Unit: "ms"}).Values(); ws[1] != "1.333ms" {
		t.Errorf("fractions %v", ws)
	}
	for _, bad := range [][3]string{{"5mbit", "50kbit", "3"}, {"x", "5", "3"}, {"1", "5", "1"}, {"-1", "5", "3"}} {
		if _, err := ParseRange(bad[0], bad[1], bad[2]); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	if got := SetWord([]string{"bandwidth", "5mbit", "diffserv4"}, "bandwidth", "9mbit"); strings.Join(got, " ") != "bandwidth 9mbit diffserv4" {
		t.Errorf("replaced: %v", got)
	}
	if got := SetWord([]string{"diffserv4"}, "rtt", "20ms"); strings.Join(got, " ") != "diffserv4 rtt 20ms" {
		t.Errorf("added: %v", got)
	}
}
