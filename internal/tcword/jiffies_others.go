// SPDX-License-Identifier: Apache-2.0

//go:build !linux

package tcword

// readKernelHZ gives Linux's most common HZ where there is no Linux
// kernel to ask (gotc builds everywhere, and speaks netlink only on Linux).
func readKernelHZ() uint64 { return defaultHZ }
