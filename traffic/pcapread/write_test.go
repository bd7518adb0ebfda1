// SPDX-License-Identifier: Apache-2.0

package pcapread_test

import (
	"bytes"
	"strconv"
	"testing"
	"time"

	"github.com/gotc/gotc/traffic"
	"github.com/gotc/gotc/traffic/pcapread"
)

// TestWriterRoundTrip writes frames, a GSO super-frame longer than the
// MTU among them, whole and snapped to their headers, and reads them back
// as the replay does: same order, true lengths, and nanosecond times.
func TestWriterRoundTrip(t *testing.T) {
	for _, snap := range []int{0, 96} {
		t.Run(strconv.Itoa(snap), func(t *testing.T) { roundTrip(t, snap) })
	}
}

func roundTrip(t *testing.T, snap int) {
	frame := func(payload int) []byte {
		b := make([]byte, 14+20+8+payload)
		copy(b[0:6], []byte{2, 0, 0, 0, 0, 2})
		copy(b[6:12], []byte{2, 0, 0, 0, 0, 1})
		b[12], b[13] = 0x08, 0x00
		ip := b[14:]
		ip[0] = 0x45
		l := 20 + 8 + payload
		ip[2], ip[3] = byte(l>>8), byte(l)
		ip[8], ip[9] = 64, 17
		copy(ip[12:16], []byte{10, 10, 10, 1})
		copy(ip[16:20], []byte{10, 10, 10, 2})
		udp := ip[20:]
		udp[0], udp[1], udp[2], udp[3] = 0x30, 0x39, 0x30, 0x3a
		udp[4], udp[5] = byte((8+payload)>>8), byte(8+payload)
		return b
	}
	t0 := time.Unix(1700000000, 123456789)
	frames := [][]byte{frame(100), frame(8000), frame(1400)}
	var buf bytes.Buffer
	w, err := pcapread.NewWriter(&buf, snap)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range frames {
		if err := w.Write(t0.Add(time.Duration(i)*1001*time.Nanosecond), f); err != nil {
			t.Fatal(err)
		}
	}
	recs, err := traffic.ReadPcap(buf.Bytes(), traffic.PcapOptions{MTU: 1500})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(frames) {
		t.Fatalf("read %d records, wrote %d", len(recs), len(frames))
	}
	for i, r := range recs {
		if r.T != t0.UnixNano()+int64(i)*1001 {
			t.Errorf("record %d at %d ns, want %d", i, r.T, t0.UnixNano()+int64(i)*1001)
		}
		if want := len(frames[i]); r.Len != want {
			t.Errorf("record %d: %d bytes, want %d", i, r.Len, want)
		}
	}
	if size := buf.Len(); snap > 0 && size > 24+3*(16+snap) {
		t.Errorf("snapped to %d bytes, the file is %d bytes", snap, size)
	}
	if recs[1].Segs() < 2 {
		t.Errorf("the 8000-byte frame is %d segment(s), want GSO", recs[1].Segs())
	}
}
