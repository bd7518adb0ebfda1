// SPDX-License-Identifier: Apache-2.0

package tckind

import (
	"fmt"
	"strings"

	"github.com/gotc/gotc/tcfmt"
)

// EthPAll is ETH_P_ALL, the protocol of a filter that matches every packet.
const EthPAll = 0x0003

// protoTable is a table of protocol numbers and names as iproute2's keep
// them (lib/ll_proto.c, lib/ppp_proto.c): a name is looked up in any case,
// a number is printed as its first name.
type protoTable []struct {
	num  uint16
	name string
}

// A2n is proto_a2n: a name of the table, or a 16-bit number in any base.
func (t protoTable) A2n(s string) (uint16, bool) {
	for _, e := range t {
		if strings.EqualFold(e.name, s) {
			return e.num, true
		}
	}
	v, err := tcfmt.ParseUint(s, 0, 16)
	return uint16(v), err == nil
}

// N2a is proto_n2a: the first name of the number, or the number in decimal
// in brackets.
func (t protoTable) N2a(n uint16) string {
	for _, e := range t {
		if e.num == n {
			return e.name
		}
	}
	return fmt.Sprintf("[%d]", n)
}

// Word writes a number as A2n reads it back: its name, or the number in
// hex (N2a's "[N]" is for reading, not for tc's parsers).
func (t protoTable) Word(n uint16) string {
	for _, e := range t {
		if e.num == n {
			return e.name
		}
	}
	return fmt.Sprintf("0x%04x", n)
}

// ethProtocols are the Ethernet protocols tc knows by name (linux/if_ether.h),
// in ll_proto.c's order, with the aliases at its end ("ipv4").
var ethProtocols = protoTable{
	{0x0060, "loop"}, {0x0200, "pup"}, {0x0201, "pupat"}, {0x0800, "ip"}, {0x0805, "x25"},
	{0x0806, "arp"}, {0x08ff, "bpq"}, {0x0a00, "ieeepup"}, {0x0a01, "ieeepupat"}, {0x6000, "dec"},
	{0x6001, "dna_dl"}, {0x6002, "dna_rc"}, {0x6003, "dna_rt"}, {0x6004, "lat"}, {0x6005, "diag"},
	{0x6006, "cust"}, {0x6007, "sca"}, {0x8035, "rarp"}, {0x809b, "atalk"}, {0x80f3, "aarp"},
	{0x8137, "ipx"}, {0x86dd, "ipv6"}, {0x8863, "ppp_disc"}, {0x8864, "ppp_ses"}, {0x884c, "atmmpoa"},
	{0x8884, "atmfate"}, {0x0001, "802_3"}, {0x0002, "ax25"}, {EthPAll, "all"}, {0x0004, "802_2"},
	{0x0005, "snap"}, {0x0006, "ddcmp"}, {0x0007, "wan_ppp"}, {0x0008, "ppp_mp"}, {0x0009, "localtalk"},
	{0x000c, "can"}, {0x0010, "ppptalk"}, {0x0011, "tr_802_2"}, {0x0015, "mobitex"}, {0x0016, "control"},
	{0x0017, "irda"}, {0x0018, "econet"}, {0x88ca, "tipc"}, {0x8892, "profinet"}, {0x88a2, "aoe"},
	{0x88a4, "ethercat"}, {0x8100, "802.1Q"}, {0x88a8, "802.1ad"}, {0x8847, "mpls_uc"}, {0x8848, "mpls_mc"},
	{0x6558, "teb"}, {0x8902, "cfm"}, {0x8100, "802.1Q"}, {0x88cc, "LLDP"}, {0x0800, "ipv4"},
}

// PppProtocols are the PPP protocols (linux/ppp_defs.h) in ppp_proto.c's order.
var PppProtocols = protoTable{
	{0x21, "ip"}, {0x29, "at"}, {0x2b, "ipx"}, {0x2d, "vjc_comp"}, {0x2f, "vjc_uncomp"}, {0x3d, "mp"},
	{0x57, "ipv6"}, {0xfb, "compfrag"}, {0xfd, "comp"}, {0x0281, "mpls_uc"}, {0x0283, "mpls_mc"},
	{0x8021, "ipcp"}, {0x8029, "atcp"}, {0x802b, "ipxcp"}, {0x8057, "ipv6cp"}, {0x80fb, "ccpfrag"},
	{0x80fd, "ccp"}, {0x80fd, "mplscp"}, {0xc021, "lcp"}, {0xc023, "pap"}, {0xc025, "lqr"},
	{0xc223, "chap"}, {0xc029, "cbcp"},
}

// ParseEthProtocol reads a protocol as tc's ll_proto_a2n does: a name of
// its table in any case, or a 16-bit number in any base. The number is in
// host order.
func ParseEthProtocol(s string) (uint16, bool) { return ethProtocols.A2n(s) }

// EthProtocolWord writes a protocol as ParseEthProtocol reads it back: its
// name, or its number in hex when tc has no name for it.
func EthProtocolWord(p uint16) string { return ethProtocols.Word(p) }

// EthProtocolName is what tc prints for a protocol (ll_proto_n2a).
func EthProtocolName(p uint16) string { return ethProtocols.N2a(p) }

// Ethernet protocols (linux/if_ether.h) that kinds other than the one
// that names them ask about: IPv4 and IPv6, VLAN tags and MPLS labels.
const (
	EthPIP     = 0x0800 // ETH_P_IP: IPv4
	EthPIPv6   = 0x86dd // ETH_P_IPV6: IPv6
	EthP8021Q  = 0x8100 // ETH_P_8021Q: an 802.1Q VLAN tag
	EthP8021AD = 0x88a8 // ETH_P_8021AD: an 802.1ad (QinQ) service tag
	EthPMPLSUC = 0x8847 // ETH_P_MPLS_UC: MPLS unicast
	EthPMPLSMC = 0x8848 // ETH_P_MPLS_MC: MPLS multicast
)
