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
