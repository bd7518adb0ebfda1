// SPDX-License-Identifier: Apache-2.0

package action

// Tunnel options: the Geneve, VXLAN and ERSPAN metadata that the
// tunnel_key action sets (TCA_TUNNEL_KEY_ENC_OPTS) and the flower filter
// matches (TCA_FLOWER_KEY_ENC_OPTS and its mask). Both nests number their
// members alike, and tc writes them in one syntax: CLASS:TYPE:DATA for a
// Geneve option (several joined by commas), GBP for VXLAN,
// VER:INDEX:DIR:HWID for ERSPAN. This file holds that syntax and the wire
// form. tunnel_key uses it; flower does not read its enc options yet, and
// would add its masks and its own way of splitting fields (optionFields).

import (
	"encoding/binary"
	"fmt"
	"reflect"
	"strings"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
)

// TCA_TUNNEL_KEY_ENC_OPTS_* and TCA_FLOWER_KEY_ENC_OPTS_*, and the members
// of each nest (linux/tc_act/tc_tunnel_key.h, linux/pkt_cls.h).
const (
	encOptsGeneve = 1
	encOptsVXLAN  = 2
	encOptsERSPAN = 3

	geneveClass = 1
	geneveType  = 2
	geneveData  = 3

	vxlanGBP = 1

	erspanVer   = 1
	erspanIndex = 2
	erspanDir   = 3
	erspanHWID  = 4
)

// tunnelOpts is the content of an ENC_OPTS nest: Geneve options, or one
// VXLAN or one ERSPAN option.
type tunnelOpts struct {
	geneve []geneveOpt
	vxlan  *uint32
	erspan *erspanOpt
}

// geneveOpt is one Geneve option. A field tc was not given is nil, and not
// sent.
type geneveOpt struct {
	class *uint16
	typ   *uint8
	data  []byte
}

// erspanOpt is ERSPAN's metadata; as with geneveOpt, absent fields are nil.
type erspanOpt struct {
	ver, dir, hwid *uint8
	index          *uint32
}

// strtokFields splits s as strtok does: empty fields are dropped.
func strtokFields(s, sep string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(sep, r) })
}

// optionFields splits one option's text into its fields, as tunnel_key
// (strtok) or flower (strsep: an empty field keeps its place, and is not
// sent) reads it.
type optionFields func(s string) []string

// tunnelKeyFields is tunnel_key's split of an option.
func tunnelKeyFields(s string) []string { return strtokFields(s, ":") }

// parseGeneveOpts reads comma-separated CLASS:TYPE:DATA options: CLASS
// 16 and TYPE 8 bits of hex, DATA hex bytes (hex2mem of half the
// length: an odd digit at the end is dropped). ok is false for a field
// that does not read or a fourth field.
func parseGeneveOpts(s string, fields optionFields) (opts []geneveOpt, ok bool) {
	for _, one := range strtokFields(s, ",") {
		var o geneveOpt
		parts := fields(one)
		if len(parts) > 3 {
			return nil, false
		}
		for i, f := range parts {
			if f == "" {
				continue
			}
			switch i {
			case 0:
				v, err := tcfmt.ParseUint(f, 16, 16)
				if err != nil {
					return nil, false
				}
				o.class = tcword.PtrTo(uint16(v))
			case 1:
				v, err := tcfmt.ParseUint(f, 16, 8)
				if err != nil {
					return nil, false
				}
				o.typ = tcword.PtrTo(uint8(v))
			case 2:
				b, good := tcword.HexBytes(f)
				if !good {
					return nil, false
				}
				o.data = b
			}
		}
		opts = append(opts, o)
	}
	return opts, true
}

// parseVXLANOpt reads GBP, a 32-bit number in any base.
func parseVXLANOpt(s string) (uint32, bool) {
	v, err := tcfmt.ParseUint(s, 0, 32)
	return uint32(v), err == nil
}

// parseERSPANOpt reads VER:INDEX:DIR:HWID, each a number in any base
// (INDEX 32 bits, the others 8).
func parseERSPANOpt(s string, fields optionFields) (*erspanOpt, bool) {
	o := &erspanOpt{}
	parts := fields(s)
	if len(parts) > 4 {
		return nil, false
	}
	for i, f := range parts {
		if f == "" {
			continue
		}
		bits := 8
		if i == 1 {
			bits = 32
		}
		v, err := tcfmt.ParseUint(f, 0, bits)
		if err != nil {
			return nil, false
		}
		switch i {
		case 0:
			o.ver = tcword.PtrTo(uint8(v))
		case 1:
			o.index = tcword.PtrTo(uint32(v))
		case 2:
			o.dir = tcword.PtrTo(uint8(v))
		case 3:
			o.hwid = tcword.PtrTo(uint8(v))
		}
	}
	return o, true
}

// encode is the content of the ENC_OPTS nest, nested as tc sends it: one
// Geneve nest per option without NLA_F_NESTED, VXLAN's and ERSPAN's with
// it (the kernel parses those two strictly).
func (t *tunnelOpts) encode() []byte {
	e := attrs.NewEncoder(nil)
	for _, g := range t.geneve {
		e.Nest(encOptsGeneve, false, func(e *attrs.Encoder) {
			if g.class != nil {
				e.BigUint16(geneveClass, *g.class)
			}
			if g.typ != nil {
				e.Uint8(geneveType, *g.typ)
			}
			if g.data != nil {
				e.Attr(geneveData, g.data)
			}
		})
	}
	if t.vxlan != nil {
		e.Nest(encOptsVXLAN, true, func(e *attrs.Encoder) { e.Uint32(vxlanGBP, *t.vxlan) })
	}
	if r := t.erspan; r != nil {
		e.Nest(encOptsERSPAN, true, func(e *attrs.Encoder) {
			if r.ver != nil {
				e.Uint8(erspanVer, *r.ver)
			}
			if r.index != nil {
				e.BigUint32(erspanIndex, *r.index)
			}
			if r.dir != nil {
				e.Uint8(erspanDir, *r.dir)
			}
			if r.hwid != nil {
				e.Uint8(erspanHWID, *r.hwid)
			}
		})
	}
	return e.Bytes()
}

// decodeTunnelOpts reads an ENC_OPTS nest as tc does: the first Geneve,
// VXLAN or ERSPAN nest, in that order of preference. The kernel dumps all
// Geneve options in one nest, each starting at its class.
func decodeTunnelOpts(b []byte) tunnelOpts {
	var t tunnelOpts
	var geneve, vxlan, erspan []byte
	_ = attrs.ForEach(b, func(typ uint16, data []byte) {
		switch {
		case typ == encOptsGeneve && geneve == nil:
			geneve = data
		case typ == encOptsVXLAN && vxlan == nil:
			vxlan = data
		case typ == encOptsERSPAN && erspan == nil:
			erspan = data
		}
	})
	switch {
	case geneve != nil:
		_ = attrs.ForEach(geneve, func(typ uint16, data []byte) {
			if typ == geneveClass || len(t.geneve) == 0 {
				t.geneve = append(t.geneve, geneveOpt{})
			}
			g := &t.geneve[len(t.geneve)-1]
			switch {
			case typ == geneveClass && len(data) >= 2:
				g.class = tcword.PtrTo(binary.BigEndian.Uint16(data))
			case typ == geneveType && len(data) >= 1:
				g.typ = tcword.PtrTo(data[0])
			case typ == geneveData:
				g.data = data
			}
		})
	case vxlan != nil:
		_ = attrs.ForEach(vxlan, func(typ uint16, data []byte) {
			if typ == vxlanGBP && len(data) >= 4 {
				t.vxlan = tcword.PtrTo(binary.NativeEndian.Uint32(data))
			}
		})
	case erspan != nil:
		r := &erspanOpt{}
		_ = attrs.ForEach(erspan, func(typ uint16, data []byte) {
			switch {
			case len(data) == 0:
			case typ == erspanVer:
				r.ver = tcword.PtrTo(data[0])
			case typ == erspanIndex && len(data) >= 4:
				r.index = tcword.PtrTo(binary.BigEndian.Uint32(data))
			case typ == erspanDir:
				r.dir = tcword.PtrTo(data[0])
			case typ == erspanHWID:
				r.hwid = tcword.PtrTo(data[0])
			}
		})
		t.erspan = r
	}
	return t
}

// optValue is *v, or 0 for a field the kernel did not send.
func optValue[T uint8 | uint16 | uint32](v *T) T {
	if v == nil {
		return 0
	}
	return *v
}

// printTunnelKeyOpts prints options as tunnel_key does, each kind on a
// line of its own: "geneve_opts CLASS:TYPE:DATA,...", "vxlan_opts GBP",
// "erspan_opts VER:INDEX:DIR:HWID" (INDEX only for version 1, DIR and
// HWID only for the others); in JSON an array named after the kind.
func printTunnelKeyOpts(p *tcfmt.Printer, t tunnelOpts) {
	switch {
	case t.geneve != nil:
		p.OpenArray(tcfmt.JSON, "geneve_opts")
		p.NL()
		p.String(tcfmt.FP, "", "\t%s ", "geneve_opts")
		for i, g := range t.geneve {
			p.OpenObject("")
			p.Uint(tcfmt.JSON, "class", "", uint64(optValue(g.class)))
			p.Uint(tcfmt.JSON, "type", "", uint64(optValue(g.typ)))
			p.OpenArray(tcfmt.JSON, "data")
			for _, c := range g.data {
				p.Uint(tcfmt.JSON, "", "", uint64(c))
			}
			p.CloseArray(tcfmt.JSON, "")
			p.CloseObject()
			s := fmt.Sprintf("%04x:%02x:%x", optValue(g.class), optValue(g.typ), g.data)
			if i < len(t.geneve)-1 {
				s += ","
			}
			p.String(tcfmt.FP, "", "%s", s)
		}
		p.CloseArray(tcfmt.JSON, "")
	case t.vxlan != nil:
		p.NL()
		p.String(tcfmt.FP, "", "\t%s ", "vxlan_opts")
		p.OpenArray(tcfmt.JSON, "vxlan_opts")
		p.OpenObject("")
		p.Uint(tcfmt.Any, "gbp", "%u", uint64(*t.vxlan))
		p.CloseObject()
		p.CloseArray(tcfmt.JSON, "")
	case t.erspan != nil:
		r := t.erspan
		ver := optValue(r.ver)
		var index uint32
		var dir, hwid uint8
		if ver == 1 {
			index = optValue(r.index)
		} else {
			dir, hwid = optValue(r.dir), optValue(r.hwid)
		}
		p.NL()
		p.String(tcfmt.FP, "", "\t%s ", "erspan_opts")
		p.OpenArray(tcfmt.JSON, "erspan_opts")
		p.OpenObject("")
		p.Uint(tcfmt.Any, "ver", "%u", uint64(ver))
		p.Uint(tcfmt.Any, "index", ":%u", uint64(index))
		p.Uint(tcfmt.Any, "dir", ":%u", uint64(dir))
		p.Uint(tcfmt.Any, "hwid", ":%u", uint64(hwid))
		p.CloseObject()
		p.CloseArray(tcfmt.JSON, "")
	}
}

// tunnelOptsCovers reports whether dumped options (have) are the ones a
// request sent (want): tc nests each Geneve option apart, the kernel all
// in one, and an ERSPAN option's fields its version does not use (INDEX
// beyond version 1, DIR and HWID in it) are the kernel's to drop.
func tunnelOptsCovers(want, have []byte) bool {
	w, h := decodeTunnelOpts(mergedGeneve(want)), decodeTunnelOpts(mergedGeneve(have))
	if w.erspan != nil && h.erspan != nil {
		if optValue(w.erspan.ver) == 1 {
			w.erspan.dir, w.erspan.hwid = h.erspan.dir, h.erspan.hwid
		} else {
			w.erspan.index = h.erspan.index
		}
	}
	return reflect.DeepEqual(w, h)
}

// mergedGeneve returns an ENC_OPTS nest with the contents of its Geneve
// nests in one, as the kernel dumps them.
func mergedGeneve(b []byte) []byte {
	var geneve []byte
	e := attrs.NewEncoder(nil)
	_ = attrs.ForEach(b, func(typ uint16, data []byte) {
		if typ == encOptsGeneve {
			geneve = append(geneve, data...)
		} else {
			e.Attr(typ, data)
		}
	})
	if geneve != nil {
		e.Attr(encOptsGeneve, geneve)
	}
	return e.Bytes()
}
