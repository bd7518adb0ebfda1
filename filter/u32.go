// SPDX-License-Identifier: Apache-2.0

package filter

// The u32 filter (net/sched/cls_u32.c): a selector of 32-bit keys, each a
// masked word at an offset in the packet, in hash tables that filters can
// link to. The keywords, their derivations and the output follow tc 7.3's
// f_u32.c. Values are kept in host order: a key is the big-endian word at
// its offset, so "match ip protocol 6 0xff" is the key 0x00060000/0x00ff0000
// at 8.
//
// tc adds classid, divisor, link, indev, the actions and the mark as it
// reads them, then the hash, the selector and the flags; gotc sends them in
// the spec's encode-order, which is tc's for words in their usual order.

import (
	"errors"
	"fmt"
	"math/bits"
	"net/netip"
	"strconv"
	"strings"

	"github.com/gotc/gotc/action"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

const u32Usage = `Usage: ... u32 [ match SAMPLE ]... [ offset plus N | at N | mask HEX | shift N | eat ]...
               [ hashkey mask HEX at N ] [ ht HTID ] [ sample SAMPLE [ divisor N ] ]
               [ link HTID ] [ order N ] [ indev DEV ] [ skip_hw | skip_sw ]
               [ classid CLASSID | flowid CLASSID ] [ police POLICE_SPEC ] [ action ACTION ... ]
       ... u32 divisor N          (a hash table of N buckets, N a power of 2 up to 256)
SAMPLE  := { u32 | u16 | u8 } VALUE MASK [ at [ nexthdr+ ] OFFSET ]
         | ip { src | dst } PREFIX | ip { tos | dsfield | ihl | protocol | icmp_type | icmp_code } VALUE MASK
         | ip { sport | dport } VALUE MASK | ip { nofrag | firstfrag | df | mf }
         | ip6 { src | dst } PREFIX | ip6 { priority | protocol | flowlabel | sport | dport } VALUE MASK
         | { tcp | udp } { src | dst } VALUE MASK | icmp { type | code } VALUE MASK
         | ether { src | dst } MAC | mark VALUE MASK
Handles (FILTERID, HTID) are hex HTID:BUCKET:NODE; CLASSID is hex MAJOR:MINOR.`

// TC_U32_* selector flags (linux/pkt_cls.h).
const (
	u32Terminal  = 1
	u32Offset    = 2
	u32VarOffset = 4
	u32Eat       = 8
)

// u32MaxKeys is the most keys tc puts in one selector.
const u32MaxKeys = 128

func init() {
	tckind.LazilyFilters(func() {
		tckind.MustRegisterFilter(&tckind.Filter{
			Name:         "u32",
			IsTable:      func(h uint32) bool { return u32Node(h) == 0 },
			Usage:        u32Usage,
			Parse:        parseU32,
			PrintOptions: printU32,
			Keywords:     u32Keywords,
			HandleWord:   func(h uint32, _ attrs.TCOptionsMsg) string { return u32HandleWord(h) },
		})
	}, "u32")
}

// A u32 handle is htid:hash:node, 12, 8 and 12 bits.
func u32HTID(h uint32) uint32     { return h & 0xfff00000 }
func u32UserHTID(h uint32) uint32 { return h >> 20 & 0xfff }
func u32Hash(h uint32) uint32     { return h >> 12 & 0xff }
func u32Node(h uint32) uint32     { return h & 0xfff }

// parseU32Handle is f_u32.c's get_u32_handle: "0xHHHHHHHH", or
// htid[:hash[:node]] in hex, each part optional.
func parseU32Handle(s string) (uint32, error) {
	if !strings.Contains(s, ":") {
		if strings.HasPrefix(s, "0x") {
			v, err := tcfmt.ParseUint(s, 16, 32)
			return uint32(v), err
		}
		return 0, tcword.ErrIllegal
	}
	// Each part: a hex number, or nothing before the next ':' (or the
	// end); what follows the last part's number is not looked at.
	part := func(s string, limit uint64, last bool) (uint64, string, error) {
		v, n, _ := tcfmt.Strtoul(s, 16)
		if n == 0 && s != "" && (last || s[0] != ':') {
			return 0, "", tcword.ErrIllegal
		}
		if v < limit {
			return v, s[n:], nil
		}
		return 0, "", tcword.ErrIllegal
	}
	htid, rest, err := part(s, 0x1000, false)
	if err != nil {
		return 0, err
	}
	var hash, node uint64
	if rest != "" {
		if hash, rest, err = part(rest[1:], 0x100, false); err != nil {
			return 0, err
		}
		if rest != "" {
			if node, _, err = part(rest[1:], 0x1000, true); err != nil {
				return 0, err
			}
		}
	}
	return uint32(htid<<20 | hash<<12 | node), nil
}

// formatU32Handle is f_u32.c's sprint_u32_handle. It is printed for every
// u32 filter of a dump, so it is built without fmt: one allocation.
func formatU32Handle(h uint32, raw bool) string {
	if h == 0 {
		return "none"
	}
	var a [32]byte
	b := a[:0]
	if htid := u32HTID(h); htid != 0 {
		b = append(strconv.AppendUint(b, uint64(htid>>20), 16), ':')
	}
	if hash, node := u32Hash(h), u32Node(h); hash|node != 0 {
		if hash != 0 {
			b = strconv.AppendUint(b, uint64(hash), 16)
		}
		if node != 0 {
			b = strconv.AppendUint(append(b, ':'), uint64(node), 16)
		}
	}
	if raw {
		var x [8]byte
		hex := strconv.AppendUint(x[:0], uint64(h), 16)
		b = append(b, '[')
		b = append(b, "00000000"[len(hex):]...)
		b = append(append(b, hex...), ']')
	}
	return string(b)
}

// u32Words is the rest of a u32 command line as f_u32.c's readers walk it.
type u32Words struct{ args []string }

func (w *u32Words) more() bool   { return len(w.args) > 0 }
func (w *u32Words) peek() string { return w.args[0] }

// next is tc's NEXT_ARG: step to the next word, which must exist.
func (w *u32Words) next() error {
	w.args = w.args[1:]
	if len(w.args) == 0 {
		return tcword.IncompleteCommand()
	}
	return nil
}

// skip steps past the current word, which may be the last.
func (w *u32Words) skip() { w.args = w.args[1:] }

// u32Sel is a selector being built: its keys, and the mark that a
// "match mark" adds beside them.
type u32Sel struct {
	attrs.TCU32Sel
	mark *attrs.TCU32Mark
}

// pack is pack_key: a key at an offset already in the selector must agree
// with it where both masks are set, and is merged into it; a new one must
// be at a multiple of 4.
func (s *u32Sel) pack(val, mask uint32, off, offmask int32) error {
	val &= mask
	for i := range s.Keys {
		k := &s.Keys[i]
		if k.Off == off && k.Offmask == offmask {
			if (val^k.Val)&(mask&k.Mask) != 0 {
				return tcword.ErrIllegal
			}
			k.Val |= val
			k.Mask |= mask
			return nil
		}
	}
	if len(s.Keys) >= u32MaxKeys || off%4 != 0 {
		return tcword.ErrIllegal
	}
	s.Keys = append(s.Keys, attrs.TCU32Key{Val: val, Mask: mask, Off: off, Offmask: offmask})
	s.Nkeys = uint8(len(s.Keys))
	return nil
}

// pack16 and pack8 place a 16- or 8-bit value in the word that holds its
// offset (pack_key16, pack_key8).
func (s *u32Sel) pack16(val, mask uint32, off, offmask int32) error {
	if val > 0xffff || mask > 0xffff {
		return tcword.ErrIllegal
	}
	if off&3 == 0 {
		val, mask = val<<16, mask<<16
	}
	return s.pack(val, mask, off&^3, offmask)
}

func (s *u32Sel) pack8(val, mask uint32, off, offmask int32) error {
	if val > 0xff || mask > 0xff {
		return tcword.ErrIllegal
	}
	shift := 24 - 8*uint(off&3)
	return s.pack(val<<shift, mask<<shift, off&^3, offmask)
}

// parseAt reads the offset after "at": N, or nexthdr+N (one word or two),
// which makes the key relative to the next header.
func parseAt(w *u32Words, off, offmask *int32) error {
	p := w.peek()
	switch {
	case len(p) > len("nexthdr+") && strings.HasPrefix(p, "nexthdr+"):
		*offmask = -1
		p = p[len("nexthdr+"):]
	case tcfmt.Matches(p, "nexthdr+"):
		if err := w.next(); err != nil {
			return err
		}
		*offmask = -1
		p = w.peek()
	}
	v, err := tcfmt.ParseInt(p, 0, 32)
	if err != nil {
		return tcword.ErrIllegal
	}
	*off = int32(v)
	w.skip()
	return nil
}

// valueMask reads "VALUE MASK" (the value in any base, the mask in hex),
// each at most limit, and an optional "at OFFSET".
func valueMask(w *u32Words, limit uint64, off, offmask *int32) (val, mask uint32, err error) {
	if len(w.args) < 2 {
		return 0, 0, tcword.ErrIllegal
	}
	v, err1 := tcfmt.ParseUint(w.args[0], 0, 32)
	m, err2 := tcfmt.ParseUint(w.args[1], 16, 32)
	if err1 != nil || err2 != nil || v > limit || m > limit {
		return 0, 0, tcword.ErrIllegal
	}
	w.args = w.args[2:]
	if err := maybeAt(w, off, offmask); err != nil {
		return 0, 0, err
	}
	return uint32(v), uint32(m), nil
}

// maybeAt reads "at OFFSET" if it comes next.
func maybeAt(w *u32Words, off, offmask *int32) error {
	if w.more() && w.peek() == "at" {
		if err := w.next(); err != nil {
			return err
		}
		return parseAt(w, off, offmask)
	}
	return nil
}

// The integer samples at a default offset (parse_u32, parse_u16, parse_u8:
// only the last checks the values' range before reading "at").
func (s *u32Sel) sample32(w *u32Words, off, offmask int32) error {
	v, m, err := valueMask(w, 0xffffffff, &off, &offmask)
	if err != nil {
		return err
	}
	return s.pack(v, m, off, offmask)
}

func (s *u32Sel) sample16(w *u32Words, off, offmask int32) error {
	v, m, err := valueMask(w, 0xffffffff, &off, &offmask)
	if err != nil {
		return err
	}
	return s.pack16(v, m, off, offmask)
}

func (s *u32Sel) sample8(w *u32Words, off, offmask int32) error {
	v, m, err := valueMask(w, 0xff, &off, &offmask)
	if err != nil {
		return err
	}
	return s.pack8(v, m, off, offmask)
}

// addr4 and addr6 are parse_ip_addr and parse_ip6_addr: an address at a
// default offset, a key per 32 bits of its prefix.
func (s *u32Sel) addr4(w *u32Words, off int32) error {
	a, n, err := tcword.ParsePrefix(w.peek(), false)
	if err != nil {
		return tcword.ErrIllegal
	}
	w.skip()
	var offmask int32
	if err := maybeAt(w, &off, &offmask); err != nil {
		return err
	}
	return s.pack(tcword.Be32(a.As4()), tcword.PrefixMask(n), off, offmask)
}

func (s *u32Sel) addr6(w *u32Words, off int32) error {
	a, n, err := tcword.ParsePrefix(w.peek(), true)
	if err != nil {
		return tcword.ErrIllegal
	}
	w.skip()
	var offmask int32
	if err := maybeAt(w, &off, &offmask); err != nil {
		return err
	}
	b := a.As16()
	for i := 0; i < n; i += 32 {
		word := tcword.Be32([4]byte(b[i/8 : i/8+4]))
		mask := ^uint32(0)
		if i+31 >= n {
			mask = tcword.PrefixMask(n - i)
		}
		if err := s.pack(word, mask, off+int32(i/8), offmask); err != nil {
			return err
		}
	}
	return nil
}

// ether is parse_ether_addr: six bytes from the MAC header's start (a
// negative offset: the link layer lies before the network header).
func (s *u32Sel) ether(w *u32Words, off int32, stderr func(string)) error {
	var mac [6]byte
	parts := strings.Split(w.peek(), ":")
	ok := len(parts) == 6
	for i := 0; ok && i < 6; i++ {
		v, err := strconv.ParseUint(parts[i], 16, 8)
		ok = err == nil && len(parts[i]) > 0
		mac[i] = byte(v)
	}
	if !ok {
		stderr(fmt.Sprintf("parse_ether_addr: improperly formed address '%s'", w.peek()))
		return tcword.ErrIllegal
	}
	w.skip()
	var offmask int32
	if err := maybeAt(w, &off, &offmask); err != nil {
		return err
	}
	for i := range mac {
		if err := s.pack8(uint32(mac[i]), 0xff, off+int32(i), offmask); err != nil {
			return err
		}
	}
	return nil
}

// ipv4Fields are parse_ip's one-word fields: a sample of a size at an
// offset into the IPv4 header.
var ipv4Fields = map[string]struct {
	size int
	off  int32
}{
	"tos": {8, 1}, "ihl": {8, 0}, "protocol": {8, 9}, "dport": {16, 22}, "sport": {16, 20},
	"icmp_type": {8, 20}, "icmp_code": {8, 21},
}

// ipv4Flags are parse_ip's fragment words, fixed keys on the flags field.
var ipv4Flags = map[string][2]uint32{
	"nofrag": {0, 0x3fff}, "firstfrag": {0x2000, 0x3fff}, "df": {0x4000, 0x4000}, "mf": {0x2000, 0x2000},
}

// ipv6Fields are parse_ip6's fields with their size, offset and offmask.
var ipv6Fields = map[string]struct {
	size        int
	off, offmsk int32
}{
	"protocol": {8, 6, 0}, "flowlabel": {32, 0, 0}, "dport": {16, 42, 0}, "sport": {16, 40, 0},
	"icmp_type": {8, 40, 0}, "icmp_code": {8, 41, 1},
}

// nextHeaderFields are the samples of udp and tcp (alike) and icmp: fields
// of the header after IP's, so relative to the next header (offmask -1).
var nextHeaderFields = map[string]map[string]struct {
	size int
	off  int32
}{
	"udp":  {"src": {16, 0}, "dst": {16, 2}},
	"icmp": {"type": {8, 0}, "code": {8, 1}},
}

func (s *u32Sel) sized(w *u32Words, size int, off, offmask int32) error {
	switch size {
	case 32:
		return s.sample32(w, off, offmask)
	case 16:
		return s.sample16(w, off, offmask)
	}
	return s.sample8(w, off, offmask)
}

// selector is parse_selector: one sample after "match" (or "sample").
func (s *u32Sel) selector(w *u32Words, stderr func(string)) error {
	if !w.more() {
		return tcword.ErrIllegal
	}
	kw := w.peek()
	type reader func() error
	field := func(fn func(string) error) reader {
		return func() error {
			if len(w.args) < 2 {
				return tcword.ErrIllegal
			}
			name := w.peek()
			return fn(name)
		}
	}
	var read reader
	switch {
	case tcfmt.Matches(kw, "u32"):
		read = func() error { return s.sample32(w, 0, 0) }
	case tcfmt.Matches(kw, "u16"):
		read = func() error { return s.sample16(w, 0, 0) }
	case tcfmt.Matches(kw, "u8"):
		read = func() error { return s.sample8(w, 0, 0) }
	case tcfmt.Matches(kw, "ip"):
		read = field(func(name string) error {
			switch {
			case name == "src" || name == "dst":
				if err := w.next(); err != nil {
					return err
				}
				return s.addr4(w, map[string]int32{"src": 12, "dst": 16}[name])
			case name == "tos" || tcfmt.Matches(name, "dsfield") || tcfmt.Matches(name, "precedence"):
				if err := w.next(); err != nil {
					return err
				}
				return s.sample8(w, 1, 0)
			}
			if f, ok := ipv4Fields[name]; ok {
				if err := w.next(); err != nil {
					return err
				}
				return s.sized(w, f.size, f.off, 0)
			}
			if k, ok := ipv4Flags[name]; ok {
				w.skip()
				return s.pack16(k[0], k[1], 6, 0)
			}
			return tcword.ErrIllegal
		})
	case tcfmt.Matches(kw, "ip6"):
		read = field(func(name string) error {
			switch name {
			case "src", "dst":
				if err := w.next(); err != nil {
					return err
				}
				return s.addr6(w, map[string]int32{"src": 8, "dst": 24}[name])
			case "priority":
				if err := w.next(); err != nil {
					return err
				}
				// The traffic class: 8 bits after the version.
				if len(w.args) < 2 {
					return tcword.ErrIllegal
				}
				v, err1 := tcfmt.ParseUint(w.args[0], 0, 32)
				m, err2 := tcfmt.ParseUint(w.args[1], 16, 32)
				if err1 != nil || err2 != nil || v > 0xff || m > 0xff {
					return tcword.ErrIllegal
				}
				w.args = w.args[2:]
				return s.pack(uint32(v)<<20, uint32(m)<<20, 0, 0)
			}
			if f, ok := ipv6Fields[name]; ok {
				if err := w.next(); err != nil {
					return err
				}
				return s.sized(w, f.size, f.off, f.offmsk)
			}
			return tcword.ErrIllegal
		})
	case tcfmt.Matches(kw, "udp"), tcfmt.Matches(kw, "tcp"), tcfmt.Matches(kw, "icmp"):
		fields := nextHeaderFields["icmp"]
		if !tcfmt.Matches(kw, "icmp") {
			fields = nextHeaderFields["udp"]
		}
		read = field(func(name string) error {
			f, ok := fields[name]
			if !ok {
				return tcword.ErrIllegal
			}
			if err := w.next(); err != nil {
				return err
			}
			return s.sized(w, f.size, f.off, -1)
		})
	case tcfmt.Matches(kw, "mark"):
		read = func() error { return s.markSample(w, stderr) }
	case tcfmt.Matches(kw, "ether"):
		read = field(func(name string) error {
			if name != "src" && name != "dst" {
				stderr("Unknown match: ether " + name)
				return tcword.ErrIllegal
			}
			if err := w.next(); err != nil {
				return err
			}
			return s.ether(w, map[string]int32{"src": -8, "dst": -14}[name], stderr)
		})
	default:
		return tcword.ErrIllegal
	}
	if err := w.next(); err != nil {
		return err
	}
	return read()
}

// markSample is parse_mark: "mark VALUE MASK", a match on the packet's
// mark that goes beside the selector.
func (s *u32Sel) markSample(w *u32Words, stderr func(string)) error {
	if len(w.args) <= 1 {
		return &tcword.ParseError{Msg: `Error: argument "mark" is required`, Code: 255}
	}
	v, err := tcfmt.ParseUint(w.peek(), 0, 32)
	if err != nil {
		stderr(`Illegal "mark" value`)
		return tcword.ErrIllegal
	}
	if err := w.next(); err != nil {
		return err
	}
	m, err := tcfmt.ParseUint(w.peek(), 0, 32)
	if err != nil {
		stderr(`Illegal "mark" mask`)
		return tcword.ErrIllegal
	}
	if err := w.next(); err != nil {
		return err
	}
	if v&m != v {
		stderr(`Illegal "mark" (impossible combination)`)
		return tcword.ErrIllegal
	}
	s.mark = &attrs.TCU32Mark{Val: uint32(v), Mask: uint32(m)}
	return nil
}

// offset is parse_offset: "plus N", "at N" (even), "mask HEX", "shift N",
// "eat", in any order, up to the first other word.
func (s *u32Sel) offset(w *u32Words, stderr func(string)) error {
	for w.more() {
		kw := w.peek()
		switch {
		case tcfmt.Matches(kw, "plus"), tcfmt.Matches(kw, "at"), tcfmt.Matches(kw, "shift"):
			if err := w.next(); err != nil {
				return err
			}
			v, err := tcfmt.ParseInt(w.peek(), 0, 32)
			if err != nil {
				return tcword.ErrIllegal
			}
			switch {
			case tcfmt.Matches(kw, "plus"):
				s.Off = uint16(v)
				s.Flags |= u32Offset
			case tcfmt.Matches(kw, "at"):
				s.Offoff = int16(v)
				if v%2 != 0 {
					stderr(`offset "at" must be even`)
					return tcword.ErrIllegal
				}
				s.Flags |= u32VarOffset
			default:
				s.Offshift = uint8(v)
				s.Flags |= u32VarOffset
			}
		case tcfmt.Matches(kw, "mask"):
			if err := w.next(); err != nil {
				return err
			}
			v, err := tcfmt.ParseUint(w.peek(), 16, 16)
			if err != nil {
				return tcword.ErrIllegal
			}
			s.Offmask = uint16(v)
			s.Flags |= u32VarOffset
		case tcfmt.Matches(kw, "eat"):
			s.Flags |= u32Eat
		default:
			return nil
		}
		w.skip()
	}
	return nil
}

// hashkey is parse_hashkey: "mask HEX" and "at N" (a multiple of 4).
func (s *u32Sel) hashkey(w *u32Words) error {
	for w.more() {
		kw := w.peek()
		switch {
		case tcfmt.Matches(kw, "mask"):
			if err := w.next(); err != nil {
				return err
			}
			v, err := tcfmt.ParseUint(w.peek(), 16, 32)
			if err != nil {
				return tcword.ErrIllegal
			}
			s.Hmask = uint32(v)
		case tcfmt.Matches(kw, "at"):
			if err := w.next(); err != nil {
				return err
			}
			v, err := tcfmt.ParseInt(w.peek(), 0, 32)
			if err != nil || v%4 != 0 {
				return tcword.ErrIllegal
			}
			s.Hoff = int16(v)
		default:
			return nil
		}
		w.skip()
	}
	return nil
}

// parseDivisor reads a hash table's size: a power of two from 1 to 256.
func parseDivisor(s string) (uint32, bool) {
	v, err := tcfmt.ParseUint(s, 0, 32)
	return uint32(v), err == nil && v != 0 && v <= 0x100 && (v-1)&v == 0
}

// u32Failed is a reader's failure as tc reports it: its own message when
// it has one (an incomplete command, a missing argument), else "Illegal
// WHAT" after whatever the reader printed.
func u32Failed(err error, what string, printed []string) error {
	var pe *tcword.ParseError
	if errors.As(err, &pe) {
		return err
	}
	return tcword.Errorf("%s", strings.Join(append(printed, fmt.Sprintf("Illegal %q", what)), "\n"))
}

// parseU32 is f_u32.c's u32_parse_opt.
func parseU32(args []string, env tckind.FilterEnv) (attrs.TCOptionsMsg, uint32, error) {
	var handle uint32
	if env.Handle != "" {
		h, err := parseU32Handle(env.Handle)
		if err != nil {
			return nil, 0, tcword.Errorf("Illegal filter ID")
		}
		handle = h
	}
	if len(args) == 0 {
		return nil, handle, nil
	}
	o := &attrs.U32Attrs{}
	var (
		sel                       u32Sel
		selOK, terminal, sampleOK bool
		htid, order, flags        uint32
		printed                   []string
	)
	say := func(s string) { printed = append(printed, s) }
	fail := func(err error, what string) (attrs.TCOptionsMsg, uint32, error) {
		return nil, 0, u32Failed(err, what, printed)
	}
	w := &u32Words{args: args}
	for w.more() {
		kw := w.peek()
		switch {
		case tcfmt.Matches(kw, "match"):
			if err := w.next(); err != nil {
				return nil, 0, err
			}
			if err := sel.selector(w, say); err != nil {
				return fail(err, "match")
			}
			selOK = true
			continue
		case tcfmt.Matches(kw, "offset"):
			if err := w.next(); err != nil {
				return nil, 0, err
			}
			if err := sel.offset(w, say); err != nil {
				return fail(err, "offset")
			}
			continue
		case tcfmt.Matches(kw, "hashkey"):
			if err := w.next(); err != nil {
				return nil, 0, err
			}
			if err := sel.hashkey(w); err != nil {
				return fail(err, "hashkey")
			}
			continue
		case tcfmt.Matches(kw, "classid"), kw == "flowid":
			if err := w.next(); err != nil {
				return nil, 0, err
			}
			id, err := tcfmt.ParseClassID(w.peek())
			if err != nil {
				return nil, 0, tcword.Errorf(`Illegal "classid"`)
			}
			o.Classid = &id
			sel.Flags |= u32Terminal
		case tcfmt.Matches(kw, "divisor"):
			if err := w.next(); err != nil {
				return nil, 0, err
			}
			d, ok := parseDivisor(w.peek())
			if !ok {
				return nil, 0, tcword.Errorf(`Illegal "divisor"`)
			}
			o.Divisor = &d
		case tcfmt.Matches(kw, "order"):
			if err := w.next(); err != nil {
				return nil, 0, err
			}
			v, err := tcfmt.ParseUint(w.peek(), 0, 32)
			if err != nil {
				return nil, 0, tcword.Errorf(`Illegal "order"`)
			}
			order = uint32(v)
		case kw == "link":
			if err := w.next(); err != nil {
				return nil, 0, err
			}
			id, err := parseU32Handle(w.peek())
			if err != nil {
				return nil, 0, tcword.Errorf(`Illegal "link"`)
			}
			if id != 0 && u32Node(id) != 0 {
				return nil, 0, tcword.Errorf(`"link" must be a hash table.`)
			}
			o.Link = &id
		case kw == "ht":
			if err := w.next(); err != nil {
				return nil, 0, err
			}
			ht, err := parseU32Handle(w.peek())
			if err != nil {
				return nil, 0, tcword.Errorf(`Illegal "ht"`)
			}
			if env.Handle != "" && u32Node(ht) != 0 {
				return nil, 0, tcword.Errorf(`"ht" must be a hash table.`)
			}
			if sampleOK {
				htid = htid&0xff000 | ht&0xfff00000
			} else {
				htid = ht & 0xfffff000
			}
		case kw == "sample":
			if err := w.next(); err != nil {
				return nil, 0, err
			}
			var sample u32Sel
			if err := sample.selector(w, say); err != nil {
				return fail(err, "sample")
			}
			if sample.mark != nil {
				// tc's reader adds a mark it meets here to the request.
				sel.mark = sample.mark
			}
			if len(sample.Keys) != 1 {
				return nil, 0, tcword.Errorf(`"sample" must contain exactly ONE key.`)
			}
			divisor := uint32(0x100)
			if w.more() && w.peek() == "divisor" {
				if err := w.next(); err != nil {
					return nil, 0, err
				}
				d, ok := parseDivisor(w.peek())
				if !ok {
					return nil, 0, tcword.Errorf(`Illegal sample "divisor"`)
				}
				divisor = d
				if err := w.next(); err != nil {
					return nil, 0, err
				}
			}
			htid = (u32HashFold(sample.Keys[0])%divisor)<<12 | htid&0xfff00000
			sampleOK = true
			continue
		case kw == "indev":
			w.skip()
			if !w.more() {
				return nil, 0, tcword.Errorf("Illegal indev")
			}
			name := indevName(w.peek())
			o.Indev = &name
		case tcfmt.Matches(kw, "action"):
			if err := w.next(); err != nil {
				return nil, 0, err
			}
			// ParseActions' refusals end with the line the filter adds.
			acts, rest, err := action.ParseActions(w.args, env.ActionEnv)
			if err != nil {
				return nil, 0, err
			}
			o.Act = append(o.Act, acts...)
			w.args = rest
			terminal = true
			continue
		case tcfmt.Matches(kw, "police"):
			police, rest, err := action.ParseFilterPolice(w.args)
			if err != nil {
				return nil, 0, err
			}
			o.Police, w.args = police, rest
			terminal = true
			continue
		case kw == "skip_hw":
			flags |= clsFlagSkipHW
		case kw == "skip_sw":
			flags |= clsFlagSkipSW
		case kw == "help":
			return nil, 0, &tcword.ParseError{Msg: u32Usage}
		default:
			return nil, 0, tcword.Errorf("What is %q?\n%s", kw, u32Usage)
		}
		w.skip()
	}
	if terminal {
		sel.Flags |= u32Terminal
	}
	if order != 0 {
		if u32Node(handle) != 0 && order != u32Node(handle) {
			return nil, 0, tcword.Errorf(`"order" contradicts "handle"`)
		}
		handle |= order
	}
	if htid != 0 {
		o.Hash = &htid
	}
	if selOK {
		o.Sel = &sel.TCU32Sel
	}
	o.Mark = sel.mark
	if flags != 0 {
		if flags == clsFlagSkipHW|clsFlagSkipSW {
			return nil, 0, tcword.Errorf("skip_hw and skip_sw are mutually exclusive")
		}
		o.Flags = &flags
	}
	return o, handle, nil
}

// u32HashFold is the bucket a sample's key selects: its masked value
// shifted down past the mask's trailing zeros.
func u32HashFold(k attrs.TCU32Key) uint32 {
	shift := 0
	if k.Mask != 0 {
		shift = bits.TrailingZeros32(k.Mask)
	}
	return k.Val & k.Mask >> shift
}

// mask2bits is the length of a prefix mask, -1 when it is not one.
func mask2bits(m uint32) int {
	n := bits.LeadingZeros32(^m)
	if m != tcword.PrefixMask(n) {
		return -1
	}
	return n
}

// printU32 is f_u32.c's u32_print_opt.
func printU32(p *tcfmt.Printer, opts attrs.TCOptionsMsg, f tckind.FilterPrint) {
	o, ok := opts.(*attrs.U32Attrs)
	if !ok {
		return
	}
	if f.Handle != 0 {
		p.String(tcfmt.Any, "fh", "fh %s ", formatU32Handle(f.Handle, p.Raw()))
	}
	if n := u32Node(f.Handle); n != 0 {
		p.Int(tcfmt.Any, "order", "order %d ", int64(n))
	}
	sel := o.Sel
	switch {
	case o.Divisor != nil:
		p.Int(tcfmt.Any, "ht_divisor", "ht divisor %d ", int64(int32(*o.Divisor)))
	case o.Hash != nil:
		p.Hex(tcfmt.Any, "key_ht", "key ht %x ", u32UserHTID(*o.Hash))
		p.Hex(tcfmt.Any, "bkt", "bkt %x ", u32Hash(*o.Hash))
	}
	if o.Classid != nil {
		if sel == nil || sel.Flags&u32Terminal == 0 {
			p.String(tcfmt.FP, "", "%s", "*")
		}
		p.String(tcfmt.Any, "flowid", "flowid %s ", tcfmt.FormatClassID(*o.Classid))
	} else if sel != nil && sel.Flags&u32Terminal != 0 {
		p.String(tcfmt.FP, "", "%s", "terminal flowid ")
	}
	if o.Link != nil {
		p.String(tcfmt.Any, "link", "link %s ", formatU32Handle(*o.Link, p.Raw()))
	}
	if o.Flags != nil {
		fl := *o.Flags
		if fl&clsFlagSkipHW != 0 {
			p.Bool(tcfmt.Any, "skip_hw", "skip_hw ", true)
		}
		if fl&clsFlagSkipSW != 0 {
			p.Bool(tcfmt.Any, "skip_sw", "skip_sw ", true)
		}
		if fl&clsFlagInHW != 0 {
			p.Bool(tcfmt.Any, "in_hw", "in_hw ", true)
		} else if fl&clsFlagNotHW != 0 {
			p.Bool(tcfmt.Any, "not_in_hw", "not_in_hw ", true)
		}
	}
	pf := o.Pcnt
	if sel != nil && f.Stats && pf != nil {
		p.Uint(tcfmt.Any, "rule_hit", "(rule hit %llu ", pf.Rcnt)
		p.Uint(tcfmt.Any, "success", "success %llu)", pf.Rhit)
	}
	if m := o.Mark; m != nil {
		p.NL()
		p.Hex0x(tcfmt.Any, "fwmark_value", "  mark 0x%04x ", uint64(m.Val))
		p.Hex0x(tcfmt.Any, "fwmark_mask", "0x%04x ", uint64(m.Mask))
		p.Int(tcfmt.Any, "fwmark_success", "(success %d)", int64(int32(m.Success)))
	}
	if sel != nil {
		for i, k := range sel.Keys {
			printU32Key(p, k, f.Protocol)
			if f.Stats && pf != nil {
				var hits uint64
				if i < len(pf.Kcnts) {
					hits = pf.Kcnts[i]
				}
				p.Uint(tcfmt.Any, "success", " (success %llu ) ", hits)
			}
		}
		if sel.Flags&(u32VarOffset|u32Offset) != 0 {
			p.NL()
			p.String(tcfmt.FP, "", "%s", "    offset ")
			if sel.Flags&u32VarOffset != 0 {
				p.Hex(tcfmt.Any, "offset_mask", "%04x", uint32(sel.Offmask))
				p.Int(tcfmt.Any, "offset_shift", ">>%d ", int64(sel.Offshift))
				p.Int(tcfmt.Any, "offset_off", "at %d ", int64(sel.Offoff))
			}
			if sel.Off != 0 {
				p.Int(tcfmt.Any, "plus", "plus %d ", int64(sel.Off))
			}
		}
		if sel.Flags&u32Eat != 0 {
			p.String(tcfmt.Any, "", "%s", " eat ")
		}
		if sel.Hmask != 0 {
			p.NL()
			p.Hex(tcfmt.Any, "hash_mask", "    hash mask %08x ", sel.Hmask)
			p.Int(tcfmt.Any, "hash_off", "at %d ", int64(sel.Hoff))
		}
	}
	if o.Police != nil {
		p.NL()
		action.PrintFilterPolice(p, o.Police, f.Stats)
	}
	if o.Indev != nil {
		p.NL()
		p.String(tcfmt.Any, "input_dev", "  input dev %s", *o.Indev)
		p.NL()
	}
	if o.Act != nil {
		action.PrintActions(p, o.Act, action.ActionPrint{Stats: f.Stats, Bind: true, FirstOrder: 1, Links: f.Links})
	}
}

// printU32Key is show_keys: with -pretty, by field for an IPv4 or IPv6
// filter's keys that tc recognises; otherwise, and for other protocols,
// as value/mask at offset.
func printU32Key(p *tcfmt.Printer, k attrs.TCU32Key, protocol uint16) {
	p.OpenObject("match")
	switch {
	case p.Pretty() && protocol == tckind.EthPIP:
		printU32IPKey(p, k, false)
	case p.Pretty() && protocol == tckind.EthPIPv6:
		printU32IPKey(p, k, true)
	default:
		p.NL()
		p.Hex(tcfmt.Any, "value", "  match %08x", k.Val)
		p.Hex(tcfmt.Any, "mask", "/%08x ", k.Mask)
		nexthdr := ""
		if k.Offmask != 0 {
			nexthdr = "nexthdr+"
		}
		p.String(tcfmt.Any, "offmask", "at %s", nexthdr)
		p.Int(tcfmt.Any, "off", "%d", int64(k.Off))
	}
	p.CloseObject()
}

// printU32IPKey is print_ipv4 and print_ipv6. Both read the IPv4
// header's layout for the words at 0 to 16; the ports are the word at 20
// for IPv4 and at 40 for IPv6, where tc 7.3 also starts every port on a
// line of its own (IPv4's destination port alone stays on the previous
// line). A key that matches none of their cases prints nothing.
func printU32IPKey(p *tcfmt.Printer, k attrs.TCU32Key, v6 bool) {
	portsAt := int32(20)
	if v6 {
		portsAt = 40
	}
	switch k.Off {
	case 0:
		switch k.Mask {
		case 0x0f000000:
			p.NL()
			p.Uint(tcfmt.Any, "ip_ihl", "  match IP ihl %u", uint64(k.Val>>24))
		case 0x00ff0000:
			p.NL()
			p.Hex0x(tcfmt.Any, "ip_dsfield", "  match IP dsfield %#x", uint64(k.Val>>16))
		}
	case 8:
		if k.Mask == 0x00ff0000 {
			p.NL()
			p.Int(tcfmt.Any, "ip_protocol", "  match IP protocol %d", int64(k.Val>>16))
		}
	case 12, 16:
		n := mask2bits(k.Mask)
		if n < 0 {
			return
		}
		p.NL()
		if k.Off == 12 {
			p.Null(tcfmt.FP, "", "%s", "  match IP src ")
			p.OpenObject("src")
		} else {
			p.Null(tcfmt.FP, "", "%s", "  match IP dst ")
			p.OpenObject("dst")
		}
		a := netip.AddrFrom4([4]byte{byte(k.Val >> 24), byte(k.Val >> 16), byte(k.Val >> 8), byte(k.Val)})
		p.String(tcfmt.Any, "address", "%s", a.String())
		p.Int(tcfmt.Any, "prefixlen", "/%d", int64(n))
		p.CloseObject()
	case portsAt:
		dport, sport := uint64(k.Val&0xffff), uint64(k.Val>>16)
		switch k.Mask {
		case 0x0000ffff:
			if v6 {
				p.NL()
				p.Uint(tcfmt.Any, "dport", "  match dport %u", dport)
			} else {
				p.Uint(tcfmt.Any, "dport", "match dport %u", dport)
			}
		case 0xffff0000:
			p.NL()
			p.Uint(tcfmt.Any, "sport", "  match sport %u", sport)
		case 0xffffffff:
			p.NL()
			p.Uint(tcfmt.Any, "dport", "  match dport %u, ", dport)
			p.Uint(tcfmt.Any, "sport", "match sport %u", sport)
		}
	}
}

// u32Keywords is FilterKind.Keywords for u32: a hash table's divisor, or
// a node's table and bucket (ht), keys, mark, offsets and hashing, link,
// indev, class, police and actions. The handle's node (order) is the
// handle's.
func u32Keywords(opts attrs.TCOptionsMsg, links tckind.Links) ([]string, error) {
	o, ok := opts.(*attrs.U32Attrs)
	if !ok {
		return nil, tckind.NoKeywords(fmt.Sprintf("u32 options of type %T", opts))
	}
	w, err := filterFlagWords(o.Flags)
	if err != nil {
		return nil, err
	}
	if o.Divisor != nil {
		w = append(w, "divisor", tcword.UintWord(*o.Divisor))
	}
	if o.Hash != nil {
		if u32Node(*o.Hash) != 0 {
			return nil, tckind.NoKeywords(fmt.Sprintf("u32 hash %#x with a node", *o.Hash))
		}
		w = append(w, "ht", u32HandleWord(*o.Hash))
	}
	if o.Sel != nil {
		terminal := o.Classid != nil || o.Police != nil || len(o.Act) > 0
		if terminal != (o.Sel.Flags&u32Terminal != 0) {
			// tc makes the selector terminal exactly when the filter
			// classifies or acts.
			return nil, tckind.NoKeywords("u32 terminal flag that its class and actions do not give")
		}
		sw, err := u32SelWords(o.Sel)
		if err != nil {
			return nil, err
		}
		w = append(w, sw...)
	}
	if m := o.Mark; m != nil {
		if m.Val&m.Mask != m.Val {
			return nil, tckind.NoKeywords("u32 mark with bits outside its mask")
		}
		w = append(w, "match", "mark", fmt.Sprintf("%#x", m.Val), fmt.Sprintf("%#x", m.Mask))
	}
	if o.Link != nil {
		if u32Node(*o.Link) != 0 {
			return nil, tckind.NoKeywords(fmt.Sprintf("u32 link %#x to a node", *o.Link))
		}
		w = append(w, "link", u32HandleWord(*o.Link))
	}
	if o.Indev != nil {
		w = append(w, "indev", *o.Indev)
	}
	return policeActionWords(classidWords(w, o.Classid), o.Police, o.Act, links)
}

// u32HandleWord writes a handle (a filter's, a table's) as parseU32Handle
// reads it, every part given.
func u32HandleWord(h uint32) string {
	return fmt.Sprintf("%x:%x:%x", u32UserHTID(h), u32Hash(h), u32Node(h))
}

// u32SelWords writes a selector's keys, each a 32-bit sample (which the
// parser takes as it is), its offsets and its hashing, refusing what the
// words cannot give back: keys that share a place (the parser merges
// them), bits of a value outside its mask (the parser clears them), and
// offsets without the flags that their words set.
func u32SelWords(s *attrs.TCU32Sel) ([]string, error) {
	if len(s.Keys) == 0 || int(s.Nkeys) != len(s.Keys) {
		return nil, tckind.NoKeywords("u32 selector without its keys")
	}
	var w []string
	type place struct{ off, offmask int32 }
	seen := map[place]bool{}
	for _, k := range s.Keys {
		nh := ""
		switch k.Offmask {
		case 0:
		case -1:
			nh = "nexthdr+"
		default:
			return nil, tckind.NoKeywords(fmt.Sprintf("u32 key offmask %#x", uint32(k.Offmask)))
		}
		if seen[place{k.Off, k.Offmask}] || k.Val&^k.Mask != 0 || k.Off%4 != 0 {
			return nil, tckind.NoKeywords(fmt.Sprintf("u32 key %08x/%08x at %s%d", k.Val, k.Mask, nh, k.Off))
		}
		seen[place{k.Off, k.Offmask}] = true
		w = append(w, "match", "u32", fmt.Sprintf("0x%08x", k.Val), fmt.Sprintf("0x%08x", k.Mask), "at", nh+strconv.Itoa(int(k.Off)))
	}
	if s.Flags&^(u32Terminal|u32Offset|u32VarOffset|u32Eat) != 0 {
		return nil, tckind.NoKeywords(fmt.Sprintf("u32 selector flags %#x", s.Flags))
	}
	var off []string
	switch {
	case s.Flags&u32Offset != 0:
		off = append(off, "plus", tcword.UintWord(s.Off))
	case s.Off != 0:
		return nil, tckind.NoKeywords("u32 offset without its flag")
	}
	switch {
	case s.Flags&u32VarOffset != 0:
		if s.Offoff%2 != 0 {
			return nil, tckind.NoKeywords("u32 odd variable offset")
		}
		off = append(off, "at", strconv.Itoa(int(s.Offoff)), "mask", fmt.Sprintf("0x%x", s.Offmask), "shift", tcword.UintWord(s.Offshift))
	case s.Offoff != 0 || s.Offmask != 0 || s.Offshift != 0:
		return nil, tckind.NoKeywords("u32 variable offset without its flag")
	}
	if s.Flags&u32Eat != 0 {
		off = append(off, "eat")
	}
	if off != nil {
		w = append(append(w, "offset"), off...)
	}
	if s.Hmask != 0 || s.Hoff != 0 {
		if s.Hoff%4 != 0 {
			return nil, tckind.NoKeywords("u32 hash key offset not a multiple of 4")
		}
		w = append(w, "hashkey", "mask", fmt.Sprintf("0x%08x", s.Hmask), "at", strconv.Itoa(int(s.Hoff)))
	}
	return w, nil
}
