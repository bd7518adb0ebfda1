// SPDX-License-Identifier: Apache-2.0

package action

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tckind"
)

// TestParseNat: directions, prefixes and their masks, verdicts, indexes.
func TestParseNat(t *testing.T) {
	for _, c := range []struct {
		args string
		want attrs.TCNAT
		rest string
	}{
		{"nat ingress 192.168.1.1 200.200.200.1", attrs.TCNAT{OldAddr: 0xc0a80101, NewAddr: 0xc8c8c801, Mask: 0xffffffff}, ""},
		{"nat egress 10.0.0.0/8 20.20.20.1 pipe index 10", attrs.TCNAT{Index: 10, Action: actPipe, OldAddr: 0x0a000000, NewAddr: 0x14141401, Mask: 0xff000000, Flags: natEgress}, ""},
		{"nat ingress 10.1.0.0/255.255.0.0 10.2.0.1/16 drop", attrs.TCNAT{Action: actShot, OldAddr: 0x0a010000, NewAddr: 0x0a020001, Mask: 0xffff0000}, ""},
		{"nat e default 1.2.3.4 action drop", attrs.TCNAT{OldAddr: 0, NewAddr: 0x01020304, Flags: natEgress}, "action drop"},
		{"nat index 7", attrs.TCNAT{Index: 7}, ""},
	} {
		got, rest, err := parseNat(strings.Fields(c.args), tckind.ActionEnv{})
		if err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		if diff := cmp.Diff(&attrs.ActNATAttrs{Parms: &c.want}, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", c.args, diff)
		}
		if r := strings.Join(rest, " "); r != c.rest {
			t.Errorf("%q: rest %q, want %q", c.args, r, c.rest)
		}
	}
	for _, c := range []struct {
		args, msg string
		code      int
	}{
		{"nat ingress 1.1.1.1 1.1888.2.2", "Illegal nat construct (ingress)\nUsage: ... nat NAT", 1},
		{"nat sideways 1.1.1.1 2.2.2.2", "Illegal nat construct (sideways)", 1},
		{"nat ingress 1.1.1.1", "Command line is not complete", 255},
		{"nat ingress 1.1.1.1 2.2.2.2 index 4294967296", `Nat: Illegal "index"`, 1},
		// "help" after "nat" is read as a direction.
		{"nat help", "Illegal nat construct (help)", 1},
	} {
		_, _, err := parseNat(strings.Fields(c.args), tckind.ActionEnv{})
		pe, ok := err.(*tcword.ParseError)
		if !ok || !strings.HasPrefix(pe.Msg, c.msg) || pe.ExitCode() != c.code {
			t.Errorf("%q: %v, want %q exit %d", c.args, err, c.msg, c.code)
		}
	}
}
