// SPDX-License-Identifier: Apache-2.0

package action

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/tckind"
)

// keywordLinks names ifindex N "devN".
type keywordLinks struct{}

func (keywordLinks) Index(name string) (int32, bool) {
	var n int32
	_, err := fmt.Sscanf(name, "dev%d", &n)
	return n, err == nil
}

func (keywordLinks) Name(idx int32) string { return fmt.Sprintf("dev%d", idx) }

// TestKeywordsRoundTrip parses option sets of every kind with Keywords
// (each keyword of the kind somewhere), writes them back and parses the
// words again: the options must come back the same, and the words must
// be what Keywords writes of them in turn.
func TestKeywordsRoundTrip(t *testing.T) {
	cases := []string{
		"bpf bytecode '4,40 0 0 12,21 0 1 2048,6 0 0 262144,6 0 0 0'",
		"bpf bytecode '1,6 0 0 0' drop",
		"connmark",
		"connmark zone 7 pass",
		"connmark zone 65535 goto chain 3",
		"csum iph tcp",
		"csum icmp igmp udp udplite sctp drop",
		"ct clear",
		"ct commit force zone 3 mark 0xae/0xff label 0102/ff0f helper ipv4-6-ftp",
		"ct commit nat src addr 10.0.0.1-10.0.0.9 port 1000-2000",
		"ct commit nat dst addr 2001::1 pipe",
		"ct nat zone 7",
		"ct nat pipe",
		"ct commit mark 5 continue",
		"gact pass",
		"gact drop random determ pass 10",
		"gact pipe random netrand goto chain 4 5000",
		"gact jump 2",
		"gate sched-entry open 200000000 -1 -1 sched-entry close 100000000",
		"gate priority 2 base-time 1000 cycle-time 300000000 cycle-time-ext 5 clockid CLOCK_TAI flags 0x1 sched-entry open 200000000 3 1500 sched-entry close 100000000 drop",
		"ife decode reclassify",
		"ife encode allow mark use prio 3 use tcindex 9 type 0xdead dst 02:15:15:15:15:15 src 11:22:33:44:55:66",
		"mirred egress redirect dev dev3",
		"mirred ingress mirror dev dev2 drop",
		"mirred egress redirect blockid 7",
		"mirred ingress mirror blockid 4294967295 pipe",
		"mpls pop protocol ip",
		"mpls push protocol mpls_mc label 20 tc 3 ttl 128 bos 1 drop",
		"mpls mac_push label 5",
		"mpls modify ttl 7",
		"mpls dec_ttl pass",
		"nat ingress 192.168.0.0/16 10.0.0.1 reclassify",
		"nat egress 1.2.3.4 5.6.7.8",
		"nat egress default 5.6.7.8",
		"pedit munge offset 0 u8 set 0x11 retain 0x0f munge offset -12 u32 set 0x100 pipe",
		"pedit munge ip ttl set 5 munge ip dst set 10.1.2.3 munge ip dport set 80 munge offset 4 u16 at 0 0f 2 invert",
		"pedit ex munge eth src set 11:22:33:44:55:66 munge eth dst set 0:1:2:3:4:5 munge eth type set 0x8100",
		"pedit ex munge tcp dport add 1 munge ip6 hoplimit decrement munge ip6 src set 2001:db8::1 munge ip6 traffic_class set 0x2e",
		"pedit ex munge ip dsfield set 0xb8 retain 0xfc munge ip ttl decrement munge udp sport set 53 munge tcp flags invert",
		"police rate 1mbit burst 10k",
		"police rate 1mbit burst 10k mtu 2k peakrate 2mbit mpu 64 overhead 10 linklayer atm conform-exceed drop/pipe",
		"police rate 50gbit burst 1m conform-exceed goto chain 2 / jump 1",
		"police avrate 1mbit drop",
		"police pkts_rate 1000 pkts_burst 100",
		"sample rate 100 group 5",
		"sample rate 7 group 1 trunc 128 drop",
		"simple sdata hello",
		"simple sdata second drop",
		"skbedit queue_mapping 2 priority 1:10 mark 7/0xaabbccdd ptype host inheritdsfield",
		"skbedit ptype otherhost goto chain 2",
		"skbedit ptype broadcast mark 3",
		"skbmod set dmac 0:1:2:3:4:5 set smac 6:7:8:9:a:b set etype 0x800 pass",
		"skbmod swap mac",
		"skbmod ecn drop",
		"tunnel_key unset",
		"tunnel_key set src_ip 10.0.0.1 dst_ip 10.0.0.2 id 100 dst_port 6081 geneve_opts 0102:80:00880022,0408:42:0040007611223344 tos 16 ttl 64 nocsum nofrag",
		"tunnel_key set src_ip 2001:db8::1 dst_ip 2001:db8::2 vxlan_opts 16 continue",
		"tunnel_key set src_ip 1.1.1.1 dst_ip 2.2.2.2 erspan_opts 1:12",
		"tunnel_key set src_ip 1.1.1.1 dst_ip 2.2.2.2 erspan_opts 2:0:1:7 csum",
		"vlan pop",
		"vlan push id 100 protocol 802.1ad priority 5",
		"vlan modify id 7 drop",
		"vlan pop_eth",
		"vlan push_eth dst_mac 00:11:22:33:44:55 src_mac 66:77:88:99:aa:bb pass",
	}
	env := tckind.ActionEnv{Links: keywordLinks{}}
	for _, c := range cases {
		args := splitWords(c)
		k := tckind.LookupAction(args[0])
		if k == nil || k.Keywords == nil {
			t.Errorf("%s: no kind with Keywords", c)
			continue
		}
		opts, rest, err := k.Parse(args, env)
		if err != nil || len(rest) != 0 {
			t.Errorf("%s: parse: %v (left %q)", c, err, rest)
			continue
		}
		w, err := k.Keywords(opts, keywordLinks{})
		if err != nil {
			t.Errorf("%s: keywords: %v", c, err)
			continue
		}
		back, rest, err := k.Parse(append([]string{args[0]}, w...), env)
		if err != nil || len(rest) != 0 {
			t.Errorf("%s: written as %q: parse: %v (left %q)", c, w, err, rest)
			continue
		}
		if !reflect.DeepEqual(back, opts) {
			t.Errorf("%s: written as %q, parsed as\n %+v\nnot\n %+v", c, w, back, opts)
		}
		if w2, err := k.Keywords(back, keywordLinks{}); err != nil || !reflect.DeepEqual(w2, w) {
			t.Errorf("%s: written as %q, then as %q (%v)", c, w, w2, err)
		}
	}
}

// TestNoKeywords checks the options that no words ask for: each is
// refused with ErrNoKeywords.
func TestNoKeywords(t *testing.T) {
	u16 := func(v uint16) *uint16 { return &v }
	u32 := func(v uint32) *uint32 { return &v }
	fd, name := uint32(5), "prog.o:[action]"
	cases := []struct {
		kind string
		opts attrs.ActOptionsMsg
	}{
		{"bpf", &attrs.ActBPFAttrs{Parms: &attrs.TCActBPF{}, Fd: &fd, Name: &name}},
		{"skbedit", &attrs.ActSkbeditAttrs{Parms: &attrs.TCSkbedit{}, QueueMapping: u16(2), QueueMappingMax: u16(5)}},
		{"skbedit", &attrs.ActSkbeditAttrs{Parms: &attrs.TCSkbedit{}, Ptype: u16(7)}},
		{"gact", &attrs.ActGactAttrs{Parms: &attrs.TCGact{Action: actStolen}}},
		{"nat", &attrs.ActNATAttrs{Parms: &attrs.TCNAT{Mask: 0xff00ff00}}},
		{"csum", &attrs.ActCsumAttrs{Parms: &attrs.TCCsum{}}},
		{"skbmod", &attrs.ActSkbmodAttrs{Parms: &attrs.TCSkbmod{Flags: skbmodEtype}, Etype: u16(0)}},
		{"mpls", &attrs.ActMPLSAttrs{Parms: &attrs.TCMPLS{MAction: mplsActModify}, Proto: u16(0x800)}},
		{"sample", nil},
		{"police", &attrs.ActPoliceAttrs{}},
		{"ct", &attrs.ActCTAttrs{Parms: &attrs.TCCT{}, Action: u16(ctActNAT | ctActNATSrc | ctActNATDst), NATIpv4Min: u32(1)}},
	}
	for _, c := range cases {
		_, err := tckind.LookupAction(c.kind).Keywords(c.opts, keywordLinks{})
		if !errors.Is(err, tckind.ErrNoKeywords) {
			t.Errorf("%s %+v: got %v, want ErrNoKeywords", c.kind, c.opts, err)
		}
	}
}

// TestActionListKeywords checks the words of the action list around a
// kind's: cookie, hw_stats and flags, and a cookie tc would hand on.
func TestActionListKeywords(t *testing.T) {
	words := strings.Fields("action gact drop cookie 0a0b hw_stats immediate no_percpu skip_hw action gact pass cookie aa")
	acts, rest, err := ParseActions(words, tckind.ActionEnv{})
	if err != nil || len(rest) != 0 {
		t.Fatalf("parse: %v (left %q)", err, rest)
	}
	w, err := tckind.ActionListKeywords(nil, acts, nil)
	if err != nil || strings.Join(w, " ") != strings.Join(words, " ") {
		t.Errorf("written as %q (%v), want %q", w, err, words)
	}
	acts[1].Cookie = nil
	if _, err := tckind.ActionListKeywords(nil, acts, nil); !errors.Is(err, tckind.ErrNoKeywords) {
		t.Errorf("an action without a cookie after one with: got %v, want ErrNoKeywords", err)
	}
}

// splitWords splits a command line at blanks, as a shell would with
// words in single quotes kept whole.
func splitWords(s string) []string {
	var words []string
	for i, part := range strings.Split(s, "'") {
		if i%2 == 1 {
			words = append(words, part)
			continue
		}
		words = append(words, strings.Fields(part)...)
	}
	return words
}
