// SPDX-License-Identifier: Apache-2.0

package tcword

import "sync"

// Some kinds keep a time in jiffies (pie's and fq_pie's tupdate, hhf's
// timeouts, fq's refill delay): the kernel rounds the request's µs up to
// whole ticks of its HZ and dumps the ticks back in µs. HZ is a choice of
// the kernel's build (100, 250, 300 or 1000), not a constant of Linux.

// kernelHZ holds the running kernel's tick rate, read once.
var kernelHZ = sync.OnceValue(readKernelHZ)

// KernelHZ is the tick rate of the kernel gotc runs on.
func KernelHZ() uint64 { return kernelHZ() }

// JiffiesKept is a time in µs as the running kernel keeps it in jiffies
// and dumps it back (jiffiesDumped at KernelHZ).
func JiffiesKept(us uint32) uint32 { return jiffiesDumped(us, KernelHZ()) }

// jiffiesDumped is a time in µs as a kernel of hz keeps it in jiffies
// (usecs_to_jiffies, which rounds up) and dumps it back
// (jiffies_to_usecs, whose unsigned int wraps above 2^32 µs).
func jiffiesDumped(us uint32, hz uint64) uint32 {
	ticks := (uint64(us)*hz + 999_999) / 1_000_000
	return uint32(ticks * 1_000_000 / hz)
}

// defaultHZ is the tick rate of Debian's, Ubuntu's generic and most
// distributions' kernels, for where the running kernel cannot be asked.
const defaultHZ = 250
