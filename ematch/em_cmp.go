// SPDX-License-Identifier: Apache-2.0

package ematch

// The cmp extended match (net/sched/em_cmp.c), as tc 7.3's em_cmp.c reads
// and prints it. Its data, struct tcf_em_cmp, has bit fields the YNL spec
// cannot describe: it is laid out here as x86-64 C lays it out.

import (
	"encoding/binary"
	"fmt"
	"strings"
)

func init() {
	registerEmatch(&ematchKind{name: "cmp", num: 1, usage: cmpUsage, parse: parseEmCmp, print: printEmCmp, write: writeEmCmp})
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
