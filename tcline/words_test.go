// SPDX-License-Identifier: Apache-2.0

package tcline

import (
	"slices"
	"strings"
	"testing"
)

// TestSplitWords: words as tc 7.3's makeargs splits them (checked
// against it in the test bed's difftest, through tc -batch).
func TestSplitWords(t *testing.T) {
	for line, want := range map[string][]string{
		"qdisc add dev \"my dev\" root cake\n": {"qdisc", "add", "dev", "my dev", "root", "cake"},
		"\t a  b\r\n":                          {"a", "b"},
		"c\"ake\" 'x y'z \"\" #":               {"c\"ake\"", "x y", "z", "", "#"},
		"\"ca\"ke":                             {"ca", "ke"},
		"":                                     {},
	} {
		got, err := SplitWords(line)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("SplitWords(%q) = %q, %v; want %q", line, got, err, want)
		}
	}
	for line, want := range map[string]string{
		`qdisc "open`:                  "Unterminated quoted string",
		"'a":                           "Unterminated quoted string",
		strings.Repeat("w ", maxWords): "Too many arguments to command",
	} {
		if _, err := SplitWords(line); err == nil || err.Error() != want {
			t.Errorf("SplitWords(%.20q): %v, want %q", line, err, want)
		}
	}
	if got, err := SplitWords(strings.Repeat("w ", maxWords-1)); err != nil || len(got) != maxWords-1 {
		t.Errorf("%d words: %d, %v", maxWords-1, len(got), err)
	}
}

// TestJoinWords: what JoinWords writes, SplitWords reads back.
func TestJoinWords(t *testing.T) {
	for _, tt := range []struct {
		words []string
		line  string
	}{
		{[]string{"bpf", "bytecode", "1,6 0 0 0", "classid", "1:1"}, "bpf bytecode '1,6 0 0 0' classid 1:1"},
		{[]string{"match", "u32(u16 0x1122 0xffff at 0)"}, "match 'u32(u16 0x1122 0xffff at 0)'"},
		{[]string{"it's here", "", `"q`, "a'b"}, `"it's here" '' '"q' a'b`},
		{nil, ""},
	} {
		line := JoinWords(tt.words)
		if line != tt.line {
			t.Errorf("JoinWords(%q) = %q, want %q", tt.words, line, tt.line)
		}
		if back, err := SplitWords(line); err != nil || !slices.Equal(back, tt.words) && len(tt.words) > 0 {
			t.Errorf("SplitWords(%q) = %q, %v; want %q", line, back, err, tt.words)
		}
	}
}
