// SPDX-License-Identifier: Apache-2.0

package tdc

import "testing"

func TestSubstitute(t *testing.T) {
	vars := map[string]string{
		"TC": "/sbin/tc", "DEV1": "v0p1id1a2b", "DUMMY": "dummy1id1a2b",
		"ETH": "eth0", "_x": "under", "A1": "a-one", "EMPTY": "",
	}
	for _, tt := range []struct{ in, want string }{
		{"no dollar at all", "no dollar at all"},
		{"$TC qdisc show dev $DUMMY", "/sbin/tc qdisc show dev dummy1id1a2b"},
		{"${TC} -s qdisc ls dev ${ETH}", "/sbin/tc -s qdisc ls dev eth0"},
		// Unknown names stay as written, for the shell.
		{"echo $HOME ${PATH} $UNKNOWN_1", "echo $HOME ${PATH} $UNKNOWN_1"},
		// Greedy identifiers: $DEV1x is the unknown name DEV1x.
		{"$DEV1x ${DEV1}x", "$DEV1x v0p1id1a2bx"},
		// $$ escapes; $$TC is "$" followed by "TC".
		{"cost $$5 and $$TC", "cost $5 and $TC"},
		{"$$$TC", "$/sbin/tc"},
		// A "$" that starts no name is left alone.
		{"$ $1 $- ${ ${1} ${TC", "$ $1 $- ${ ${1} ${TC"},
		{"trailing $", "trailing $"},
		{"$_x$A1", "undera-one"},
		{"[$EMPTY]", "[]"},
		// Names are case-sensitive lookups.
		{"$tc", "$tc"},
		// Non-ASCII letters are not identifier characters.
		{"$TCé", "/sbin/tcé"},
	} {
		if got := Substitute(tt.in, vars); got != tt.want {
			t.Errorf("Substitute(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNormalize(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"  $TC   qdisc\tshow\n dev x ", "$TC qdisc show dev x"},
		{`echo "1  1   4"`, `echo "1 1 4"`},
		{"", ""},
	} {
		if got := Normalize(tt.in); got != tt.want {
			t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
