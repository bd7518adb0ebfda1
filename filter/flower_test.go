// SPDX-License-Identifier: Apache-2.0

package filter

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

func flowerEnv(proto uint16) tckind.FilterEnv {
	return tckind.FilterEnv{Protocol: proto, Parent: 0x10000}
}

// TestParseFlower: keys as tc 7.3 sends them (checked against the kernel's
// dumps of tc's filters by the differential test).
func TestParseFlower(t *testing.T) {
	u8, u16, u32 := ptrOf[uint8], ptrOf[uint16], ptrOf[uint32]
	zero := u32(0)
	for _, c := range []struct {
		proto uint16
		args  string
		want  attrs.FlowerAttrs
	}{
		{tckind.EthPAll, "", attrs.FlowerAttrs{Flags: zero}},
		{tckind.EthPIP, "", attrs.FlowerAttrs{Flags: zero, KeyEthType: u16(tckind.EthPIP)}},
		{tckind.EthPIP, "classid 1:1 skip_hw verbose", attrs.FlowerAttrs{Classid: u32(0x10001), Flags: u32(clsFlagSkipHW | clsFlagVerbose), KeyEthType: u16(tckind.EthPIP)}},
		{tckind.EthPIP, "hw_tc 3", attrs.FlowerAttrs{Classid: u32(0x1ffe3), Flags: zero, KeyEthType: u16(tckind.EthPIP)}},
		{tckind.EthPIP, "indev lo", attrs.FlowerAttrs{Indev: ptrOf("lo"), Flags: zero, KeyEthType: u16(tckind.EthPIP)}},
		{tckind.EthPIP, "ip_proto tcp dst_port 80 src_port 0x10/0xf0", attrs.FlowerAttrs{
			KeyIPProto: u8(ipprotoTCP), KeyTCPDst: u16(80), KeyTCPSrc: u16(0x10), KeyTCPSrcMask: u16(0xf0),
			Flags: zero, KeyEthType: u16(tckind.EthPIP)}},
		{tckind.EthPIP, "ip_proto udp dst_port 10-20", attrs.FlowerAttrs{
			KeyIPProto: u8(ipprotoUDP), KeyPortDstMin: u16(10), KeyPortDstMax: u16(20), Flags: zero, KeyEthType: u16(tckind.EthPIP)}},
		{tckind.EthPIP, "dst_ip 10.0.0.0/8 ip_tos 0x10/fc ip_ttl 64", attrs.FlowerAttrs{
			KeyIpv4Dst: u32(0x0a000000), KeyIpv4DstMask: u32(0xff000000), KeyIPTos: u8(0x10), KeyIPTosMask: u8(0xfc),
			KeyIPTtl: u8(64), KeyIPTtlMask: u8(0xff), Flags: zero, KeyEthType: u16(tckind.EthPIP)}},
		{tckind.EthPIPv6, "src_ip 2001:db8::/33", attrs.FlowerAttrs{
			KeyIpv6Src:     []byte{0x20, 1, 0xd, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
			KeyIpv6SrcMask: []byte{0xff, 0xff, 0xff, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
			Flags:          zero, KeyEthType: u16(tckind.EthPIPv6)}},
		{tckind.EthPIP, "ip_proto tcp tcp_flags 2", attrs.FlowerAttrs{KeyIPProto: u8(ipprotoTCP), KeyTCPFlags: u16(2), KeyTCPFlagsMask: u16(0xfff), Flags: zero, KeyEthType: u16(tckind.EthPIP)}},
		{tckind.EthPIP, "ip_proto icmp type 8 code 0/15", attrs.FlowerAttrs{KeyIPProto: u8(ipprotoICMP), KeyIcmpv4Type: u8(8), KeyIcmpv4TypeMask: u8(0xff),
			KeyIcmpv4Code: u8(0), KeyIcmpv4CodeMask: u8(15), Flags: zero, KeyEthType: u16(tckind.EthPIP)}},
		{tckind.EthPAll, "dst_mac 00:11:22:33:44:55/24", attrs.FlowerAttrs{KeyEthDst: []byte{0, 0x11, 0x22, 0x33, 0x44, 0x55},
			KeyEthDstMask: []byte{0xff, 0xff, 0xff, 0, 0, 0}, Flags: zero}},
		{tckind.EthP8021AD, "vlan_id 5 vlan_prio 1 vlan_ethtype 802.1q cvlan_id 6 cvlan_ethtype ip ip_proto udp", attrs.FlowerAttrs{
			KeyVLANID: u16(5), KeyVLANPrio: u8(1), KeyVLANEthType: u16(tckind.EthP8021Q), KeyCvlanID: u16(6), KeyCvlanEthType: u16(tckind.EthPIP),
			KeyIPProto: u8(ipprotoUDP), Flags: zero, KeyEthType: u16(tckind.EthP8021AD)}},
		{tckind.EthPIP, "ip_flags frag/nofirstfrag", attrs.FlowerAttrs{Flags: zero, KeyFlags: u32(1), KeyFlagsMask: u32(3), KeyEthType: u16(tckind.EthPIP)}},
		{tckind.EthPIP, "ct_state +trk-est ct_zone 5 ct_mark 1/3", attrs.FlowerAttrs{KeyCTState: u16(1 << 3), KeyCTStateMask: u16(1<<3 | 1<<1),
			KeyCTZone: u16(5), KeyCTZoneMask: u16(0xffff), KeyCTMark: u32(1), KeyCTMarkMask: u32(3), Flags: zero, KeyEthType: u16(tckind.EthPIP)}},
		{tckind.EthPMPLSUC, "mpls_label 1048575 mpls_tc 7 mpls_bos 1 mpls_ttl 255", attrs.FlowerAttrs{KeyMPLSLabel: u32(0xfffff), KeyMPLSTC: u8(7),
			KeyMPLSBos: u8(1), KeyMPLSTtl: u8(255), Flags: zero, KeyEthType: u16(tckind.EthPMPLSUC)}},
		{ethPARP, "arp_op reply/3 arp_tip 10.0.0.0/8", attrs.FlowerAttrs{KeyArpOp: u8(2), KeyArpOpMask: u8(3), KeyArpTip: u32(0x0a000000),
			KeyArpTipMask: u32(0xff000000), Flags: zero, KeyEthType: u16(ethPARP)}},
		{tckind.EthPAll, "enc_dst_ip 10.0.0.1 enc_key_id 42 enc_dst_port 4789 enc_ttl 64/f0", attrs.FlowerAttrs{
			KeyEncIpv4Dst: u32(0x0a000001), KeyEncIpv4DstMask: u32(0xffffffff), KeyEncKeyID: u32(42), KeyEncUdpDstPort: u16(4789),
			KeyEncIPTtl: u8(64), KeyEncIPTtlMask: u8(0xf0), Flags: zero}},
		{tckind.EthPIP, "ip_proto esp spi ff l2_miss 1", attrs.FlowerAttrs{KeyIPProto: u8(ipprotoESP), KeySpi: u32(0xff), KeySpiMask: u32(0xffffffff),
			L2Miss: u8(1), Flags: zero, KeyEthType: u16(tckind.EthPIP)}},
		{ethPPPPSes, "pppoe_sid 7 ppp_proto ipv6 dst_ip ::1", attrs.FlowerAttrs{KeyPppoeSid: u16(7), KeyPppProto: u16(0x57),
			KeyIpv6Dst: []byte{15: 1}, KeyIpv6DstMask: ipv6Mask(128), Flags: zero, KeyEthType: u16(ethPPPPSes)}},
		{ethPCFM, "cfm mdl 3 op 1 classid 1:1", attrs.FlowerAttrs{KeyCfm: &attrs.FlowerKeyCfmAttrs{MdLevel: u8(3), Opcode: u8(1)},
			Classid: u32(0x10001), Flags: zero, KeyEthType: u16(ethPCFM)}},
	} {
		opts, _, err := parseFlower(strings.Fields(c.args), flowerEnv(c.proto))
		if err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		if d := cmp.Diff(&c.want, opts); d != "" {
			t.Errorf("%q (-want +got):\n%s", c.args, d)
		}
	}
}

// TestParseFlowerErrors: tc 7.3's messages and exit codes, and gotc's
// refusal of the keys it does not build yet.
func TestParseFlowerErrors(t *testing.T) {
	for _, c := range []struct {
		proto uint16
		args  string
		msg   string
		code  int
	}{
		{tckind.EthPIP, "bogus", `What is "bogus"?`, 1},
		{tckind.EthPIP, "classid", `Command line is not complete. Try option "help"`, 255},
		{tckind.EthPIP, "hw_tc 16", "TC index exceeds max range", 1},
		{tckind.EthPIP, "hw_tc 1x", "Illegal TC index", 1},
		{ethPARP, "ip_proto tcp", "Illegal \"eth_type\" for ip proto\nIllegal \"ip_proto\"", 1},
		{tckind.EthPIP, "dst_ip 1.2.3.4/33", `Error: inet prefix is expected rather than "1.2.3.4/33".`, 1},
		{tckind.EthPIP, "dst_port 80", `Illegal "dst_port"`, 1},
		{tckind.EthPIP, "ip_proto tcp dst_port 20-10", "max value should be greater than min value\nIllegal \"dst_port\"", 1},
		{tckind.EthPIP, "vlan_id 1", `Can't set "vlan_id" if ethertype isn't 802.1Q or 802.1AD and num_of_vlans is 0`, 1},
		{tckind.EthP8021Q, "vlan_ethtype bogus", `Error: argument "bogus" is wrong: invalid vlan_ethtype`, 255},
		{tckind.EthPIP, "dst_mac 1:2:3:4:5:zz", "\"1:2:3:4:5:zz\" is invalid lladdr.\nIllegal \"dst_mac\"", 1},
		{tckind.EthPIP, "indev a/b", `Error: argument "a/b" is wrong: "indev" not a valid ifname`, 255},
		{tckind.EthPMPLSUC, "mpls lse depth 1 label 5", "gotc does not support flower key mpls yet", 1},
		{tckind.EthPIP, "mpls_label 5", `Can't set "mpls_label" if ethertype isn't MPLS`, 1},
		{tckind.EthPMPLSUC, "mpls_tc 8", `Illegal "mpls_tc"`, 1},
		{tckind.EthPIP, "arp_op request", `Illegal "arp_op"`, 1},
		{tckind.EthPIP, "geneve_opts 0102:80:1122", "gotc does not support flower key geneve_opts yet", 1},
		{ethPPPPSes, "ppp_proto bogus", `Error: argument "bogus" is wrong: invalid ppp_proto`, 255},
		{tckind.EthPIP, "ppp_proto ip", `Can't set "ppp_proto" if ethertype isn't PPPoE session`, 1},
		{tckind.EthPIP, "pppoe_sid 5", `Can't set "pppoe_sid" if ethertype isn't PPPoE session`, 1},
		{tckind.EthPIP, "ip_proto tcp spi 5", `Can't set "spi" if ip_proto isn't ESP/UDP/AH`, 1},
		{tckind.EthPIP, "ip_proto l2tp l2tpv3_sid x", `Illegal "l2tpv3 session id"`, 1},
		{tckind.EthPIP, "ct_label 1g", `Error: argument "1g" is wrong: labels must be a hex string` + "\n", 255},
		{tckind.EthPIP, "cfm mdl 1", "Can't set attribute if ethertype isn't CFM", 1},
		{ethPCFM, "cfm mdl x", `Illegal "cfm md level"`, 1},
	} {
		_, _, err := parseFlower(strings.Fields(c.args), flowerEnv(c.proto))
		var perr *tcword.ParseError
		if !errors.As(err, &perr) {
			t.Errorf("%q: %v, want a ParseError", c.args, err)
			continue
		}
		if perr.Msg != c.msg || perr.ExitCode() != c.code {
			t.Errorf("%q: %q (exit %d), want %q (exit %d)", c.args, perr.Msg, perr.ExitCode(), c.msg, c.code)
		}
	}
}

// TestPrintFlower: text and JSON as tc 7.3 prints a dumped filter.
func TestPrintFlower(t *testing.T) {
	u8, u16, u32 := ptrOf[uint8], ptrOf[uint16], ptrOf[uint32]
	o := &attrs.FlowerAttrs{
		Classid: u32(0x10001), KeyEthType: u16(tckind.EthPIP), KeyIPProto: u8(ipprotoTCP),
		KeyIpv4Dst: u32(0x0a000000), KeyIpv4DstMask: u32(0xff000000),
		KeyTCPDst: u16(80), KeyTCPDstMask: u16(0xffff), KeyPortSrcMin: u16(1), KeyPortSrcMax: u16(9),
		KeyIPTos: u8(0x10), KeyIPTosMask: u8(0xfc),
		KeyEthDst: []byte{0, 0x11, 0x22, 0x33, 0x44, 0x55}, KeyEthDstMask: []byte{0xff, 0xff, 0xff, 0, 0, 0},
		Flags: u32(clsFlagSkipHW | clsFlagNotHW), InHWCount: u32(0),
	}
	for _, c := range []struct {
		json bool
		want string
	}{
		{false, "handle 0x1 classid 1:1 \n  dst_mac 00:11:22:33:44:55/24\n  eth_type ipv4\n  ip_proto tcp\n  ip_tos 16/0xfc\n  dst_ip 10.0.0.0/8\n  dst_port 80\n  src_port 1-9\n  skip_hw\n  not_in_hw"},
		{true, `{"handle":1,"classid":"1:1","keys":{"dst_mac":"00:11:22:33:44:55/24","eth_type":"ipv4","ip_proto":"tcp","ip_tos":16,"ip_tos_mask":"fc","dst_ip":"10.0.0.0/8","dst_port":80,"src_port":{"start":1,"end":9}},"skip_hw":true,"not_in_hw":true}`},
	} {
		var b bytes.Buffer
		p := tcfmt.NewPrinter(&b, tcfmt.Options{JSON: c.json})
		p.StartPlain()
		p.OpenObject("")
		printFlower(p, o, tckind.FilterPrint{Handle: 1})
		p.CloseObject()
		if err := p.Finish(); err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(b.String()); got != c.want {
			t.Errorf("json=%v:\n got %q\nwant %q", c.json, got, c.want)
		}
	}
}

// TestFlowerDumped: the ethertype the kernel keeps of a request behind
// VLAN tags and PPPoE (the innermost, or none), and the full mask it
// gives the encapsulation's UDP ports; the request itself unchanged.
func TestFlowerDumped(t *testing.T) {
	for _, c := range []struct {
		proto   uint16
		args    string
		ethType *uint16 // nil: none kept
	}{
		{tckind.EthPIP, "dst_ip 10.0.0.1", ptrOf[uint16](tckind.EthPIP)},
		{tckind.EthP8021Q, "vlan_id 10 vlan_ethtype ip", ptrOf[uint16](tckind.EthPIP)},
		{tckind.EthP8021Q, "vlan_ethtype 0x1234", ptrOf(uint16(0x1234))},
		{tckind.EthP8021Q, "vlan_id 100 vlan_prio 3", nil},
		{tckind.EthP8021AD, "vlan_id 5 vlan_ethtype 802.1Q cvlan_id 6 cvlan_ethtype ipv6", ptrOf[uint16](tckind.EthPIPv6)},
		{tckind.EthP8021AD, "vlan_id 5 vlan_ethtype 802.1Q cvlan_id 6", nil},
		{ethPPPPSes, "ppp_proto ip dst_ip 10.0.0.1", ptrOf[uint16](tckind.EthPIP)},
		{ethPPPPSes, "pppoe_sid 1234", nil},
	} {
		opts, _, err := parseFlower(strings.Fields(c.args), flowerEnv(c.proto))
		if err != nil {
			t.Fatalf("%q: %v", c.args, err)
		}
		asked := *opts.(*attrs.FlowerAttrs)
		got := tckind.FilterDumped("flower", opts).(*attrs.FlowerAttrs)
		if !cmp.Equal(got.KeyEthType, c.ethType) {
			t.Errorf("%q: ethertype kept %s, want %s", c.args, ethTypeOrNone(got.KeyEthType), ethTypeOrNone(c.ethType))
		}
		if !cmp.Equal(*opts.(*attrs.FlowerAttrs), asked) {
			t.Errorf("%q: Dumped changed the request", c.args)
		}
	}
	opts, _, err := parseFlower(strings.Fields("enc_dst_port 4789 enc_key_id 7"), flowerEnv(tckind.EthPIP))
	if err != nil {
		t.Fatal(err)
	}
	got := tckind.FilterDumped("flower", opts).(*attrs.FlowerAttrs)
	if got.KeyEncUdpDstPortMask == nil || *got.KeyEncUdpDstPortMask != 0xffff || got.KeyEncUdpSrcPortMask != nil {
		t.Errorf("enc_dst_port 4789: masks dst %v src %v, want 0xffff and none", got.KeyEncUdpDstPortMask, got.KeyEncUdpSrcPortMask)
	}
}

// ethTypeOrNone writes an ethertype kept, for messages.
func ethTypeOrNone(e *uint16) string {
	if e == nil {
		return "none"
	}
	return tckind.EthProtocolName(*e)
}
