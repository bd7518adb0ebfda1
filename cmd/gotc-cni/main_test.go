// SPDX-License-Identifier: Apache-2.0

//go:build linux

package main

import "testing"

// TestIfbName: the bandwidth plugin's name for a network and container,
// the start of the SHA-512 of their concatenation.
func TestIfbName(t *testing.T) {
	// sha512sum of "net1c1" begins c2d892b58e87.
	if got := ifbName("net1", "c1"); got != "bwpc2d892b58e87" {
		t.Errorf("ifbName = %q, want bwpc2d892b58e87", got)
	}
	if ifbName("net1", "c1") == ifbName("net1", "c2") {
		t.Errorf("two containers, one name")
	}
}
