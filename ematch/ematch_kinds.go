// SPDX-License-Identifier: Apache-2.0

package ematch

// The cmp, u32, nbyte and canid extended matches (net/sched/em_*.c), as
// tc 7.3's em_*.c read and print them. Their data are C structs with bit
// fields (tcf_em_cmp, tcf_em_nbyte) or CAN's can_filter, which the YNL
// spec cannot describe; they are laid out here as x86-64 C lays them out.

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/tcfmt"
)

func init() {
	registerEmatch(&ematchKind{name: "cmp", num: 1, usage: cmpUsage, parse: parseEmCmp, print: printEmCmp, write: writeEmCmp})
	registerEmatch(&ematchKind{name: "u32", num: 3, usage: emU32Usage, parse: parseEmU32, print: printEmU32, write: writeEmU32})
}

var cmpUsage = fmt.Sprintf(`Usage: cmp(ALIGN at OFFSET [ ATTRS ] { eq | lt | gt } VALUE)
where: ALIGN  := { u8 | u16 | u32 }
       ATTRS  := [ layer LAYER ] [ mask MASK ] [ trans ]
       LAYER  := { link | network | transport | 0..%d }

Example: cmp(u16 at 3 layer 2 mask 0xff00 gt 20)
`, tcfLayerMax)

// emCmpLen is the size of struct tcf_em_cmp (tc_ematch/tc_em_cmp.h).
const emCmpLen = 12

// parseEmCmp is em_cmp.c's cmp_parse_eopt.
func parseEmCmp(p *emParser, args []*emArg) ([]byte, bool) {
	if len(args) == 0 {
		return nil, p.fail(nil, nil, "cmp: missing arguments")
	}
	align := emAlign(args[0])
	if align == 0 {
		return nil, p.fail(args, args[0], "cmp: invalid alignment")
	}
	var offset, value, mask uint64
	layer := uint8(1)
	var flags, opnd uint8
	var haveOffset, haveValue bool
	for i := 1; i < len(args); i++ {
		a := args[i]
		// Every keyword but trans takes the next argument.
		valueOf := func() (*emArg, bool) {
			if i+1 >= len(args) {
				return nil, p.fail(args, a, "cmp: missing argument")
			}
			i++
			return args[i], true
		}
		switch {
		case a.is("at"):
			v, ok := valueOf()
			if !ok {
				return nil, false
			}
			if offset = v.number(); offset == emNoNumber {
				return nil, p.fail(args, v, "cmp: invalid offset, must be numeric")
			}
			haveOffset = true
		case a.is("layer"):
			v, ok := valueOf()
			if !ok {
				return nil, false
			}
			if layer, ok = v.layer(p, "cmp", args); !ok {
				return nil, false
			}
		case a.is("mask"):
			v, ok := valueOf()
			if !ok {
				return nil, false
			}
			if mask = v.number(); mask == emNoNumber {
				return nil, p.fail(args, v, "cmp: invalid mask")
			}
		case a.is("trans"):
			flags |= 1 // TCF_EM_CMP_TRANS
		default:
			op, isOp := emOperand(a)
			if !isOp {
				// tc's message names the wrong kind.
				return nil, p.fail(args, a, "nbyte: unknown parameter")
			}
			opnd = op
			v, ok := valueOf()
			if !ok {
				return nil, false
			}
			if value = v.number(); value == emNoNumber {
				return nil, p.fail(args, v, "cmp: invalid value")
			}
			haveValue = true
		}
	}
	if !haveOffset || !haveValue {
		return nil, p.fail(args, nil, "cmp: offset and value required")
	}
	b := make([]byte, emCmpLen)
	binary.NativeEndian.PutUint32(b[0:], uint32(value))
	binary.NativeEndian.PutUint32(b[4:], uint32(mask))
	binary.NativeEndian.PutUint16(b[8:], uint16(offset))
	b[10] = align&0xf | flags<<4
	b[11] = layer&0xf | opnd<<4
	return b, true
}

// printEmCmp is em_cmp.c's cmp_print_eopt.
func printEmCmp(b *strings.Builder, d []byte) bool {
	if len(d) < emCmpLen {
		return false
	}
	val, mask := binary.NativeEndian.Uint32(d[0:]), binary.NativeEndian.Uint32(d[4:])
	off := binary.NativeEndian.Uint16(d[8:])
	align, flags, layer, opnd := d[10]&0xf, d[10]>>4, d[11]&0xf, d[11]>>4
	switch align {
	case 1:
		b.WriteString("u8 ")
	case 2:
		b.WriteString("u16 ")
	case 4:
		b.WriteString("u32 ")
	}
	fmt.Fprintf(b, "at %d layer %d ", off, layer)
	if mask != 0 {
		fmt.Fprintf(b, "mask 0x%x ", mask)
	}
	if flags&1 != 0 {
		b.WriteString("trans ")
	}
	switch opnd {
	case emOpndEq:
		b.WriteString("eq ")
	case emOpndLt:
		b.WriteString("lt ")
	case emOpndGt:
		b.WriteString("gt ")
	}
	fmt.Fprintf(b, "%d", int32(val))
	return true
}

// writeEmCmp writes cmp's data as parseEmCmp reads it: the mask only when
// set (0 is parseEmCmp's own), the value as the unsigned word it is.
func writeEmCmp(b *strings.Builder, d []byte) bool {
	if len(d) != emCmpLen {
		return false
	}
	val, mask := binary.NativeEndian.Uint32(d[0:]), binary.NativeEndian.Uint32(d[4:])
	off := binary.NativeEndian.Uint16(d[8:])
	align, flags, layer, opnd := d[10]&0xf, d[10]>>4, d[11]&0xf, d[11]>>4
	name, ok := emAlignNames[align]
	if !ok || flags&^1 != 0 || layer > tcfLayerMax || int(opnd) >= len(emOperandNames) {
		return false
	}
	fmt.Fprintf(b, "%s at %d layer %d", name, off, layer)
	if mask != 0 {
		fmt.Fprintf(b, " mask 0x%x", mask)
	}
	if flags&1 != 0 {
		b.WriteString(" trans")
	}
	fmt.Fprintf(b, " %s %d", emOperandNames[opnd], val)
	return true
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
