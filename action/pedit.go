// SPDX-License-Identifier: Apache-2.0

package action

// The packet editor action (net/sched/act_pedit.c), as tc 7.3's m_pedit.c
// and its header editors (p_eth.c, p_ip.c, p_ip6.c, p_tcp.c, p_udp.c,
// p_icmp.c) read and print it. Every edit becomes keys that each rewrite
// one aligned 32-bit word: word = (word & mask) ^ val, or with the
// extended "add" command (word & mask) + val. The extended form ("pedit
// ex") also says which header each key's offset counts from.
//
// tc's parser passes its position in the command line between its
// functions by pointer and writes it back only on some paths; its error
// messages name the word at that position, so the functions here take a
// *[]string and update it where tc does.

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// TCA_PEDIT_KEY_EX_HDR_TYPE_* and TCA_PEDIT_KEY_EX_CMD_* (linux/tc_act/tc_pedit.h).
const (
	peditHdrNetwork = 0
	peditHdrEth     = 1
	peditHdrIP4     = 2
	peditHdrIP6     = 3
	peditHdrTCP     = 4
	peditHdrUDP     = 5

	peditCmdSet = 0
	peditCmdAdd = 1
)

// peditMaxKeys is tc's limit on the keys of one action (MAX_OFFS).
const peditMaxKeys = 128

// What a value after "set", "add" or "retain" is read as.
type peditValType int

const (
	peditU32 peditValType = iota
	peditIPv4
	peditIPv6
	peditMAC
)

const peditExplain = `Usage: ... pedit munge [ex] <MUNGE> [CONTROL]
Where: MUNGE := <RAW>|<LAYERED>
	<RAW>:= <OFFSETC>[ATC]<CMD>
 		OFFSETC:= offset <offval> <u8|u16|u32>
		ATC:= at <atval> offmask <maskval> shift <shiftval>
		NOTE: offval is byte offset, must be multiple of 4
		NOTE: maskval is a 32 bit hex number
 		NOTE: shiftval is a shift value
		CMD:= clear | invert | set <setval> | add <addval> | decrement | retain
	<LAYERED>:= ip <ipdata> | ip6 <ip6data>
 		| udp <udpdata> | tcp <tcpdata> | icmp <icmpdata>
	CONTROL:= reclassify | pipe | drop | continue | pass |
	          goto chain <CHAIN_INDEX>
	NOTE: if 'ex' is set, extended functionality will be supported (kernel >= 4.11)
For Example usage look at the examples directory
`

func init() {
	tckind.LazilyActions(func() {
		tckind.MustRegisterAction(&tckind.Action{
			Name:            "pedit",
			Usage:           peditExplain,
			Parse:           parsePedit,
			Print:           printPedit,
			Keywords:        peditKeywords,
			PrintStats:      printPeditStats,
			PrintAfterStats: printPeditKeys,
		})
	}, "pedit")
}

// peditKey is a key being built: the kernel's key and its extended part.
type peditKey struct {
	attrs.TCPeditKey
	htype, cmd uint16
}

// peditSel is the action being built.
type peditSel struct {
	extended bool
	keys     []peditKey
	// printed collects what tc prints on stderr before it gives up.
	printed []string
}

// peditFailed marks a refusal after which tc's callers print their own
// lines; the messages are in peditSel.printed.
type peditFailed struct{}

func (peditFailed) Error() string { return "pedit parse failed" }

// fail records a message and returns peditFailed.
func (s *peditSel) fail(msg string) error {
	s.printed = append(s.printed, msg)
	return peditFailed{}
}

// peditRefusal is parse_pedit's -1 after explain(): what was printed, the
// usage, and parse_action's lines after.
func peditRefusal(printed []string) *tcword.ParseError {
	msg := strings.Join(append(printed, strings.TrimSuffix(peditExplain, "\n")), "\n")
	return tcword.Errorf("%s", msg)
}

// parsePedit is m_pedit.c's parse_pedit: "pedit" ["ex"], then "munge"
// edits, then an optional verdict (pass by default) and index.
func parsePedit(args []string, env tckind.ActionEnv) (attrs.ActOptionsMsg, []string, error) {
	sel := &peditSel{}
	a := args
	ok := 0
	for len(a) > 0 {
		w := a[0]
		if tcfmt.Matches(w, "pedit") {
			if err := nextArg(&a); err != nil {
				return nil, args, err
			}
			ok++
			if tcfmt.Matches(a[0], "ex") {
				if ok > 1 {
					return nil, args, peditRefusal([]string{"'ex' must be before first 'munge'"})
				}
				sel.extended = true
				if err := nextArg(&a); err != nil {
					return nil, args, err
				}
			}
			continue
		}
		if tcfmt.Matches(w, "help") {
			return nil, args, &tcword.ParseError{Msg: strings.TrimSuffix(peditExplain, "\n"), Code: 255}
		}
		if !tcfmt.Matches(w, "munge") {
			break
		}
		if ok == 0 {
			return nil, args, peditRefusal([]string{fmt.Sprintf("Bad pedit construct (%s)", w)})
		}
		if err := nextArg(&a); err != nil {
			return nil, args, err
		}
		if err := sel.munge(&a); err != nil {
			if _, failed := err.(peditFailed); !failed {
				return nil, args, err
			}
			at := "(null)"
			if len(a) > 0 {
				at = a[0]
			}
			return nil, args, peditRefusal(append(sel.printed, fmt.Sprintf("Bad pedit construct (%s)", at)))
		}
		ok++
	}
	if ok == 0 {
		return nil, args, peditRefusal(nil)
	}
	p := &attrs.TCPeditSel{}
	code, rest, err := parseActionControlDefault(a, actOK, env.Stderr)
	if err != nil {
		return nil, args, err
	}
	p.Action, a = code, rest
	index, found, rest, err := parseActionIndex(a, 10, `Pedit: Illegal "index"`)
	if err != nil {
		return nil, args, err
	}
	if found {
		p.Index, a = index, rest
	}
	p.Nkeys = uint8(len(sel.keys))
	o := &attrs.ActPeditAttrs{}
	for _, k := range sel.keys {
		p.Keys = append(p.Keys, k.TCPeditKey)
	}
	if !sel.extended {
		o.Parms = p
		return o, a, nil
	}
	o.ParmsEx = p
	o.KeysEx = &attrs.ActPeditKeysExAttrs{KeyEx: make([]attrs.ActPeditKeyExAttrs, 0, len(sel.keys))}
	for _, k := range sel.keys {
		o.KeysEx.KeyEx = append(o.KeysEx.KeyEx, attrs.ActPeditKeyExAttrs{Htype: new(k.htype), Cmd: new(k.cmd)})
	}
	return o, a, nil
}

// munge is parse_munge: "offset ..." or a header's field.
func (s *peditSel) munge(pos *[]string) error {
	a := *pos
	if tcfmt.Matches(a[0], "offset") {
		if err := nextArg(&a); err != nil {
			return err
		}
		err := s.offset(&a)
		*pos = a
		return err
	}
	// tc looks the header up by a name of at most 15 characters.
	name := a[0]
	if len(name) > 15 {
		name = name[:15]
	}
	if err := nextArg(&a); err != nil {
		return err
	}
	key := &peditKey{}
	var err error
	switch name {
	case "eth":
		err = s.eth(&a, key)
	case "ip":
		err = s.ip(&a, key)
	case "ip6":
		err = s.ip6(&a, key)
	case "tcp", "udp":
		err = s.l4(&a, key, name == "tcp")
	case "icmp":
		// tc's icmp editor takes no field at all.
		err = peditFailed{}
	default:
		err = s.fail(fmt.Sprintf("Unknown action  hence option %q is unparsable", a[0]))
	}
	if err != nil {
		if _, failed := err.(peditFailed); failed {
			return s.fail("bad pedit parsing")
		}
		return err
	}
	*pos = a
	return nil
}

// offset is parse_offset: OFF u8|u16|u32 [at AT OFFMASK SHIFT] CMD. tc's
// usage names the at part's words, but it reads them as bare values.
func (s *peditSel) offset(pos *[]string) error {
	a := *pos
	key := &peditKey{}
	off, err := tcfmt.ParseInt(a[0], 0, 32)
	if err != nil {
		return peditFailed{}
	}
	key.Off = uint32(int32(off))
	a = a[1:]
	if len(a) == 0 {
		return peditFailed{}
	}
	var size int
	var retain uint32
	switch {
	case tcfmt.Matches(a[0], "u32"):
		size, retain = 4, 0xffffffff
	case tcfmt.Matches(a[0], "u16"):
		size, retain = 2, 0xffff
	case tcfmt.Matches(a[0], "u8"):
		size, retain = 1, 0xff
	default:
		return peditFailed{}
	}
	if err := nextArg(&a); err != nil {
		return err
	}
	if tcfmt.Matches(a[0], "at") {
		for i, base := range []int{0, 16, 0} {
			if err := nextArg(&a); err != nil {
				return err
			}
			v, err := tcfmt.ParseUint(a[0], base, 32)
			if err != nil {
				return peditFailed{}
			}
			switch i {
			case 0:
				key.At = uint32(v)
			case 1:
				key.Offmask = uint32(v)
			case 2:
				key.Shift = uint32(v)
			}
		}
		if err := nextArg(&a); err != nil {
			return err
		}
	}
	err = s.cmd(&a, size, peditU32, retain, key, false)
	*pos = a
	return err
}

// peditField is one field a header editor knows: its name (abbrev: tc
// takes it abbreviated), its offset in the header, its size in bytes, how
// its value is read, the bits of its bytes it owns and whether
// "decrement" applies.
type peditField struct {
	name   string
	abbrev bool
	off    uint32
	size   int
	typ    peditValType
	retain uint32
	dec    bool
}

var peditEthFields = []peditField{
	{"type", false, 12, 2, peditU32, 0xffff, false},
	{"dst", false, 0, 6, peditMAC, 0xffffffff, false},
	{"src", false, 6, 6, peditMAC, 0xffffffff, false},
}

// peditIPFields are p_ip.c's fields of the IPv4 header, in the order it
// tries them ("tos" and "dsfield", and "precedence", are the same byte).
var peditIPFields = []peditField{
	{"src", false, 12, 4, peditIPv4, 0xffffffff, false},
	{"dst", false, 16, 4, peditIPv4, 0xffffffff, false},
	{"tos", false, 1, 1, peditU32, 0xff, false},
	{"dsfield", true, 1, 1, peditU32, 0xff, false},
	{"ihl", false, 0, 1, peditU32, 0x0f, false},
	{"ttl", false, 8, 1, peditU32, 0xff, true},
	{"protocol", false, 9, 1, peditU32, 0xff, false},
	{"precedence", true, 1, 1, peditU32, 0xff, false},
	{"nofrag", false, 6, 1, peditU32, 0x3f, false},
	{"firstfrag", false, 6, 1, peditU32, 0x1f, false},
	{"ce", false, 6, 1, peditU32, 0x80, false},
	{"df", false, 6, 1, peditU32, 0x40, false},
	{"mf", false, 6, 1, peditU32, 0x20, false},
}

// peditIPLegacyFields are the fields p_ip.c reaches past a 20-byte IPv4
// header, without the extended form only (with it they belong to the
// tcp, udp and icmp header types).
var peditIPLegacyFields = []peditField{
	{"dport", false, 22, 2, peditU32, 0xffff, false},
	{"sport", false, 20, 2, peditU32, 0xffff, false},
	{"icmp_type", false, 20, 1, peditU32, 0xff, false},
	{"icmp_code", false, 20, 1, peditU32, 0xff, false},
}

var peditIP6Fields = []peditField{
	{"src", false, 8, 16, peditIPv6, 0xffffffff, false},
	{"dst", false, 24, 16, peditIPv6, 0xffffffff, false},
	{"flow_lbl", false, 0, 4, peditU32, 0x0007ffff, false},
	{"payload_len", false, 4, 2, peditU32, 0xffff, false},
	{"nexthdr", false, 6, 1, peditU32, 0xff, false},
	{"hoplimit", false, 7, 1, peditU32, 0xff, true},
	{"traffic_class", false, 1, 1, peditU32, 0xff, false},
}

var peditTCPFields = []peditField{
	{"sport", false, 0, 2, peditU32, 0xffff, false},
	{"dport", false, 2, 2, peditU32, 0xffff, false},
	{"flags", false, 13, 1, peditU32, 0xff, false},
}

var peditUDPFields = peditTCPFields[:2]

// lookupField finds the first field w names.
func lookupField(fields []peditField, w string) (peditField, bool) {
	for _, f := range fields {
		if f.name == w || f.abbrev && tcfmt.Matches(w, f.name) {
			return f, true
		}
	}
	return peditField{}, false
}

// edit reads the command of a field found in a header editor.
func (s *peditSel) edit(pos *[]string, key *peditKey, f peditField) error {
	if err := nextArg(pos); err != nil {
		return err
	}
	key.Off = f.off
	return s.cmd(pos, f.size, f.typ, f.retain, key, f.dec)
}

// eth is p_eth.c: the Ethernet header, extended form only.
func (s *peditSel) eth(pos *[]string, key *peditKey) error {
	if len(*pos) < 2 || !s.extended {
		return peditFailed{}
	}
	key.htype = peditHdrEth
	f, ok := lookupField(peditEthFields, (*pos)[0])
	if !ok {
		return peditFailed{}
	}
	return s.edit(pos, key, f)
}

// ip is p_ip.c: the IPv4 header (as offsets from the network header
// without "ex"), and without "ex" the ports and ICMP type and code of a
// header of 20 bytes.
func (s *peditSel) ip(pos *[]string, key *peditKey) error {
	if len(*pos) < 2 {
		return peditFailed{}
	}
	if s.extended {
		key.htype = peditHdrIP4
	}
	f, ok := lookupField(peditIPFields, (*pos)[0])
	if !ok && !s.extended {
		f, ok = lookupField(peditIPLegacyFields, (*pos)[0])
	}
	if !ok {
		return peditFailed{}
	}
	return s.edit(pos, key, f)
}

// ip6 is p_ip6.c: the IPv6 header, extended form only. Its traffic class
// straddles two bytes: tc edits it as the byte at 1 and shifts the key's
// value and mask by four bits.
func (s *peditSel) ip6(pos *[]string, key *peditKey) error {
	if len(*pos) < 2 || !s.extended {
		return peditFailed{}
	}
	key.htype = peditHdrIP6
	f, ok := lookupField(peditIP6Fields, (*pos)[0])
	if !ok {
		return peditFailed{}
	}
	if err := s.edit(pos, key, f); err != nil {
		return err
	}
	if f.name == "traffic_class" {
		k := &s.keys[len(s.keys)-1]
		k.Mask = k.Mask<<4 | 0xf
		k.Val <<= 4
	}
	return nil
}

// l4 is p_tcp.c and p_udp.c: ports (and tcp's flags), extended form only.
func (s *peditSel) l4(pos *[]string, key *peditKey, tcp bool) error {
	if len(*pos) < 2 || !s.extended {
		return peditFailed{}
	}
	fields := peditUDPFields
	key.htype = peditHdrUDP
	if tcp {
		fields = peditTCPFields
		key.htype = peditHdrTCP
	}
	f, ok := lookupField(fields, (*pos)[0])
	if !ok {
		return peditFailed{}
	}
	return s.edit(pos, key, f)
}

// value is parse_val: a value of a type into the bytes tc keeps it in
// (four 32-bit words in host order; addresses as their bytes).
func parsePeditValue(w string, typ peditValType, val *[16]byte) bool {
	switch typ {
	case peditU32:
		v, err := tcfmt.ParseUint(w, 0, 32)
		if err != nil {
			return false
		}
		binary.NativeEndian.PutUint32(val[:], uint32(v))
	case peditIPv4, peditIPv6:
		a, _, err := tcword.ParsePrefix(w, typ == peditIPv6)
		if err != nil {
			return false
		}
		copy(val[:], a.AsSlice())
	case peditMAC:
		mac, ok := parsePeditMAC(w)
		if !ok {
			return false
		}
		copy(val[:], mac)
	}
	return true
}

// parsePeditMAC is ll_addr_a2n for a six-byte address: fewer parts (or a
// dotted address, which tc reads as four bytes) are refused.
func parsePeditMAC(w string) ([]byte, bool) {
	if strings.Contains(w, ".") {
		return nil, false
	}
	mac, _, ok := tcword.ParseMAC(w)
	if !ok || len(strings.SplitN(w, ":", 6)) < 6 {
		return nil, false
	}
	return mac, true
}

// cmd is parse_cmd: CMD [retain MASK] for a field of size bytes. retain
// is the field's bits of its bytes.
func (s *peditSel) cmd(pos *[]string, size int, typ peditValType, retain uint32, key *peditKey, allowDec bool) error {
	a := *pos
	var val, mask [16]byte
	ones := uint32(0xff)
	switch size {
	case 2:
		ones = 0xffff
	case 4:
		ones = 0xffffffff
	}
	w := a[0]
	switch {
	case tcfmt.Matches(w, "invert"):
		binary.NativeEndian.PutUint32(val[:], ones)
		binary.NativeEndian.PutUint32(mask[:], ones)
	case tcfmt.Matches(w, "set"), tcfmt.Matches(w, "add"):
		if tcfmt.Matches(w, "add") {
			key.cmd = peditCmdAdd
		}
		if !s.extended && key.cmd != peditCmdSet {
			return s.fail("Non extended mode. only 'set' command is supported")
		}
		if err := nextArg(&a); err != nil {
			return err
		}
		if !parsePeditValue(a[0], typ, &val) {
			if typ == peditMAC && strings.Contains(a[0], ".") {
				if _, err := tcword.ParseAddr(a[0], false); err != nil {
					s.printed = append(s.printed, fmt.Sprintf("%q is invalid lladdr.", a[0]))
				}
			} else if typ == peditMAC {
				if _, msg, ok := tcword.ParseMAC(a[0]); !ok {
					s.printed = append(s.printed, msg)
				}
			}
			return peditFailed{}
		}
	case tcfmt.Matches(w, "decrement"):
		if !allowDec {
			return s.fail("decrement command is not supported for this field")
		}
		if !s.extended {
			return s.fail("Non extended mode. only 'set' command is supported")
		}
		key.cmd = peditCmdAdd
		// Adding all ones subtracts one (modulo the field).
		binary.NativeEndian.PutUint32(val[:], retain)
	case tcfmt.Matches(w, "preserve"):
		retain = 0
	case !tcfmt.Matches(w, "clear"):
		return peditFailed{}
	}
	a = a[1:]
	if len(a) > 0 && tcfmt.Matches(a[0], "retain") {
		if err := nextArg(&a); err != nil {
			return err
		}
		var r [16]byte
		if !parsePeditValue(a[0], peditU32, &r) {
			return peditFailed{}
		}
		retain = binary.NativeEndian.Uint32(r[:])
		a = a[1:]
	}
	if size > 4 && retain != 0xffffffff {
		return s.fail("retain is not supported for fields longer the 32 bits")
	}
	var err error
	switch typ {
	case peditMAC:
		err = s.packMAC(key, val[:6])
	case peditIPv6:
		err = s.packIPv6(key, val)
	default:
		key.Val = binary.NativeEndian.Uint32(val[:])
		key.Mask = binary.NativeEndian.Uint32(mask[:])
		if typ == peditIPv4 {
			key.Val = binary.BigEndian.Uint32(val[:])
		}
		switch size {
		case 1:
			err = s.pack8(retain, key)
		case 2:
			err = s.pack16(retain, key)
		default:
			err = s.pack32(retain, key)
		}
	}
	*pos = a
	return err
}

// pack adds a finished key (pack_key).
func (s *peditSel) pack(key *peditKey) error {
	if len(s.keys) >= peditMaxKeys {
		return peditFailed{}
	}
	if key.Off%4 != 0 {
		return s.fail("offsets MUST be in 32 bit boundaries")
	}
	if !s.extended && (key.htype != peditHdrNetwork || key.cmd != peditCmdSet) {
		return s.fail("Munge parameters not supported. Use 'pedit ex munge ...'.")
	}
	s.keys = append(s.keys, *key)
	return nil
}

// pack32 is pack_key32: the bits outside retain are kept.
func (s *peditSel) pack32(retain uint32, key *peditKey) error {
	if key.Off%4 != 0 {
		return s.fail("pack_key32: 32 bit offsets must begin in 32bit boundaries")
	}
	key.Val &= retain
	key.Mask |= ^retain
	return s.pack(key)
}

// pack16 is pack_key16: a 16-bit value in its place in the word, the rest
// of the word kept.
func (s *peditSel) pack16(retain uint32, key *peditKey) error {
	keep := [4]uint32{0x0000ffff, 0xff0000ff, 0xffff0000}
	if key.Val > 0xffff || key.Mask > 0xffff {
		return s.fail("pack_key16 bad value")
	}
	ind := key.Off & 3
	if ind == 3 {
		return s.fail(fmt.Sprintf("pack_key16 bad index value %d", ind))
	}
	stride := 8 * (2 - ind)
	key.Val = (key.Val & retain) << stride
	key.Mask = (key.Mask|^retain)<<stride | keep[ind]
	key.Off &^= 3
	return s.pack(key)
}

// pack8 is pack_key8.
func (s *peditSel) pack8(retain uint32, key *peditKey) error {
	keep := [4]uint32{0x00ffffff, 0xff00ffff, 0xffff00ff, 0xffffff00}
	if key.Val > 0xff || key.Mask > 0xff {
		// tc's message lacks its closing parenthesis.
		return s.fail(fmt.Sprintf("pack_key8 bad value (val %x mask %x", key.Val, key.Mask))
	}
	ind := key.Off & 3
	stride := 8 * (3 - ind)
	key.Val = (key.Val & retain) << stride
	key.Mask = (key.Mask|^retain)<<stride | keep[ind]
	key.Off &^= 3
	return s.pack(key)
}

// packMAC is pack_mac: six bytes as a word and a half word, in the order
// the offset's alignment allows.
func (s *peditSel) packMAC(key *peditKey, mac []byte) error {
	var err1, err2 error
	switch {
	case key.Off&3 == 0:
		key.Mask, key.Val = 0, binary.BigEndian.Uint32(mac)
		err1 = s.pack32(0xffffffff, key)
		key.Off += 4
		key.Mask, key.Val = 0, uint32(binary.BigEndian.Uint16(mac[4:]))
		err2 = s.pack16(0xffffffff, key)
	case key.Off&1 == 0:
		key.Mask, key.Val = 0, uint32(binary.BigEndian.Uint16(mac))
		err1 = s.pack16(0xffffffff, key)
		key.Off += 4
		key.Mask, key.Val = 0, binary.BigEndian.Uint32(mac[2:])
		err2 = s.pack32(0xffffffff, key)
	default:
		return s.fail("pack_mac: mac offsets must begin in 32bit or 16bit boundaries")
	}
	if err1 != nil {
		return err1
	}
	return err2
}

// packIPv6 is pack_ipv6: four words.
func (s *peditSel) packIPv6(key *peditKey, addr [16]byte) error {
	if key.Off&3 != 0 {
		return s.fail("pack_ipv6: IPv6 offsets must begin in 32bit boundaries")
	}
	for i := range 4 {
		key.Mask, key.Val = 0, binary.BigEndian.Uint32(addr[4*i:])
		if err := s.pack32(0xffffffff, key); err != nil {
			return err
		}
		key.Off += 4
	}
	return nil
}

// peditHeaderNames are the extended header types as tc prints them.
var peditHeaderNames = []string{peditHdrNetwork: "", peditHdrEth: "eth", peditHdrIP4: "ipv4", peditHdrIP6: "ipv6", peditHdrTCP: "tcp", peditHdrUDP: "udp"}

// peditParms is the action's parameters, plain or extended.
func peditParms(o *attrs.ActPeditAttrs) *attrs.TCPeditSel {
	if o.Parms != nil {
		return o.Parms
	}
	return o.ParmsEx
}

// printPedit is m_pedit.c's print_pedit up to the times of -s.
func printPedit(p *tcfmt.Printer, opts attrs.ActOptionsMsg, _ tckind.Links) {
	p.String(tcfmt.Any, "kind", " %s ", "pedit")
	o, ok := opts.(*attrs.ActPeditAttrs)
	if !ok || !peditPrintable(o) {
		return
	}
	sel := peditParms(o)
	printActionControl(p, "action ", sel.Action, " ")
	p.Uint(tcfmt.Any, "nkeys", "keys %u\n", uint64(sel.Nkeys))
	p.Uint(tcfmt.Any, "index", " \t index %u", uint64(sel.Index))
	p.Int(tcfmt.Any, "ref", " ref %d", int64(sel.Refcnt))
	p.Int(tcfmt.Any, "bind", " bind %d", int64(sel.Bindcnt))
}

// peditPrintable says whether tc prints more than the kind: it wants the
// parameters, and with the extended ones an extended part for each key
// (else it prints "Netlink error" on stderr and stops).
func peditPrintable(o *attrs.ActPeditAttrs) bool {
	if o.Parms != nil {
		return true
	}
	return o.ParmsEx != nil && o.KeysEx != nil && len(o.KeysEx.KeyEx) == len(o.ParmsEx.Keys)
}

func printPeditStats(p *tcfmt.Printer, opts attrs.ActOptionsMsg) {
	if o, ok := opts.(*attrs.ActPeditAttrs); ok && peditPrintable(o) && o.Tm != nil {
		printTm(p, o.Tm)
	}
}

// printPeditKeys prints the keys, after the times, as print_pedit does.
func printPeditKeys(p *tcfmt.Printer, opts attrs.ActOptionsMsg) {
	o, ok := opts.(*attrs.ActPeditAttrs)
	if !ok || !peditPrintable(o) {
		return
	}
	sel := peditParms(o)
	p.OpenArray(tcfmt.JSON, "keys")
	for i, k := range sel.Keys {
		htype, cmd := uint16(peditHdrNetwork), uint16(peditCmdSet)
		if o.Parms == nil {
			ex := o.KeysEx.KeyEx[i]
			if ex.Htype != nil {
				htype = *ex.Htype
			}
			if ex.Cmd != nil {
				cmd = *ex.Cmd
			}
		}
		p.OpenObject("")
		p.Uint(tcfmt.FP, "", "\n\t key #%d  at ", uint64(i))
		if htype != peditHdrNetwork {
			name := fmt.Sprintf("unknown(%d)", htype)
			if int(htype) < len(peditHeaderNames) {
				name = peditHeaderNames[htype]
			}
			p.String(tcfmt.Any, "htype", "%s", name)
			p.Int(tcfmt.Any, "offset", "%+d", int64(int32(k.Off)))
		} else {
			p.String(tcfmt.JSON, "htype", "", "network")
			p.Int(tcfmt.Any, "offset", "%d", int64(int32(k.Off)))
		}
		// tc calls the set command "val" in text, as it always has.
		text, json := "val", "set"
		if cmd != peditCmdSet {
			text, json = "add", "add"
		}
		p.String(tcfmt.FP, "", ": %s", text)
		p.String(tcfmt.JSON, "cmd", "", json)
		p.Hex(tcfmt.Any, "val", " %08x", k.Val)
		p.Hex(tcfmt.Any, "mask", " mask %08x", k.Mask)
		p.CloseObject()
	}
	if len(sel.Keys) == 0 {
		// Written past the JSON printer, as tc does.
		p.Verbatim(fmt.Sprintf("\npedit %x keys %d is not LEGIT", sel.Index, sel.Nkeys))
	}
	p.CloseArray(tcfmt.JSON, "")
}

// peditKeywords is Action.Keywords for pedit: each key (or the two or
// four keys of an address) as the munge that makes it. tc's editors pack
// a field's value and retain mask into the key's word in ways that differ
// by field, so for each key the candidates its header's fields allow are
// written and the one tc's own editor turns back into the same keys kept.
func peditKeywords(opts attrs.ActOptionsMsg, _ tckind.Links) ([]string, error) {
	o, _ := opts.(*attrs.ActPeditAttrs)
	if o == nil || peditParms(o) == nil {
		return nil, tckind.NoKeywords("pedit without parameters")
	}
	sel := peditParms(o)
	ex := o.Parms == nil
	if len(sel.Keys) == 0 || sel.Flags != 0 {
		return nil, tckind.NoKeywords(fmt.Sprintf("pedit of %d keys, flags %#x", len(sel.Keys), sel.Flags))
	}
	keys := make([]peditKey, len(sel.Keys))
	for i, k := range sel.Keys {
		keys[i].TCPeditKey = k
		if !ex {
			continue
		}
		if o.KeysEx == nil || len(o.KeysEx.KeyEx) != len(keys) {
			return nil, tckind.NoKeywords("pedit ex without a header type for each key")
		}
		kx := o.KeysEx.KeyEx[i]
		if kx.Htype != nil {
			keys[i].htype = *kx.Htype
		}
		if kx.Cmd != nil {
			keys[i].cmd = *kx.Cmd
		}
	}
	var w []string
	if ex {
		w = append(w, "ex")
	}
	for i := 0; i < len(keys); {
		m, n := peditMunge(keys[i:], ex)
		if n == 0 {
			return nil, tckind.NoKeywords(fmt.Sprintf("pedit key %d (header type %d, offset %d, mask %#x, value %#x)", i, keys[i].htype, int32(keys[i].Off), keys[i].Mask, keys[i].Val))
		}
		w = append(append(w, "munge"), m...)
		i += n
	}
	return controlWords(w, sel.Action, actOK)
}

// peditMunge returns the words after "munge" that make the first keys,
// and how many keys they make (0: none do).
func peditMunge(keys []peditKey, ex bool) ([]string, int) {
	for _, c := range peditCandidates(keys) {
		if c.n > len(keys) {
			continue
		}
		s := &peditSel{extended: ex}
		a := c.words
		if err := s.munge(&a); err == nil && len(a) == 0 && slices.Equal(s.keys, keys[:c.n]) {
			return c.words, c.n
		}
	}
	return nil, 0
}

// peditCandidate is words after "munge" that may make the next n keys.
type peditCandidate struct {
	words []string
	n     int
}

// peditHeaders names the editor of each header type, with its fields.
var peditHeaders = map[uint16]struct {
	name   string
	fields []peditField
}{
	peditHdrEth: {"eth", peditEthFields}, peditHdrIP4: {"ip", peditIPFields}, peditHdrIP6: {"ip6", peditIP6Fields},
	peditHdrTCP: {"tcp", peditTCPFields}, peditHdrUDP: {"udp", peditUDPFields},
}

// peditCandidates lists the munges that may make keys[0]: the offset
// form for the network header, else each field of its header that lies in
// the key's word, with the value and retain mask taken back out of it.
func peditCandidates(keys []peditKey) []peditCandidate {
	k := keys[0]
	hex := func(v uint32) string { return fmt.Sprintf("%#x", v) }
	// cmds are the commands that may give a field's value (written as
	// value) under retain r, and invert under retain inv.
	cmds := func(r, inv uint32, value string) [][]string {
		verb := "set"
		if k.cmd == peditCmdAdd {
			verb = "add"
		}
		c := [][]string{{verb, value, "retain", hex(r)}}
		if k.cmd == peditCmdSet {
			c = append(c, []string{"invert", "retain", hex(inv)})
		}
		return c
	}
	var out []peditCandidate
	if k.htype == peditHdrNetwork {
		base := []string{"offset", strconv.FormatInt(int64(int32(k.Off)), 10), "u32"}
		if k.At != 0 || k.Offmask != 0 || k.Shift != 0 {
			base = append(base, "at", tcword.UintWord(k.At), strconv.FormatUint(uint64(k.Offmask), 16), tcword.UintWord(k.Shift))
		}
		for _, c := range cmds(^k.Mask, k.Val, hex(k.Val)) {
			out = append(out, peditCandidate{append(slices.Clone(base), c...), 1})
		}
		return out
	}
	h, ok := peditHeaders[k.htype]
	if !ok {
		return nil
	}
	for _, f := range h.fields {
		if f.off&^3 != k.Off {
			continue
		}
		head := []string{h.name, f.name}
		switch f.typ {
		case peditMAC:
			if len(keys) < 2 {
				continue
			}
			var mac [8]byte
			if f.off&3 == 0 {
				binary.BigEndian.PutUint32(mac[:], keys[0].Val)
				binary.BigEndian.PutUint16(mac[4:], uint16(keys[1].Val>>16))
			} else {
				binary.BigEndian.PutUint16(mac[:], uint16(keys[0].Val))
				binary.BigEndian.PutUint32(mac[2:], keys[1].Val)
			}
			out = append(out, peditCandidate{append(head, "set", tcword.FormatMAC(mac[:6])), 2})
			continue
		case peditIPv6:
			if len(keys) < 4 {
				continue
			}
			var b [16]byte
			for i := range 4 {
				binary.BigEndian.PutUint32(b[4*i:], keys[i].Val)
			}
			out = append(out, peditCandidate{append(head, "set", netip.AddrFrom16(b).String()), 4})
			continue
		}
		m, v := k.Mask, k.Val
		if k.htype == peditHdrIP6 && f.name == "traffic_class" {
			// Undo the shift of the byte that straddles two.
			m, v = m>>4, v>>4
		}
		width := uint32(0xffffffff)
		stride := uint32(0)
		switch f.size {
		case 1:
			width, stride = 0xff, 8*(3-f.off&3)
		case 2:
			width, stride = 0xffff, 8*(2-f.off&3)
		}
		val, r := v>>stride&width, ^m>>stride&width
		value := hex(val)
		if f.typ == peditIPv4 {
			value = netip.AddrFrom4([4]byte{byte(val >> 24), byte(val >> 16), byte(val >> 8), byte(val)}).String()
		}
		for _, c := range cmds(r, val, value) {
			out = append(out, peditCandidate{append(slices.Clone(head), c...), 1})
		}
	}
	return out
}
