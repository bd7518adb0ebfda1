// SPDX-License-Identifier: Apache-2.0

package tckind

import (
	"math"
	"testing"
)

// Value reads the sign, then scales by the unit: fq's next packet delay is
// a signed count of nanoseconds.
func TestStatValue(t *testing.T) {
	neg := func(v int64) uint64 { return uint64(v) }
	for _, c := range []struct {
		name string
		s    Stat
		raw  uint64
		want float64
	}{
		{"count", Stat{}, 42, 42},
		{"u64 beyond int64", Stat{}, math.MaxUint64, math.MaxUint64},
		{"signed", Stat{Signed: true}, neg(-1514), -1514},
		{"microseconds", Stat{Unit: UnitMicroseconds}, 2500, 0.0025},
		{"signed nanoseconds", Stat{Signed: true, Unit: UnitNanoseconds}, neg(-2e9), -2},
		{"nanoseconds", Stat{Unit: UnitNanoseconds}, 3e9, 3},
		{"probability", Stat{Unit: UnitProbability}, math.MaxUint32, 1},
		{"probability64", Stat{Unit: UnitProbability64}, math.MaxUint64 / 4, 0.25},
		{"sfb probability", Stat{Unit: UnitSFBProbability}, SfbMaxProb / 5, 0.2},
	} {
		if got := c.s.Value(c.raw); math.Abs(got-c.want) > 1e-12*math.Max(1, math.Abs(c.want)) {
			t.Errorf("%s: Value(%d) = %v, want %v", c.name, c.raw, got, c.want)
		}
	}
}
