// SPDX-License-Identifier: Apache-2.0

package main

import "testing"

// TestMaskIndex: action indexes, where tc -d prints them, compare equal
// whatever the kernel numbered them; everything else stays.
func TestMaskIndex(t *testing.T) {
	for in, want := range map[string]string{
		"\t index 42 ref 1 bind 1":                                   "\t index N ref 1 bind 1",
		"\taction order 1:  police 0x3 rate 0bit burst":              "\taction order 1:  police 0xN rate 0bit burst",
		"filter protocol ip pref 1 u32 chain 0 fh 800: ht divisor 1": "filter protocol ip pref 1 u32 chain 0 fh 800: ht divisor 1",
	} {
		if got := maskIndex(in); got != want {
			t.Errorf("maskIndex(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestShares: an action bound twice, or held by a standalone reference
// too, is one a device's file cannot say.
func TestShares(t *testing.T) {
	for text, want := range map[string]bool{
		"\t index 1 ref 1 bind 1":                           false,
		"\t index 1 ref 2 bind 2 dscp 0xfc000000":           true,
		"\t index 1 ref 2 bind 1":                           true,
		"\t index 1 ref 1 bind 1\n\t index 2 ref 11 bind 1": true,
	} {
		if got := shares(text); got != want {
			t.Errorf("shares(%q) = %v, want %v", text, got, want)
		}
	}
}
