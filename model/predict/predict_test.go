// SPDX-License-Identifier: Apache-2.0

package predict

import (
	"bufio"
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/traffic"
)

// TestKernelTruesizeCalibration checks KernelTruesize against every
// measurement of testdata/truesize-7.2.13.txt (the output of
// selftests/model-tests/calibrate-truesize.sh in the test VM): one send
// through a fresh qdisc, whose memory_used (cake) or max-memory-used
// (dualpi2) is then the truesize of the skb, or of all its segments when
// the qdisc split a GSO packet.
func TestKernelTruesizeCalibration(t *testing.T) {
	f, err := os.Open("testdata/truesize-7.2.13.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	line := regexp.MustCompile(`^CALIB (udp|udp dualpi2|tcp-ack|tcp-ack ts|gso split|gso nosplit|gso dualpi2) (?:segs=(\d+) )?\S+=(\d+) len=(\d+) (\d+|None) (\d+|None) \d+$`)
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			t.Fatalf("cannot read %q", sc.Text())
		}
		atoi := func(s string) int { v, _ := strconv.Atoi(s); return v }
		what, segs, size, l := m[1], atoi(m[2]), atoi(m[3]), atoi(m[4])
		want := atoi(m[5])
		if m[5] == "None" {
			want = atoi(m[6])
		}
		r := traffic.Record{Len: l, Proto: 17}
		if what == "tcp-ack" || what == "tcp-ack ts" {
			r.Proto = 6
		}
		if segs > 1 {
			r.GSOSegs, r.GSOSize = segs, size-28
			r.Payload = segs * r.GSOSize
		}
		whole, seg := KernelTruesize(&r)
		got := whole
		if what == "gso split" || what == "gso dualpi2" {
			got = seg * uint32(segs)
		}
		if int(got) != want {
			t.Errorf("%s: truesize %d, kernel %d", sc.Text(), got, want)
		}
		n++
	}
	if n < 60 {
		t.Fatalf("only %d measurements", n)
	}
}

// TestReplayRecordedRuns predicts the two kernel runs of traffic/testdata
// with the default calibration and checks the counters their dumps hold.
func TestReplayRecordedRuns(t *testing.T) {
	recs, err := traffic.ReadTraceFile("../../traffic/testdata/cake-diffserv3.trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	d3 := attrs.CakeDiffservMode(0) // CAKE_DIFFSERV_DIFFSERV3
	res, err := Run(Config{Kind: KindCake, Options: &attrs.CakeAttrs{DiffservMode: &d3}}, recs)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Attrs.Stats2
	c := s.App.(*attrs.CakeStatsAttrs)
	if s.Basic.Packets != 64 || s.Basic.Bytes != 7296 || *c.MemoryUsed != 960 {
		t.Errorf("cake: packets %d bytes %d memory_used %d, kernel 64 7296 960", s.Basic.Packets, s.Basic.Bytes, *c.MemoryUsed)
	}
	var tins []uint32
	for _, tin := range c.TinStats {
		tins = append(tins, *tin.SentPackets)
	}
	if len(tins) != 3 || tins[0] != 2 || tins[1] != 57 || tins[2] != 5 {
		t.Errorf("cake tins %v, kernel [2 57 5]", tins)
	}
	if res.Sends != 64 || res.Margins.Min() < SafeMargin {
		t.Errorf("sends %d, margins %v", res.Sends, res.Margins)
	}

	recs, err = traffic.ReadTraceFile("../../traffic/testdata/dualpi2-ecn.trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	res, err = Run(Config{Kind: KindDualPI2}, recs)
	if err != nil {
		t.Fatal(err)
	}
	x := res.Attrs.Stats2.App.(*attrs.TCDualPI2Xstats)
	if *res.Attrs.Xstats.(*attrs.TCDualPI2Xstats) != *x {
		t.Error("legacy xstats differ from TCA_STATS_APP")
	}
	// The dump of that run: 4 segments of 960+972 bytes queued together.
	if x.MaxMemoryUsed != 7728 || x.Prob != 0 || x.StepMarks != 0 || x.PacketsInL != 18 {
		t.Errorf("dualpi2 xstats %+v", *x)
	}
}
