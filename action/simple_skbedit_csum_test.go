// SPDX-License-Identifier: Apache-2.0

package action

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// TestParseSimpleSkbeditCsum: words to the options of simple, skbedit and
// csum, and what follows them.
func TestParseSimpleSkbeditCsum(t *testing.T) {
	u16 := func(v uint16) *uint16 { return &v }
	u32 := func(v uint32) *uint32 { return &v }
	u64 := func(v uint64) *uint64 { return &v }
	data := func(s string) []byte { b := make([]byte, simpleMaxData); copy(b, s); return b }
	for _, c := range []struct {
		args string
		want attrs.ActOptionsMsg
		rest string
	}{
		{"simple sdata hello", &attrs.ActSimpleAttrs{Parms: &attrs.TCDefact{Action: actPipe}, Data: data("hello")}, ""},
		{"simple sdata hi drop index 7 action pass", &attrs.ActSimpleAttrs{Parms: &attrs.TCDefact{Action: actShot, Index: 7}, Data: data("hi")}, "action pass"},
		{"simple index 3", &attrs.ActSimpleAttrs{Parms: &attrs.TCDefact{Action: actPipe, Index: 3}}, ""},
		{"skbedit mark 5/0xff ptype b queue_mapping 3 priority 1:2 inheritdsfield", &attrs.ActSkbeditAttrs{
			Parms: &attrs.TCSkbedit{Action: actPipe}, Mark: u32(5), Mask: u32(0xff), Ptype: u16(1), QueueMapping: u16(3),
			Priority: u32(0x10002), Flags: u64(skbeditInheritDSField)}, ""},
		{"skbedit mark 1 goto chain 4 index 9 flowid 1:1", &attrs.ActSkbeditAttrs{Parms: &attrs.TCSkbedit{Action: actGotoChain | 4, Index: 9}, Mark: u32(1)}, "flowid 1:1"},
		{"csum iph and tcp or udp + sctp", &attrs.ActCsumAttrs{Parms: &attrs.TCCsum{Action: actOK, UpdateFlags: 1 | 8 | 16 | 64}}, ""},
		{"csum udplite csum icmp igmp drop index 2", &attrs.ActCsumAttrs{Parms: &attrs.TCCsum{Action: actShot, Index: 2, UpdateFlags: 32 | 2 | 4}}, ""},
		{"csum index 5", &attrs.ActCsumAttrs{Parms: &attrs.TCCsum{Index: 5}}, ""},
	} {
		args := strings.Fields(c.args)
		kind := tckind.LookupAction(args[0])
		got, rest, err := kind.Parse(args, tckind.ActionEnv{})
		if err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("%q (-want +got):\n%s", c.args, d)
		}
		if r := strings.Join(rest, " "); r != c.rest {
			t.Errorf("%q: rest %q, want %q", c.args, r, c.rest)
		}
	}
}

// TestParseSimpleSkbeditCsumErrors: the kinds' own refusals, before the
// lines parse_action adds.
func TestParseSimpleSkbeditCsumErrors(t *testing.T) {
	for _, c := range []struct{ args, msg string }{
		{"simple sdata 01234567890123456789012345678901", "simple: Illegal string len 32 <01234567890123456789012345678901>"},
		{"simple sdata x index y", `simple: Illegal "index" (y)`},
		{"simple drop", simpleUsage},
		{"skbedit mark 666777888999", "Illegal mark"},
		{"skbedit mark 1/-1234", "Illegal mask"},
		{"skbedit queue_mapping 67000", "Illegal queue_mapping"},
		{"skbedit ptype openair", "Illegal ptype (openair)"},
		{"skbedit prio foo", "Illegal priority"},
		{"skbedit mark 1 index x", `skbedit: Illegal "index"`},
		{"csum foo", "Illegal csum construct, empty <UPDATE> list"},
		{"csum tcp index x", `Illegal "index" (x) <csum>`},
	} {
		args := strings.Fields(c.args)
		_, _, err := tckind.LookupAction(args[0]).Parse(args, tckind.ActionEnv{})
		if pe, ok := err.(*tcword.ParseError); !ok || pe.Msg != c.msg || pe.ExitCode() != 1 {
			t.Errorf("%q: %v, want %q", c.args, err, c.msg)
		}
	}
}

// TestPrintSimpleSkbeditCsum: the three kinds as tc prints them, in text
// and JSON, from what the kernel dumps.
func TestPrintSimpleSkbeditCsum(t *testing.T) {
	u16 := func(v uint16) *uint16 { return &v }
	u32 := func(v uint32) *uint32 { return &v }
	u64 := func(v uint64) *uint64 { return &v }
	acts := []attrs.ActAttrs{
		{Kind: new("simple"), Options: &attrs.ActSimpleAttrs{Parms: &attrs.TCDefact{Index: 1, Refcnt: 1}, Data: []byte("hello\x00")}},
		{Kind: new("skbedit"), Options: &attrs.ActSkbeditAttrs{Parms: &attrs.TCSkbedit{Index: 1, Action: actPipe, Refcnt: 1},
			QueueMapping: u16(3), Priority: u32(0x10002), Mark: u32(5), Mask: u32(0xff), Ptype: u16(0), Flags: u64(skbeditInheritDSField)}},
		{Kind: new("csum"), Options: &attrs.ActCsumAttrs{Parms: &attrs.TCCsum{Index: 2, Action: actShot, UpdateFlags: 1 | 8}}},
	}
	for _, c := range []struct {
		opts tcfmt.Options
		want string
	}{
		{tcfmt.Options{}, "\n\taction order 0: Simple <hello>\n\t index 1 ref 1 bind 0\n" +
			"\n\taction order 1: skbedit queue_mapping 3 priority 1:2 mark 5/0xff ptype host inheritdsfield pipe\n\t index 1 ref 1 bind 0\n" +
			"\n\taction order 2: csum (iph, tcp) action drop\n\tindex 2 ref 0 bind 0\n"},
		{tcfmt.Options{JSON: true}, `[{"actions":[{"order":0,"simple":"hello","index":1,"ref":1,"bind":0},` +
			`{"order":1,"kind":"skbedit","queue_mapping":3,"priority":"1:2","mark":5,"mask":"ff","ptype":"host","inheritdsfield":null,"control_action":{"type":"pipe"},"index":1,"ref":1,"bind":0},` +
			`{"order":2,"kind":"csum","csum":"iph, tcp","control_action":{"type":"drop"},"index":2,"ref":0,"bind":0}]}]`},
	} {
		var b bytes.Buffer
		p := tcfmt.NewPrinter(&b, c.opts)
		p.Start()
		p.OpenObject("")
		PrintActions(p, acts, ActionPrint{})
		p.CloseObject()
		if err := p.Finish(); err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSuffix(b.String(), "\n"); got != strings.TrimSuffix(c.want, "\n") {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
}
