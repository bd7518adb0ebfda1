// SPDX-License-Identifier: Apache-2.0

package ematch

// The u32 extended match (net/sched/em_u32.c), as tc 7.3's em_u32.c reads
// and prints it: one struct tc_u32_key.

import (
	"fmt"
	"strings"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/tcfmt"
)

func init() {
	registerEmatch(&ematchKind{name: "u32", num: 3, usage: emU32Usage, parse: parseEmU32, print: printEmU32, write: writeEmU32})
}

const emU32Usage = `Usage: u32(ALIGN VALUE MASK at [ nexthdr+ ] OFFSET)
where: ALIGN  := { u8 | u16 | u32 }

Example: u32(u16 0x1122 0xffff at nexthdr+4)
`

// parseEmU32 is em_u32.c's u32_parse_eopt: one u32 key (struct tc_u32_key).
func parseEmU32(p *emParser, args []*emArg) ([]byte, bool) {
	if len(args) == 0 {
		return nil, p.fail(nil, nil, "u32: missing arguments")
	}
	align := emAlign(args[0])
	if align == 0 {
		return nil, p.fail(args, args[0], "u32: invalid alignment")
	}
	// at returns the argument after i, nil past the end.
	at := func(i int) *emArg {
		if i < len(args) {
			return args[i]
		}
		return nil
	}
	a := at(1)
	if a == nil {
		return nil, p.fail(args, nil, "u32: missing key")
	}
	key := a.number()
	if key == emNoNumber {
		return nil, p.fail(args, a, "u32: invalid key, must be numeric")
	}
	if a = at(2); a == nil {
		return nil, p.fail(args, nil, "u32: missing mask")
	}
	mask := a.number()
	if mask == emNoNumber {
		return nil, p.fail(args, a, "u32: invalid mask, must be numeric")
	}
	if a = at(3); a == nil || !a.is("at") {
		return nil, p.fail(args, a, `u32: missing "at"`)
	}
	i := 4
	if a = at(i); a == nil {
		return nil, p.fail(args, nil, "u32: missing offset")
	}
	var offset uint64
	var offmask int32
	const nh = "nexthdr+"
	switch b := a.bytes(); {
	case len(b) > len(nh) && string(b[:len(nh)]) == nh:
		offmask = -1
		offset, _, _ = tcfmt.Strtoul(string(b[len(nh):]), 0)
	case a.is(nh):
		// tc reads the offset from the next argument, but forgets the
		// next header there.
		i++
		if a = at(i); a == nil {
			return nil, p.fail(args, nil, "u32: missing offset")
		}
		offset = a.number()
	default:
		offset = a.number()
	}
	if offset == emNoNumber {
		return nil, p.fail(args, a, "u32: invalid offset")
	}
	if next := at(i + 1); next != nil {
		return nil, p.fail(args, next, "u32: unexpected trailer")
	}
	switch align {
	case 1:
		if key > 0xff {
			return nil, p.fail(args, a, "Illegal key (>0xFF)")
		}
		if mask > 0xff {
			return nil, p.fail(args, a, "Illegal mask (>0xFF)")
		}
		shift := 24 - (offset&3)*8
		key, mask = key<<shift, mask<<shift
		offset &^= 3
	case 2:
		if key > 0xffff {
			return nil, p.fail(args, a, "Illegal key (>0xFFFF)")
		}
		if mask > 0xffff {
			return nil, p.fail(args, a, "Illegal mask (>0xFFFF)")
		}
		if offset&3 == 0 {
			key, mask = key<<16, mask<<16
		}
		offset &^= 3
	}
	if offset%4 != 0 {
		return nil, p.fail(args, a, "u32: invalid offset alignment, must be aligned to 4.")
	}
	k := attrs.TCU32Key{Mask: uint32(mask), Val: uint32(key) & uint32(mask), Off: int32(offset), Offmask: offmask}
	return k.Append(nil), true
}

// printEmU32 is em_u32.c's u32_print_eopt.
func printEmU32(b *strings.Builder, d []byte) bool {
	var k attrs.TCU32Key
	if len(d) < attrs.TCU32KeyLen || k.Decode(d[:attrs.TCU32KeyLen]) != nil {
		return false
	}
	nh := ""
	if k.Offmask != 0 {
		nh = "nexthdr+"
	}
	fmt.Fprintf(b, "%08x/%08x at %s%d", k.Val, k.Mask, nh, k.Off)
	return true
}

// writeEmU32 writes u32's key as parseEmU32 reads it, as a 32-bit sample,
// which it takes as it is.
func writeEmU32(b *strings.Builder, d []byte) bool {
	var k attrs.TCU32Key
	if len(d) != attrs.TCU32KeyLen || k.Decode(d) != nil {
		return false
	}
	nh := ""
	switch k.Offmask {
	case 0:
	case -1:
		nh = "nexthdr+"
	default:
		return false
	}
	fmt.Fprintf(b, "u32 0x%x 0x%x at %s%d", k.Val, k.Mask, nh, k.Off)
	return true
}
