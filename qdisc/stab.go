package qdisc

// A qdisc's size table (TCA_STAB, net/sched/sch_api.c's qdisc_get_stab):
// tc's "stab" before the kind, as iproute2 7.x's tc/tc_stab.c reads it and
// tc/tc_core.c's tc_calc_size_table builds it.

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/tcfmt"
)

// stabUsage is tc's stab_help().
const stabUsage = `Usage: ... stab [ mtu BYTES ] [ tsize SLOTS ] [ mpu BYTES ]
                [ overhead BYTES ] [ linklayer TYPE ] ...
   mtu       : max packet size we create rate map for {2047}
   tsize     : how many slots should size table have {512}
   mpu       : minimum packet size used in rate computations
   overhead  : per-packet size overhead used in rate computations
   linklayer : adapting to a linklayer e.g. atm
Example: ... stab overhead 20 linklayer atm
`

// ParseSizeTable reads the words after "stab" (args[0]) up to the first
// that is not one of its keywords, which it returns with what follows, and
// builds the size table tc sends. tc's refusals here all exit 255: a bad
// value (with its invarg message, whose two parts tc swaps), a duplicate,
// "help" (after the usage on stderr), and a table without linklayer, mpu
// or overhead (silently).
func ParseSizeTable(args []string, stderr io.Writer) (*attrs.StabAttrs, []string, error) {
	if stderr == nil {
		stderr = io.Discard
	}
	var s attrs.TCSizespec
	if len(args) < 2 {
		return nil, nil, incompleteCommand()
	}
	args = args[1:]
	if tcfmt.Matches(args[0], "help") {
		fmt.Fprint(stderr, stabUsage)
		return nil, nil, &ParseError{Code: 255}
	}
	for len(args) > 0 {
		var keyword string
		for _, k := range []string{"mtu", "mpu", "overhead", "tsize", "linklayer"} {
			if tcfmt.Matches(args[0], k) {
				keyword = k
				break
			}
		}
		if keyword == "" {
			break
		}
		if len(args) < 2 {
			return nil, nil, incompleteCommand()
		}
		v := args[1]
		dup := &ParseError{Msg: fmt.Sprintf("Error: duplicate %q: %q is the second value.", keyword, v), Code: 255}
		u32 := func(dst *uint32, what string) error {
			if *dst != 0 {
				return dup
			}
			n, err := tcfmt.ParseUint(v, 10, 32)
			if err != nil {
				return invalidArgument(what, keyword)
			}
			*dst = uint32(n)
			return nil
		}
		var err error
		switch keyword {
		case "mtu":
			err = u32(&s.Mtu, "invalid mtu")
		case "mpu":
			err = u32(&s.MPU, "invalid mpu")
		case "tsize":
			err = u32(&s.Tsize, "invalid table size")
		case "overhead":
			if s.Overhead != 0 {
				return nil, nil, dup
			}
			n, perr := tcfmt.ParseInt(v, 10, 32)
			if perr != nil {
				return nil, nil, invalidArgument("invalid overhead", keyword)
			}
			s.Overhead = int32(n)
		case "linklayer":
			if s.Linklayer != linklayerUnspec {
				return nil, nil, dup
			}
			ll, ok := parseLinklayer(v)
			if !ok {
				return nil, nil, invalidArgument("invalid linklayer", keyword)
			}
			s.Linklayer = uint32(ll)
		}
		if err != nil {
			return nil, nil, err
		}
		args = args[2:]
	}
	if s.Linklayer < linklayerEthernet && s.MPU == 0 && s.Overhead == 0 {
		return nil, nil, &ParseError{Code: 255}
	}
	return sizeTable(s), args, nil
}

// sizeTable is tc_calc_size_table: without a link layer beyond Ethernet
// and without mpu the kernel needs only the overhead, and gets no table;
// otherwise tsize (512) cells cover mtu (2047) bytes, each holding the
// accounted size of its largest packet, scaled down by size_log to fit 16
// bits.
func sizeTable(s attrs.TCSizespec) *attrs.StabAttrs {
	if s.Linklayer <= linklayerEthernet && s.MPU == 0 {
		s.Mtu, s.Tsize, s.CellLog, s.CellAlign = 0, 0, 0, 0
		return &attrs.StabAttrs{Base: &s}
	}
	if s.Mtu == 0 {
		s.Mtu = 2047
	}
	if s.Tsize == 0 {
		s.Tsize = 512
	}
	s.CellLog = 0
	for s.Mtu>>s.CellLog > s.Tsize-1 {
		s.CellLog++
	}
	table := make([]byte, 2*int(s.Tsize))
again:
	for i := int(s.Tsize) - 1; i >= 0; i-- {
		sz := adjustSize(uint32(i+1)<<s.CellLog, s.MPU, uint8(s.Linklayer))
		if sz>>s.SizeLog > 0xffff {
			s.SizeLog++
			goto again
		}
		binary.NativeEndian.PutUint16(table[2*i:], uint16(sz>>s.SizeLog))
	}
	s.CellAlign = -1 // the sizes are of the cells' last bytes
	return &attrs.StabAttrs{Base: &s, Data: table}
}

// PrintSizeTable prints a qdisc's size table as tc's print_size_table
// does for -d: the parameters that are not zero, after a blank, in JSON
// under "stab". Nothing without TCA_STAB_BASE.
func PrintSizeTable(p *tcfmt.Printer, st *attrs.StabAttrs) {
	s := st.Base
	if s == nil {
		return
	}
	p.OpenObject("stab")
	p.Text(" ")
	if s.Linklayer != 0 {
		p.String(tcfmt.Any, "linklayer", "linklayer %s ", linklayerName(uint8(s.Linklayer)))
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
