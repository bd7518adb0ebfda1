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

// parseOneAction parses a single action of the kind that args names.
func parseOneAction(t *testing.T, args string) (attrs.ActOptionsMsg, []string, error) {
	t.Helper()
	w := strings.Fields(args)
	k := tckind.LookupAction(w[0])
	if k == nil {
		t.Fatalf("%s is not registered", w[0])
	}
	return k.Parse(w, tckind.ActionEnv{})
}

func TestParseVLAN(t *testing.T) {
	for _, c := range []struct {
		args string
		want *attrs.ActVLANAttrs
		rest string
	}{
		{"vlan pop", &attrs.ActVLANAttrs{Parms: &attrs.TCVLAN{Action: actPipe, VAction: vlanActPop}}, ""},
		{"vlan pop drop index 8 cookie aa", &attrs.ActVLANAttrs{Parms: &attrs.TCVLAN{Action: actShot, Index: 8, VAction: vlanActPop}}, "cookie aa"},
		{"vlan push id 77 protocol 802.1ad priority 3 continue", &attrs.ActVLANAttrs{
			Parms:      &attrs.TCVLAN{Action: actUnspec, VAction: vlanActPush},
			PushVLANID: tcword.PtrTo[uint16](77), PushVLANProtocol: tcword.PtrTo[uint16](tckind.EthP8021AD), PushVLANPriority: tcword.PtrTo[uint8](3),
		}, ""},
		{"vlan m i 0x10", &attrs.ActVLANAttrs{Parms: &attrs.TCVLAN{Action: actPipe, VAction: vlanActModify}, PushVLANID: tcword.PtrTo[uint16](16)}, ""},
		{"vlan push_eth dst_mac 0:1:2:3:4:5 src_mac a:b:c:d:e:f", &attrs.ActVLANAttrs{
			Parms:      &attrs.TCVLAN{Action: actPipe, VAction: vlanActPushEth},
			PushEthDst: []byte{0, 1, 2, 3, 4, 5}, PushEthSrc: []byte{10, 11, 12, 13, 14, 15},
		}, ""},
		{"vlan pop_eth action drop", &attrs.ActVLANAttrs{Parms: &attrs.TCVLAN{Action: actPipe, VAction: vlanActPopEth}}, "action drop"},
	} {
		got, rest, err := parseOneAction(t, c.args)
		if err != nil {
			t.Errorf("%s: %v", c.args, err)
			continue
		}
		if d := cmp.Diff(attrs.ActOptionsMsg(c.want), got); d != "" || strings.Join(rest, " ") != c.rest {
			t.Errorf("%s: rest %q (-want +got):\n%s", c.args, rest, d)
		}
	}
}

func TestParseMPLS(t *testing.T) {
	for _, c := range []struct {
		args string
		want *attrs.ActMPLSAttrs
	}{
		{"mpls pop protocol ipv4", &attrs.ActMPLSAttrs{Parms: &attrs.TCMPLS{Action: actPipe, MAction: mplsActPop}, Proto: tcword.PtrTo[uint16](0x0800)}},
		{"mpls push label 20 tc 3 ttl 128 bos 1 pass", &attrs.ActMPLSAttrs{
			Parms: &attrs.TCMPLS{Action: actOK, MAction: mplsActPush},
			Label: tcword.PtrTo[uint32](20), TC: tcword.PtrTo[uint8](3), Ttl: tcword.PtrTo[uint8](128), Bos: tcword.PtrTo[uint8](1),
		}},
		{"mpls mac_push protocol mpls_mc label 5", &attrs.ActMPLSAttrs{Parms: &attrs.TCMPLS{Action: actPipe, MAction: mplsActMacPush}, Proto: tcword.PtrTo[uint16](0x8848), Label: tcword.PtrTo[uint32](5)}},
		{"mpls mod label 0xfffff", &attrs.ActMPLSAttrs{Parms: &attrs.TCMPLS{Action: actPipe, MAction: mplsActModify}, Label: tcword.PtrTo[uint32](0xfffff)}},
		{"mpls dec_ttl jump 10 index 8", &attrs.ActMPLSAttrs{Parms: &attrs.TCMPLS{Action: actJump | 10, Index: 8, MAction: mplsActDecTTL}}},
		{"mpls index 44", &attrs.ActMPLSAttrs{Parms: &attrs.TCMPLS{Index: 44}}},
	} {
		got, _, err := parseOneAction(t, c.args)
		if err != nil {
			t.Errorf("%s: %v", c.args, err)
			continue
		}
		if d := cmp.Diff(attrs.ActOptionsMsg(c.want), got); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.args, d)
		}
	}
}

func TestParseTunnelKey(t *testing.T) {
	noCsum := func(v uint8) *uint8 { return &v }
	for _, c := range []struct {
		args string
		want *attrs.ActTunnelKeyAttrs
	}{
		{"tunnel_key unset", &attrs.ActTunnelKeyAttrs{Parms: &attrs.TCTunnelKey{Action: actPipe, TAction: tunnelKeyActRelease}, NoCsum: noCsum(0)}},
		{"tunnel_key set src_ip 10.0.0.1 dst_ip 2001:db8::2 id 100 dst_port 4789 nocsum nofrag tos 0x10 ttl 64 index 3", &attrs.ActTunnelKeyAttrs{
			Parms:      &attrs.TCTunnelKey{Action: actPipe, Index: 3, TAction: tunnelKeyActSet},
			EncIpv4Src: []byte{10, 0, 0, 1}, EncIpv6Dst: []byte{0x20, 0x01, 0x0d, 0xb8, 12: 0, 15: 2},
			EncKeyID: tcword.PtrTo[uint32](100), EncDstPort: tcword.PtrTo[uint16](4789), NoCsum: noCsum(1), NoFrag: true,
			EncTos: tcword.PtrTo[uint8](16), EncTtl: tcword.PtrTo[uint8](64),
		}},
	} {
		got, _, err := parseOneAction(t, c.args)
		if err != nil {
			t.Errorf("%s: %v", c.args, err)
			continue
		}
		if d := cmp.Diff(attrs.ActOptionsMsg(c.want), got); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.args, d)
		}
	}
}

// TestTunnelActionErrors: tc's messages and exit statuses for what the
// three kinds refuse before anything reaches the kernel.
func TestTunnelActionErrors(t *testing.T) {
	for _, c := range []struct {
		args, msg string
		code      int
	}{
		{"vlan", `Command line is not complete. Try option "help"`, 255},
		{"vlan pop id 4", `Error: argument "id" is wrong: only valid for push/modify`, 255},
		{"vlan push id 70000", `Error: argument "70000" is wrong: id is invalid`, 255},
		{"vlan push id 5 priority 8", `Error: argument "8" is wrong: prio is invalid`, 255},
		{"vlan push protocol ABCD", `Error: argument "ABCD" is wrong: protocol is invalid`, 255},
		{"vlan push", "id needs to be set for push\n" + vlanUsage, 0},
		{"vlan push id 5 protocol ipv4", "protocol not supported\n" + vlanUsage, 0},
		{"vlan pop push", "unexpected \"push\" - action already specified\n" + vlanUsage, 0},
		{"vlan push_eth dst_mac 0:1:2:3:4:5", "src_mac needs to be set for push_eth\n" + vlanUsage, 0},
		{"vlan push_eth dst_mac zz", "\"zz\" is invalid lladdr.\nError: argument \"zz\" is wrong: dst_mac is invalid", 255},
		{"vlan pop index x", `vlan: Illegal "index"`, 0},
		{"mpls", `Command line is not complete. Try option "help"`, 255},
		{"mpls pop", `Error: argument "protocol" is required`, 255},
		{"mpls push", `Error: argument "label" is required`, 255},
		{"mpls push protocol ipv4 label 20", `invalid push protocol "0x0800" - use mpls_(uc|mc)`, 0},
		{"mpls mac_push protocol ipv4", `invalid mac_push protocol "0x0800" - use mpls_(uc|mc)`, 0},
		{"mpls push label 1048576", `Error: argument "1048576" is wrong: label must be <=0xFFFFF`, 255},
		{"mpls mod ttl 0", `Error: argument "0" is wrong: ttl must be >0 and <=255`, 255},
		{"mpls mod bos 2", `Error: argument "2" is wrong: bos must be 0 or 1`, 255},
		{"mpls mod tc 8", `Error: argument "8" is wrong: tc field is 3 bits max`, 255},
		{"mpls mod protocol ipv4", `Error: argument "protocol" is wrong: only valid for push, mac_push and pop`, 255},
		{"mpls dec_ttl label 20", `Error: argument "label" is wrong: only valid for push, mac_push and modify`, 255},
		{"mpls pop push", "Error: got \"push\" but action already set to \"pop\"\n" + mplsUsage, 0},
		{"mpls dec_ttl index x", `Error: argument "x" is wrong: illegal index`, 255},
		{"tunnel_key", `Command line is not complete. Try option "help"`, 255},
		{"tunnel_key set dst_ip 1.1.1.1", "set needs tunnel_key parameters\n" + tunnelKeyUsage, 0},
		{"tunnel_key set src_ip 300.1.1.1", `Error: any valid address is expected rather than "300.1.1.1".`, 1},
		{"tunnel_key set id 4294967296", `Illegal "id"`, 0},
		{"tunnel_key set dst_port 65536", `Illegal "dst port"`, 0},
		{"tunnel_key set geneve_opts 10000:80:00", `Illegal "geneve_opts"`, 0},
		{"tunnel_key set geneve_opts 1:2:3:4", `Illegal "geneve_opts"`, 0},
		{"tunnel_key set geneve_opts 1:2:zz", `Illegal "geneve_opts"`, 0},
		{"tunnel_key set vxlan_opts x", `Illegal "vxlan_opts"`, 0},
		{"tunnel_key set erspan_opts 1:2:3:4:5", `Illegal "erspan_opts"`, 0},
		{"tunnel_key set tos 256", `Illegal "tos"`, 0},
		{"tunnel_key set ttl zz", `Illegal "ttl"`, 0},
		{"tunnel_key unset index x", `tunnel_key: Illegal "index"`, 0},
		{"tunnel_key set unset", "unexpected \"unset\" - action already specified\n" + tunnelKeyUsage, 0},
	} {
		_, _, err := parseOneAction(t, c.args)
		pe, ok := err.(*tcword.ParseError)
		if !ok {
			t.Errorf("%s: error %v, want a ParseError", c.args, err)
			continue
		}
		if pe.Msg != c.msg || pe.Code != c.code {
			t.Errorf("%s: %q (code %d), want %q (code %d)", c.args, pe.Msg, pe.Code, c.msg, c.code)
		}
	}
}

// TestTunnelOptsRoundTrip: the options tc's syntax gives, through the
// wire form as tc sends it, read back and printed as tc prints them. The
// kernel's dump holds Geneve options in one nest; tc's request has a nest
// per option, which the reader takes as it takes the first.
func TestTunnelOptsRoundTrip(t *testing.T) {
	g, ok := parseGeneveOpts("0102:80:00880022,,0408:42:0040007611223344", tunnelKeyFields)
	if !ok || len(g) != 2 {
		t.Fatalf("geneve options: %v %v", g, ok)
	}
	// The dump's form: the options' members one after the other in one nest.
	e := attrs.NewEncoder(nil)
	e.Nest(encOptsGeneve, false, func(e *attrs.Encoder) {
		for _, o := range g {
			e.BigUint16(geneveClass, *o.class)
			e.Uint8(geneveType, *o.typ)
			e.Attr(geneveData, o.data)
		}
	})
	for _, c := range []struct {
		name string
		wire []byte
		text string
	}{
		{"geneve", e.Bytes(), "\n\tgeneve_opts 0102:80:00880022,0408:42:0040007611223344"},
		{"vxlan", (&tunnelOpts{vxlan: tcword.PtrTo[uint32](16)}).encode(), "\n\tvxlan_opts 16"},
		{"erspan v1", func() []byte {
			r, _ := parseERSPANOpt("1:12:0:0", tunnelKeyFields)
			return (&tunnelOpts{erspan: r}).encode()
		}(), "\n\terspan_opts 1:12:0:0"},
		{"erspan v2", func() []byte {
			r, _ := parseERSPANOpt("2:99:1:7", tunnelKeyFields)
			return (&tunnelOpts{erspan: r}).encode()
		}(), "\n\terspan_opts 2:0:1:7"},
	} {
		var b bytes.Buffer
		var p tcfmt.Printer
		p.Reset(&b, tcfmt.Options{})
		p.StartPlain()
		printTunnelKeyOpts(&p, decodeTunnelOpts(c.wire))
		if err := p.Finish(); err != nil {
			t.Fatal(err)
		}
		if got := b.String(); got != c.text {
			t.Errorf("%s: printed %q, want %q", c.name, got, c.text)
		}
	}
}

// FuzzParseTunnelKey: any words either parse or are refused, without a
// panic, and the options nest of what parses reads back.
func FuzzParseTunnelKey(f *testing.F) {
	f.Add("set src_ip 1.1.1.1 dst_ip 2.2.2.2 id 42 dst_port 6081 geneve_opts 0102:80:00880022,0408:42:0040007611223344")
	f.Add("set src_ip ::1 dst_ip 2.2.2.2 erspan_opts 2:0:1:7 vxlan_opts 5 tos ff nofrag")
	f.Add("unset continue index 1")
	f.Fuzz(func(t *testing.T, s string) {
		words := append([]string{"tunnel_key"}, strings.Fields(s)...)
		o, _, err := parseTunnelKey(words, tckind.ActionEnv{})
		if err != nil {
			return
		}
		// What the request carries decodes to what was parsed, and tunnel
		// options in one nest (the form the kernel dumps: tc sends a
		// geneve nest per option, the kernel dumps them all in one)
		// decode for the printer and encode back to the same bytes.
		tk := o.(*attrs.ActTunnelKeyAttrs)
		var e attrs.Encoder
		tk.Encode(&e)
		back := attrs.DecodeActOptionsMsg("tunnel_key", e.Bytes())
		if diff := cmp.Diff(o, back); diff != "" {
			t.Fatalf("%q: decoded request differs (-parsed +decoded):\n%s", s, diff)
		}
		// An empty nest ("geneve_opts" with nothing after it) holds no
		// option for the printer to show.
		nests, empty := 0, false
		_ = attrs.ForEach(tk.EncOpts, func(_ uint16, data []byte) { nests, empty = nests+1, len(data) == 0 })
		if opts := tk.EncOpts; nests == 1 && !empty {
			decoded := decodeTunnelOpts(opts)
			if again := decoded.encode(); !bytes.Equal(again, opts) {
				t.Fatalf("%q: tunnel options %x decode and encode to %x", s, opts, again)
			}
		}
	})
}
