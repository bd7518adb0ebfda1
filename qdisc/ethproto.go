package qdisc

import (
	"fmt"
	"strings"

	"github.com/gotc/gotc/tcfmt"
)

// EthPAll is ETH_P_ALL, the protocol of a filter that matches every packet.
const EthPAll = 0x0003

// Ethernet protocol numbers tc knows by name (linux/if_ether.h, and the
// aliases at the end of iproute2's ll_proto.c table, such as "ipv4").
var ethProtocols = map[string]uint16{
	"loop": 0x0060, "all": EthPAll, "ip": 0x0800, "ipv4": 0x0800, "ipv6": 0x86dd, "arp": 0x0806,
	"rarp": 0x8035, "802.1q": 0x8100, "802.1ad": 0x88a8, "mpls_uc": 0x8847, "mpls_mc": 0x8848,
	"ppp_ses": 0x8864, "teb": 0x6558, "cfm": 0x8902, "lldp": 0x88cc,
}

// ethProtocolNames are the names tc prints (ll_proto_n2a): the first of
// ll_proto.c's table for each number.
var ethProtocolNames = map[uint16]string{
	0x0060: "loop", EthPAll: "all", 0x0800: "ip", 0x86dd: "ipv6", 0x0806: "arp", 0x8035: "rarp",
	0x8100: "802.1Q", 0x88a8: "802.1ad", 0x8847: "mpls_uc", 0x8848: "mpls_mc", 0x8864: "ppp_ses",
	0x6558: "teb", 0x8902: "cfm", 0x88cc: "LLDP",
}

// ParseEthProtocol reads a protocol as tc's ll_proto_a2n does: a name of
// its table in any case, or a 16-bit number in any base. The number is in
// host order.
func ParseEthProtocol(s string) (uint16, bool) {
	if v, ok := ethProtocols[strings.ToLower(s)]; ok {
		return v, true
	}
	v, err := tcfmt.ParseUint(s, 0, 16)
	return uint16(v), err == nil
}

// EthProtocolName is what tc prints for a protocol (ll_proto_n2a): its
// name, or the number in decimal in brackets.
func EthProtocolName(p uint16) string {
	if name, ok := ethProtocolNames[p]; ok {
		return name
	}
	return fmt.Sprintf("[%d]", p)
}
