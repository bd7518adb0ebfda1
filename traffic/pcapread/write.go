// SPDX-License-Identifier: Apache-2.0

package pcapread

import (
	"io"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"
	"github.com/gotc/gotc/traffic"
)

// Writer writes Ethernet frames as a pcap file with nanosecond
// timestamps: what "gotc-traffic record" makes and Open reads back.
type Writer struct {
	w    *pcapgo.Writer
	snap int
}

// NewWriter writes the pcap file header to w. Each frame keeps at most
// snap bytes (0: traffic.RecordSnap, so that GSO super-packets fit whole),
// and its true length: a replay needs only the headers, as with
// "tcpdump -s 96", and a small capture is one that can be checked in.
func NewWriter(w io.Writer, snap int) (*Writer, error) {
	if snap <= 0 || snap > traffic.RecordSnap {
		snap = traffic.RecordSnap
	}
	pw := pcapgo.NewWriterNanos(w)
	if err := pw.WriteFileHeader(uint32(snap), layers.LinkTypeEthernet); err != nil {
		return nil, err
	}
	return &Writer{pw, snap}, nil
}

// Write appends frame, captured at t, cut to the snap length.
func (w *Writer) Write(t time.Time, frame []byte) error {
	kept := frame[:min(len(frame), w.snap)]
	return w.w.WritePacket(gopacket.CaptureInfo{Timestamp: t, CaptureLength: len(kept), Length: len(frame)}, kept)
}
