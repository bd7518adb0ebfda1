// SPDX-License-Identifier: Apache-2.0

package action

// Word readers that several action kinds share: tc's NEXT_ARG, matches()
// over a list of keywords, a MAC address as sscanf reads one, and a
// refusal followed by the kind's usage.

import (
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
)

// withUsage is a kind's refusal after which tc prints its usage (explain)
// and parse_action its own lines.
func withUsage(msg, usage string) *tcword.ParseError {
	return tcword.Errorf("%s\n%s", msg, usage)
}

// nextArg is tc's NEXT_ARG on a position.
func nextArg(a *[]string) error {
	*a = (*a)[1:]
	if len(*a) == 0 {
		return tcword.IncompleteCommand()
	}
	return nil
}

// matchesAny reports whether w abbreviates any of keywords, as tc's
// matches() takes a keyword.
func matchesAny(w string, keywords []string) bool {
	for _, k := range keywords {
		if tcfmt.Matches(w, k) {
			return true
		}
	}
	return false
}

// scanMAC reads six hex bytes between colons as sscanf's
// "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx" does: each part as strtoul reads it
// (blanks, a sign and "0x" allowed, the value cut to a byte), what follows
// the sixth ignored.
func scanMAC(s string) ([]byte, bool) {
	mac := make([]byte, 6)
	for i := range mac {
		if i > 0 {
			if s == "" || s[0] != ':' {
				return nil, false
			}
			s = s[1:]
		}
		v, n, _ := tcfmt.Strtoul(s, 16)
		if n == 0 {
			return nil, false
		}
		mac[i] = byte(v)
		s = s[n:]
	}
	return mac, true
}
