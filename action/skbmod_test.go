// SPDX-License-Identifier: Apache-2.0

package action

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tckind"
)

// TestParseSkbmod: words to options, and what tc says on stderr meanwhile.
func TestParseSkbmod(t *testing.T) {
	for _, c := range []struct {
		args   string
		want   *attrs.ActSkbmodAttrs
		stderr string
	}{
		{"skbmod set dmac 11:22:33:44:55:66 index 5", &attrs.ActSkbmodAttrs{Parms: &attrs.TCSkbmod{Index: 5, Action: actPipe, Flags: skbmodDMAC},
			Dmac: []byte{0x11, 0x22, 0x33, 0x44, 0x55, 0x66}}, "dst MAC address <11:22:33:44:55:66>\n"},
		{"skbmod set etype 0x8100 set smac 0x1:2:3:4:5:ff:7 drop", &attrs.ActSkbmodAttrs{Parms: &attrs.TCSkbmod{Action: actShot, Flags: skbmodEtype | skbmodSMAC},
			Etype: new(uint16(0x8100)), Smac: []byte{1, 2, 3, 4, 5, 0xff}}, "skbmod etype 0x8100\nsrc MAC address <0x1:2:3:4:5:ff:7>\n"},
		{"skbmod swap mac ecn", &attrs.ActSkbmodAttrs{Parms: &attrs.TCSkbmod{Action: actPipe, Flags: skbmodSwapMAC | skbmodECN}}, ""},
		// The flag of an ethertype 0, without the attribute.
		{"skbmod set etype 0", &attrs.ActSkbmodAttrs{Parms: &attrs.TCSkbmod{Action: actPipe, Flags: skbmodEtype}}, "skbmod etype 0x0\n"},
	} {
		var stderr bytes.Buffer
		got, _, err := parseSkbmod(strings.Fields(c.args), tckind.ActionEnv{Stderr: &stderr})
		if err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", c.args, diff)
		}
		if stderr.String() != c.stderr {
			t.Errorf("%q: stderr %q, want %q", c.args, stderr.String(), c.stderr)
		}
	}
	for _, c := range []struct {
		args, msg string
		code      int
	}{
		{"skbmod set smac 00:44:55:44:55", "Invalid smac address 00:44:55:44:55", 1},
		{"skbmod set etype 0xfefef", `Error: argument "0xfefef" is wrong: ethertype is invalid`, 255},
		{"skbmod pipe", "skbmod requires at least one option\nUsage:", 255},
		{"skbmod", "Command line is not complete", 255},
		{"skbmod swap mac index x", `skbmod: Illegal "index"`, 1},
	} {
		_, _, err := parseSkbmod(strings.Fields(c.args), tckind.ActionEnv{})
		pe, ok := err.(*tcword.ParseError)
		if !ok || !strings.HasPrefix(pe.Msg, c.msg) || pe.ExitCode() != c.code {
			t.Errorf("%q: %v, want %q exit %d", c.args, err, c.msg, c.code)
		}
	}
}
