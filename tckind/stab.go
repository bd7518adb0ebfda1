// SPDX-License-Identifier: Apache-2.0

package tckind

import (
	"strconv"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
)

// stabUsage is tc's help for "stab help".
const stabUsage = `Usage: ... stab [ mtu BYTES ] [ tsize SLOTS ] [ mpu BYTES ]
                [ overhead BYTES ] [ linklayer TYPE ] ...
   mtu       : max packet size we create rate map for {2047}
   tsize     : how many slots should size table have {512}
   mpu       : minimum packet size used in rate computations
   overhead  : per-packet size overhead used in rate computations
   linklayer : adapting to a linklayer e.g. atm
Example: ... stab overhead 20 linklayer atm`

// Defaults of a size table that needs slots (tc_calc_size_table's).
const (
	stabDefaultMtu   = 2047
	stabDefaultTsize = 512
)

// ParseSizeTable reads the words after a qdisc request's "stab" as tc's
// parse_size_table does: mtu, tsize, mpu, overhead and linklayer in any
// order, up to the first other word, which it returns with the rest. Every
// error makes tc exit 255, as does a table that would change nothing (no
// link layer, mpu or overhead): that one says nothing.
func ParseSizeTable(args []string) (attrs.TCSizespec, []string, error) {
	var s attrs.TCSizespec
	if len(args) == 0 {
		return s, nil, tcword.IncompleteCommand()
	}
	if tcfmt.Matches(args[0], "help") {
		return s, nil, &tcword.ParseError{Msg: stabUsage, Code: 255}
	}
	for len(args) > 0 {
		key := args[0]
		var known bool
		for _, k := range []string{"mtu", "mpu", "overhead", "tsize", "linklayer"} {
			if tcfmt.Matches(key, k) {
				key, known = k, true
				break
			}
		}
		if !known {
			break
		}
		if len(args) < 2 {
			return s, nil, tcword.IncompleteCommand()
		}
		val := args[1]
		// tc takes a zero value as unset, so only a non-zero one is a
		// duplicate.
		var dup bool
		var bad string
		switch key {
		case "mtu", "mpu", "tsize":
			field := map[string]*uint32{"mtu": &s.Mtu, "mpu": &s.MPU, "tsize": &s.Tsize}[key]
			dup = *field != 0
			if !dup {
				v, err := tcfmt.ParseUint(val, 10, 32)
				*field = uint32(v)
				if err != nil {
					bad = "invalid " + key
					if key == "tsize" {
						bad = "invalid table size"
					}
				}
			}
		case "overhead":
			dup = s.Overhead != 0
			if !dup {
				v, err := tcfmt.ParseInt(val, 10, 32)
				s.Overhead = int32(v)
				if err != nil {
					bad = "invalid overhead"
				}
			}
		case "linklayer":
			dup = s.Linklayer != tcword.LinklayerUnspec
			if !dup {
				ll, ok := tcword.ParseLinklayer(val)
				s.Linklayer = uint32(ll)
				if !ok {
					bad = "invalid linklayer"
				}
			}
		}
		if dup {
			return s, nil, tcword.DuplicateArgument(key, val)
		}
		if bad != "" {
			// tc's call passes the message as the argument and the
			// keyword as the message.
			return s, nil, tcword.InvalidArgument(bad, key)
		}
		args = args[2:]
	}
	if !sizeTableWanted(&s) {
		return s, nil, &tcword.ParseError{Code: 255}
	}
	return s, args, nil
}

// SizeTableKeywords writes a dumped size table's base back as the words
// of tc's "stab" that ask for it again, "stab" included.
func SizeTableKeywords(base attrs.TCSizespec) []string {
	w := []string{"stab"}
	for _, f := range []struct {
		word string
		v    uint32
	}{{"mtu", base.Mtu}, {"tsize", base.Tsize}, {"mpu", base.MPU}} {
		if f.v != 0 {
			w = append(w, f.word, tcword.UintWord(f.v))
		}
	}
	if base.Overhead != 0 {
		w = append(w, "overhead", strconv.Itoa(int(base.Overhead)))
	}
	if base.Linklayer != tcword.LinklayerUnspec {
		w = append(w, "linklayer", tcword.LinklayerName(uint8(base.Linklayer)))
	}
	return w
}

// SameSizeTable reports whether a size table asked for (a parsed spec, or
// a dumped base sent again) is the one whose base the kernel dumped: the
// base SizeTable makes of it (the kernel dumps no slots).
func SameSizeTable(asked, dumped *attrs.TCSizespec) bool {
	if asked == nil || dumped == nil {
		return asked == nil && dumped == nil
	}
	st, _ := SizeTable(*asked, 0)
	return *st.Base == *dumped
}

// sizeTableWanted is tc's test of whether a size table is worth sending.
func sizeTableWanted(s *attrs.TCSizespec) bool {
	return s.Linklayer >= tcword.LinklayerEthernet || s.MPU != 0 || s.Overhead != 0
}

// SizeTable is tc_calc_size_table: the TCA_STAB nest tc sends for s. Only
// an ATM link layer or an mpu needs slots; otherwise (the overhead alone)
// the base goes without them, its mtu and tsize cleared. With slots, mtu
// and tsize default to 2047 and 512, a slot covers 2^cell-log bytes (the
// smallest such that tsize slots reach mtu), and each holds the size the
// qdisc accounts for its largest packet, shifted right by size-log, the
// least shift that makes every slot fit 16 bits. room is how many bytes
// the slots may take in the request: when they need more, the nest has the
// base alone and fits is false (tc says so and sends it that way).
func SizeTable(s attrs.TCSizespec, room int) (st *attrs.TCAStabAttrs, fits bool) {
	if s.Linklayer <= tcword.LinklayerEthernet && s.MPU == 0 {
		s.Mtu, s.Tsize, s.CellLog, s.CellAlign = 0, 0, 0, 0
		return &attrs.TCAStabAttrs{Base: &s}, true
	}
	if s.Mtu == 0 {
		s.Mtu = stabDefaultMtu
	}
	if s.Tsize == 0 {
		s.Tsize = stabDefaultTsize
	}
	s.CellLog = 0
	for uint64(s.Mtu)>>s.CellLog > uint64(s.Tsize-1) {
		s.CellLog++
	}
	slot := func(i int) uint32 {
		// tc shifts an int; the size is its low 32 bits.
		return tcword.AdjustSize(uint32((i+1)<<s.CellLog), s.MPU, uint8(s.Linklayer))
	}
	var largest uint32
	for i := 0; i < int(s.Tsize); i++ {
		largest = max(largest, slot(i))
	}
	for largest>>s.SizeLog > 0xffff {
		s.SizeLog++
	}
	s.CellAlign = -1
	st = &attrs.TCAStabAttrs{Base: &s}
	if 2*uint64(s.Tsize) > uint64(room) {
		return st, false
	}
	st.Data = make([]uint16, s.Tsize)
	for i := range st.Data {
		st.Data[i] = uint16(slot(i) >> s.SizeLog)
	}
	return st, true
}

// PrintSizeTable prints a qdisc's size table as tc -d does, on a line of
// its own (the caller ends it): the base's non-zero parameters.
func PrintSizeTable(p *tcfmt.Printer, st *attrs.TCAStabAttrs) {
	if st.Base == nil {
		return
	}
	s := st.Base
	p.OpenObject("stab")
	p.Text(" ")
	if s.Linklayer != 0 {
		ll := uint8(s.Linklayer)
		if s.Linklayer > 0xff {
			ll = 0xff // unknown, as a value the byte would alias
		}
		p.String(tcfmt.Any, "linklayer", "linklayer %s ", tcword.LinklayerName(ll))
	}
	if s.Overhead != 0 {
		p.Int(tcfmt.Any, "overhead", "overhead %d ", int64(s.Overhead))
	}
	if s.MPU != 0 {
		p.Uint(tcfmt.Any, "mpu", "mpu %u ", uint64(s.MPU))
	}
	if s.Mtu != 0 {
		p.Uint(tcfmt.Any, "mtu", "mtu %u ", uint64(s.Mtu))
	}
	if s.Tsize != 0 {
		p.Uint(tcfmt.Any, "tsize", "tsize %u ", uint64(s.Tsize))
	}
	p.CloseObject()
}
