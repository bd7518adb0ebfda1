// SPDX-License-Identifier: Apache-2.0

package ematch

// The meta extended match (net/sched/em_meta.c): a comparison of two
// objects, each a value or a property of the packet or its socket with an
// optional shift and mask, as tc 7.3's em_meta.c reads and prints it. Its
// data are attributes: TCA_EM_META_HDR (struct tcf_meta_hdr: the kind of
// each object, a type in bits 12-15 over an id, its shift, and the
// operand), then the left and right values (a u32, or bytes for a quoted
// string); an id's value is its mask.

import (
	"encoding/binary"
	"fmt"
	"io"
	"strings"

	"github.com/gotc/gotc/attrs"
)

func init() {
	registerEmatch(&ematchKind{name: "meta", num: 4, usage: metaUsage, parse: parseEmMeta, print: printEmMeta, write: writeEmMeta})
}

const metaUsage = `Usage: meta(OBJECT { eq | lt | gt } OBJECT)
where: OBJECT  := { META_ID | VALUE }
       META_ID := id [ shift SHIFT ] [ mask MASK ]

Example: meta(nf_mark gt 24)
         meta(indev shift 1 eq "ppp")
         meta(tcindex mask 0xf0 eq 0xf0)

For a list of meta identifiers, use meta(list).
`

// Attributes of a meta match (tc_ematch/tc_em_meta.h).
const (
	emMetaHdr    = 1
	emMetaLvalue = 2
	emMetaRvalue = 3
)

// Types of meta objects (TCF_META_TYPE_*).
const (
	metaTypeVar = 0
	metaTypeInt = 1
)

// metaEntry is one line of tc's table of meta ids; an entry without id
// heads a section of meta(list).
type metaEntry struct {
	id    uint16
	name  string
	types string // 'i' int, 'v' var; the first is the id's own
	desc  string
}

// metaTable is tc 7.3's table, in its order: the first entry of an id
// names it in dumps (fwmark is nf_mark).
var metaTable = []metaEntry{
	{0, "Generic", "", ""},
	{1, "random", "i", "Random value (32 bit)"},
	{2, "loadavg_1", "i", "Load average in last minute"},
	{3, "loadavg_5", "i", "Load average in last 5 minutes"},
	{4, "loadavg_15", "i", "Load average in last 15 minutes"},
	{0, "Interfaces", "", ""},
	{5, "dev", "iv", "Device the packet is on"},
	{0, "Packet attributes", "", ""},
	{6, "priority", "i", "Priority of packet"},
	{7, "protocol", "i", "Link layer protocol"},
	{8, "pkt_type", "i", "Packet type (uni|multi|broad|...)cast"},
	{9, "pkt_len", "i", "Length of packet"},
	{10, "data_len", "i", "Length of data in packet"},
	{11, "mac_len", "i", "Length of link layer header"},
	{0, "Netfilter", "", ""},
	{12, "nf_mark", "i", "Netfilter mark"},
	{12, "fwmark", "i", "Alias for nf_mark"},
	{0, "Traffic Control", "", ""},
	{13, "tc_index", "i", "TC Index"},
	{0, "Routing", "", ""},
	{14, "rt_classid", "i", "Routing ClassID (cls_route)"},
	{15, "rt_iif", "i", "Incoming interface index"},
	{46, "vlan", "i", "Vlan tag"},
	{0, "Sockets", "", ""},
	{16, "sk_family", "i", "Address family"},
	{17, "sk_state", "i", "State"},
	{18, "sk_reuse", "i", "Reuse Flag"},
	{19, "sk_bind_if", "iv", "Bound interface"},
	{20, "sk_refcnt", "i", "Reference counter"},
	{21, "sk_shutdown", "i", "Shutdown mask"},
	{22, "sk_proto", "i", "Protocol"},
	{23, "sk_type", "i", "Type"},
	{24, "sk_rcvbuf", "i", "Receive buffer size"},
	{25, "sk_rmem", "i", "RMEM"},
	{26, "sk_wmem", "i", "WMEM"},
	{27, "sk_omem", "i", "OMEM"},
	{28, "sk_wmem_queue", "i", "WMEM queue"},
	{30, "sk_snd_queue", "i", "Send queue length"},
	{29, "sk_rcv_queue", "i", "Receive queue length"},
	{31, "sk_err_queue", "i", "Error queue length"},
	{32, "sk_fwd_alloc", "i", "Forward allocations"},
	{33, "sk_sndbuf", "i", "Send buffer size"},
}

func metaByName(name []byte) *metaEntry {
	for i := range metaTable {
		if e := &metaTable[i]; e.id != 0 && e.name == string(name) {
			return e
		}
	}
	return nil
}

func metaByID(id uint16) *metaEntry {
	for i := range metaTable {
		if e := &metaTable[i]; e.id == id {
			return e
		}
	}
	return nil
}

// metaObject is one side of the comparison: kind is TCF_META_TYPE << 12 |
// TCF_META_ID; value is a number, its mask, or the quoted string str.
type metaObject struct {
	kind  uint16
	shift uint8
	value uint64
	str   *emArg
}

func (o *metaObject) typ() uint16 { return o.kind >> 12 & 0xf }
func (o *metaObject) id() uint16  { return o.kind & 0x7ff }

// metaObjectAt is em_meta.c's parse_object: the object that starts at
// args[i], adopting a type the other side needs when left is given; it
// returns the index after the object, or -1 after a refusal.
func metaObjectAt(p *emParser, args []*emArg, i int, o *metaObject, left *metaObject) int {
	a := args[i]
	if a.quoted {
		o.kind, o.str = metaTypeVar<<12, a
		return i + 1
	}
	if v := a.number(); v != emNoNumber {
		o.kind, o.value = metaTypeInt<<12, v
		return i + 1
	}
	e := metaByName(a.bytes())
	if e == nil {
		p.fail(args, a, "meta: unknown meta id\n")
		return -1
	}
	o.kind = e.id | metaTypeInt<<12 // every id's first type is int
	// The sides' types differ only for a quoted string on the left (every
	// id starts as an int, and so does a number): the id on the right
	// takes the string's type. tc checks that the id comes in that type,
	// but reads past the end of its list of types until its memory holds
	// a letter of one, and so takes it (after printing garbage) whatever
	// the id; the kernel refuses an id of the wrong type.
	if left != nil && o.typ() != left.typ() {
		o.kind = left.typ()<<12 | o.id()
	}
	for i++; i < len(args); i++ {
		a := args[i]
		if !a.is("shift") && !a.is("mask") {
			break
		}
		if i+1 >= len(args) {
			p.fail(args, a, "meta: missing argument")
			return -1
		}
		i++
		v := args[i].number()
		switch {
		case a.is("shift") && v == emNoNumber:
			p.fail(args, args[i], "meta: invalid shift, must be numeric")
			return -1
		case a.is("shift"):
			o.shift = uint8(v)
		case v == emNoNumber:
			p.fail(args, args[i], "meta: invalid mask, must be numeric")
			return -1
		default:
			o.value = v
		}
	}
	return i
}

// parseEmMeta is em_meta.c's meta_parse_eopt.
func parseEmMeta(p *emParser, args []*emArg) ([]byte, bool) {
	if len(args) == 0 {
		return nil, p.fail(nil, nil, "meta: missing arguments")
	}
	if args[0].is("list") {
		listMetaIDs(p.lx.stderr)
		return nil, false
	}
	var left, right metaObject
	i := metaObjectAt(p, args, 0, &left, nil)
	switch {
	case i < 0:
		return nil, false
	case i >= len(args):
		return nil, p.fail(args, args[0], "meta: missing operand")
	}
	op, ok := emOperand(args[i])
	if !ok {
		return nil, p.fail(args, args[i], "meta: invalid operand")
	}
	if i+1 >= len(args) {
		return nil, p.fail(args, args[0], "meta: missing rvalue")
	}
	j := metaObjectAt(p, args, i+1, &right, &left)
	switch {
	case j < 0:
		return nil, false
	case j < len(args):
		return nil, p.fail(args, args[j], "meta: unexpected trailer")
	}
	var e attrs.Encoder
	hdr := binary.NativeEndian.AppendUint16(nil, left.kind)
	hdr = append(hdr, left.shift, op)
	hdr = binary.NativeEndian.AppendUint16(hdr, right.kind)
	hdr = append(hdr, right.shift, 0)
	e.Attr(emMetaHdr, hdr)
	for _, v := range []struct {
		typ uint16
		o   *metaObject
	}{{emMetaLvalue, &left}, {emMetaRvalue, &right}} {
		switch {
		case v.o.typ() == metaTypeInt:
			e.Uint32(v.typ, uint32(v.o.value))
		case v.o.id() == 0 && v.o.str != nil:
			e.Attr(v.typ, v.o.str.bytes())
		}
	}
	return e.Bytes(), true
}

// listMetaIDs is meta(list): tc's table of ids, on standard error.
func listMetaIDs(w io.Writer) {
	const rule = "--------------------------------------------------------"
	var b strings.Builder
	b.WriteString(rule + "\n  ID               Type       Description\n" + rule)
	for _, e := range metaTable {
		if e.id == 0 {
			fmt.Fprintf(&b, "\n%s:\n", e.name)
			continue
		}
		var types []string
		for _, t := range e.types {
			if t == 'i' {
				types = append(types, "INT")
			} else {
				types = append(types, "VAR")
			}
		}
		fmt.Fprintf(&b, "  %-16s %-10s %s\n", e.name, strings.Join(types, ","), e.desc)
	}
	b.WriteString(rule + "\n")
	io.WriteString(w, b.String())
}

// printEmMeta is em_meta.c's meta_print_eopt.
func printEmMeta(b *strings.Builder, d []byte) bool {
	var hdr, lvalue, rvalue []byte
	if attrs.ForEach(d, func(typ uint16, data []byte) {
		switch typ {
		case emMetaHdr:
			hdr = data
		case emMetaLvalue:
			lvalue = data
		case emMetaRvalue:
			rvalue = data
		}
	}) != nil || len(hdr) < 8 {
		return false
	}
	obj := func(h []byte) (kind uint16, shift uint8) { return binary.NativeEndian.Uint16(h), h[2] }
	lk, ls := obj(hdr)
	if !printMetaObject(b, lk, ls, lvalue) {
		return false
	}
	switch hdr[3] {
	case emOpndEq:
		b.WriteString(" eq ")
	case emOpndLt:
		b.WriteString(" lt ")
	case emOpndGt:
		b.WriteString(" gt ")
	}
	rk, rs := obj(hdr[4:])
	return printMetaObject(b, rk, rs, rvalue)
}

// printMetaObject is em_meta.c's print_object; v is nil when the dump
// has no value for the object.
func printMetaObject(b *strings.Builder, kind uint16, shift uint8, v []byte) bool {
	id, typ := kind&0x7ff, kind>>12&0xf
	if id == 0 {
		switch {
		case v == nil:
			return false
		case typ == metaTypeInt:
			if len(v) < 4 {
				return false
			}
			fmt.Fprintf(b, "%d", int32(binary.NativeEndian.Uint32(v)))
		case typ == metaTypeVar:
			printMetaBinary(b, v)
		}
		return true
	}
	if e := metaByID(id); e != nil {
		b.WriteString(e.name)
	} else {
		fmt.Fprintf(b, "[unknown meta id %d]", id)
	}
	if shift != 0 {
		fmt.Fprintf(b, " shift %d", shift)
	}
	if typ == metaTypeInt && v != nil {
		if len(v) < 4 {
			return false
		}
		if m := binary.NativeEndian.Uint32(v); m != 0 {
			fmt.Fprintf(b, " mask 0x%08x", m)
		}
	}
	return true
}

// printMetaBinary prints a string value as itself when it is all
// printable, else as hex bytes and then its printable characters.
func printMetaBinary(b *strings.Builder, s []byte) {
	printable := true
	for _, c := range s {
		if c < 0x20 || c >= 0x7f {
			printable = false
		}
	}
	if printable {
		b.Write(s)
		return
	}
	for _, c := range s {
		fmt.Fprintf(b, "%02x ", c)
	}
	b.WriteByte('"')
	for _, c := range s {
		if c >= 0x20 && c < 0x7f {
			b.WriteByte(c)
		} else {
			b.WriteByte('.')
		}
	}
	b.WriteByte('"')
}

// writeEmMeta writes meta's comparison as parseEmMeta reads it.
func writeEmMeta(b *strings.Builder, d []byte) bool {
	var hdr, lvalue, rvalue []byte
	if attrs.ForEach(d, func(typ uint16, data []byte) {
		switch typ {
		case emMetaHdr:
			hdr = data
		case emMetaLvalue:
			lvalue = data
		case emMetaRvalue:
			rvalue = data
		}
	}) != nil || len(hdr) < 8 || int(hdr[3]) >= len(emOperandNames) {
		return false
	}
	if !writeMetaObject(b, binary.NativeEndian.Uint16(hdr), hdr[2], lvalue) {
		return false
	}
	b.WriteString(" " + emOperandNames[hdr[3]] + " ")
	return writeMetaObject(b, binary.NativeEndian.Uint16(hdr[4:]), hdr[6], rvalue)
}

// writeMetaObject writes one object: a value (a number, or a quoted
// string, which is how the parser tells a string), or an id by its first
// name with its shift and mask.
func writeMetaObject(b *strings.Builder, kind uint16, shift uint8, v []byte) bool {
	id, typ := kind&0x7ff, kind>>12&0xf
	if id == 0 {
		switch {
		case shift != 0:
			return false
		case typ == metaTypeInt && len(v) == 4:
			fmt.Fprintf(b, "%d", binary.NativeEndian.Uint32(v))
		case typ == metaTypeVar && len(v) > 0:
			writeEmString(b, v, false)
		default:
			return false
		}
		return true
	}
	e := metaByID(id)
	if e == nil {
		return false
	}
	b.WriteString(e.name)
	if shift != 0 {
		fmt.Fprintf(b, " shift %d", shift)
	}
	if typ == metaTypeInt && len(v) == 4 {
		if m := binary.NativeEndian.Uint32(v); m != 0 {
			fmt.Fprintf(b, " mask 0x%x", m)
		}
	}
	return true
}
