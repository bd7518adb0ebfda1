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

// parseOne parses one action list of a single action and returns its
// options and the words left.
func parseOne(t *testing.T, line string) (attrs.ActOptionsMsg, string, error) {
	t.Helper()
	acts, rest, err := ParseActions(strings.Fields(line), tckind.ActionEnv{})
	if err != nil {
		return nil, "", err
	}
	if len(acts) != 1 {
		t.Fatalf("%q: %d actions, want 1", line, len(acts))
	}
	return acts[0].Options, strings.Join(rest, " "), nil
}

// TestParseConntrackActions: words to options for ct, ctinfo and connmark.
func TestParseConntrackActions(t *testing.T) {
	u16 := func(v uint16) *uint16 { return &v }
	u32 := func(v uint32) *uint32 { return &v }
	ff := bytes.Repeat([]byte{0xff}, 16)
	for _, c := range []struct {
		line string
		want attrs.ActOptionsMsg
		rest string
	}{
		{"ct", &attrs.ActCTAttrs{Parms: &attrs.TCCT{Action: actPipe}, Action: u16(0)}, ""},
		{"ct zone 404 commit index 42", &attrs.ActCTAttrs{Parms: &attrs.TCCT{Action: actPipe, Index: 42}, Action: u16(ctActCommit), Zone: u16(404)}, ""},
		{"ct clear drop", &attrs.ActCTAttrs{Parms: &attrs.TCCT{Action: actShot}, Action: u16(ctActClear)}, ""},
		{"ct commit force mark 0x42/0xf0 classid 1:1", &attrs.ActCTAttrs{Parms: &attrs.TCCT{Action: actPipe}, Action: u16(ctActCommit | ctActForce), Mark: u32(0x42), MarkMask: u32(0xf0)}, "classid 1:1"},
		{"ct label 123", &attrs.ActCTAttrs{Parms: &attrs.TCCT{Action: actPipe}, Action: u16(0), Labels: []byte{0x12}, LabelsMask: ff}, ""},
		{"ct label 1234/ff", &attrs.ActCTAttrs{Parms: &attrs.TCCT{Action: actPipe}, Action: u16(0), Labels: []byte{0x12, 0x34}, LabelsMask: []byte{0xff}}, ""},
		{"ct commit nat src addr 5.5.5.7-5.5.6.0 port 1000-2000", &attrs.ActCTAttrs{Parms: &attrs.TCCT{Action: actPipe},
			Action: u16(ctActCommit | ctActNAT | ctActNATSrc), NATIpv4Min: u32(0x05050507), NATIpv4Max: u32(0x05050600), NATPortMin: u16(1000), NATPortMax: u16(2000)}, ""},
		{"ct commit nat dst addr 1.2 zone 3", &attrs.ActCTAttrs{Parms: &attrs.TCCT{Action: actPipe},
			Action: u16(ctActCommit | ctActNAT | ctActNATDst), NATIpv4Min: u32(0x01020000), NATIpv4Max: u32(0x01020000), Zone: u16(3)}, ""},
		{"ct commit nat src addr 2001::1 port 5", &attrs.ActCTAttrs{Parms: &attrs.TCCT{Action: actPipe},
			Action: u16(ctActCommit | ctActNAT | ctActNATSrc), NATIpv6Min: []byte{0x20, 1, 14: 0, 15: 1}, NATIpv6Max: []byte{0x20, 1, 14: 0, 15: 1}, NATPortMin: u16(5), NATPortMax: u16(5)}, ""},
		{"ct nat zone 1", &attrs.ActCTAttrs{Parms: &attrs.TCCT{Action: actPipe}, Action: u16(ctActNAT), Zone: u16(1)}, ""},
		{"ct commit helper ipv4-6-ftp-x", &attrs.ActCTAttrs{Parms: &attrs.TCCT{Action: actPipe}, Action: u16(ctActCommit),
			HelperFamily: new(uint8(afInet)), HelperProto: new(uint8(6)), HelperName: new("ftp")}, ""},
		{"ctinfo", &attrs.ActCtinfoAttrs{Act: &attrs.TCCtinfo{Action: actPipe}, Zone: u16(0)}, ""},
		{"ctinfo dscp 63 128", &attrs.ActCtinfoAttrs{Act: &attrs.TCCtinfo{Action: actPipe}, Zone: u16(0), ParmsDscpMask: u32(63), ParmsDscpStatemask: u32(128)}, ""},
		{"ctinfo dscp 0xfc cpmark zone 3 drop index 4", &attrs.ActCtinfoAttrs{Act: &attrs.TCCtinfo{Action: actShot, Index: 4}, Zone: u16(3), ParmsDscpMask: u32(0xfc), ParmsCpmarkMask: u32(0xffffffff)}, ""},
		{"ctinfo cpmark 0xff00", &attrs.ActCtinfoAttrs{Act: &attrs.TCCtinfo{Action: actPipe}, Zone: u16(0), ParmsCpmarkMask: u32(0xff00)}, ""},
		{"connmark", &attrs.ActConnmarkAttrs{Parms: &attrs.TCConnmark{Action: actPipe}}, ""},
		{"connmark zone 100 pass index 1", &attrs.ActConnmarkAttrs{Parms: &attrs.TCConnmark{Action: actOK, Zone: 100, Index: 1}}, ""},
	} {
		got, rest, err := parseOne(t, c.line)
		if err != nil {
			t.Errorf("%q: %v", c.line, err)
			continue
		}
		if d := cmp.Diff(c.want, got); d != "" || rest != c.rest {
			t.Errorf("%q: rest %q (want %q), options (-want +got):\n%s", c.line, rest, c.rest, d)
		}
	}
}

// TestParseConntrackActionsErrors: tc's messages and exit statuses.
func TestParseConntrackActionsErrors(t *testing.T) {
	bad := "\nbad action parsing\nparse_action: bad value"
	for _, c := range []struct {
		line, msg string
		code      int
	}{
		{"ct zone 65536", `ct: Illegal "zone"` + bad, 1},
		{"ct zone", "Command line is not complete", 255},
		{"ct clear commit", "ct: clear can only be used alone" + bad, 1},
		{"ct commit nat src addr 1.2.3.4 nat dst addr 1.2.3.5 pipe", "ct: src and dst nat can't be used together" + bad, 1},
		{"ct commit nat zone 1", "ct: commit and nat must set src or dst" + bad, 1},
		{"ct nat src addr 1.2.3.4 pipe", "ct: src or dst is only valid if commit is set" + bad, 1},
		{"ct commit nat src addr 1.2.3.4", "Command line is not complete", 255},
		{"ct commit nat src port 1", "Usage: ct clear", 255},
		{"ct commit nat src addr 1.2.3.4-::1 pipe", `Error: inet address is expected rather than "::1".`, 1},
		{"ct commit nat src addr 1.2.3.400 pipe", `Error: any valid address is expected rather than "1.2.3.400".`, 1},
		{"ct commit nat src addr 1.1.1.1 port 70000", "ct: Illegal nat port range" + bad, 1},
		{"ct mark 1/x", `ct: Illegal "mark"` + bad, 1},
		{"ct label 1234567890123456789012345678901234", `Error: argument "1234567890123456789012345678901234" is wrong: 34 Max allowed size 32`, 255},
		{"ct label 12x4", `Error: argument "12x4" is wrong: ct: labels must be a hex string`, 255},
		{"ct commit helper ipx-6-ftp", `ct: Illegal "helper"` + bad, 1},
		{"ct help", "Usage: ct clear", 255},
		{"ctinfo dscp", "Command line is not complete", 255},
		{"ctinfo dscp x", `ctinfo: Illegal dscp "mask"` + bad, 1},
		{"ctinfo dscp 63 63", "ctinfo: dscp mask & statemask must NOT overlap" + bad, 1},
		{"ctinfo dscp 0x7f", "ctinfo: dscp mask must be 6 contiguous bits long" + bad, 1},
		{"ctinfo zone 65536", `ctinfo: Illegal "zone"` + bad, 1},
		{"ctinfo help", "Usage: ... ctinfo", 255},
		{"connmark zone x", `connmark: Illegal "zone"` + bad, 1},
		{"connmark index x", `connmark: Illegal "index"` + bad, 1},
	} {
		_, _, err := ParseActions(strings.Fields(c.line), tckind.ActionEnv{})
		pe, ok := err.(*tcword.ParseError)
		if !ok {
			t.Errorf("%q: error %v, want a ParseError", c.line, err)
			continue
		}
		if !strings.HasPrefix(pe.Msg, c.msg) || pe.ExitCode() != c.code {
			t.Errorf("%q: %q (exit %d), want %q... (exit %d)", c.line, pe.Msg, pe.ExitCode(), c.msg, c.code)
		}
	}
}

// TestPrintConntrackActions: the kernel's dump as tc prints it.
func TestPrintConntrackActions(t *testing.T) {
	u16 := func(v uint16) *uint16 { return &v }
	u32 := func(v uint32) *uint32 { return &v }
	u64 := func(v uint64) *uint64 { return &v }
	ff := bytes.Repeat([]byte{0xff}, 16)
	label := append([]byte{0x12, 0x31, 0x23}, make([]byte, 13)...)
	for _, c := range []struct {
		kind string
		opts attrs.ActOptionsMsg
		text string
		json string
	}{
		{"ct", &attrs.ActCTAttrs{Parms: &attrs.TCCT{Action: actPipe, Index: 42, Refcnt: 1}, Action: u16(ctActCommit), Mark: u32(66), MarkMask: u32(0xffffffff), Zone: u16(404),
			NATIpv4Min: u32(0x05050507), NATIpv4Max: u32(0x05050507)},
			"ct commit mark 66 zone 404 pipe\n\t index 42 ref 1 bind 0",
			`{"kind":"ct","action":"commit","mark":66,"zone":404,"control_action":{"type":"pipe"},"index":42,"ref":1,"bind":0}`},
		{"ct", &attrs.ActCTAttrs{Parms: &attrs.TCCT{Action: actPipe}, Action: u16(ctActCommit | ctActForce | ctActNAT | ctActNATSrc), Mark: u32(66), MarkMask: u32(0xf0), Zone: u16(0),
			NATIpv6Min: []byte{0x20, 1, 15: 1}, NATIpv6Max: []byte{0x20, 1, 15: 0x10}, NATPortMin: u16(1000), NATPortMax: u16(2000), Labels: label, LabelsMask: ff},
			"ct commit force mark 66/0xf0 zone 0 label 12312300000000000000000000000000 nat src addr 2001::1-2001::10 port 1000-2000 pipe\n\t index 0 ref 0 bind 0",
			`{"kind":"ct","action":"commit force","mark":66,"mark_mask":"f0","zone":0,"label":"12312300000000000000000000000000","nat":"src addr 2001::1-2001::10 port 1000-2000","control_action":{"type":"pipe"},"index":0,"ref":0,"bind":0}`},
		{"ct", &attrs.ActCTAttrs{Parms: &attrs.TCCT{Action: actPipe}, Action: u16(ctActNAT), Zone: u16(3), Labels: label, LabelsMask: append([]byte{0xff}, make([]byte, 15)...),
			HelperFamily: new(uint8(afInet)), HelperProto: new(uint8(250)), HelperName: new("ftp")},
			"ct zone 3 label 12312300000000000000000000000000/ff000000000000000000000000000000 helper ipv4-ipproto-250-ftp nat pipe\n\t index 0 ref 0 bind 0",
			`{"kind":"ct","zone":3,"label":"12312300000000000000000000000000/ff000000000000000000000000000000","helper":"ipv4-ipproto-250-ftp","nat":"","control_action":{"type":"pipe"},"index":0,"ref":0,"bind":0}`},
		{"ctinfo", &attrs.ActCtinfoAttrs{Act: &attrs.TCCtinfo{Action: actPipe, Index: 2, Refcnt: 1}, Zone: u16(3), ParmsDscpMask: u32(63), ParmsDscpStatemask: u32(128), ParmsCpmarkMask: u32(0xffffffff),
			Tm: &attrs.TCFT{}, StatsDscpSet: u64(5), StatsDscpError: u64(1), StatsCpmarkSet: u64(0)},
			"ctinfo zone 3 pipe\n\t index 2 ref 1 bind 0 dscp 0x0000003f 0x00000080 cpmark 0xffffffff installed 0 sec used 0 sec DSCP set 5 error 1 CPMARK set 0",
			`{"kind":"ctinfo","zone":3,"control_action":{"type":"pipe"},"index":2,"ref":1,"bind":0,"dscpmask":"0x3f","dscpstatemask":"0x80","cpmark":"0xffffffff","installed":0,"last_used":0,"dscpset":5,"dscperror":1,"cpmarkset":0}`},
		{"connmark", &attrs.ActConnmarkAttrs{Parms: &attrs.TCConnmark{Action: actOK, Zone: 100, Index: 1, Refcnt: 1}, Tm: &attrs.TCFT{}},
			"connmark zone 100 pass\n\t index 1 ref 1 bind 0 installed 0 sec used 0 sec",
			`{"kind":"connmark","zone":100,"control_action":{"type":"pass"},"index":1,"ref":1,"bind":0,"installed":0,"last_used":0}`},
	} {
		k := tckind.LookupAction(c.kind)
		for _, json := range []bool{false, true} {
			var b bytes.Buffer
			p := tcfmt.NewPrinter(&b, tcfmt.Options{JSON: json, Stats: true})
			p.Start()
			if json {
				p.OpenObject("")
			}
			k.Print(p, c.opts, nil)
			k.PrintStats(p, c.opts)
			if json {
				p.CloseObject()
			}
			if err := p.Finish(); err != nil {
				t.Fatal(err)
			}
			want := c.text
			if json {
				want = "[" + c.json + "]"
			}
			if got := strings.TrimSpace(b.String()); got != want {
				t.Errorf("%s json=%v:\n got %q\nwant %q", c.kind, json, got, want)
			}
		}
	}
}
