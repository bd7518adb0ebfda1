// SPDX-License-Identifier: Apache-2.0

package predict

import "github.com/gotc/gotc/traffic"

// KernelTruesize is skb->truesize of the traffic tool's sends on an x86-64
// kernel with 64-byte cache lines (sizeof(struct sk_buff) aligned to 256,
// skb_shared_info to 320, MAX_TCP_HEADER 320), as measured in the test VM
// (kernel 7.2.13) by selftests/model-tests/calibrate-truesize.sh, one
// packet at a time through cake and dualpi2 on a veth:
//
//   - a linear skb's head comes from __alloc_skb: SKB_DATA_ALIGN(alloc) +
//     320 bytes, from the 704-byte small-head cache when that fits, else
//     from the 1024, 2048 or 4096-byte kmalloc bucket; truesize is that
//     size plus 256. A connected UDP socket allocates the IP length plus
//     LL_RESERVED_SPACE (16) plus 15; a packet socket (tcp-ack flows) the
//     frame plus 16. Measured: UDP len 42..364 → 960, 414..614 → 1280,
//     714..1514 → 2304; tcp-ack len 54..178 → 960, 554..578 → 1280,
//     1054..1478 → 2304.
//   - a UDP_SEGMENT super-packet is a small head plus page fragments:
//     960 + its payload (2..16 segments of 172..1472 bytes all fit);
//     each segment skb_segment cuts from it is 960 + gso_size.
//
// Another kernel, architecture or slab configuration needs its own
// calibration (ConstTruesize, or a Truesize of its own).
func KernelTruesize(r *traffic.Record) (truesize, segTruesize uint32) {
	if r.GSOSegs > 1 {
		return 960 + uint32(r.Payload), 960 + uint32(r.GSOSize)
	}
	alloc := r.Len + 16 // a packet socket: LL_RESERVED_SPACE plus the frame
	if r.Proto == 17 {
		// ip_append_data: the IP packet (len less the Ethernet header)
		// plus hh_len (16) plus 15 bytes of alignment slack.
		alloc = r.Len - 14 + 16 + 15
	}
	return headTruesize(alloc), 0
}

// headTruesize is the truesize of a linear skb whose __alloc_skb asked for
// size bytes.
func headTruesize(size int) uint32 {
	const skbAligned, shinfo = 256, 320
	a := (size+63)&^63 + shinfo
	switch {
	case a <= 704: // skb_small_head_cache
		return 704 + skbAligned
	case a <= 1024:
		return 1024 + skbAligned
	case a <= 2048:
		return 2048 + skbAligned
	case a <= 4096:
		return 4096 + skbAligned
	}
	// Larger heads are kmalloc'ed in powers of two.
	n := 8192
	for n < a {
		n *= 2
	}
	return uint32(n + skbAligned)
}
