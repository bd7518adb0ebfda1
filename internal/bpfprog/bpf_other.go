// SPDX-License-Identifier: Apache-2.0

//go:build !linux

package bpfprog

import "syscall"

// bpfObjPinned fails where there is no bpf(2).
func bpfObjPinned(string) (int, error) { return -1, syscall.ENOSYS }

// bpfProgInfoByID finds nothing where there is no bpf(2).
func bpfProgInfoByID(uint32) (bpfProgInfo, bool) { return bpfProgInfo{}, false }
