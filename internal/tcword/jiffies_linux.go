// SPDX-License-Identifier: Apache-2.0

package tcword

import "golang.org/x/sys/unix"

// readKernelHZ learns HZ from the resolution of the coarse clock, which
// Linux gives as one tick (TICK_NSEC, 10^9/HZ rounded) to every process:
// the kernel's build configuration is often not on the machine.
func readKernelHZ() uint64 {
	var res unix.Timespec
	if err := unix.ClockGetres(unix.CLOCK_MONOTONIC_COARSE, &res); err != nil || res.Sec != 0 || res.Nsec <= 0 {
		return defaultHZ
	}
	return uint64((1_000_000_000 + res.Nsec/2) / res.Nsec)
}
