// SPDX-License-Identifier: Apache-2.0

//go:build !linux

package bpfobj

// Load fails where there is no bpf(2), with tc's message for a tc built
// without ELF support.
func Load(file, section, prog string, forAction bool) (int, error) {
	return -1, tcMessage("No ELF library support compiled in.")
}
