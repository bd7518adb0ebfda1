// SPDX-License-Identifier: Apache-2.0

package qdisc

import "github.com/gotc/gotc/internal/tcword"

// What codel and fq_codel share: the kernel keeps their times in units of
// 1.024 µs, so a dump gives back a time rounded down.

// codelDumped is a codel time in µs as the kernel keeps it (ns >> 10) and
// dumps it (back to µs, truncated).
func codelDumped(us uint32) uint32 {
	kept := uint64(us) * 1000 >> 10
	return uint32(kept << 10 / 1000)
}

// convertTimes converts a codel family's optional times by f, in place.
func convertTimes(f func(uint32) uint32, times ...**uint32) {
	for _, t := range times {
		*t = tcword.MapPtr(*t, f)
	}
}
