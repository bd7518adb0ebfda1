// SPDX-License-Identifier: Apache-2.0

package ematch

// The nbyte extended match (net/sched/em_nbyte.c), as tc 7.3's em_nbyte.c
// reads and prints it. Its data, struct tcf_em_nbyte, has bit fields the
// YNL spec cannot describe: it is laid out here as x86-64 C lays it out.

import (
	"encoding/binary"
	"fmt"
	"strings"
)

func init() {
	registerEmatch(&ematchKind{name: "nbyte", num: 2, usage: nbyteUsage, parse: parseEmNbyte, print: printEmNbyte, write: writeEmNbyte})
}

var nbyteUsage = fmt.Sprintf(`Usage: nbyte(NEEDLE at OFFSET [layer LAYER])
where: NEEDLE := { string | "c-escape-sequence" }
       OFFSET := int
       LAYER  := { link | network | transport | 0..%d }

Example: nbyte("ababa" at 12 layer 1)
`, tcfLayerMax)

// parseEmNbyte is em_nbyte.c's nbyte_parse_eopt: struct tcf_em_nbyte (off,
// then len in 12 bits and layer in 4) and the needle, padded as tc pads it.
func parseEmNbyte(p *emParser, args []*emArg) ([]byte, bool) {
	if len(args) == 0 {
		return nil, p.fail(nil, nil, "nbyte: missing arguments")
	}
	needle := args[0].bytes()
	if len(needle) == 0 {
		return nil, p.fail(args, args[0], "nbyte: needle length is 0")
	}
	var offset uint64
	layer := uint8(1)
	haveOffset := false
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a.is("at"), a.is("layer"):
			if i+1 >= len(args) {
				return nil, p.fail(args, a, "nbyte: missing argument")
			}
			i++
			v := args[i]
			if a.is("at") {
				if offset = v.number(); offset == emNoNumber {
					return nil, p.fail(args, v, "nbyte: invalid offset, must be numeric")
				}
				haveOffset = true
			} else {
				var ok bool
				if layer, ok = v.layer(p, "nbyte", args); !ok {
					return nil, false
				}
			}
		default:
			return nil, p.fail(args, a, "nbyte: unknown parameter")
		}
	}
	if !haveOffset {
		return nil, p.fail(args, nil, "nbyte: offset required")
	}
	b := binary.NativeEndian.AppendUint16(nil, uint16(offset))
	b = binary.NativeEndian.AppendUint16(b, uint16(len(needle))&0xfff|uint16(layer)<<12)
	b = append(b, needle...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b, true
}

// printEmNbyte is em_nbyte.c's nbyte_print_eopt.
func printEmNbyte(b *strings.Builder, d []byte) bool {
	if len(d) < 4 {
		return false
	}
	off := binary.NativeEndian.Uint16(d)
	lenLayer := binary.NativeEndian.Uint16(d[2:])
	n, layer := int(lenLayer&0xfff), lenLayer>>12
	if len(d) < 4+n {
		return false
	}
	needle := d[4 : 4+n]
	for _, c := range needle {
		fmt.Fprintf(b, "%02x ", c)
	}
	b.WriteByte('"')
	for _, c := range needle {
		if c >= 0x20 && c < 0x7f {
			b.WriteByte(c)
		} else {
			b.WriteByte('.')
		}
	}
	fmt.Fprintf(b, "\" at %d layer %d", off, layer)
	return true
}

// writeEmNbyte writes nbyte's needle, offset and layer as
// parseEmNbyte reads them.
func writeEmNbyte(b *strings.Builder, d []byte) bool {
	if len(d) < 4 {
		return false
	}
	off := binary.NativeEndian.Uint16(d)
	lenLayer := binary.NativeEndian.Uint16(d[2:])
	n, layer := int(lenLayer&0xfff), lenLayer>>12
	if n == 0 || len(d) < 4+n || layer > tcfLayerMax {
		return false
	}
	writeEmString(b, d[4:4+n], true)
	fmt.Fprintf(b, " at %d layer %d", off, layer)
	return true
}
