// SPDX-License-Identifier: Apache-2.0

package tcword

import "testing"

// TestJiffiesDumped: values worked by hand from include/linux/jiffies.h
// (usecs_to_jiffies rounds up; jiffies_to_usecs multiplies back in an
// unsigned int) for the HZ choices of Kconfig.hz.
func TestJiffiesDumped(t *testing.T) {
	for _, tt := range []struct {
		us   uint32
		hz   uint64
		want uint32
	}{
		{15000, 250, 16000},     // pie's default tupdate at Debian's HZ: 4 ticks
		{15000, 1000, 15000},    // a whole number of 1 ms ticks
		{15000, 100, 20000},     // 2 ticks of 10 ms
		{15000, 300, 16666},     // 5 ticks of 3333.3 µs, truncated
		{40000, 250, 40000},     // fq's default refill delay
		{0, 250, 0},             // no time at all is no tick
		{1, 250, 4000},          // the least is a whole tick
		{4294967295, 250, 704},  // 1073742 ticks overflow the unsigned int
		{2000000000, 1000, 2e9}, // 2e6 ticks
	} {
		if got := jiffiesDumped(tt.us, tt.hz); got != tt.want {
			t.Errorf("%d µs at HZ %d dumps as %d, want %d", tt.us, tt.hz, got, tt.want)
		}
	}
}

// TestKernelHZ: the running kernel's tick is one of Kconfig's choices.
func TestKernelHZ(t *testing.T) {
	switch hz := KernelHZ(); hz {
	case 100, 250, 300, 1000:
	default:
		t.Errorf("KernelHZ %d is none of Kconfig's 100, 250, 300, 1000", hz)
	}
}
