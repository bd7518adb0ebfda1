// SPDX-License-Identifier: Apache-2.0

package dualpi2

import "math/rand/v2"

// Rand is the source of the kernel's get_random_u32 draws. The kernel's
// generator cannot be seeded, so a model run is compared with a kernel run
// through distributions, or through degenerate sources (Const) that make
// every draw decide the same way.
type Rand interface {
	Uint32() uint32
}

// Const is a Rand that always returns the same value: Const(0) makes every
// roll succeed (even at prob 0, as the kernel tests draw <= prob), and
// Const(math.MaxUint32) makes every roll fail unless prob is MaxProb.
type Const uint32

// Uint32 returns c.
func (c Const) Uint32() uint32 { return uint32(c) }

// pcgSource is the default generator. It is held by value in Qdisc and
// called directly, so the common case pays no interface call.
type pcgSource struct{ pcg rand.PCG }

func (s *pcgSource) uint32() uint32 { return uint32(s.pcg.Uint64() >> 32) }
