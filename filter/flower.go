// SPDX-License-Identifier: Apache-2.0

package filter

// The flower filter (net/sched/cls_flower.c): packets whose dissected flow
// keys (addresses, ports, VLAN tags, conntrack state...) equal the filter's
// under its masks go to a class or through its actions. The keywords, their
// checks and messages, and the output follow tc 7.3's f_flower.c.
//
// A key's meaning depends on what came before it: the filter's protocol is
// the ethertype the keys start from, vlan_ethtype and cvlan_ethtype replace
// it, and ip_proto chooses which port and ICMP attributes carry the
// transport keys. gotc reads the words in order, as tc does. The keys gotc
// does not build yet (MPLS label stacks "mpls lse ...", tunnel options) are refused with a message
// that names them.

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/gotc/gotc/action"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

const flowerUsage = `Usage: ... flower [ MATCH ]... [ verbose ] [ skip_sw | skip_hw ]
                  [ classid CLASSID | flowid CLASSID | hw_tc TC ] [ action ACTION ... ]
MATCH := indev DEV | num_of_vlans N | vlan_id VID | vlan_prio PRIO | vlan_ethtype PROTO
       | cvlan_id VID | cvlan_prio PRIO | cvlan_ethtype PROTO
       | dst_mac MAC[/BITS|/MASK] | src_mac MAC[/BITS|/MASK]
       | ip_proto { tcp | udp | sctp | icmp | icmpv6 | l2tp | esp | ah | HEX }
       | ip_tos VALUE[/MASK] | ip_ttl VALUE[/MASK] | dst_ip PREFIX | src_ip PREFIX
       | dst_port { PORT | PORT/MASK | MIN-MAX } | src_port { PORT | PORT/MASK | MIN-MAX }
       | tcp_flags HEX[/HEX] | type TYPE[/MASK] | code CODE[/MASK]
       | ip_flags [no]frag/[no]firstfrag | ct_state {+|-}FLAG... | ct_zone ZONE[/MASK] | ct_mark MARK[/MASK] | ct_label HEX[/HEX]
       | mpls_label N | mpls_tc N | mpls_bos N | mpls_ttl N | l2tpv3_sid N | spi HEX | pppoe_sid N | ppp_proto PROTO | l2_miss N | cfm [ mdl N ] [ op N ]
       | arp_tip PREFIX | arp_sip PREFIX | arp_op { request | reply | N }[/MASK] | arp_tha MAC | arp_sha MAC
       | enc_dst_ip PREFIX | enc_src_ip PREFIX | enc_key_id N | enc_dst_port PORT | enc_tos TOS | enc_ttl TTL
       | enc_flags [no]tuncsum/[no]tundf/[no]tunoam/[no]tuncrit
The filter's protocol is the ethertype matched; CLASSID is hex MAJOR:MINOR.`

// The ETH_P_* numbers flower's keys depend on.
const (
	ethPARP    = 0x0806
	ethPRARP   = 0x8035
	ethPPPPSes = 0x8864
	ethPCFM    = 0x8902
)

// IPPROTO_* numbers flower names.
const (
	ipprotoICMP   = 1
	ipprotoTCP    = 6
	ipprotoUDP    = 17
	ipprotoESP    = 50
	ipprotoAH     = 51
	ipprotoICMPv6 = 58
	ipprotoSCTP   = 132
	ipprotoL2TP   = 115
)

const (
	clsFlagVerbose = 1 << 4
	// hw_tc N is the class minor TC_H_MIN_PRIORITY + N, N below
	// TC_QOPT_MAX_QUEUE.
	tcHMinPriority = 0xffe0
	tcQoptMaxQueue = 16
	tcpFlagsMask   = 0xfff
)

// flowerFlag is a word of ip_flags or enc_flags and its bit
// (TCA_FLOWER_KEY_FLAGS_*).
type flowerFlag struct {
	name string
	bit  uint32
}

// flowerIPFlags and flowerEncFlags are the words of ip_flags and
// enc_flags, in tc's order.
var (
	flowerIPFlags  = []flowerFlag{{"frag", 1 << 0}, {"firstfrag", 1 << 1}}
	flowerEncFlags = []flowerFlag{{"tuncsum", 1 << 2}, {"tundf", 1 << 3}, {"tunoam", 1 << 4}, {"tuncrit", 1 << 5}}
)

// flowerCTStates are ct_state's flags (TCA_FLOWER_KEY_CT_FLAGS_*), in the
// order tc reads and prints them.
var flowerCTStates = []struct {
	name string
	bit  uint16
}{{"trk", 1 << 3}, {"new", 1 << 0}, {"est", 1 << 1}, {"rel", 1 << 2}, {"inv", 1 << 4}, {"rpl", 1 << 5}}

func init() {
	tckind.LazilyFilters(func() {
		tckind.MustRegisterFilter(&tckind.Filter{
			Name:         "flower",
			Usage:        flowerUsage,
			Parse:        parseFlower,
			PrintOptions: printFlower,
			Keywords:     flowerKeywords,
			Dumped:       flowerDumped,
			TemplateProtocol: func(opts attrs.TCOptionsMsg) (uint16, bool) {
				if o, ok := opts.(*attrs.FlowerAttrs); ok && o.KeyEthType != nil {
					return *o.KeyEthType, true
				}
				return 0, false
			},
		})
	}, "flower")
}

// flowerParser is the state f_flower.c's flower_parse_opt keeps while it
// reads the words.
type flowerParser struct {
	o                    *attrs.FlowerAttrs
	env                  tckind.FilterEnv
	tcProto              uint16 // the filter's protocol
	ethType              uint16 // the ethertype the next keys apply to
	vlanEth              uint16 // the outer VLAN tag's ethertype (vlan_ethtype)
	numVlan              uint8
	ipProto              uint8 // 0xff until ip_proto
	flags                uint32
	ipFlags, ipFlagsMask uint32
	encFlags, encMask    uint32
}

// parseFlower is flower_parse_opt. Unlike most kinds, flower always sends
// its options, at least the flags and (for a protocol other than all) the
// ethertype.
func parseFlower(args []string, env tckind.FilterEnv) (attrs.TCOptionsMsg, uint32, error) {
	handle, err := numericFilterHandle(env.Handle)
	if err != nil {
		return nil, 0, err
	}
	fp := &flowerParser{o: &attrs.FlowerAttrs{}, env: env, tcProto: env.Protocol, ethType: env.Protocol, ipProto: 0xff}
	for len(args) > 0 {
		rest, err := fp.word(args)
		if err != nil {
			return nil, 0, err
		}
		args = rest
	}
	o := fp.o
	o.Flags = &fp.flags
	if fp.ipFlagsMask != 0 {
		o.KeyFlags, o.KeyFlagsMask = &fp.ipFlags, &fp.ipFlagsMask
	}
	if fp.encMask != 0 {
		o.KeyEncFlags, o.KeyEncFlagsMask = &fp.encFlags, &fp.encMask
	}
	if fp.tcProto != tckind.EthPAll {
		o.KeyEthType = &fp.tcProto
	}
	return o, handle, nil
}

// keyError is tc's way with a key's bad value: the reader's own message,
// if any, then `Illegal "KEY"`.
func keyError(key string, printed ...string) *tcword.ParseError {
	var lines []string
	for _, l := range printed {
		if l != "" {
			lines = append(lines, l)
		}
	}
	return tcword.Errorf("%s", strings.Join(append(lines, fmt.Sprintf("Illegal %q", key)), "\n"))
}

// word reads one keyword and its value, in flower_parse_opt's order of
// tests, and returns the words after them.
func (fp *flowerParser) word(args []string) ([]string, error) {
	w := args[0]
	o := fp.o
	// value is the word after the keyword (NEXT_ARG).
	value := func() (string, error) {
		if len(args) < 2 {
			return "", tcword.IncompleteCommand()
		}
		return args[1], nil
	}
	m := func(k string) bool { return tcfmt.Matches(w, k) }
	switch {
	case m("classid"), m("flowid"):
		id, err := classIDArg(value)
		if err != nil {
			return nil, err
		}
		o.Classid = &id
	case m("hw_tc"):
		v, err := value()
		if err != nil {
			return nil, err
		}
		val, n, _ := tcfmt.Strtoul(v, 0)
		if v[n:] != "" {
			return nil, tcword.Errorf("Illegal TC index")
		}
		tc := uint32(val)
		if tc >= tcQoptMaxQueue {
			return nil, tcword.Errorf("TC index exceeds max range")
		}
		id := fp.env.Parent&0xffff0000 | (tc+tcHMinPriority)&0xffff
		o.Classid = &id
	case m("ip_flags"):
		v, err := value()
		if err != nil {
			return nil, err
		}
		if !parseMatchingFlags(flowerIPFlags, v, &fp.ipFlags, &fp.ipFlagsMask) {
			return nil, tcword.Errorf(`Illegal "ip_flags"`)
		}
	case w == "l2_miss":
		v, err := value()
		if err != nil {
			return nil, err
		}
		n, err := tcfmt.ParseUint(v, 10, 8)
		if err != nil {
			return nil, tcword.Errorf(`Illegal "l2_miss"`)
		}
		o.L2Miss = tcword.PtrTo(uint8(n))
	case m("verbose"):
		fp.flags |= clsFlagVerbose
		return args[1:], nil
	case m("skip_hw"):
		fp.flags |= clsFlagSkipHW
		return args[1:], nil
	case m("skip_sw"):
		fp.flags |= clsFlagSkipSW
		return args[1:], nil
	case m("ct_state"):
		v, err := value()
		if err != nil {
			return nil, err
		}
		state, mask, ok := parseCTState(v)
		if !ok {
			return nil, tcword.Errorf(`Illegal "ct_state"`)
		}
		o.KeyCTState, o.KeyCTStateMask = &state, &mask
	case m("ct_zone"):
		v, err := value()
		if err != nil {
			return nil, err
		}
		val, mask, ok := parseMasked(v, 0, 0, 16)
		if !ok {
			return nil, tcword.Errorf(`Illegal "ct_zone"`)
		}
		z, zm := uint16(val), uint16(mask)
		o.KeyCTZone, o.KeyCTZoneMask = &z, &zm
	case m("ct_mark"):
		v, err := value()
		if err != nil {
			return nil, err
		}
		val, mask, ok := parseMasked(v, 0, 0, 32)
		if !ok {
			return nil, tcword.Errorf(`Illegal "ct_mark"`)
		}
		mk, mm := uint32(val), uint32(mask)
		o.KeyCTMark, o.KeyCTMarkMask = &mk, &mm
	case m("ct_label"):
		v, err := value()
		if err != nil {
			return nil, err
		}
		if err := fp.parseCTLabel(v); err != nil {
			return nil, err
		}
	case m("indev"):
		v, err := value()
		if err != nil {
			return nil, err
		}
		if !validIfname(v) {
			return nil, tcword.InvalidArgument(v, `"indev" not a valid ifname`)
		}
		o.Indev = &v
	case w == "num_of_vlans":
		v, err := value()
		if err != nil {
			return nil, err
		}
		n, err := tcfmt.ParseUint(v, 10, 8)
		if err != nil {
			return nil, tcword.Errorf(`Illegal "num_of_vlans"`)
		}
		fp.numVlan = uint8(n)
		o.KeyNumOfVlans = &fp.numVlan
	case m("vlan_id"), m("cvlan_id"):
		return fp.vlanID(args, m("vlan_id"))
	case m("vlan_prio"), m("cvlan_prio"):
		return fp.vlanPrio(args, m("vlan_prio"))
	case m("vlan_ethtype"), m("cvlan_ethtype"):
		return fp.vlanEthType(args, m("vlan_ethtype"))
	case m("mpls"):
		return nil, flowerRefused("mpls")
	case m("mpls_label"), m("mpls_tc"), m("mpls_bos"), m("mpls_ttl"):
		return fp.mplsKey(args, flowerKeyName(w, "mpls_label", "mpls_tc", "mpls_bos", "mpls_ttl"))
	case m("dst_mac"), m("src_mac"):
		v, err := value()
		if err != nil {
			return nil, err
		}
		addr, mask, printed, ok := parseMaskedMAC(v)
		key := "src_mac"
		if m("dst_mac") {
			key = "dst_mac"
			o.KeyEthDst, o.KeyEthDstMask = addr, mask
		} else {
			o.KeyEthSrc, o.KeyEthSrcMask = addr, mask
		}
		if !ok {
			return nil, keyError(key, printed...)
		}
	case m("ip_proto"):
		v, err := value()
		if err != nil {
			return nil, err
		}
		if err := fp.parseIPProto(v); err != nil {
			return nil, err
		}
	case m("ip_tos"), m("ip_ttl"):
		v, err := value()
		if err != nil {
			return nil, err
		}
		key := "ip_ttl"
		if m("ip_tos") {
			key = "ip_tos"
		}
		val, mask, ok := parseTosTTL(v)
		if !ok {
			return nil, keyError(key)
		}
		if key == "ip_tos" {
			o.KeyIPTos, o.KeyIPTosMask = &val, &mask
		} else {
			o.KeyIPTtl, o.KeyIPTtlMask = &val, &mask
		}
	case m("dst_ip"), m("src_ip"):
		v, err := value()
		if err != nil {
			return nil, err
		}
		if err := fp.parseIPAddr(v, m("dst_ip")); err != nil {
			return nil, err
		}
	case m("dst_port"), m("src_port"):
		v, err := value()
		if err != nil {
			return nil, err
		}
		key := "src_port"
		if m("dst_port") {
			key = "dst_port"
		}
		if err := fp.parsePort(v, key == "dst_port"); err != nil {
			return nil, keyError(key, err.Error())
		}
	case m("tcp_flags"):
		v, err := value()
		if err != nil {
			return nil, err
		}
		val, mask, ok := parseMasked(v, 16, 16, 16)
		if !strings.Contains(v, "/") {
			mask = tcpFlagsMask
		}
		if !ok || val&^tcpFlagsMask != 0 || mask&^tcpFlagsMask != 0 {
			return nil, tcword.Errorf(`Illegal "tcp_flags"`)
		}
		f, fm := uint16(val), uint16(mask)
		o.KeyTCPFlags, o.KeyTCPFlagsMask = &f, &fm
	case m("type"), m("code"):
		v, err := value()
		if err != nil {
			return nil, err
		}
		if !fp.parseICMP(v, m("type")) {
			if m("type") {
				return nil, tcword.Errorf(`Illegal "icmp type"`)
			}
			return nil, tcword.Errorf(`Illegal "icmp code"`)
		}
	case w == "l2tpv3_sid":
		v, err := value()
		if err != nil {
			return nil, err
		}
		if fp.ipProto != ipprotoL2TP {
			return nil, tcword.Errorf(`Can't set "l2tpv3_sid" if ip_proto isn't l2tp`)
		}
		n, err := tcfmt.ParseUint(v, 10, 32)
		if err != nil {
			return nil, tcword.Errorf(`Illegal "l2tpv3 session id"`)
		}
		o.KeyL2tpv3Sid = tcword.PtrTo(uint32(n))
	case w == "spi":
		v, err := value()
		if err != nil {
			return nil, err
		}
		if fp.ipProto != ipprotoUDP && fp.ipProto != ipprotoESP && fp.ipProto != ipprotoAH {
			return nil, tcword.Errorf(`Can't set "spi" if ip_proto isn't ESP/UDP/AH`)
		}
		n, err := tcfmt.ParseUint(v, 16, 32)
		if err != nil {
			return nil, tcword.Errorf(`Illegal "spi index"`)
		}
		o.KeySpi, o.KeySpiMask = tcword.PtrTo(uint32(n)), tcword.PtrTo(uint32(0xffffffff))
	case m("arp_tip"), m("arp_sip"), m("arp_op"), m("arp_tha"), m("arp_sha"):
		v, err := value()
		if err != nil {
			return nil, err
		}
		if err := fp.arpKey(flowerKeyName(w, "arp_tip", "arp_sip", "arp_op", "arp_tha", "arp_sha"), v); err != nil {
			return nil, err
		}
	case w == "pppoe_sid":
		v, err := value()
		if err != nil {
			return nil, err
		}
		if fp.ethType != ethPPPPSes {
			return nil, tcword.Errorf(`Can't set "pppoe_sid" if ethertype isn't PPPoE session`)
		}
		n, err := tcfmt.ParseUint(v, 10, 16)
		if err != nil {
			return nil, tcword.Errorf(`Illegal "pppoe_sid"`)
		}
		o.KeyPppoeSid = tcword.PtrTo(uint16(n))
	case w == "ppp_proto":
		v, err := value()
		if err != nil {
			return nil, err
		}
		if fp.ethType != ethPPPPSes {
			return nil, tcword.Errorf(`Can't set "ppp_proto" if ethertype isn't PPPoE session`)
		}
		proto, ok := tckind.PppProtocols.A2n(v)
		if !ok {
			return nil, tcword.InvalidArgument(v, "invalid ppp_proto")
		}
		// The protocol inside PPP is what the later keys apply to.
		if e, ok := map[uint16]uint16{0x21: tckind.EthPIP, 0x57: tckind.EthPIPv6, 0x281: tckind.EthPMPLSUC, 0x283: tckind.EthPMPLSMC}[proto]; ok {
			fp.ethType = e
		}
		o.KeyPppProto = &proto
	case m("enc_dst_ip"), m("enc_src_ip"), m("enc_key_id"), m("enc_dst_port"), m("enc_tos"), m("enc_ttl"):
		v, err := value()
		if err != nil {
			return nil, err
		}
		if err := fp.encKey(flowerKeyName(w, "enc_dst_ip", "enc_src_ip", "enc_key_id", "enc_dst_port", "enc_tos", "enc_ttl"), v); err != nil {
			return nil, err
		}
	case m("geneve_opts"), m("vxlan_opts"), m("erspan_opts"):
		return nil, flowerRefused(flowerKeyName(w, "geneve_opts", "vxlan_opts", "erspan_opts"))
	case w == "gtp_opts", w == "pfcp_opts":
		return nil, flowerRefused(w)
	case w == "enc_flags":
		v, err := value()
		if err != nil {
			return nil, err
		}
		if !parseMatchingFlags(flowerEncFlags, v, &fp.encFlags, &fp.encMask) {
			return nil, tcword.Errorf(`Illegal "enc_flags"`)
		}
	case m("action"):
		if len(args) < 2 {
			return nil, tcword.IncompleteCommand()
		}
		acts, rest, err := action.ParseActions(args[1:], fp.env.ActionEnv)
		if err != nil {
			return nil, err
		}
		o.Act = append(o.Act, acts...)
		return rest, nil
	case w == "cfm":
		if len(args) < 2 {
			return nil, tcword.IncompleteCommand()
		}
		return fp.cfm(args[1:])
	case w == "help":
		return nil, &tcword.ParseError{Msg: flowerUsage}
	default:
		return nil, tcword.UsageErrorf("What is %q?", w)
	}
	return args[2:], nil
}

// flowerRefused is gotc's refusal of a key it does not build yet.
func flowerRefused(key string) *tcword.ParseError {
	return tcword.Errorf("gotc does not support flower key %s yet", key)
}

// flowerKeyName is the first of keys that w abbreviates, as tc's chain of
// matches() finds it.
func flowerKeyName(w string, keys ...string) string {
	for _, k := range keys {
		if tcfmt.Matches(w, k) {
			return k
		}
	}
	return w
}

// validIfname is check_ifname: what the kernel takes as a device name.
func validIfname(s string) bool {
	if s == "" || len(s) >= 16 || s == "." || s == ".." {
		return false
	}
	return !strings.ContainsAny(s, "/ \t\n\v\f\r\x00")
}

// parseMasked reads VALUE[/MASK] as flower_parse_u16/u32 do: each a number
// of its base and width; the mask is all ones without one.
func parseMasked(s string, base, maskBase, width int) (val, mask uint64, ok bool) {
	v, m, slash := strings.Cut(s, "/")
	val, err := tcfmt.ParseUint(v, base, width)
	if err != nil {
		return 0, 0, false
	}
	mask = 1<<width - 1
	if slash {
		if mask, err = tcfmt.ParseUint(m, maskBase, width); err != nil {
			return 0, 0, false
		}
	}
	return val, mask, true
}

// parseTosTTL is flower_parse_ip_tos_ttl: the value decimal or else hex,
// the mask hex.
func parseTosTTL(s string) (val, mask uint8, ok bool) {
	v, m, slash := strings.Cut(s, "/")
	n, err := tcfmt.ParseUint(v, 10, 8)
	if err != nil {
		if n, err = tcfmt.ParseUint(v, 16, 8); err != nil {
			return 0, 0, false
		}
	}
	mask = 0xff
	if slash {
		mn, err := tcfmt.ParseUint(m, 16, 8)
		if err != nil {
			return 0, 0, false
		}
		mask = uint8(mn)
	}
	return uint8(n), mask, true
}

// parseMatchingFlags is flower_parse_matching_flags: names of a table
// joined by "/", each maybe with "no" before it.
func parseMatchingFlags(table []flowerFlag, s string, flags, mask *uint32) bool {
	for _, tok := range strings.Split(s, "/") {
		if tok == "" {
			continue // strtok skips empty tokens
		}
		name, no := strings.CutPrefix(tok, "no")
		found := false
		for _, f := range table {
			if name == f.name {
				if no {
					*flags &^= f.bit
				} else {
					*flags |= f.bit
				}
				*mask |= f.bit
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// parseCTState is flower_parse_ct_state: a run of +FLAG and -FLAG.
func parseCTState(s string) (state, mask uint16, ok bool) {
	for s != "" {
		plus := s[0] == '+'
		if !plus && s[0] != '-' {
			return 0, 0, false
		}
		found := false
		for _, f := range flowerCTStates {
			if strings.HasPrefix(s[1:], f.name) {
				if plus {
					state |= f.bit
				}
				mask |= f.bit
				s = s[1+len(f.name):]
				found = true
				break
			}
		}
		if !found {
			return 0, 0, false
		}
	}
	return state, mask, true
}

// parseCTLabel is flower_parse_ct_labels: up to 128 bits in hex, and a
// mask of as many (all ones without one). An odd digit is not read.
func (fp *flowerParser) parseCTLabel(s string) error {
	label, mask, slash := strings.Cut(s, "/")
	if len(label) > 32 || len(mask) > 32 {
		return tcword.InvalidArgument(label, fmt.Sprintf("%d Max allowed size 32", len(label)))
	}
	l, ok := tcword.HexBytes(label)
	if !ok {
		return tcword.InvalidArgument(label, "labels must be a hex string\n")
	}
	m := []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	if slash {
		if m, ok = tcword.HexBytes(mask); !ok {
			return tcword.InvalidArgument(mask, "labels mask must be a hex string\n")
		}
	}
	fp.o.KeyCTLabels, fp.o.KeyCTLabelsMask = l, m
	return nil
}

// parseMaskedMAC is flower_parse_eth_addr: MAC, MAC/BITS or MAC/MASK.
func parseMaskedMAC(s string) (addr, mask []byte, printed []string, ok bool) {
	a, m, slash := strings.Cut(s, "/")
	if strings.Contains(a, ".") {
		return nil, nil, nil, false
	}
	addr, msg, ok := tcword.ParseMAC(a)
	if !ok {
		return nil, nil, []string{msg}, false
	}
	switch {
	case !slash:
		mask = []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	default:
		if n, err := tcfmt.ParseUint(m, 10, 32); err == nil {
			// The top BITS of 48; as tc's 64-bit shift, its count is
			// taken modulo 64.
			word := uint64(0xffffffffffff) << (uint(64-int64(n)) & 63)
			var b [8]byte
			binary.BigEndian.PutUint64(b[:], word)
			mask = b[:6]
		} else if mask, msg, ok = tcword.ParseMAC(m); !ok {
			return nil, nil, []string{msg}, false
		}
	}
	return addr, mask, nil, true
}

// parseIPProto is flower_parse_ip_proto.
func (fp *flowerParser) parseIPProto(s string) error {
	v4, v6 := fp.ethType == tckind.EthPIP, fp.ethType == tckind.EthPIPv6
	bad := keyError("ip_proto", `Illegal "eth_type" for ip proto`)
	if !v4 && !v6 {
		return bad
	}
	var proto uint8
	switch {
	case tcfmt.Matches(s, "tcp"):
		proto = ipprotoTCP
	case tcfmt.Matches(s, "udp"):
		proto = ipprotoUDP
	case tcfmt.Matches(s, "sctp"):
		proto = ipprotoSCTP
	case tcfmt.Matches(s, "icmp"):
		if !v4 {
			return bad
		}
		proto = ipprotoICMP
	case tcfmt.Matches(s, "icmpv6"):
		if !v6 {
			return bad
		}
		proto = ipprotoICMPv6
	case s == "l2tp":
		proto = ipprotoL2TP
	case s == "esp":
		proto = ipprotoESP
	case s == "ah":
		proto = ipprotoAH
	default:
		n, err := tcfmt.ParseUint(s, 16, 8)
		if err != nil {
			return keyError("ip_proto")
		}
		proto = uint8(n)
	}
	fp.ipProto = proto
	fp.o.KeyIPProto = &proto
	return nil
}

// parseIPAddr is flower_parse_ip_addr: a prefix of the family of the
// current ethertype, sent as the address and a mask of its length.
func (fp *flowerParser) parseIPAddr(s string, dst bool) error {
	key := "src_ip"
	if dst {
		key = "dst_ip"
	}
	var v6 bool
	switch fp.ethType {
	case tckind.EthPIP:
	case tckind.EthPIPv6:
		v6 = true
	default:
		return keyError(key)
	}
	a, n, err := tcword.ParsePrefix(s, v6)
	if err != nil {
		family := "inet"
		if v6 {
			family = "inet6"
		}
		return tcword.Errorf("Error: %s prefix is expected rather than %q.", family, s)
	}
	o := fp.o
	if !v6 {
		addr, mask := tcword.Be32(a.As4()), tcword.PrefixMask(n)
		if dst {
			o.KeyIpv4Dst, o.KeyIpv4DstMask = &addr, &mask
		} else {
			o.KeyIpv4Src, o.KeyIpv4SrcMask = &addr, &mask
		}
		return nil
	}
	b, mask := a.As16(), ipv6Mask(n)
	if dst {
		o.KeyIpv6Dst, o.KeyIpv6DstMask = b[:], mask
	} else {
		o.KeyIpv6Src, o.KeyIpv6SrcMask = b[:], mask
	}
	return nil
}

// portKeys are the attributes of a port key for the current ip_proto:
// value and mask, nil for a protocol without ports.
func (fp *flowerParser) portKeys(dst bool) (val, mask **uint16) {
	o := fp.o
	switch {
	case fp.ipProto == ipprotoTCP && dst:
		return &o.KeyTCPDst, &o.KeyTCPDstMask
	case fp.ipProto == ipprotoTCP:
		return &o.KeyTCPSrc, &o.KeyTCPSrcMask
	case fp.ipProto == ipprotoUDP && dst:
		return &o.KeyUdpDst, &o.KeyUdpDstMask
	case fp.ipProto == ipprotoUDP:
		return &o.KeyUdpSrc, &o.KeyUdpSrcMask
	case fp.ipProto == ipprotoSCTP && dst:
		return &o.KeySctpDst, &o.KeySctpDstMask
	case fp.ipProto == ipprotoSCTP:
		return &o.KeySctpSrc, &o.KeySctpSrcMask
	}
	return nil, nil
}

// errNoMessage is a failure after which tc prints only its Illegal line.
type errNoMessage struct{}

func (errNoMessage) Error() string { return "" }

// parsePort is flower_parse_port: PORT, MIN-MAX (decimal) or VALUE/MASK
// (any base). The error's text is what tc prints before its Illegal line.
func (fp *flowerParser) parsePort(s string, dst bool) error {
	val, mask := fp.portKeys(dst)
	if lo, hi, isRange := strings.Cut(s, "-"); isRange {
		min, err1 := tcfmt.ParseUint(lo, 10, 16)
		max, err2 := tcfmt.ParseUint(hi, 10, 16)
		if err1 != nil || err2 != nil {
			// tc cut the word at the '-' and looks for a mask before it.
			return errNoMessage{}
		}
		if max <= min {
			return fmt.Errorf("max value should be greater than min value")
		}
		if val == nil {
			return errNoMessage{}
		}
		a, b := uint16(min), uint16(max)
		if dst {
			fp.o.KeyPortDstMin, fp.o.KeyPortDstMax = &a, &b
		} else {
			fp.o.KeyPortSrcMin, fp.o.KeyPortSrcMax = &a, &b
		}
		return nil
	}
	if n, err := tcfmt.ParseUint(s, 10, 16); err == nil {
		if val == nil {
			return errNoMessage{}
		}
		p := uint16(n)
		*val = &p
		return nil
	}
	if !strings.Contains(s, "/") || val == nil {
		return errNoMessage{}
	}
	v, m, ok := parseMasked(s, 0, 0, 16)
	if !ok {
		return errNoMessage{}
	}
	p, pm := uint16(v), uint16(m)
	*val, *mask = &p, &pm
	return nil
}

// parseICMP is flower_parse_icmp: type or code of ICMP under IPv4, or of
// ICMPv6 under IPv6; VALUE[/MASK], both decimal.
func (fp *flowerParser) parseICMP(s string, typ bool) bool {
	o := fp.o
	var val, mask **uint8
	switch {
	case fp.ethType == tckind.EthPIP && fp.ipProto == ipprotoICMP && typ:
		val, mask = &o.KeyIcmpv4Type, &o.KeyIcmpv4TypeMask
	case fp.ethType == tckind.EthPIP && fp.ipProto == ipprotoICMP:
		val, mask = &o.KeyIcmpv4Code, &o.KeyIcmpv4CodeMask
	case fp.ethType == tckind.EthPIPv6 && fp.ipProto == ipprotoICMPv6 && typ:
		val, mask = &o.KeyIcmpv6Type, &o.KeyIcmpv6TypeMask
	case fp.ethType == tckind.EthPIPv6 && fp.ipProto == ipprotoICMPv6:
		val, mask = &o.KeyIcmpv6Code, &o.KeyIcmpv6CodeMask
	default:
		return false
	}
	v, m, ok := parseMasked(s, 10, 10, 8)
	if !ok {
		return false
	}
	a, b := uint8(v), uint8(m)
	*val, *mask = &a, &b
	return true
}

// mplsKey is the MPLS keys of the old form, one label stack entry's
// fields: mpls_label (20 bits), mpls_tc (3), mpls_bos (1), mpls_ttl (8),
// each decimal, under an MPLS ethertype.
func (fp *flowerParser) mplsKey(args []string, key string) ([]string, error) {
	if len(args) < 2 {
		return nil, tcword.IncompleteCommand()
	}
	if fp.ethType != tckind.EthPMPLSUC && fp.ethType != tckind.EthPMPLSMC {
		return nil, tcword.Errorf("Can't set %q if ethertype isn't MPLS", key)
	}
	width, limit := 8, uint64(0xff)
	switch key {
	case "mpls_label":
		width, limit = 32, 0xfffff
	case "mpls_tc":
		limit = 7
	case "mpls_bos":
		limit = 1
	}
	n, err := tcfmt.ParseUint(args[1], 10, width)
	if err != nil || n > limit {
		return nil, keyError(key)
	}
	o, v := fp.o, uint8(n)
	switch key {
	case "mpls_label":
		o.KeyMPLSLabel = tcword.PtrTo(uint32(n))
	case "mpls_tc":
		o.KeyMPLSTC = &v
	case "mpls_bos":
		o.KeyMPLSBos = &v
	default:
		o.KeyMPLSTtl = &v
	}
	return args[2:], nil
}

// arpKey is the ARP keys, under an ARP or RARP ethertype: arp_tip and
// arp_sip are IPv4 prefixes, arp_op request, reply or a number (masked),
// arp_sha and arp_tha masked MACs.
func (fp *flowerParser) arpKey(key, s string) error {
	o := fp.o
	arp := fp.ethType == ethPARP || fp.ethType == ethPRARP
	switch key {
	case "arp_tip", "arp_sip":
		if !arp {
			return keyError(key)
		}
		a, n, err := tcword.ParsePrefix(s, false)
		if err != nil {
			return tcword.Errorf("Error: inet prefix is expected rather than %q.", s)
		}
		addr, mask := tcword.Be32(a.As4()), tcword.PrefixMask(n)
		if key == "arp_tip" {
			o.KeyArpTip, o.KeyArpTipMask = &addr, &mask
		} else {
			o.KeyArpSip, o.KeyArpSipMask = &addr, &mask
		}
	case "arp_op":
		if !arp {
			return keyError(key)
		}
		v, m, slash := strings.Cut(s, "/")
		var op uint64
		switch v {
		case "request":
			op = 1
		case "reply":
			op = 2
		default:
			n, err := tcfmt.ParseUint(v, 10, 8)
			if err != nil || n > 2 {
				return keyError(key)
			}
			op = n
		}
		mask := uint64(0xff)
		if slash {
			var err error
			if mask, err = tcfmt.ParseUint(m, 10, 8); err != nil {
				return keyError(key)
			}
		}
		o.KeyArpOp, o.KeyArpOpMask = tcword.PtrTo(uint8(op)), tcword.PtrTo(uint8(mask))
	default:
		addr, mask, printed, ok := parseMaskedMAC(s)
		if !ok {
			return keyError(key, printed...)
		}
		if key == "arp_tha" {
			o.KeyArpTha, o.KeyArpThaMask = addr, mask
		} else {
			o.KeyArpSha, o.KeyArpShaMask = addr, mask
		}
	}
	return nil
}

// encKey is the tunnel keys of a decapsulated packet: enc_dst_ip and
// enc_src_ip are prefixes of either family, enc_key_id a 32-bit and
// enc_dst_port a 16-bit decimal number, enc_tos and enc_ttl as ip_tos.
func (fp *flowerParser) encKey(key, s string) error {
	o := fp.o
	switch key {
	case "enc_dst_ip", "enc_src_ip":
		v6 := strings.Contains(s, ":")
		a, n, err := tcword.ParsePrefix(s, v6)
		if err != nil {
			return tcword.Errorf("Error: any valid prefix is expected rather than %q.", s)
		}
		dst := key == "enc_dst_ip"
		if !v6 {
			addr, mask := tcword.Be32(a.As4()), tcword.PrefixMask(n)
			if dst {
				o.KeyEncIpv4Dst, o.KeyEncIpv4DstMask = &addr, &mask
			} else {
				o.KeyEncIpv4Src, o.KeyEncIpv4SrcMask = &addr, &mask
			}
			return nil
		}
		b, mask := a.As16(), ipv6Mask(n)
		if dst {
			o.KeyEncIpv6Dst, o.KeyEncIpv6DstMask = b[:], mask
		} else {
			o.KeyEncIpv6Src, o.KeyEncIpv6SrcMask = b[:], mask
		}
	case "enc_key_id":
		n, err := tcfmt.ParseUint(s, 10, 32)
		if err != nil {
			return keyError(key)
		}
		o.KeyEncKeyID = tcword.PtrTo(uint32(n))
	case "enc_dst_port":
		n, err := tcfmt.ParseUint(s, 10, 16)
		if err != nil {
			return keyError(key)
		}
		o.KeyEncUdpDstPort = tcword.PtrTo(uint16(n))
	default:
		val, mask, ok := parseTosTTL(s)
		if !ok {
			return keyError(key)
		}
		if key == "enc_tos" {
			o.KeyEncIPTos, o.KeyEncIPTosMask = &val, &mask
		} else {
			o.KeyEncIPTtl, o.KeyEncIPTtlMask = &val, &mask
		}
	}
	return nil
}

// ipv6Mask is the 16-byte mask of a prefix length.
func ipv6Mask(n int) []byte {
	mask := make([]byte, 16)
	for i := range mask {
		switch {
		case n >= 8*(i+1):
			mask[i] = 0xff
		case n > 8*i:
			mask[i] = byte(0xff << (8*(i+1) - n))
		}
	}
	return mask
}

// cfm is flower_parse_cfm: the words "mdl N" and "op N" (decimal) that
// follow, under the CFM ethertype; the first other word goes back to the
// filter's keywords.
func (fp *flowerParser) cfm(args []string) ([]string, error) {
	if fp.ethType != ethPCFM {
		return nil, tcword.Errorf("Can't set attribute if ethertype isn't CFM")
	}
	c := &attrs.FlowerKeyCfmAttrs{}
	fp.o.KeyCfm = c
	for len(args) > 0 && (args[0] == "mdl" || args[0] == "op") {
		if len(args) < 2 {
			return nil, tcword.IncompleteCommand()
		}
		n, err := tcfmt.ParseUint(args[1], 10, 8)
		if err != nil {
			if args[0] == "mdl" {
				return nil, tcword.Errorf(`Illegal "cfm md level"`)
			}
			return nil, tcword.Errorf(`Illegal "cfm opcode"`)
		}
		if args[0] == "mdl" {
			c.MdLevel = tcword.PtrTo(uint8(n))
		} else {
			c.Opcode = tcword.PtrTo(uint8(n))
		}
		args = args[2:]
	}
	return args, nil
}

// isVLAN is eth_type_vlan: an 802.1Q or 802.1AD ethertype, or enough VLAN
// tags counted by num_of_vlans.
func isVLAN(ethType uint16, enough bool) bool {
	return ethType == tckind.EthP8021Q || ethType == tckind.EthP8021AD || enough
}

func vlanWhy(outer bool, key string) string {
	if outer {
		return fmt.Sprintf("Can't set %q if ethertype isn't 802.1Q or 802.1AD and num_of_vlans is 0", key)
	}
	return fmt.Sprintf("Can't set %q if inner vlan ethertype isn't 802.1Q or 802.1AD and num_of_vlans is less than 2", key)
}

// vlanID is vlan_id (outer) and cvlan_id: 12 bits, decimal.
func (fp *flowerParser) vlanID(args []string, outer bool) ([]string, error) {
	key, ethType, enough := "cvlan_id", fp.vlanEth, fp.numVlan > 1
	if outer {
		key, ethType, enough = "vlan_id", fp.tcProto, fp.numVlan > 0
	}
	if len(args) < 2 {
		return nil, tcword.IncompleteCommand()
	}
	if !isVLAN(ethType, enough) {
		return nil, tcword.Errorf("%s", vlanWhy(outer, key))
	}
	n, err := tcfmt.ParseUint(args[1], 10, 16)
	if err != nil || n&^0xfff != 0 {
		return nil, keyError(key)
	}
	id := uint16(n)
	if outer {
		fp.o.KeyVLANID = &id
	} else {
		fp.o.KeyCvlanID = &id
	}
	return args[2:], nil
}

// vlanPrio is vlan_prio and cvlan_prio: 3 bits, decimal.
func (fp *flowerParser) vlanPrio(args []string, outer bool) ([]string, error) {
	key, ethType, enough := "cvlan_prio", fp.vlanEth, fp.numVlan > 1
	if outer {
		key, ethType, enough = "vlan_prio", fp.tcProto, fp.numVlan > 0
	}
	if len(args) < 2 {
		return nil, tcword.IncompleteCommand()
	}
	if !isVLAN(ethType, enough) {
		return nil, tcword.Errorf("%s", vlanWhy(outer, key))
	}
	n, err := tcfmt.ParseUint(args[1], 10, 8)
	if err != nil || n&^7 != 0 {
		return nil, keyError(key)
	}
	prio := uint8(n)
	if outer {
		fp.o.KeyVLANPrio = &prio
	} else {
		fp.o.KeyCvlanPrio = &prio
	}
	return args[2:], nil
}

// vlanEthType is vlan_ethtype and cvlan_ethtype (flower_parse_vlan_eth_type):
// the ethertype inside the tag, which the later keys apply to.
func (fp *flowerParser) vlanEthType(args []string, outer bool) ([]string, error) {
	if len(args) < 2 {
		return nil, tcword.IncompleteCommand()
	}
	key, ethType, enough, why := "cvlan_ethtype", fp.vlanEth, fp.numVlan > 1, "less than 2"
	if outer {
		key, ethType, enough, why = "vlan_ethtype", fp.ethType, fp.numVlan > 0, "is 0"
	}
	if !isVLAN(ethType, enough) {
		return nil, tcword.Errorf("Can't set %q if ethertype isn't 802.1Q or 802.1AD and num_of_vlans %s", key, why)
	}
	p, ok := tckind.ParseEthProtocol(args[1])
	if !ok {
		return nil, tcword.InvalidArgument(args[1], "invalid vlan_ethtype")
	}
	if outer {
		fp.vlanEth = p
		fp.o.KeyVLANEthType = &fp.vlanEth
	} else {
		fp.o.KeyCvlanEthType = &p
	}
	fp.ethType = p
	return args[2:], nil
}

// printFlower is f_flower.c's flower_print_opt.
func printFlower(p *tcfmt.Printer, opts attrs.TCOptionsMsg, f tckind.FilterPrint) {
	o, ok := opts.(*attrs.FlowerAttrs)
	if !ok {
		return
	}
	if f.Handle != 0 {
		p.Uint(tcfmt.Any, "handle", "handle 0x%x ", uint64(f.Handle))
	}
	if o.Classid != nil {
		h := *o.Classid
		if min := h & 0xffff; min < tcHMinPriority || min > tcHMinPriority+tcQoptMaxQueue-1 {
			p.String(tcfmt.Any, "classid", "classid %s ", tcfmt.FormatClassID(h))
		} else {
			p.Uint(tcfmt.Any, "hw_tc", "hw_tc %u ", uint64(min-tcHMinPriority))
		}
	}
	if o.Indev != nil {
		p.NL()
		p.String(tcfmt.Any, "indev", "  indev %s", *o.Indev)
	}
	p.OpenObject("keys")
	nlUint := func(key, format string, v uint64) {
		p.NL()
		p.Uint(tcfmt.Any, tcfmt.Name(key), format, v)
	}
	if o.KeyNumOfVlans != nil {
		nlUint("num_of_vlans", "  num_of_vlans %d", uint64(*o.KeyNumOfVlans))
	}
	if o.KeyVLANID != nil {
		nlUint("vlan_id", "  vlan_id %u", uint64(*o.KeyVLANID))
	}
	if o.KeyVLANPrio != nil {
		nlUint("vlan_prio", "  vlan_prio %d", uint64(*o.KeyVLANPrio))
	}
	if o.KeyVLANEthType != nil {
		p.NL()
		p.String(tcfmt.Any, "vlan_ethtype", "  vlan_ethtype %s", tckind.EthProtocolName(*o.KeyVLANEthType))
	}
	if o.KeyCvlanID != nil {
		nlUint("cvlan_id", "  cvlan_id %u", uint64(*o.KeyCvlanID))
	}
	if o.KeyCvlanPrio != nil {
		nlUint("cvlan_prio", "  cvlan_prio %d", uint64(*o.KeyCvlanPrio))
	}
	if o.KeyCvlanEthType != nil {
		p.NL()
		p.String(tcfmt.Any, "cvlan_ethtype", "  cvlan_ethtype %s", tckind.EthProtocolName(*o.KeyCvlanEthType))
	}
	printFlowerMAC(p, "dst_mac", o.KeyEthDst, o.KeyEthDstMask)
	printFlowerMAC(p, "src_mac", o.KeyEthSrc, o.KeyEthSrcMask)
	var ethType uint16
	if o.KeyEthType != nil {
		ethType = *o.KeyEthType
		var s string
		switch ethType {
		case tckind.EthPIP:
			s = "ipv4"
		case tckind.EthPIPv6:
			s = "ipv6"
		case ethPARP:
			s = "arp"
		case ethPRARP:
			s = "rarp"
		default:
			s = fmt.Sprintf("%04x", ethType)
		}
		p.NL()
		p.String(tcfmt.Any, "eth_type", "  eth_type %s", s)
	}
	ipProto := uint8(0xff)
	if o.KeyIPProto != nil {
		ipProto = *o.KeyIPProto
		p.NL()
		p.String(tcfmt.Any, "ip_proto", "  ip_proto %s", ipProtoName(ipProto))
	}
	printMaskedUint(p, "ip_tos", u8p(o.KeyIPTos), u8p(o.KeyIPTosMask), 0xff)
	printMaskedUint(p, "ip_ttl", u8p(o.KeyIPTtl), u8p(o.KeyIPTtlMask), 0xff)
	if o.KeyMPLSLabel != nil {
		p.NL()
		p.Text("  ")
		p.Uint(tcfmt.Any, "mpls_label", "mpls_label %u", uint64(*o.KeyMPLSLabel))
	}
	printFlowerMaskedU8(p, "mpls_tc", o.KeyMPLSTC, nil)
	printFlowerMaskedU8(p, "mpls_bos", o.KeyMPLSBos, nil)
	printFlowerMaskedU8(p, "mpls_ttl", o.KeyMPLSTtl, nil)
	switch ethType {
	case tckind.EthPIP:
		printFlowerIPv4(p, "dst_ip", o.KeyIpv4Dst, o.KeyIpv4DstMask)
		printFlowerIPv4(p, "src_ip", o.KeyIpv4Src, o.KeyIpv4SrcMask)
	case tckind.EthPIPv6:
		printFlowerIPv6(p, "dst_ip", o.KeyIpv6Dst, o.KeyIpv6DstMask)
		printFlowerIPv6(p, "src_ip", o.KeyIpv6Src, o.KeyIpv6SrcMask)
	}
	var dst, dstMask, src, srcMask *uint16
	switch ipProto {
	case ipprotoTCP:
		dst, dstMask, src, srcMask = o.KeyTCPDst, o.KeyTCPDstMask, o.KeyTCPSrc, o.KeyTCPSrcMask
	case ipprotoUDP:
		dst, dstMask, src, srcMask = o.KeyUdpDst, o.KeyUdpDstMask, o.KeyUdpSrc, o.KeyUdpSrcMask
	case ipprotoSCTP:
		dst, dstMask, src, srcMask = o.KeySctpDst, o.KeySctpDstMask, o.KeySctpSrc, o.KeySctpSrcMask
	}
	printMaskedUint(p, "dst_port", u16p(dst), u16p(dstMask), 0xffff)
	printMaskedUint(p, "src_port", u16p(src), u16p(srcMask), 0xffff)
	if ipProto == ipprotoTCP || ipProto == ipprotoUDP || ipProto == ipprotoSCTP {
		printPortRange(p, "dst_port", o.KeyPortDstMin, o.KeyPortDstMax)
		printPortRange(p, "src_port", o.KeyPortSrcMin, o.KeyPortSrcMax)
	}
	if o.KeyTCPFlags != nil {
		s := fmt.Sprintf("0x%x", *o.KeyTCPFlags)
		if o.KeyTCPFlagsMask != nil {
			s += fmt.Sprintf("/%x", *o.KeyTCPFlagsMask)
		}
		printIndentNameValue(p, "tcp_flags", s)
	}
	switch {
	case ethType == tckind.EthPIP && ipProto == ipprotoICMP:
		printFlowerMaskedU8(p, "icmp_type", o.KeyIcmpv4Type, o.KeyIcmpv4TypeMask)
		printFlowerMaskedU8(p, "icmp_code", o.KeyIcmpv4Code, o.KeyIcmpv4CodeMask)
	case ethType == tckind.EthPIPv6 && ipProto == ipprotoICMPv6:
		printFlowerMaskedU8(p, "icmp_type", o.KeyIcmpv6Type, o.KeyIcmpv6TypeMask)
		printFlowerMaskedU8(p, "icmp_code", o.KeyIcmpv6Code, o.KeyIcmpv6CodeMask)
	}
	if o.KeyL2tpv3Sid != nil {
		nlUint("l2tpv3_sid", "  l2tpv3_sid %u", uint64(*o.KeyL2tpv3Sid))
	}
	if o.KeySpi != nil {
		p.NL()
		p.Hex(tcfmt.Any, "spi", "  spi 0x%x", *o.KeySpi)
	}
	printFlowerIPv4(p, "arp_sip", o.KeyArpSip, o.KeyArpSipMask)
	printFlowerIPv4(p, "arp_tip", o.KeyArpTip, o.KeyArpTipMask)
	if o.KeyArpOp != nil {
		if op := *o.KeyArpOp; (o.KeyArpOpMask == nil || *o.KeyArpOpMask == 0xff) && (op == 1 || op == 2) {
			printIndentNameValue(p, "arp_op", map[uint8]string{1: "request", 2: "reply"}[op])
		} else {
			printFlowerMaskedU8(p, "arp_op", o.KeyArpOp, o.KeyArpOpMask)
		}
	}
	printFlowerMAC(p, "arp_sha", o.KeyArpSha, o.KeyArpShaMask)
	printFlowerMAC(p, "arp_tha", o.KeyArpTha, o.KeyArpThaMask)
	if o.KeyPppoeSid != nil {
		nlUint("pppoe_sid", "  pppoe_sid %u", uint64(*o.KeyPppoeSid))
	}
	if o.KeyPppProto != nil {
		p.NL()
		p.String(tcfmt.Any, "ppp_proto", "  ppp_proto %s", tckind.PppProtocols.N2a(*o.KeyPppProto))
	}
	// The tunnel addresses are IPv4 when the IPv4 mask is there.
	if o.KeyEncIpv4DstMask != nil {
		printFlowerIPv4(p, "enc_dst_ip", o.KeyEncIpv4Dst, o.KeyEncIpv4DstMask)
	} else {
		printFlowerIPv6(p, "enc_dst_ip", o.KeyEncIpv6Dst, o.KeyEncIpv6DstMask)
	}
	if o.KeyEncIpv4SrcMask != nil {
		printFlowerIPv4(p, "enc_src_ip", o.KeyEncIpv4Src, o.KeyEncIpv4SrcMask)
	} else {
		printFlowerIPv6(p, "enc_src_ip", o.KeyEncIpv6Src, o.KeyEncIpv6SrcMask)
	}
	if o.KeyEncKeyID != nil {
		p.NL()
		p.Text("  ")
		p.Uint(tcfmt.Any, "enc_key_id", "enc_key_id %u", uint64(*o.KeyEncKeyID))
	}
	printMaskedUint(p, "enc_dst_port", u16p(o.KeyEncUdpDstPort), u16p(o.KeyEncUdpDstPortMask), 0xffff)
	printMaskedUint(p, "enc_tos", u8p(o.KeyEncIPTos), u8p(o.KeyEncIPTosMask), 0xff)
	printMaskedUint(p, "enc_ttl", u8p(o.KeyEncIPTtl), u8p(o.KeyEncIPTtlMask), 0xff)
	printMatchingFlags(p, "ip_flags", flowerIPFlags, o.KeyFlags, o.KeyFlagsMask)
	printMatchingFlags(p, "enc_flags", flowerEncFlags, o.KeyEncFlags, o.KeyEncFlagsMask)
	if o.L2Miss != nil {
		nlUint("l2_miss", "  l2_miss %u", uint64(*o.L2Miss))
	}
	if o.KeyCTState != nil {
		mask := uint16(0xffff)
		if o.KeyCTStateMask != nil {
			mask = *o.KeyCTStateMask
		}
		var b strings.Builder
		for _, f := range flowerCTStates {
			if mask&f.bit == 0 {
				continue
			}
			if *o.KeyCTState&f.bit != 0 {
				b.WriteString("+" + f.name)
			} else {
				b.WriteString("-" + f.name)
			}
		}
		p.NL()
		p.String(tcfmt.Any, "ct_state", "  ct_state %s", b.String())
	}
	printMaskedUint(p, "ct_zone", u16p(o.KeyCTZone), u16p(o.KeyCTZoneMask), 0xffff)
	printMaskedUint(p, "ct_mark", u32p(o.KeyCTMark), u32p(o.KeyCTMarkMask), 0xffffffff)
	if o.KeyCTLabels != nil {
		// The mask is shown unless it is 16 bytes of ones; as long as the
		// label.
		out := fmt.Sprintf("%x", o.KeyCTLabels)
		full := len(o.KeyCTLabels) == 16
		for _, c := range o.KeyCTLabelsMask {
			full = full && c == 0xff
		}
		if !full {
			m := o.KeyCTLabelsMask
			if len(m) > len(o.KeyCTLabels) {
				m = m[:len(o.KeyCTLabels)]
			}
			out += fmt.Sprintf("/%x", m)
		}
		p.NL()
		p.String(tcfmt.Any, "ct_label", "  ct_label %s", out)
	}
	if c := o.KeyCfm; c != nil {
		p.NL()
		p.Text("  cfm")
		p.OpenObject("cfm")
		if c.MdLevel != nil {
			p.Uint(tcfmt.Any, "mdl", " mdl %u", uint64(*c.MdLevel))
		}
		if c.Opcode != nil {
			p.Uint(tcfmt.Any, "op", " op %u", uint64(*c.Opcode))
		}
		p.CloseObject()
	}
	p.CloseObject()
	if o.Flags != nil {
		fl := *o.Flags
		if fl&clsFlagSkipHW != 0 {
			p.NL()
			p.Bool(tcfmt.Any, "skip_hw", "  skip_hw", true)
		}
		if fl&clsFlagSkipSW != 0 {
			p.NL()
			p.Bool(tcfmt.Any, "skip_sw", "  skip_sw", true)
		}
		if fl&clsFlagInHW != 0 {
			p.NL()
			p.Bool(tcfmt.Any, "in_hw", "  in_hw", true)
			if o.InHWCount != nil {
				p.Uint(tcfmt.Any, "in_hw_count", " in_hw_count %u", uint64(*o.InHWCount))
			}
		} else if fl&clsFlagNotHW != 0 {
			p.NL()
			p.Bool(tcfmt.Any, "not_in_hw", "  not_in_hw", true)
		}
	}
	if o.Act != nil {
		action.PrintActions(p, o.Act, action.ActionPrint{Stats: f.Stats, Bind: true, FirstOrder: 1, Links: f.Links})
	}
}

// u8p, u16p and u32p widen an optional value for printMaskedUint.
func u8p(v *uint8) *uint64 {
	if v == nil {
		return nil
	}
	w := uint64(*v)
	return &w
}

func u16p(v *uint16) *uint64 {
	if v == nil {
		return nil
	}
	w := uint64(*v)
	return &w
}

func u32p(v *uint32) *uint64 {
	if v == nil {
		return nil
	}
	w := uint64(*v)
	return &w
}

// printIndentNameValue is f_flower.c's print_indent_name_value: a new
// line, two spaces and "NAME VALUE"; in JSON, the value as a string.
func printIndentNameValue(p *tcfmt.Printer, name, value string) {
	p.Text(p.SL() + "  ")
	p.String(tcfmt.Any, tcfmt.Name(name), name+" %s", value)
}

// printMaskedUint is tc_util.c's print_masked_type on a new line: "NAME
// VALUE", and "/0xMASK" (NAME_mask in JSON) unless the mask is all ones.
func printMaskedUint(p *tcfmt.Printer, name string, v, mask *uint64, ones uint64) {
	if v == nil {
		return
	}
	m := ones
	if mask != nil {
		m = *mask
	}
	p.Text(p.SL() + "  ")
	p.Uint(tcfmt.Any, tcfmt.Name(name), name+" %u", *v)
	if m != ones {
		p.Hex(tcfmt.Any, tcfmt.Name(name+"_mask"), "/0x%x", uint32(m))
	}
}

// printFlowerMaskedU8 is flower_print_masked_u8: decimal value and mask,
// printed as a string.
func printFlowerMaskedU8(p *tcfmt.Printer, name string, v, mask *uint8) {
	if v == nil {
		return
	}
	s := strconv.Itoa(int(*v))
	if mask != nil && *mask != 0xff {
		s += "/" + strconv.Itoa(int(*mask))
	}
	printIndentNameValue(p, name, s)
}

// maskBits is __mask_bits: the length of a mask of leading ones, -1 for
// any other mask (one with a hole, or that starts with a zero).
func maskBits(b []byte) int {
	n := 0
	hole := false
	for _, c := range b {
		for j := 7; j >= 0; j-- {
			switch {
			case c>>j&1 == 1:
				if hole {
					return -1
				}
				n++
			case n > 0:
				hole = true
			default:
				return -1
			}
		}
	}
	return n
}

// printFlowerMAC is flower_print_eth_addr: the address, and its mask as a
// length, or as an address when it is not one.
func printFlowerMAC(p *tcfmt.Printer, name string, addr, mask []byte) {
	if len(addr) != 6 {
		return
	}
	s := tcword.FormatMAC(addr)
	if len(mask) == 6 {
		if n := maskBits(mask); n < 0 {
			s += "/" + tcword.FormatMAC(mask)
		} else if n < 48 {
			s += "/" + strconv.Itoa(n)
		}
	}
	printIndentNameValue(p, name, s)
}

// printFlowerIPv4 and printFlowerIPv6 are flower_print_ip_addr: the
// address with its mask as a length, or as an address when it is not one;
// nothing without both.
func printFlowerIPv4(p *tcfmt.Printer, name string, addr, mask *uint32) {
	if addr == nil || mask == nil {
		return
	}
	var a, m [4]byte
	binary.BigEndian.PutUint32(a[:], *addr)
	binary.BigEndian.PutUint32(m[:], *mask)
	printFlowerIP(p, name, a[:], m[:])
}

func printFlowerIPv6(p *tcfmt.Printer, name string, addr, mask []byte) {
	if len(addr) != 16 || len(mask) != 16 {
		return
	}
	printFlowerIP(p, name, addr, mask)
}

func printFlowerIP(p *tcfmt.Printer, name string, addr, mask []byte) {
	a, _ := netip.AddrFromSlice(addr)
	s := a.String()
	if n := maskBits(mask); n < 0 {
		m, _ := netip.AddrFromSlice(mask)
		s += "/" + m.String()
	} else if n < 8*len(addr) {
		s += "/" + strconv.Itoa(n)
	}
	printIndentNameValue(p, name, s)
}

// printPortRange is flower_print_port_range: "MIN-MAX", in JSON an object
// of start and end.
func printPortRange(p *tcfmt.Printer, name string, min, max *uint16) {
	if min == nil || max == nil {
		return
	}
	if p.IsJSON() {
		p.OpenObject(tcfmt.Name(name))
		p.Uint(tcfmt.JSON, "start", "", uint64(*min))
		p.Uint(tcfmt.JSON, "end", "", uint64(*max))
		p.CloseObject()
		return
	}
	printIndentNameValue(p, name, fmt.Sprintf("%d-%d", *min, *max))
}

// printMatchingFlags is flower_print_matching_flags: each flag of the
// mask, "NAME" or "noNAME", joined by "/"; in JSON, an object of bools.
func printMatchingFlags(p *tcfmt.Printer, key string, table []flowerFlag, flags, mask *uint32) {
	if mask == nil || flags == nil {
		return
	}
	f := *flags
	count := 0
	for _, fl := range table {
		if *mask&fl.bit == 0 {
			continue
		}
		count++
		if count == 1 {
			p.NL()
			p.Text("  " + key + " ")
			p.OpenObject(tcfmt.Name(key))
		} else {
			p.Text("/")
		}
		on := f&fl.bit != 0
		p.Bool(tcfmt.JSON, tcfmt.Name(fl.name), "", on)
		if on {
			p.Text(fl.name)
		} else {
			p.Text("no" + fl.name)
		}
	}
	if count > 0 {
		p.CloseObject()
	}
}

// ipProtoName is how flower_print_ip_proto names a protocol.
func ipProtoName(proto uint8) string {
	switch proto {
	case ipprotoTCP:
		return "tcp"
	case ipprotoUDP:
		return "udp"
	case ipprotoSCTP:
		return "sctp"
	case ipprotoICMP:
		return "icmp"
	case ipprotoICMPv6:
		return "icmpv6"
	case ipprotoL2TP:
		return "l2tp"
	case ipprotoESP:
		return "esp"
	case ipprotoAH:
		return "ah"
	}
	return fmt.Sprintf("0x%02x", proto)
}

// flowerKeywords is FilterKind.Keywords for flower. The ethertype is the
// filter's protocol, not a word; the words follow the parser's order,
// each key after those that choose its meaning (the VLAN ethertypes and
// ppp_proto before the IP keys, ip_proto before the ports). A key is
// written with its mask wherever the parser reads one, since the kernel
// dumps the masks it fills in. Refused: the keys tc has no words for
// (tunnel and MPLS options, the hash, the tunnel's source port), and
// addresses whose masks are not prefixes.
func flowerKeywords(opts attrs.TCOptionsMsg, links tckind.Links) ([]string, error) {
	o, ok := opts.(*attrs.FlowerAttrs)
	if !ok {
		return nil, tckind.NoKeywords(fmt.Sprintf("flower options of type %T", opts))
	}
	switch {
	case o.KeyEncOpts != nil, o.KeyMPLSOpts != nil:
		return nil, tckind.NoKeywords("flower tunnel or MPLS options, which gotc does not parse")
	case o.KeyHash != nil, o.KeyEncUdpSrcPort != nil:
		return nil, tckind.NoKeywords("flower hash or enc_src_port, which tc has no words for")
	}
	var w []string
	if o.Flags != nil {
		fw, err := filterFlagWords(o.Flags)
		if err != nil {
			return nil, err
		}
		w = append(w, fw...)
		if *o.Flags&clsFlagVerbose != 0 {
			w = append(w, "verbose")
		}
	}
	w = classidWords(w, o.Classid)
	if o.Indev != nil {
		w = append(w, "indev", *o.Indev)
	}
	u := func(kw string, v *uint8) {
		if v != nil {
			w = append(w, kw, tcword.UintWord(*v))
		}
	}
	ethType := uint16(tckind.EthPAll)
	if o.KeyEthType != nil {
		ethType = *o.KeyEthType
	}
	u("num_of_vlans", o.KeyNumOfVlans)
	if o.KeyVLANID != nil {
		w = append(w, "vlan_id", tcword.UintWord(*o.KeyVLANID))
	}
	u("vlan_prio", o.KeyVLANPrio)
	if o.KeyVLANEthType != nil {
		ethType = *o.KeyVLANEthType
		w = append(w, "vlan_ethtype", tckind.EthProtocolWord(ethType))
	}
	if o.KeyCvlanID != nil {
		w = append(w, "cvlan_id", tcword.UintWord(*o.KeyCvlanID))
	}
	u("cvlan_prio", o.KeyCvlanPrio)
	if o.KeyCvlanEthType != nil {
		ethType = *o.KeyCvlanEthType
		w = append(w, "cvlan_ethtype", tckind.EthProtocolWord(ethType))
	}
	for _, m := range []struct {
		kw         string
		addr, mask []byte
	}{{"dst_mac", o.KeyEthDst, o.KeyEthDstMask}, {"src_mac", o.KeyEthSrc, o.KeyEthSrcMask}, {"arp_tha", o.KeyArpTha, o.KeyArpThaMask}, {"arp_sha", o.KeyArpSha, o.KeyArpShaMask}} {
		if m.addr != nil {
			if len(m.addr) != 6 || len(m.mask) != 6 {
				return nil, tckind.NoKeywords("flower " + m.kw + " without a mask")
			}
			w = append(w, m.kw, tcword.FormatMAC(m.addr)+"/"+tcword.FormatMAC(m.mask))
		}
	}
	if o.KeyPppoeSid != nil {
		w = append(w, "pppoe_sid", tcword.UintWord(*o.KeyPppoeSid))
	}
	if o.KeyPppProto != nil {
		w = append(w, "ppp_proto", tckind.PppProtocols.Word(*o.KeyPppProto))
		if e, ok := pppEthType(*o.KeyPppProto); ok {
			ethType = e
		}
	}
	ipProto := uint8(0xff)
	if o.KeyIPProto != nil {
		ipProto = *o.KeyIPProto
		name := ipProtoName(ipProto)
		if ipProto == ipprotoICMP && ethType != tckind.EthPIP || ipProto == ipprotoICMPv6 && ethType != tckind.EthPIPv6 {
			name = fmt.Sprintf("0x%02x", ipProto)
		}
		w = append(w, "ip_proto", name)
	}
	for _, t := range []struct {
		kw        string
		val, mask *uint8
	}{{"ip_tos", o.KeyIPTos, o.KeyIPTosMask}, {"ip_ttl", o.KeyIPTtl, o.KeyIPTtlMask}, {"enc_tos", o.KeyEncIPTos, o.KeyEncIPTosMask}, {"enc_ttl", o.KeyEncIPTtl, o.KeyEncIPTtlMask}} {
		if t.val != nil {
			w = append(w, t.kw, fmt.Sprintf("%d/%x", *t.val, flowerMask8(t.mask)))
		}
	}
	prefixes := []struct {
		kw         string
		addr, mask []byte
	}{
		{"dst_ip", be32Bytes(o.KeyIpv4Dst), be32Bytes(o.KeyIpv4DstMask)}, {"src_ip", be32Bytes(o.KeyIpv4Src), be32Bytes(o.KeyIpv4SrcMask)},
		{"dst_ip", o.KeyIpv6Dst, o.KeyIpv6DstMask}, {"src_ip", o.KeyIpv6Src, o.KeyIpv6SrcMask},
		{"arp_tip", be32Bytes(o.KeyArpTip), be32Bytes(o.KeyArpTipMask)}, {"arp_sip", be32Bytes(o.KeyArpSip), be32Bytes(o.KeyArpSipMask)},
		{"enc_dst_ip", be32Bytes(o.KeyEncIpv4Dst), be32Bytes(o.KeyEncIpv4DstMask)}, {"enc_src_ip", be32Bytes(o.KeyEncIpv4Src), be32Bytes(o.KeyEncIpv4SrcMask)},
		{"enc_dst_ip", o.KeyEncIpv6Dst, o.KeyEncIpv6DstMask}, {"enc_src_ip", o.KeyEncIpv6Src, o.KeyEncIpv6SrcMask},
	}
	for _, p := range prefixes {
		if p.addr == nil {
			continue
		}
		a, ok := netip.AddrFromSlice(p.addr)
		n := maskBits(p.mask)
		if !ok || len(p.mask) != len(p.addr) || n < 0 {
			// The parser takes prefixes only.
			return nil, tckind.NoKeywords("flower " + p.kw + " without a prefix mask")
		}
		w = append(w, p.kw, a.String()+"/"+strconv.Itoa(n))
	}
	ports := []struct {
		proto     uint8
		kw        string
		val, mask *uint16
	}{
		{ipprotoTCP, "dst_port", o.KeyTCPDst, o.KeyTCPDstMask}, {ipprotoTCP, "src_port", o.KeyTCPSrc, o.KeyTCPSrcMask},
		{ipprotoUDP, "dst_port", o.KeyUdpDst, o.KeyUdpDstMask}, {ipprotoUDP, "src_port", o.KeyUdpSrc, o.KeyUdpSrcMask},
		{ipprotoSCTP, "dst_port", o.KeySctpDst, o.KeySctpDstMask}, {ipprotoSCTP, "src_port", o.KeySctpSrc, o.KeySctpSrcMask},
	}
	for _, p := range ports {
		if p.val == nil {
			continue
		}
		if p.proto != ipProto {
			return nil, tckind.NoKeywords("flower " + p.kw + " of another ip_proto")
		}
		if p.mask == nil {
			w = append(w, p.kw, tcword.UintWord(*p.val))
		} else {
			w = append(w, p.kw, fmt.Sprintf("%d/0x%x", *p.val, *p.mask))
		}
	}
	for _, r := range []struct {
		kw       string
		min, max *uint16
	}{{"dst_port", o.KeyPortDstMin, o.KeyPortDstMax}, {"src_port", o.KeyPortSrcMin, o.KeyPortSrcMax}} {
		if r.min != nil || r.max != nil {
			if r.min == nil || r.max == nil {
				return nil, tckind.NoKeywords("flower " + r.kw + " range without both ends")
			}
			w = append(w, r.kw, fmt.Sprintf("%d-%d", *r.min, *r.max))
		}
	}
	if o.KeyTCPFlags != nil {
		m := uint16(tcpFlagsMask)
		if o.KeyTCPFlagsMask != nil {
			m = *o.KeyTCPFlagsMask
		}
		w = append(w, "tcp_flags", fmt.Sprintf("0x%x/0x%x", *o.KeyTCPFlags, m))
	}
	for _, c := range []struct {
		kw        string
		val, mask *uint8
	}{
		{"type", o.KeyIcmpv4Type, o.KeyIcmpv4TypeMask}, {"code", o.KeyIcmpv4Code, o.KeyIcmpv4CodeMask},
		{"type", o.KeyIcmpv6Type, o.KeyIcmpv6TypeMask}, {"code", o.KeyIcmpv6Code, o.KeyIcmpv6CodeMask},
	} {
		if c.val != nil {
			w = append(w, c.kw, fmt.Sprintf("%d/%d", *c.val, flowerMask8(c.mask)))
		}
	}
	if o.KeyL2tpv3Sid != nil {
		w = append(w, "l2tpv3_sid", tcword.UintWord(*o.KeyL2tpv3Sid))
	}
	if o.KeySpi != nil {
		if o.KeySpiMask != nil && *o.KeySpiMask != 0xffffffff {
			return nil, tckind.NoKeywords("flower spi with a mask")
		}
		w = append(w, "spi", fmt.Sprintf("%x", *o.KeySpi))
	}
	if o.KeyArpOp != nil {
		w = append(w, "arp_op", fmt.Sprintf("%d/%d", *o.KeyArpOp, flowerMask8(o.KeyArpOpMask)))
	}
	if o.KeyMPLSLabel != nil {
		w = append(w, "mpls_label", tcword.UintWord(*o.KeyMPLSLabel))
	}
	u("mpls_tc", o.KeyMPLSTC)
	u("mpls_bos", o.KeyMPLSBos)
	u("mpls_ttl", o.KeyMPLSTtl)
	if o.KeyEncKeyID != nil {
		w = append(w, "enc_key_id", tcword.UintWord(*o.KeyEncKeyID))
	}
	if o.KeyEncUdpDstPort != nil {
		w = append(w, "enc_dst_port", tcword.UintWord(*o.KeyEncUdpDstPort))
	}
	for _, f := range []struct {
		kw          string
		table       []flowerFlag
		flags, mask *uint32
	}{{"ip_flags", flowerIPFlags, o.KeyFlags, o.KeyFlagsMask}, {"enc_flags", flowerEncFlags, o.KeyEncFlags, o.KeyEncFlagsMask}} {
		fw, err := flowerFlagWords(f.kw, f.table, f.flags, f.mask)
		if err != nil {
			return nil, err
		}
		w = append(w, fw...)
	}
	u("l2_miss", o.L2Miss)
	if o.KeyCTState != nil {
		ct, err := flowerCTStateWord(*o.KeyCTState, o.KeyCTStateMask)
		if err != nil {
			return nil, err
		}
		w = append(w, "ct_state", ct)
	}
	if o.KeyCTZone != nil {
		m := uint16(0xffff)
		if o.KeyCTZoneMask != nil {
			m = *o.KeyCTZoneMask
		}
		w = append(w, "ct_zone", fmt.Sprintf("%d/0x%x", *o.KeyCTZone, m))
	}
	if o.KeyCTMark != nil {
		m := uint32(0xffffffff)
		if o.KeyCTMarkMask != nil {
			m = *o.KeyCTMarkMask
		}
		w = append(w, "ct_mark", fmt.Sprintf("%d/0x%x", *o.KeyCTMark, m))
	}
	if o.KeyCTLabels != nil {
		if len(o.KeyCTLabels) > 16 || len(o.KeyCTLabelsMask) > 16 {
			return nil, tckind.NoKeywords("flower ct_label beyond 128 bits")
		}
		l := fmt.Sprintf("%x", o.KeyCTLabels)
		if o.KeyCTLabelsMask != nil {
			l += fmt.Sprintf("/%x", o.KeyCTLabelsMask)
		}
		w = append(w, "ct_label", l)
	}
	if c := o.KeyCfm; c != nil {
		w = append(w, "cfm")
		u("mdl", c.MdLevel)
		u("op", c.Opcode)
	}
	return tckind.ActionListKeywords(w, o.Act, links)
}

// flowerMask8 is an 8-bit key's mask, all ones when none was dumped.
func flowerMask8(m *uint8) uint8 {
	if m == nil {
		return 0xff
	}
	return *m
}

// be32Bytes is an IPv4 key (host order) as the address's bytes, nil for
// none.
func be32Bytes(v *uint32) []byte {
	if v == nil {
		return nil
	}
	return binary.BigEndian.AppendUint32(nil, *v)
}

// flowerFlagWords writes ip_flags or enc_flags: each flag of the mask,
// "NAME" or "noNAME", joined by "/".
func flowerFlagWords(kw string, table []flowerFlag, flags, mask *uint32) ([]string, error) {
	if mask == nil || *mask == 0 {
		return nil, nil
	}
	var parts []string
	known := uint32(0)
	for _, f := range table {
		known |= f.bit
		switch {
		case *mask&f.bit == 0:
		case flags != nil && *flags&f.bit != 0:
			parts = append(parts, f.name)
		default:
			parts = append(parts, "no"+f.name)
		}
	}
	if *mask&^known != 0 {
		return nil, tckind.NoKeywords(fmt.Sprintf("flower %s mask %#x", kw, *mask))
	}
	return []string{kw, strings.Join(parts, "/")}, nil
}

// flowerCTStateWord writes ct_state: +FLAG or -FLAG for each flag of the
// mask (every flag without one).
func flowerCTStateWord(state uint16, mask *uint16) (string, error) {
	known := uint16(0)
	for _, f := range flowerCTStates {
		known |= f.bit
	}
	m := known
	if mask != nil {
		m = *mask
	}
	var b strings.Builder
	for _, f := range flowerCTStates {
		switch {
		case m&f.bit == 0:
		case state&f.bit != 0:
			b.WriteString("+" + f.name)
		default:
			b.WriteString("-" + f.name)
		}
	}
	if m&^known != 0 || b.Len() == 0 {
		return "", tckind.NoKeywords(fmt.Sprintf("flower ct_state mask %#x", m))
	}
	return b.String(), nil
}

// pppEthType is the ethertype of what a PPP protocol carries, for those
// the kernel's flower knows (fl_set_key_pppoe): IPv4, IPv6 and MPLS.
func pppEthType(proto uint16) (uint16, bool) {
	e, ok := map[uint16]uint16{0x21: tckind.EthPIP, 0x57: tckind.EthPIPv6, 0x281: tckind.EthPMPLSUC, 0x283: tckind.EthPMPLSMC}[proto]
	return e, ok
}

// flowerDumped is Filter.Dumped for flower (fl_set_key and fl_dump_key).
// The kernel keeps as the key's ethertype the innermost one: behind VLAN
// tags the request's vlan_ethtype, or cvlan_ethtype behind two, none when
// the innermost is not given; behind a PPPoE header the ethertype of
// ppp_proto's protocol where the kernel knows it, none without ppp_proto.
// It gives the encapsulation's UDP ports, for which tc sends no mask, a
// full one.
func flowerDumped(opts attrs.TCOptionsMsg) attrs.TCOptionsMsg {
	o, ok := opts.(*attrs.FlowerAttrs)
	if !ok || o == nil {
		return opts
	}
	d := *o
	if e := o.KeyEthType; e != nil {
		switch {
		case *e == tckind.EthP8021Q || *e == tckind.EthP8021AD:
			d.KeyEthType = o.KeyVLANEthType
			if v := o.KeyVLANEthType; v != nil && (*v == tckind.EthP8021Q || *v == tckind.EthP8021AD) {
				d.KeyEthType = o.KeyCvlanEthType
			}
		case *e == ethPPPPSes && o.KeyPppProto == nil:
			d.KeyEthType = nil
		case *e == ethPPPPSes:
			if inner, ok := pppEthType(*o.KeyPppProto); ok {
				d.KeyEthType = &inner
			}
		}
	}
	full := uint16(0xffff)
	if o.KeyEncUdpDstPort != nil && o.KeyEncUdpDstPortMask == nil {
		d.KeyEncUdpDstPortMask = &full
	}
	if o.KeyEncUdpSrcPort != nil && o.KeyEncUdpSrcPortMask == nil {
		d.KeyEncUdpSrcPortMask = &full
	}
	return &d
}
