// SPDX-License-Identifier: Apache-2.0

//go:build !linux

package main

import (
	"runtime"
	"time"
)

// The floors talk rtnetlink through raw sockets: Linux only.

func batchFloor([]string, int, bool) time.Duration {
	fail("the kernel floors are not supported on %s", runtime.GOOS)
	return 0
}

func dumpFloor(dumpWhat, int32, uint32) (time.Duration, int) {
	fail("the kernel floors are not supported on %s", runtime.GOOS)
	return 0, 0
}

func spawn(bool, []string, []string) result {
	fail("measuring processes is not supported on %s", runtime.GOOS)
	return result{}
}
