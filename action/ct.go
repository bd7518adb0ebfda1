// SPDX-License-Identifier: Apache-2.0

package action

// The ct action (net/sched/act_ct.c): sends a packet through conntrack,
// optionally committing its connection with a zone, mark, labels, a NAT
// range or a helper, as tc 7.3's m_ct.c reads and prints it.

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"net/netip"
	"os"
	"strconv"
	"strings"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// TCA_CT_ACT_* (linux/tc_act/tc_ct.h): what a ct action does.
const (
	ctActCommit = 1 << 0
	ctActForce  = 1 << 1
	ctActClear  = 1 << 2
	ctActNAT    = 1 << 3
	ctActNATSrc = 1 << 4
	ctActNATDst = 1 << 5
)

// Address families as the helper attribute carries them.
const (
	afInet  = 2
	afInet6 = 10
)

// ctLabelsLen is the size of a conntrack label set, in bytes.
const ctLabelsLen = 16

// ctHelperMax is the size of tc's buffers for a helper's words: a helper
// spec of this length or more is refused, and printing keeps one less.
const ctHelperMax = 32

// ctUsage is m_ct.c's usage text, which tc prints with a blank line after.
const ctUsage = `Usage: ct clear
	ct commit [force] [zone ZONE] [mark MASKED_MARK] [label MASKED_LABEL] [nat NAT_SPEC] [helper HELPER]
	ct [nat] [zone ZONE]
Where: ZONE is the conntrack zone table number
	NAT_SPEC is {src|dst} addr addr1[-addr2] [port port1[-port2]]
	HELPER is family-proto-name such as ipv4-tcp-ftp
`

func init() {
	tckind.LazilyActions(func() {
		tckind.MustRegisterAction(&tckind.Action{
			Name:       "ct",
			Usage:      ctUsage,
			Parse:      parseCT,
			Print:      printCT,
			Keywords:   ctKeywords,
			PrintStats: printCTStats,
		})
	}, "ct")
}

func ctUsageError() *tcword.ParseError { return &tcword.ParseError{Msg: ctUsage, Code: 255} }

// parseCT is m_ct.c's parse_ct: keywords in any order until one it does
// not know, then a verdict (pipe unless one follows).
func parseCT(args []string, env tckind.ActionEnv) (attrs.ActOptionsMsg, []string, error) {
	p := &attrs.TCCT{}
	o := &attrs.ActCTAttrs{Parms: p}
	var action uint16
	if len(args) > 0 && tcfmt.Matches(args[0], "ct") {
		args = args[1:]
	}
	// next is NEXT_ARG: the word after the current one, which must exist.
	next := func() error {
		if len(args) < 2 {
			return tcword.IncompleteCommand()
		}
		args = args[1:]
		return nil
	}
loop:
	for len(args) > 0 {
		w := args[0]
		switch {
		case tcfmt.Matches(w, "zone"):
			if err := next(); err != nil {
				return nil, args, err
			}
			v, err := tcfmt.ParseUint(args[0], 0, 16)
			if err != nil {
				return nil, args, tcword.Errorf(`ct: Illegal "zone"`)
			}
			z := uint16(v)
			o.Zone = &z
		case tcfmt.Matches(w, "nat"):
			action |= ctActNAT
			if err := next(); err != nil {
				return nil, args, err
			}
			switch {
			case tcfmt.Matches(args[0], "src"):
				action |= ctActNATSrc
			case tcfmt.Matches(args[0], "dst"):
				action |= ctActNATDst
			default:
				// Not a NAT spec: the word is read again as a keyword.
				continue
			}
			if err := next(); err != nil {
				return nil, args, err
			}
			if !tcfmt.Matches(args[0], "addr") {
				return nil, args, ctUsageError()
			}
			if err := next(); err != nil {
				return nil, args, err
			}
			if err := parseCTAddrRange(args[0], o); err != nil {
				return nil, args, err
			}
			// tc wants a word after the range even when it is not "port".
			if err := next(); err != nil {
				return nil, args, err
			}
			if !tcfmt.Matches(args[0], "port") {
				continue
			}
			if err := next(); err != nil {
				return nil, args, err
			}
			if !parseCTPortRange(args[0], o) {
				return nil, args, tcword.Errorf("ct: Illegal nat port range")
			}
		case tcfmt.Matches(w, "clear"):
			action |= ctActClear
		case tcfmt.Matches(w, "commit"):
			action |= ctActCommit
		case tcfmt.Matches(w, "force"):
			action |= ctActForce
		case tcfmt.Matches(w, "index"):
			if err := next(); err != nil {
				return nil, args, err
			}
			v, err := tcfmt.ParseUint(args[0], 10, 32)
			if err != nil {
				return nil, args, tcword.Errorf(`ct: Illegal "index"`)
			}
			p.Index = uint32(v)
		case tcfmt.Matches(w, "mark"):
			if err := next(); err != nil {
				return nil, args, err
			}
			v, m, ok := parseMaskedU32(args[0])
			if !ok {
				return nil, args, tcword.Errorf(`ct: Illegal "mark"`)
			}
			o.Mark, o.MarkMask = &v, &m
		case tcfmt.Matches(w, "label"):
			if err := next(); err != nil {
				return nil, args, err
			}
			if err := parseCTLabels(args[0], o); err != nil {
				return nil, args, err
			}
		case tcfmt.Matches(w, "help"):
			return nil, args, ctUsageError()
		case tcfmt.Matches(w, "helper"):
			if err := next(); err != nil {
				return nil, args, err
			}
			if !parseCTHelper(args[0], o) {
				return nil, args, tcword.Errorf(`ct: Illegal "helper"`)
			}
		default:
			break loop
		}
		args = args[1:]
	}
	switch {
	case action&ctActClear != 0 && action&^ctActClear != 0:
		return nil, args, tcword.Errorf("ct: clear can only be used alone")
	case action&ctActNATSrc != 0 && action&ctActNATDst != 0:
		return nil, args, tcword.Errorf("ct: src and dst nat can't be used together")
	case action&ctActCommit != 0 && action&ctActNAT != 0 && action&(ctActNATSrc|ctActNATDst) == 0:
		return nil, args, tcword.Errorf("ct: commit and nat must set src or dst")
	case action&ctActCommit == 0 && action&(ctActNATSrc|ctActNATDst) != 0:
		return nil, args, tcword.Errorf("ct: src or dst is only valid if commit is set")
	}
	code, rest, err := parseActionControlDefault(args, actPipe, env.Stderr)
	if err != nil {
		return nil, args, err
	}
	p.Action = code
	o.Action = &action
	return o, rest, nil
}

// parseMaskedU32 is ct_parse_u32: VALUE[/MASK] in any base, the mask all
// ones when not given.
func parseMaskedU32(s string) (v, mask uint32, ok bool) {
	val, m, slash := strings.Cut(s, "/")
	x, err := tcfmt.ParseUint(val, 0, 32)
	if err != nil {
		return 0, 0, false
	}
	mask = ^uint32(0)
	if slash {
		y, err := tcfmt.ParseUint(m, 0, 32)
		if err != nil {
			return 0, 0, false
		}
		mask = uint32(y)
	}
	return uint32(x), mask, true
}

// parseCTAddrRange is ct_parse_nat_addr_range: ADDR[-ADDR], both of the
// first one's family; without a second address the range is the first.
func parseCTAddrRange(s string, o *attrs.ActCTAttrs) error {
	first, second, isRange := strings.Cut(s, "-")
	fam, lo, err := getAddr(first, 0)
	if err != nil {
		return err
	}
	hi := lo
	if isRange {
		if fam, hi, err = getAddr(second, fam); err != nil {
			return err
		}
	}
	set := func(b []byte, v4 **uint32, v6 *[]byte) {
		if fam == afInet {
			x := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
			*v4 = &x
			return
		}
		*v6 = append([]byte{}, b...)
	}
	set(lo, &o.NATIpv4Min, &o.NATIpv6Min)
	set(hi, &o.NATIpv4Max, &o.NATIpv6Max)
	return nil
}

// parseCTPortRange is ct_parse_nat_port_range: PORT[-PORT] in decimal.
func parseCTPortRange(s string, o *attrs.ActCTAttrs) bool {
	first, second, isRange := strings.Cut(s, "-")
	lo, err := tcfmt.ParseUint(first, 10, 16)
	if err != nil {
		return false
	}
	hi := lo
	if isRange {
		if hi, err = tcfmt.ParseUint(second, 10, 16); err != nil {
			return false
		}
	}
	l, h := uint16(lo), uint16(hi)
	o.NATPortMin, o.NATPortMax = &l, &h
	return true
}

// familyNames are lib/utils.c's family_name_verbose for the families
// getAddr reads.
var familyNames = map[int]string{0: "any valid", afInet: "inet", afInet6: "inet6"}

// getAddr is lib/utils.c's get_addr for the families 0 (either), inet and
// inet6: the address's family and bytes. "default", "all" and "any" have
// the family asked for and no bytes. A word that is none is refused as tc
// refuses it, with exit status 1.
func getAddr(s string, family int) (int, []byte, error) {
	bad := &tcword.ParseError{Msg: fmt.Sprintf("Error: %s address is expected rather than %q.", familyNames[family], s), Code: 1}
	switch {
	case s == "default" || s == "all" || s == "any":
		if s == "default" {
			switch family {
			case afInet:
				return family, make([]byte, 4), nil
			case afInet6:
				return family, make([]byte, 16), nil
			}
		}
		return family, nil, nil
	case strings.Contains(s, ":"):
		if family != 0 && family != afInet6 {
			return 0, nil, bad
		}
		a, err := netip.ParseAddr(s)
		if err != nil || !a.Is6() || a.Zone() != "" {
			return 0, nil, bad
		}
		b := a.As16()
		return afInet6, b[:], nil
	}
	if family != 0 && family != afInet {
		return 0, nil, bad
	}
	b, ok := getAddrIPv4(s)
	if !ok {
		return 0, nil, bad
	}
	return afInet, b, nil
}

// getAddrIPv4 is lib/utils.c's get_addr_ipv4: up to four dot-separated
// numbers of any base, each at most 255; missing ones are zero.
func getAddrIPv4(s string) ([]byte, bool) {
	b := make([]byte, 4)
	for i := range 4 {
		v, n, _ := tcfmt.Strtoul(s, 0)
		if v > 255 || n == 0 {
			return nil, false
		}
		b[i] = byte(v)
		s = s[n:]
		if s == "" {
			break
		}
		if i == 3 || s[0] != '.' {
			return nil, false
		}
		s = s[1:]
	}
	return b, true
}

// parseCTLabels is ct_parse_labels: up to 128 bits in hex, with an
// optional hex mask (all ones when not given). An odd last digit is not
// read.
func parseCTLabels(s string, o *attrs.ActCTAttrs) error {
	val, mask, hasMask := strings.Cut(s, "/")
	if len(val) > ctLabelsLen*2 || len(mask) > ctLabelsLen*2 {
		return tcword.InvalidArgument(val, fmt.Sprintf("%d Max allowed size %d", len(val), ctLabelsLen*2))
	}
	labels, err := hex.DecodeString(val[:len(val)/2*2])
	if err != nil {
		return tcword.InvalidArgument(val, "ct: labels must be a hex string\n")
	}
	o.Labels = labels
	if !hasMask {
		o.LabelsMask = []byte(strings.Repeat("\xff", ctLabelsLen))
		return nil
	}
	m, err := hex.DecodeString(mask[:len(mask)/2*2])
	if err != nil {
		return tcword.InvalidArgument(mask, "ct: labels mask must be a hex string\n")
	}
	o.LabelsMask = m
	return nil
}

// parseCTHelper is ct_parse_helper: FAMILY-PROTO-NAME, where FAMILY is
// ipv4 or ipv6 and PROTO a protocol number or name; the name ends at its
// first '-'.
func parseCTHelper(s string, o *attrs.ActCTAttrs) bool {
	if len(s) >= ctHelperMax {
		return false
	}
	parts := strings.SplitN(s, "-", 4)
	if len(parts) < 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return false
	}
	var family uint8
	switch parts[0] {
	case "ipv4":
		family = afInet
	case "ipv6":
		family = afInet6
	default:
		return false
	}
	proto, ok := protocolNumber(parts[1])
	if !ok {
		return false
	}
	name := parts[2]
	o.HelperFamily, o.HelperProto, o.HelperName = &family, &proto, &name
	return true
}

// protocolsFile is where getprotobyname looks protocols up.
const protocolsFile = "/etc/protocols"

// protocolNumber is lib/inet_proto.c's inet_proto_a2n: a decimal number,
// or a name (or alias) from the system's protocol list.
func protocolNumber(s string) (uint8, bool) {
	if v, err := tcfmt.ParseUint(s, 10, 8); err == nil {
		return uint8(v), true
	}
	var num uint8
	found := false
	eachProtocol(func(n uint8, names []string) bool {
		for _, name := range names {
			if name == s {
				num, found = n, true
				return false
			}
		}
		return true
	})
	return num, found
}

// protocolName is lib/inet_proto.c's inet_proto_n2a: the protocol's name
// from the system's list, else "ipproto-N".
func protocolName(n uint8) string {
	name := "ipproto-" + strconv.Itoa(int(n))
	eachProtocol(func(m uint8, names []string) bool {
		if m == n {
			name = names[0]
			return false
		}
		return true
	})
	return name
}

// eachProtocol calls f with each entry of the system's protocol list (the
// number, the name and its aliases) until f returns false. A system
// without the list has no names, as for tc.
func eachProtocol(f func(n uint8, names []string) bool) {
	file, err := os.Open(protocolsFile)
	if err != nil {
		return
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(line)
		if len(fields) < 2 {
			continue
		}
		n, err := strconv.ParseUint(fields[1], 10, 8)
		if err != nil {
			continue
		}
		if !f(uint8(n), append(fields[:1:1], fields[2:]...)) {
			return
		}
	}
}

// printCT is m_ct.c's print_ct up to its last line's end.
func printCT(p *tcfmt.Printer, opts attrs.ActOptionsMsg, _ tckind.Links) {
	p.String(tcfmt.Any, "kind", "%s", "ct")
	o, ok := opts.(*attrs.ActCTAttrs)
	if !ok {
		return
	}
	if o.Parms == nil {
		p.String(tcfmt.FP, "", "%s", "[NULL ct parameters]")
		return
	}
	var action uint16
	if o.Action != nil {
		action = *o.Action
	}
	switch {
	case action&ctActCommit != 0 && action&ctActForce != 0:
		p.String(tcfmt.Any, "action", " %s", "commit force")
	case action&ctActCommit != 0:
		p.String(tcfmt.Any, "action", " %s", "commit")
	case action&ctActClear != 0:
		p.String(tcfmt.Any, "action", " %s", "clear")
	}
	if o.Mark != nil {
		var mask *uint64
		if o.MarkMask != nil {
			m := uint64(*o.MarkMask)
			mask = &m
		}
		v := uint64(*o.Mark)
		printMaskedInline(p, "mark", &v, mask, 0xffffffff)
	}
	if o.Zone != nil {
		v := uint64(*o.Zone)
		printMaskedInline(p, "zone", &v, nil, 0xffff)
	}
	printCTLabels(p, o.Labels, o.LabelsMask)
	if o.HelperFamily != nil && o.HelperProto != nil && o.HelperName != nil {
		family := "ipv6"
		if *o.HelperFamily == afInet {
			family = "ipv4"
		}
		h := family + "-" + protocolName(*o.HelperProto) + "-" + *o.HelperName
		if len(h) > ctHelperMax-1 {
			h = h[:ctHelperMax-1]
		}
		p.String(tcfmt.Any, "helper", " helper %s", h)
	}
	printCTNAT(p, action, o)
	printActionControl(p, " ", o.Parms.Action, "")
	p.NL()
	p.Uint(tcfmt.Any, "index", "\t index %u", uint64(o.Parms.Index))
	p.Int(tcfmt.Any, "ref", " ref %d", int64(o.Parms.Refcnt))
	p.Int(tcfmt.Any, "bind", " bind %d", int64(o.Parms.Bindcnt))
}

// printMaskedInline is tc_util.c's print_masked_type on the same line: "
// NAME VALUE", and "/0xMASK" (NAME_mask in JSON) unless the mask is all
// ones.
func printMaskedInline(p *tcfmt.Printer, name string, v, mask *uint64, ones uint64) {
	p.Text(" ")
	p.Uint(tcfmt.Any, tcfmt.Name(name), name+" %u", *v)
	if mask != nil && *mask != ones {
		p.Hex(tcfmt.Any, tcfmt.Name(name+"_mask"), "/0x%x", uint32(*mask))
	}
}

// printCTLabels is ct_print_labels: the labels in hex, then the mask (as
// long as the labels) unless the labels are 16 bytes and the mask all ones.
func printCTLabels(p *tcfmt.Printer, labels, mask []byte) {
	if labels == nil {
		return
	}
	out := hex.EncodeToString(labels)
	full := len(labels) == ctLabelsLen
	for i := 0; full && i < len(labels); i++ {
		full = i < len(mask) && mask[i] == 0xff
	}
	if !full {
		m := make([]byte, len(labels))
		copy(m, mask)
		out += "/" + hex.EncodeToString(m)
	}
	p.String(tcfmt.Any, "label", " label %s", out)
}

// printCTNAT is ct_print_nat: " nat", then for source or destination NAT
// the direction, the address range and the port range, each range as one
// value when its ends are equal.
func printCTNAT(p *tcfmt.Printer, action uint16, o *attrs.ActCTAttrs) {
	if action&ctActNAT == 0 {
		return
	}
	var out strings.Builder
	if action&(ctActNATSrc|ctActNATDst) != 0 {
		if action&ctActNATSrc != 0 {
			out.WriteString("src")
		} else {
			out.WriteString("dst")
		}
		v4 := func(x uint32) string {
			return netip.AddrFrom4([4]byte{byte(x >> 24), byte(x >> 16), byte(x >> 8), byte(x)}).String()
		}
		v6 := func(b []byte) (string, bool) {
			a, ok := netip.AddrFromSlice(b)
			if !ok || len(b) != 16 {
				return "", false
			}
			return a.String(), true
		}
		if o.NATIpv4Min != nil {
			out.WriteString(" addr " + v4(*o.NATIpv4Min))
		}
		lo6, ok6 := v6(o.NATIpv6Min)
		if ok6 {
			out.WriteString(" addr " + lo6)
		}
		if o.NATIpv4Max != nil && o.NATIpv4Min != nil && *o.NATIpv4Max != *o.NATIpv4Min {
			out.WriteString("-" + v4(*o.NATIpv4Max))
		} else if hi6, ok := v6(o.NATIpv6Max); ok && ok6 && hi6 != lo6 {
			out.WriteString("-" + hi6)
		}
		if o.NATPortMin != nil {
			out.WriteString(" port " + strconv.Itoa(int(*o.NATPortMin)))
			if o.NATPortMax != nil && *o.NATPortMax != *o.NATPortMin {
				out.WriteString("-" + strconv.Itoa(int(*o.NATPortMax)))
			}
		}
	}
	if out.Len() > 0 {
		p.String(tcfmt.Any, "nat", " nat %s", out.String())
	} else {
		p.String(tcfmt.Any, "nat", " nat", "")
	}
}

func printCTStats(p *tcfmt.Printer, opts attrs.ActOptionsMsg) {
	if o, ok := opts.(*attrs.ActCTAttrs); ok && o.Parms != nil && o.Tm != nil {
		printTm(p, o.Tm)
	}
}

// ctKeywords is Action.Keywords for ct.
func ctKeywords(opts attrs.ActOptionsMsg, _ tckind.Links) ([]string, error) {
	o, _ := opts.(*attrs.ActCTAttrs)
	if o == nil || o.Parms == nil {
		return nil, tckind.NoKeywords("ct without parameters")
	}
	var action uint16
	if o.Action != nil {
		action = *o.Action
	}
	if action&^(ctActCommit|ctActForce|ctActClear|ctActNAT|ctActNATSrc|ctActNATDst) != 0 {
		return nil, tckind.NoKeywords(fmt.Sprintf("ct action %#x", action))
	}
	var w []string
	if action&ctActClear != 0 {
		w = append(w, "clear")
	}
	if action&ctActCommit != 0 {
		w = append(w, "commit")
	}
	if action&ctActForce != 0 {
		w = append(w, "force")
	}
	if action&ctActNAT != 0 {
		nw, err := ctNATWords(action, o)
		if err != nil {
			return nil, err
		}
		w = append(w, nw...)
	}
	if o.Zone != nil {
		w = append(w, "zone", tcword.UintWord(*o.Zone))
	}
	if o.Mark != nil {
		m := ^uint32(0)
		if o.MarkMask != nil {
			m = *o.MarkMask
		}
		w = append(w, "mark", fmt.Sprintf("%#x/%#x", *o.Mark, m))
	}
	if o.Labels != nil {
		if len(o.Labels) > ctLabelsLen || len(o.LabelsMask) > ctLabelsLen {
			return nil, tckind.NoKeywords("ct labels longer than 128 bits")
		}
		l := hex.EncodeToString(o.Labels)
		if o.LabelsMask != nil {
			l += "/" + hex.EncodeToString(o.LabelsMask)
		}
		w = append(w, "label", l)
	}
	if o.HelperName != nil {
		families := map[uint8]string{afInet: "ipv4", afInet6: "ipv6"}
		if o.HelperFamily == nil || o.HelperProto == nil || families[*o.HelperFamily] == "" {
			return nil, tckind.NoKeywords("ct helper without family or protocol")
		}
		h := fmt.Sprintf("%s-%d-%s", families[*o.HelperFamily], *o.HelperProto, *o.HelperName)
		// tc's name ends at a '-', and the whole fits its buffer.
		if strings.Contains(*o.HelperName, "-") || len(h) >= ctHelperMax {
			return nil, tckind.NoKeywords("ct helper " + *o.HelperName)
		}
		w = append(w, "helper", h)
	}
	// tc reads a word after "nat" and after a NAT range, which the
	// verdict gives when nothing else follows them.
	if len(w) > 0 && (w[len(w)-1] == "nat" || action&ctActNAT != 0 && o.Zone == nil && o.Mark == nil && o.Labels == nil && o.HelperName == nil) {
		return verdictWords(w, o.Parms.Action)
	}
	return controlWords(w, o.Parms.Action, actPipe)
}

// ctNATWords writes "nat", with the kind of NAT, the address range and
// the port range when the kernel keeps them.
func ctNATWords(action uint16, o *attrs.ActCTAttrs) ([]string, error) {
	w := []string{"nat"}
	switch action & (ctActNATSrc | ctActNATDst) {
	case 0:
		if o.NATIpv4Min != nil || o.NATIpv6Min != nil || o.NATPortMin != nil {
			return nil, tckind.NoKeywords("ct nat range without src or dst")
		}
		return w, nil
	case ctActNATSrc:
		w = append(w, "src")
	case ctActNATDst:
		w = append(w, "dst")
	default:
		return nil, tckind.NoKeywords("ct nat src and dst")
	}
	var lo, hi netip.Addr
	switch {
	case o.NATIpv4Min != nil:
		lo = ctV4(*o.NATIpv4Min)
		hi = lo
		if o.NATIpv4Max != nil {
			hi = ctV4(*o.NATIpv4Max)
		}
	case len(o.NATIpv6Min) == 16:
		lo = netip.AddrFrom16([16]byte(o.NATIpv6Min))
		hi = lo
		if len(o.NATIpv6Max) == 16 {
			hi = netip.AddrFrom16([16]byte(o.NATIpv6Max))
		}
	default:
		// tc asks for a range whenever it asks for src or dst.
		return nil, tckind.NoKeywords("ct nat without an address range")
	}
	w = append(w, "addr", lo.String()+"-"+hi.String())
	if o.NATPortMin != nil {
		hiPort := *o.NATPortMin
		if o.NATPortMax != nil {
			hiPort = *o.NATPortMax
		}
		w = append(w, "port", tcword.UintWord(*o.NATPortMin)+"-"+tcword.UintWord(hiPort))
	}
	return w, nil
}

// ctV4 is an IPv4 address of the form ct's attributes hold.
func ctV4(v uint32) netip.Addr {
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}
