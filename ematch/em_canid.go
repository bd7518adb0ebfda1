// SPDX-License-Identifier: Apache-2.0

package ematch

// The canid extended match (net/sched/em_canid.c), as tc 7.3's em_canid.c
// reads and prints it: CAN's struct can_filter rules, laid out as x86-64 C
// lays them out.

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/gotc/gotc/tcfmt"
)

func init() {
	registerEmatch(&ematchKind{name: "canid", num: 7, usage: canidUsage, parse: parseEmCanid, print: printEmCanid, write: writeEmCanid})
}

const canidUsage = `Usage: canid(IDLIST)
where: IDLIST := IDSPEC [ IDLIST ]
       IDSPEC := { ’sff’ CANID | ’eff’ CANID }
       CANID := ID[:MASK]
       ID, MASK := hexadecimal number (i.e. 0x123)
Example: canid(sff 0x123 sff 0x124 sff 0x125:0xf)
`

// CAN identifiers (linux/can.h).
const (
	canEFFFlag = 0x80000000
	canSFFMask = 0x000007ff
	canEFFMask = 0x1fffffff
	// canidRulesMax is how many rules tc takes.
	canidRulesMax = 400
)

// scanHex is sscanf's "%x": blanks, then a hexadecimal number (0x allowed),
// kept to 32 bits; n is what it read, 0 when it read none.
func scanHex(s string) (v uint32, n int) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] >= '\t' && s[i] <= '\r') {
		i++
	}
	u, m, _ := tcfmt.Strtoul(s[i:], 16)
	if m == 0 {
		return 0, 0
	}
	return uint32(u), i + m
}

// parseEmCanid is em_canid.c's canid_parse_eopt: one struct can_filter
// (can_id, can_mask) per rule.
func parseEmCanid(p *emParser, args []*emArg) ([]byte, bool) {
	if len(args) == 0 {
		return nil, p.fail(nil, nil, "canid: missing arguments")
	}
	var b []byte
	rules := 0
	// tc's messages list the arguments from the one it is at.
	for i := 0; i < len(args); i++ {
		var eff bool
		switch a := args[i]; {
		case a.is("sff"):
		case a.is("eff"):
			eff = true
		default:
			return nil, p.fail(args[i:], a, "canid: invalid key")
		}
		i++
		if i >= len(args) {
			return nil, p.fail(nil, nil, "canid: missing argument")
		}
		s := args[i].cstring()
		id, n := scanHex(s)
		if n == 0 {
			return nil, p.fail(args[i:], args[i], "canid: Improperly formed CAN ID & mask\n")
		}
		mask := uint32(canSFFMask)
		if eff {
			mask = canEFFMask
		}
		if n < len(s) && s[n] == ':' {
			if m, k := scanHex(s[n+1:]); k > 0 {
				mask = m
			}
		}
		if rules == canidRulesMax {
			return nil, p.fail(args[i:], args[i], "canid: Too many arguments on input\n")
		}
		rules++
		if eff {
			id |= canEFFFlag
		}
		b = binary.NativeEndian.AppendUint32(b, id)
		b = binary.NativeEndian.AppendUint32(b, mask|canEFFFlag)
	}
	return b, true
}

// printEmCanid is em_canid.c's canid_print_eopt.
func printEmCanid(b *strings.Builder, d []byte) bool {
	n := len(d) / 8
	for i := 0; i < n; i++ {
		id, mask := binary.NativeEndian.Uint32(d[8*i:]), binary.NativeEndian.Uint32(d[8*i+4:])
		kind, idMask := "sff", uint32(canSFFMask)
		if id&canEFFFlag != 0 {
			kind, idMask = "eff", canEFFMask
		}
		if mask == canEFFFlag|idMask {
			fmt.Fprintf(b, "%s 0x%X", kind, id&idMask)
		} else {
			fmt.Fprintf(b, "%s 0x%X:0x%X", kind, id&idMask, mask&idMask)
		}
		if i+1 < n {
			b.WriteByte(' ')
		}
	}
	return true
}

// writeEmCanid writes canid's rules as parseEmCanid reads them, each
// with its mask (parseEmCanid adds the EFF flag to it, as to the id of an
// eff rule).
func writeEmCanid(b *strings.Builder, d []byte) bool {
	if len(d) == 0 || len(d)%8 != 0 || len(d)/8 > canidRulesMax {
		return false
	}
	for i := 0; i < len(d); i += 8 {
		id, mask := binary.NativeEndian.Uint32(d[i:]), binary.NativeEndian.Uint32(d[i+4:])
		kind := "sff"
		if id&canEFFFlag != 0 {
			kind = "eff"
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(b, "%s 0x%X:0x%X", kind, id&^canEFFFlag, mask&^canEFFFlag)
	}
	return true
}
