// SPDX-License-Identifier: Apache-2.0

package cake

import (
	"slices"
	"testing"

	"github.com/gotc/gotc/attrs"
)

// TestNICLineRateAndBQL offers five 1514-byte frames at once to unshaped
// CAKE above a 1 Gbit/s NIC with a 3000-byte BQL limit: the qdisc gives
// the NIC two frames (the second overshoots the limit and stops the
// queue), then one per completion, each frame leaving 1538 bytes' time
// (12,304 ns) after the one before.
func TestNICLineRateAndBQL(t *testing.T) {
	q := mustNew(t, attrs.CakeAttrs{})
	var took, sent []int64
	nic := &NIC{Rate: 125_000_000, Limit: 3000, Sent: func(now int64, p *Packet) { sent = append(sent, now-t0) }}
	d := Driver{Q: q, Link: Link{NIC: nic, Deliver: func(now int64, p *Packet) { took = append(took, now-t0) }}}
	for range 5 {
		p := udp4(ip4(10, 0, 0, 1), ip4(10, 0, 0, 2), 1, 2, 1500)
		d.Send(t0, &p)
	}
	if nic.Inflight() != 2*1514 || q.Qlen() != 3 {
		t.Fatalf("after the burst: %d bytes in the NIC, %d packets in the qdisc", nic.Inflight(), q.Qlen())
	}
	const frame = 12304
	if w, ok := d.Next(); !ok || w != t0+frame {
		t.Fatalf("next event %d %v, want the first completion at %d", w-t0, ok, frame)
	}
	d.AdvanceTo(t0 + 10*frame)
	if want := []int64{0, 0, frame, 2 * frame, 3 * frame}; !slices.Equal(took, want) {
		t.Errorf("dequeued at %v, want %v", took, want)
	}
	if want := []int64{frame, 2 * frame, 3 * frame, 4 * frame, 5 * frame}; !slices.Equal(sent, want) {
		t.Errorf("sent at %v, want %v", sent, want)
	}
	if nic.Inflight() != 0 || q.Qlen() != 0 {
		t.Errorf("after draining: %d bytes in the NIC, %d packets in the qdisc", nic.Inflight(), q.Qlen())
	}
}

// TestNICGSOUnit checks that a GSO super-packet enters the NIC whole
// (unsplit CAKE hands it over as one), counted for BQL with every
// segment's headers, and leaves when its last segment has: 4 frames of
// 1448 bytes' payload and 54 of headers, each with Ethernet's 24 more.
func TestNICGSOUnit(t *testing.T) {
	q := mustNew(t, attrs.CakeAttrs{SplitGSO: p32(0)})
	var sent []int64
	nic := &NIC{Rate: 125_000_000, Limit: 100_000, Sent: func(now int64, p *Packet) { sent = append(sent, now-t0) }}
	d := Driver{Q: q, Link: Link{NIC: nic}}
	p := gso4(ip4(10, 0, 0, 1), ip4(10, 0, 0, 2), 1, 2, 4, 1448)
	d.Send(t0, &p)
	if got, want := nic.Inflight(), uint32(4*(1448+54)); got != want {
		t.Errorf("BQL counts %d bytes, want %d", got, want)
	}
	d.AdvanceTo(t0 + 1e6)
	if want := []int64{4 * (1448 + 54 + 24) * 8}; !slices.Equal(sent, want) {
		t.Errorf("sent at %v, want %v", sent, want)
	}
}
