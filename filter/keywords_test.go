// SPDX-License-Identifier: Apache-2.0

package filter

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/gotc/gotc/tckind"
)

// testLinks names ifindex N "devN".
type testLinks struct{}

func (testLinks) Index(name string) (int32, bool) {
	n, err := strconv.ParseInt(strings.TrimPrefix(name, "dev"), 10, 32)
	return int32(n), err == nil && strings.HasPrefix(name, "dev")
}

func (testLinks) Name(idx int32) string { return fmt.Sprintf("dev%d", idx) }

// TestKeywordsRoundTrip parses option sets of each kind, writes the
// options back with the kind's Keywords and parses those words again: the
// options must be the same both ways (tckind.Covers, the rule apply
// keeps).
func TestKeywordsRoundTrip(t *testing.T) {
	const (
		ipv4 = 0x0800
		ipv6 = 0x86dd
		vlan = 0x8100
		arp  = 0x0806
	)
	police := "police rate 1mbit burst 10k/8 overhead 4 linklayer atm conform-exceed drop/pipe index 7"
	mirred := "action mirred egress redirect dev dev3"
	for _, c := range []struct {
		kind  string
		proto uint16
		args  string
	}{
		{"fw", ipv4, "classid 1:5"},
		{"fw", ipv4, "classid 1:6 indev eth0 " + police},
		{"fw", ipv4, mirred},
		{"route", ipv4, "to 10 from 1 classid 1:10"},
		{"route", ipv4, "fromif dev2 to 5 classid 1:2 " + police},
		{"route", ipv4, "to 3 " + mirred},
		{"flow", ipv4, "map key mark and 0xff xor 0xf0 or 3 rshift 2 addend 5 divisor 16 baseclass 1:1"},
		{"flow", ipv4, "hash keys src,dst,proto-src,rxhash perturb 10 divisor 1024"},
		{"flow", ipv4, "map key dst match cmp(u8 at 0 eq 1) " + police + " " + mirred},
		{"cgroup", ipv4, "match cmp(u8 at 0 eq 1) and not meta(sk_family eq 2) " + mirred},
		{"cgroup", ipv4, police},
		{"basic", ipv4, `match nbyte("ab\x01" at 12 layer 1) or canid(sff 1 eff 2:0xff) or meta("lo" eq dev) classid 1:2`},
		{"basic", ipv4, "match ( cmp(u8 at 0 layer link mask 0xff gt 10) or not u32(u16 0x1122 0xffff at nexthdr+4) ) and meta(nf_mark mask 0xff eq 3) classid 1:1"},
		{"basic", ipv4, "match meta(tc_index shift 2 mask 0xf0 lt 7) and cmp(u32 at 4 layer 2 trans eq 4294967295) " + police},
		{"basic", ipv4, "classid :2 police rate 40gbit burst 1m conform-exceed continue/pass " + mirred},
		{"basic", ipv4, "match nbyte(needle at 0) action mirred egress mirror dev dev1"},
		{"bpf", ipv4, "bytecode 2,40@0@0@12,6@0@0@0 classid 1:1 da skip_hw " + police},
		{"bpf", ipv4, "bytecode 1,6@0@0@4294967295 skip_sw " + mirred},
		{"u32", ipv4, "divisor 16"},
		{"u32", ipv4, "ht 1:2: match ip src 10.0.0.0/8 match ip dport 80 0xffff match mark 0x10 0xff offset plus 4 at 8 mask 0x0f00 shift 6 eat hashkey mask 0x0000ff00 at 12 link 2: indev eth1 classid 1:3 skip_hw"},
		{"u32", ipv4, "match tcp src 1024 0xfc00 match u8 5 0xff at nexthdr+1 " + police},
		{"u32", ipv4, "match ip6 dst 2001:db8::/48 " + mirred},
		{"flower", ipv4, "skip_hw classid 1:1 indev eth0 dst_mac 02:00:00:00:00:01 src_mac 02:00:00:00:00:00/24 ip_proto tcp ip_tos 0x10/0xf0 ip_ttl 64 dst_ip 10.0.0.0/16 src_ip 10.1.2.3 dst_port 80 src_port 1000-2000 tcp_flags 0x2/0x12 ip_flags frag/nofirstfrag ct_state +trk+est ct_zone 3 ct_mark 5/0xf ct_label 01/ff " + mirred},
		{"flower", ipv6, "ip_proto icmpv6 type 128 code 0/255 src_ip 2001:db8::1/64 enc_dst_ip 10.0.0.1 enc_src_ip 2001:db8::2 enc_key_id 42 enc_dst_port 4789 enc_tos 4 enc_ttl 2/0xff enc_flags tuncsum/notundf verbose"},
		{"flower", vlan, "vlan_id 100 vlan_prio 3 vlan_ethtype ipv4 ip_proto udp dst_port 53/0xff00 l2_miss 1 classid 1:2"},
		// An ethertype tc has no name for goes back as a number.
		{"flower", vlan, "vlan_ethtype 0x1234 classid 1:1"},
		{"flower", arp, "arp_tip 10.0.0.0/8 arp_sip 10.1.1.1 arp_op request arp_sha 02:00:00:00:00:01 arp_tha 02:00:00:00:00:02/ff:ff:ff:00:00:00"},
		{"flower", ipv4, "ip_proto esp spi 1234 skip_sw"},
		{"flower", ipv4, "ip_proto 0x2f ip_flags nofrag"},
	} {
		name := c.kind + " " + c.args
		k := tckind.LookupFilter(c.kind)
		env := tckind.FilterEnv{Protocol: c.proto, Parent: 0xffff0000}
		env.Links = testLinks{}
		args := strings.Fields(c.args)
		for i := range args {
			// A bytecode's blanks, which Fields would split at.
			args[i] = strings.ReplaceAll(args[i], "@", " ")
		}
		opts, _, err := k.Parse(args, env)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		words, err := k.Keywords(opts, testLinks{})
		if err != nil {
			t.Errorf("%s: keywords: %v", name, err)
			continue
		}
		back, _, err := k.Parse(words, env)
		if err != nil {
			t.Errorf("%s: the words %q do not parse: %v", name, words, err)
			continue
		}
		if !tckind.Covers(back, opts) || !tckind.Covers(opts, back) {
			t.Errorf("%s: the words %q ask for other options\n got  %+v\n want %+v", name, words, back, opts)
		}
	}
}
