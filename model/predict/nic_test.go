// SPDX-License-Identifier: Apache-2.0

package predict

import (
	"strings"
	"testing"
)

// TestNICOutcomes runs 1000-byte sends at 80 Mbit/s through unshaped CAKE
// above a 10 Mbit/s NIC with a 3000-byte BQL limit: the NIC is the
// bottleneck, so the qdisc holds the rest and every packet it does not
// drop leaves the wire in dequeue order, one frame time (1038 bytes at
// 1.25 MB/s) after the one before once the NIC is busy. Without the NIC
// the qdisc holds nothing.
func TestNICOutcomes(t *testing.T) {
	trace := overload(200)
	free, err := Run(Config{Kind: KindCake}, trace)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(Config{Kind: KindCake, NIC: &NIC{Rate: 1_250_000, BQL: 3000}}, trace)
	if err != nil {
		t.Fatal(err)
	}
	const frame = int64(1038 * 1e9 / 1_250_000)
	var held, sent int
	var last int64
	for _, o := range res.Outcomes {
		if o.Dropped {
			if o.Sent != 0 {
				t.Errorf("dropped packet %d sent at %d", o.I, o.Sent)
			}
			continue
		}
		if o.Done > o.Arrived {
			held++
		}
		if o.Sent == 0 {
			continue // still queued when the trace ended: none here
		}
		sent++
		if o.Sent < o.Done+frame {
			t.Errorf("packet %d left at %d, dequeued at %d: faster than the line", o.I, o.Sent, o.Done)
		}
		if last != 0 && o.Sent != last+frame {
			t.Errorf("packet %d left %d ns after the one before, want %d", o.I, o.Sent-last, frame)
		}
		last = o.Sent
	}
	for _, o := range free.Outcomes {
		if o.Done != o.Arrived || o.Sent != 0 {
			t.Fatalf("without a NIC: %+v", o)
		}
	}
	if held < 100 || sent < 100 {
		t.Errorf("%d packets held in the qdisc, %d sent", held, sent)
	}
	if _, err := Run(Config{Kind: KindDualPI2, NIC: &NIC{Rate: 1_250_000, BQL: 3000}}, trace); err == nil ||
		!strings.Contains(err.Error(), "NIC") {
		t.Errorf("dualpi2 with a NIC: %v", err)
	}
}
