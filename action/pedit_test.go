// SPDX-License-Identifier: Apache-2.0

package action

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tckind"
)

// TestParsePedit: words to keys as tc's parse_pedit packs them.
func TestParsePedit(t *testing.T) {
	type key = attrs.TCPeditKey
	plain := func(action int32, keys ...key) *attrs.ActPeditAttrs {
		return &attrs.ActPeditAttrs{Parms: &attrs.TCPeditSel{Action: action, Nkeys: uint8(len(keys)), Keys: keys}}
	}
	ex := func(action int32, htypes []uint16, cmds []uint16, keys ...key) *attrs.ActPeditAttrs {
		o := &attrs.ActPeditAttrs{ParmsEx: &attrs.TCPeditSel{Action: action, Nkeys: uint8(len(keys)), Keys: keys}, KeysEx: &attrs.ActPeditKeysExAttrs{}}
		for i := range keys {
			o.KeysEx.KeyEx = append(o.KeysEx.KeyEx, attrs.ActPeditKeyExAttrs{Htype: new(htypes[i]), Cmd: new(cmds[i])})
		}
		return o
	}
	for _, c := range []struct {
		args string
		want *attrs.ActPeditAttrs
		rest string
	}{
		{"pedit munge offset 12 u32 set 0x90abcdef", plain(actOK, key{Val: 0x90abcdef, Off: 12}), ""},
		{"pedit munge offset 12 u16 set 0x1234", plain(actOK, key{Val: 0x12340000, Mask: 0x0000ffff, Off: 12}), ""},
		{"pedit munge offset 13 u8 set 0x34", plain(actOK, key{Val: 0x00340000, Mask: 0xff00ffff, Off: 12}), ""},
		{"pedit munge offset 12 u16 at 12 ffff 1 set 0xaaaa", plain(actOK, key{Val: 0xaaaa0000, Mask: 0xffff, Off: 12, At: 12, Offmask: 0xffff, Shift: 1}), ""},
		{"pedit munge offset -12 u32 set 0x100 pipe index 9", &attrs.ActPeditAttrs{Parms: &attrs.TCPeditSel{Action: actPipe, Index: 9, Nkeys: 1,
			Keys: []key{{Val: 0x100, Off: 0xfffffff4}}}}, ""},
		{"pedit munge ip src set 1.2.3.4", plain(actOK, key{Val: 0x01020304, Off: 12}), ""},
		{"pedit munge ip dport set 80", plain(actOK, key{Val: 80, Mask: 0xffff0000, Off: 20}), ""},
		{"pedit ex munge ip ttl set 10", ex(actOK, []uint16{peditHdrIP4}, []uint16{peditCmdSet}, key{Val: 0x0a000000, Mask: 0x00ffffff, Off: 8}), ""},
		{"pedit ex munge ip ttl decrement", ex(actOK, []uint16{peditHdrIP4}, []uint16{peditCmdAdd}, key{Val: 0xff000000, Mask: 0x00ffffff, Off: 8}), ""},
		// The deployment form: only the ECN bits are kept.
		{"pedit ex munge ip dsfield set 0xb8 retain 0xfc pipe csum ip4h", ex(actPipe, []uint16{peditHdrIP4}, []uint16{peditCmdSet},
			key{Val: 0x00b80000, Mask: 0xff03ffff, Off: 0}), "csum ip4h"},
		{"pedit ex munge eth src set 11:22:33:44:55:66", ex(actOK, []uint16{peditHdrEth, peditHdrEth}, []uint16{peditCmdSet, peditCmdSet},
			key{Val: 0x1122, Mask: 0xffff0000, Off: 4}, key{Val: 0x33445566, Off: 8}), ""},
		{"pedit ex munge eth dst set 11:22:33:44:55:66", ex(actOK, []uint16{peditHdrEth, peditHdrEth}, []uint16{peditCmdSet, peditCmdSet},
			key{Val: 0x11223344, Off: 0}, key{Val: 0x55660000, Mask: 0xffff, Off: 4}), ""},
		{"pedit ex munge ip6 traffic_class set 0x40", ex(actOK, []uint16{peditHdrIP6}, []uint16{peditCmdSet}, key{Val: 0x04000000, Mask: 0xf00fffff, Off: 0}), ""},
		{"pedit ex munge udp dport add 1 drop", ex(actShot, []uint16{peditHdrUDP}, []uint16{peditCmdAdd}, key{Val: 1, Mask: 0xffff0000, Off: 0}), ""},
	} {
		got, rest, err := parsePedit(strings.Fields(c.args), tckind.ActionEnv{})
		if err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", c.args, diff)
		}
		if r := strings.Join(rest, " "); r != c.rest {
			t.Errorf("%q: rest %q, want %q", c.args, r, c.rest)
		}
	}
}

// TestParsePeditErrors: what tc prints before its usage, and how it exits.
func TestParsePeditErrors(t *testing.T) {
	for _, c := range []struct {
		args, first string
		code        int
	}{
		{"pedit munge offset 2 u32 set 1", "pack_key32: 32 bit offsets must begin in 32bit boundaries\nBad pedit construct ((null))", 1},
		{"pedit munge offset 15 u16 set 1 pipe", "pack_key16 bad index value 3\nBad pedit construct (pipe)", 1},
		{"pedit munge ip ttl set 300", "pack_key8 bad value (val 12c mask 0\nbad pedit parsing\nBad pedit construct (ip)", 1},
		{"pedit munge ip ttl add 1", "Non extended mode. only 'set' command is supported\nbad pedit parsing\nBad pedit construct (ip)", 1},
		{"pedit ex munge eth src set 1:2:3", "bad pedit parsing\nBad pedit construct (eth)", 1},
		{"pedit ex munge eth src preserve", "retain is not supported for fields longer the 32 bits\nbad pedit parsing\nBad pedit construct (eth)", 1},
		{"pedit munge foo bar set 1", "Unknown action  hence option \"bar\" is unparsable\nbad pedit parsing\nBad pedit construct (foo)", 1},
		{"pedit munge ip ttl set 1 pedit ex munge", "'ex' must be before first 'munge'", 1},
		{"pedit munge ip ttl set 1 index foo", `Pedit: Illegal "index"`, 1},
		{"pedit munge offset 12 u32 set", "Command line is not complete", 255},
		{"pedit help", "Usage: ... pedit munge", 255},
	} {
		_, _, err := parsePedit(strings.Fields(c.args), tckind.ActionEnv{})
		pe, ok := err.(*tcword.ParseError)
		if !ok {
			t.Errorf("%q: error %v, want a ParseError", c.args, err)
			continue
		}
		if !strings.HasPrefix(pe.Msg, c.first) || pe.ExitCode() != c.code {
			t.Errorf("%q: %q exit %d, want it to start %q, exit %d", c.args, pe.Msg, pe.ExitCode(), c.first, c.code)
		}
	}
}

// FuzzParsePedit: whatever parsePedit accepts encodes and decodes to the
// same options, with as many extended parts as keys.
func FuzzParsePedit(f *testing.F) {
	for _, s := range []string{
		"pedit munge offset 12 u32 set 0x90abcdef",
		"pedit munge offset 12 u16 at 12 ffff 1 set 0xaaaa munge offset 0 u8 invert retain 0xf",
		"pedit ex munge ip dsfield set 0x20 retain 0x3 pipe csum ip4h",
		"pedit ex munge eth src set 11:22:33:44:55:66 munge ip6 dst set 2001:db8::1 munge ip6 traffic_class set 0x40",
		"pedit ex munge tcp dport set 4789 munge udp sport add 1 munge ip ttl decrement goto chain 3 index 7",
		"pedit munge ip src set 10.0.0.1/8 munge ip icmp_type clear jump 2",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, args string) {
		o, _, err := parsePedit(strings.Fields(args), tckind.ActionEnv{})
		if err != nil {
			if _, ok := err.(*tcword.ParseError); !ok {
				t.Fatalf("%q: error %T %v, want a ParseError", args, err, err)
			}
			return
		}
		po := o.(*attrs.ActPeditAttrs)
		sel := peditParms(po)
		if int(sel.Nkeys) != len(sel.Keys) || po.KeysEx != nil && len(po.KeysEx.KeyEx) != len(sel.Keys) {
			t.Fatalf("%q: %d keys, nkeys %d", args, len(sel.Keys), sel.Nkeys)
		}
		want := &attrs.ActAttrs{Kind: new("pedit"), Options: o}
		e := attrs.NewEncoder(nil)
		want.Encode(e)
		var got attrs.ActAttrs
		if err := got.Decode(e.Bytes()); err != nil {
			t.Fatalf("%q: decode: %v", args, err)
		}
		// An action without keys decodes to an empty list, not a nil one.
		if diff := cmp.Diff(want, &got, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("%q: round trip (-want +got):\n%s", args, diff)
		}
	})
}
