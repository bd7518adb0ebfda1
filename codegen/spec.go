// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Spec is a YNL netlink-raw spec: every key of the schema
// (Documentation/netlink/netlink-raw.yaml) that the kernel's tc.yaml uses, plus
// gotc's extensions (go-initialisms, encode-order and nest-flag on sets,
// tc-name on enum entries, statistics).
type Spec struct {
	Name       string `yaml:"name"`
	Protocol   string `yaml:"protocol"`
	Protonum   int    `yaml:"protonum"`
	UAPIHeader string `yaml:"uapi-header"`
	Doc        string `yaml:"doc"`
	// GoInitialisms maps a name part to the way Go names write it ("fq": "FQ",
	// "dualpi2": "DualPI2"); parts it does not list are capitalised. A gotc
	// extension of the schema, so that naming a new kind touches only the spec.
	GoInitialisms map[string]string `yaml:"go-initialisms"`
	Definitions   []Definition      `yaml:"definitions"`
	AttributeSets []AttributeSet    `yaml:"attribute-sets"`
	SubMessages   []SubMessage      `yaml:"sub-messages"`
	// Operations and mcast-groups describe requests and multicast groups;
	// gotc builds its requests itself, so they are read and not generated.
	Operations  yaml.Node `yaml:"operations"`
	MCastGroups yaml.Node `yaml:"mcast-groups"`
	// Statistics describe the kinds' statistics for consumers that show
	// them (JSON keys, metrics, units); a gotc extension of the schema.
	Statistics     []Statistics `yaml:"statistics"`
	definitionByID map[string]*Definition
	setByName      map[string]*AttributeSet
	subMsgByName   map[string]*SubMessage
}

// Definition is a const, enum, flags or struct of the definitions section.
type Definition struct {
	Name string `yaml:"name"`
	Type string `yaml:"type"`
	Doc  string `yaml:"doc"`
	// Header and Scope say where C declares the definition; Go has no headers.
	Header     string `yaml:"header"`
	Scope      string `yaml:"scope"`
	NamePrefix string `yaml:"name-prefix"`
	// EnumName is the C enum's tag; Go names the type after Name.
	EnumName   yaml.Node   `yaml:"enum-name"`
	RenderMax  bool        `yaml:"render-max"`
	Value      *int64      `yaml:"value"`
	ValueStart *int64      `yaml:"value-start"`
	Members    []Member    `yaml:"members"`
	Entries    []EnumEntry `yaml:"entries"`
	// goUnderlying is the integer type of the attributes that use an enum.
	goUnderlying string
}

// Member is one field of a struct definition: a scalar, padding, or binary,
// which is either a nested struct (Struct) or an array of Len bytes. A
// scalar with a Len (a gotc extension) is an array of Len such integers, as
// C's __u16 count[16].
//
// The last member may be a C flexible array (gotc's key flexible-array): a
// binary of Struct or SubType elements that fills the rest of the payload,
// or holds as many elements as the integer member named by Count says.
type Member struct {
	Name          string `yaml:"name"`
	Type          string `yaml:"type"`
	Len           int    `yaml:"len"`
	Struct        string `yaml:"struct"`
	SubType       string `yaml:"sub-type"`
	FlexibleArray bool   `yaml:"flexible-array"`
	Count         string `yaml:"count"`
	ByteOrder     string `yaml:"byte-order"`
	Enum          string `yaml:"enum"`
	EnumAsFlags   bool   `yaml:"enum-as-flags"`
	DisplayHint   string `yaml:"display-hint"`
	Doc           string `yaml:"doc"`
}

// EnumEntry is one value of an enum; a bare name in YAML takes the next value.
// For flags, the value is the bit's position.
type EnumEntry struct {
	Name  string `yaml:"name"`
	Value *int64 `yaml:"value"`
	Doc   string `yaml:"doc"`
	// TCName is the word tc prints (and reads) for the value, CAKE's
	// "flowblind" for flow mode none: a gotc extension of the schema,
	// generated as the enum's TCName method and its ByTCName function.
	TCName string `yaml:"tc-name"`
}

// UnmarshalYAML accepts an entry given either as a bare name or as a mapping.
func (e *EnumEntry) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		e.Name = n.Value
		return nil
	}
	type plain EnumEntry
	return n.Decode((*plain)(e))
}

// AttributeSet is a numbered set of attributes.
type AttributeSet struct {
	Name       string      `yaml:"name"`
	NamePrefix string      `yaml:"name-prefix"`
	Doc        string      `yaml:"doc"`
	Attributes []Attribute `yaml:"attributes"`
	// Header, EnumName, AttrCntName and AttrMaxName name C declarations.
	Header      string    `yaml:"header"`
	EnumName    yaml.Node `yaml:"enum-name"`
	AttrCntName string    `yaml:"attr-cnt-name"`
	AttrMaxName string    `yaml:"attr-max-name"`
	// EncodeOrder names the attributes in the order Encode writes them (tc's
	// order, which requests must keep to be byte-identical to tc's); the
	// attributes it does not name follow in the set's order. A gotc
	// extension of the schema.
	EncodeOrder []string `yaml:"encode-order"`
	// NestFlag sets NLA_F_NESTED on the attribute that carries the set as a
	// nest, as tc does for the kinds whose kernel parser is strict. A gotc
	// extension of the schema; without it the flag is clear, as tc and the
	// kernel's dumps leave it for most sets.
	NestFlag bool `yaml:"nest-flag"`
}

// Attribute is one attribute of a set; Value is assigned in order when absent.
type Attribute struct {
	Name             string  `yaml:"name"`
	Type             string  `yaml:"type"`
	Value            *int64  `yaml:"value"`
	Doc              string  `yaml:"doc"`
	Enum             string  `yaml:"enum"`
	EnumAsFlags      bool    `yaml:"enum-as-flags"`
	Struct           string  `yaml:"struct"`
	NestedAttributes string  `yaml:"nested-attributes"`
	SubType          string  `yaml:"sub-type"`
	SubMessage       string  `yaml:"sub-message"`
	Selector         string  `yaml:"selector"`
	ByteOrder        string  `yaml:"byte-order"`
	MultiAttr        bool    `yaml:"multi-attr"`
	Checks           *Checks `yaml:"checks"`
	DisplayHint      string  `yaml:"display-hint"`
	number           int64
}

// Checks are the kernel's input validation of an attribute (its nla_policy).
// Bounds are integers, names of const definitions, or limits of a fixed-width
// type such as u32-max.
type Checks struct {
	Min      *Bound `yaml:"min"`
	Max      *Bound `yaml:"max"`
	MinLen   *Bound `yaml:"min-len"`
	MaxLen   *Bound `yaml:"max-len"`
	ExactLen *Bound `yaml:"exact-len"`
	// FlagsMask names a flags definition: no bit outside it may be set.
	FlagsMask string `yaml:"flags-mask"`
	// UnterminatedOk lets the kernel take a string without its NUL; Encode
	// always terminates strings, so it changes nothing here.
	UnterminatedOk bool `yaml:"unterminated-ok"`
}

// Bound is a check's limit as the spec writes it; resolve gives its value.
type Bound struct {
	text  string
	value int64
	// goExpr is how generated code writes the bound.
	goExpr string
}

// UnmarshalYAML keeps the bound's text; parseSpec resolves it.
func (b *Bound) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: a bound is an integer or a name", n.Line)
	}
	b.text = n.Value
	return nil
}

// SubMessage is a payload whose layout a selector attribute chooses.
type SubMessage struct {
	Name    string   `yaml:"name"`
	Formats []Format `yaml:"formats"`
}

// Format is one choice of a sub-message: an attribute set, a fixed struct,
// both (the struct followed by the attributes), or neither (no content).
type Format struct {
	Value        string `yaml:"value"`
	AttributeSet string `yaml:"attribute-set"`
	FixedHeader  string `yaml:"fixed-header"`
}

var scalarTypes = map[string]struct {
	goType string
	size   int
}{
	"u8": {"uint8", 1}, "u16": {"uint16", 2}, "u32": {"uint32", 4}, "u64": {"uint64", 8},
	"s8": {"int8", 1}, "s16": {"int16", 2}, "s32": {"int32", 4}, "s64": {"int64", 8},
}

// displayHints are the schema's display-hint values; they choose how a value
// is printed and do not change the wire.
var displayHints = map[string]bool{"hex": true, "mac": true, "fddi": true, "ipv4": true, "ipv6": true, "ipv4-or-v6": true, "uuid": true}

// parseSpec reads a spec and checks every reference in it, so that the generator
// can assume a consistent model.
func parseSpec(raw []byte) (*Spec, error) {
	var s Spec
	dec := yaml.NewDecoder(strings.NewReader(string(raw)))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		return nil, err
	}
	if s.Protocol != "netlink-raw" {
		return nil, fmt.Errorf("protocol %q: only netlink-raw is supported", s.Protocol)
	}
	s.definitionByID = map[string]*Definition{}
	for i := range s.Definitions {
		d := &s.Definitions[i]
		if _, dup := s.definitionByID[d.Name]; dup {
			return nil, fmt.Errorf("definition %s defined twice", d.Name)
		}
		s.definitionByID[d.Name] = d
		switch d.Type {
		case "const":
			if d.Value == nil {
				return nil, fmt.Errorf("const %s: no value", d.Name)
			}
		case "enum", "flags":
			if err := checkTCNames(d); err != nil {
				return nil, err
			}
			next := int64(0)
			if d.ValueStart != nil {
				next = *d.ValueStart
			}
			for j := range d.Entries {
				if d.Entries[j].Value == nil {
					v := next
					d.Entries[j].Value = &v
				}
				next = *d.Entries[j].Value + 1
				if d.Type == "flags" && (*d.Entries[j].Value < 0 || *d.Entries[j].Value > 63) {
					return nil, fmt.Errorf("flags %s entry %s: bit %d out of range", d.Name, d.Entries[j].Name, *d.Entries[j].Value)
				}
			}
		case "struct":
			for i, m := range d.Members {
				where := fmt.Sprintf("struct %s member %s", d.Name, m.Name)
				if err := checkFlexibleArray(where, d.Members[:i], m, i == len(d.Members)-1); err != nil {
					return nil, err
				}
				switch {
				case m.FlexibleArray:
				case m.Type == "pad" || m.Type == "binary" && m.Struct == "" && m.Len > 0:
				case m.Type == "binary" && m.Struct != "" && m.Len == 0:
				case m.Type != "binary" && m.Struct == "" && scalarTypes[m.Type].size > 0 && m.Len >= 0:
				default:
					return nil, fmt.Errorf("%s: type %q not supported (binary needs a struct or a len)", where, m.Type)
				}
				if err := checkByteOrder(where, m.ByteOrder, m.Type); err != nil {
					return nil, err
				}
				if m.DisplayHint != "" && !displayHints[m.DisplayHint] {
					return nil, fmt.Errorf("%s: unknown display-hint %q", where, m.DisplayHint)
				}
			}
		default:
			return nil, fmt.Errorf("definition %s: type %q not supported", d.Name, d.Type)
		}
	}
	s.setByName = map[string]*AttributeSet{}
	for i := range s.AttributeSets {
		set := &s.AttributeSets[i]
		if s.setByName[set.Name] != nil {
			return nil, fmt.Errorf("set %s defined twice", set.Name)
		}
		s.setByName[set.Name] = set
		// As in YNL, attributes are numbered from 1 (0 is the unused
		// *_UNSPEC), each one after the one before unless it says.
		next := int64(1)
		seen := map[int64]string{}
		for j := range set.Attributes {
			a := &set.Attributes[j]
			if a.Value != nil {
				next = *a.Value
			}
			a.number = next
			next++
			if prev, dup := seen[a.number]; dup {
				return nil, fmt.Errorf("set %s: %s and %s share number %d", set.Name, prev, a.Name, a.number)
			}
			seen[a.number] = a.Name
		}
		for _, name := range set.EncodeOrder {
			if set.attr(name) == nil {
				return nil, fmt.Errorf("set %s: encode-order names %s, which the set lacks", set.Name, name)
			}
		}
	}
	s.subMsgByName = map[string]*SubMessage{}
	for i := range s.SubMessages {
		s.subMsgByName[s.SubMessages[i].Name] = &s.SubMessages[i]
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	return &s, s.checkStatistics()
}

// checkTCNames refuses tc's names on the bits of flags, which tc prints
// otherwise, and a name given to two values.
func checkTCNames(d *Definition) error {
	named := map[string]bool{}
	for _, e := range d.Entries {
		switch {
		case e.TCName == "":
		case d.Type == "flags":
			return fmt.Errorf("flags %s entry %s: tc-name is for an enum's values", d.Name, e.Name)
		case named[e.TCName]:
			return fmt.Errorf("enum %s: tc-name %s given twice", d.Name, e.TCName)
		}
		named[e.TCName] = true
	}
	return nil
}

// checkByteOrder refuses a byte order that is not the schema's or is given to
// something other than a multi-byte integer.
func checkByteOrder(where, order, typ string) error {
	switch order {
	case "":
		return nil
	case "little-endian", "big-endian":
		if scalarTypes[typ].size < 2 {
			return fmt.Errorf("%s: byte-order on type %q, which has none", where, typ)
		}
		return nil
	}
	return fmt.Errorf("%s: byte-order %q is neither little-endian nor big-endian", where, order)
}

// attr returns the set's attribute of that name, or nil.
func (set *AttributeSet) attr(name string) *Attribute {
	for i := range set.Attributes {
		if set.Attributes[i].Name == name {
			return &set.Attributes[i]
		}
	}
	return nil
}

// encodeOrder lists the set's attributes in the order Encode writes them.
func (set *AttributeSet) encodeOrder() []*Attribute {
	var out []*Attribute
	listed := map[string]bool{}
	for _, name := range set.EncodeOrder {
		if !listed[name] {
			listed[name] = true
			out = append(out, set.attr(name))
		}
	}
	for i := range set.Attributes {
		if !listed[set.Attributes[i].Name] {
			out = append(out, &set.Attributes[i])
		}
	}
	return out
}

// checkFlexibleArray refuses a flexible array that is not the struct's last
// member, has no element type, or counts itself by something other than an
// earlier integer member; and count without flexible-array.
func checkFlexibleArray(where string, earlier []Member, m Member, last bool) error {
	if !m.FlexibleArray {
		if m.Count != "" || m.SubType != "" {
			return fmt.Errorf("%s: count and sub-type need flexible-array", where)
		}
		return nil
	}
	switch {
	case !last:
		return fmt.Errorf("%s: a flexible array must be the last member", where)
	case m.Type != "binary" || m.Len != 0:
		return fmt.Errorf("%s: a flexible array is a binary without len", where)
	case (m.Struct == "") == (m.SubType == ""):
		return fmt.Errorf("%s: a flexible array needs a struct or an integer sub-type, not both", where)
	case m.SubType != "" && scalarTypes[m.SubType].size == 0:
		return fmt.Errorf("%s: sub-type %q is not an integer", where, m.SubType)
	}
	if m.Count == "" {
		return nil
	}
	for _, e := range earlier {
		if e.Name == m.Count && e.Type != "pad" && e.Type != "binary" && scalarTypes[e.Type].size > 0 {
			return nil
		}
	}
	return fmt.Errorf("%s: count %q is not an earlier integer member", where, m.Count)
}

// structSize is the size of a struct definition on the wire, without its
// flexible array.
func (s *Spec) structSize(d *Definition) int {
	size := 0
	for _, m := range d.Members {
		switch {
		case m.FlexibleArray:
		case m.Struct != "":
			size += s.structSize(s.structDef(m.Struct))
		case m.Type == "pad" || m.Type == "binary":
			size += m.Len
		default:
			size += scalarTypes[m.Type].size * max(m.Len, 1)
		}
	}
	return size
}

func (s *Spec) check() error {
	for _, d := range s.Definitions {
		for _, m := range d.Members {
			if m.Struct != "" && s.structDef(m.Struct) == nil {
				return fmt.Errorf("struct %s member %s: unknown struct %q", d.Name, m.Name, m.Struct)
			}
			if m.Enum != "" && s.enumDef(m.Enum) == nil {
				return fmt.Errorf("struct %s member %s: unknown enum %q", d.Name, m.Name, m.Enum)
			}
		}
	}
	if err := s.checkStructCycles(); err != nil {
		return err
	}
	for i := range s.AttributeSets {
		set := &s.AttributeSets[i]
		for j := range set.Attributes {
			if err := s.checkAttr(set, &set.Attributes[j]); err != nil {
				return err
			}
		}
	}
	for _, sm := range s.SubMessages {
		for _, f := range sm.Formats {
			if f.AttributeSet != "" && s.setByName[f.AttributeSet] == nil {
				return fmt.Errorf("sub-message %s format %s: unknown set %q", sm.Name, f.Value, f.AttributeSet)
			}
			if f.FixedHeader != "" && s.structDef(f.FixedHeader) == nil {
				return fmt.Errorf("sub-message %s format %s: unknown struct %q", sm.Name, f.Value, f.FixedHeader)
			}
		}
	}
	chosenBy := map[string]string{}
	for i := range s.AttributeSets {
		set := &s.AttributeSets[i]
		for _, a := range set.Attributes {
			if a.Type != "sub-message" {
				continue
			}
			if prev, ok := chosenBy[a.SubMessage]; ok && prev != a.Selector {
				return fmt.Errorf("set %s attribute %s: sub-message %s is chosen by both %s and %s", set.Name, a.Name, a.SubMessage, prev, a.Selector)
			}
			chosenBy[a.SubMessage] = a.Selector
			if !s.selectorReachable(set.Name, a.Selector) {
				return fmt.Errorf("set %s attribute %s: selector %s is neither in the set nor in one that encloses it", set.Name, a.Name, a.Selector)
			}
		}
	}
	// Decoding keeps a selector's value as the string it compares with the
	// formats' values: every attribute of a selector's name must be a string.
	for _, name := range s.selectors() {
		for _, set := range s.AttributeSets {
			if a := set.attr(name); a != nil && (a.Type != "string" || a.MultiAttr) {
				return fmt.Errorf("set %s attribute %s: a selector must be a single string attribute, not %s", set.Name, name, a.Type)
			}
		}
	}
	return nil
}

func (s *Spec) checkAttr(set *AttributeSet, a *Attribute) error {
	where := fmt.Sprintf("set %s attribute %s", set.Name, a.Name)
	if err := checkByteOrder(where, a.ByteOrder, a.Type); err != nil {
		return err
	}
	if a.DisplayHint != "" && !displayHints[a.DisplayHint] {
		return fmt.Errorf("%s: unknown display-hint %q", where, a.DisplayHint)
	}
	switch a.Type {
	case "unused", "pad", "flag", "bitfield32":
		if a.MultiAttr && a.Type != "bitfield32" {
			return fmt.Errorf("%s: multi-attr on type %s", where, a.Type)
		}
	case "string":
	case "binary":
		if a.Struct != "" && s.structDef(a.Struct) == nil {
			return fmt.Errorf("%s: unknown struct %q", where, a.Struct)
		}
		if a.SubType != "" && (a.Struct != "" || scalarTypes[a.SubType].size == 0) {
			return fmt.Errorf("%s: binary sub-type %q: only an array of integers, without a struct, is supported", where, a.SubType)
		}
	case "nest":
		if s.setByName[a.NestedAttributes] == nil {
			return fmt.Errorf("%s: unknown set %q", where, a.NestedAttributes)
		}
	case "indexed-array":
		if a.SubType != "nest" || s.setByName[a.NestedAttributes] == nil {
			return fmt.Errorf("%s: indexed-array needs sub-type nest and a known set", where)
		}
	case "nest-type-value":
		// The kernel's tc.yaml has none; nothing here would test an emitter.
		return fmt.Errorf("%s: type nest-type-value is not supported", where)
	case "sub-message":
		if s.subMsgByName[a.SubMessage] == nil {
			return fmt.Errorf("%s: unknown sub-message %q", where, a.SubMessage)
		}
		if a.Selector == "" {
			return fmt.Errorf("%s: sub-message without selector", where)
		}
		if a.MultiAttr {
			return fmt.Errorf("%s: multi-attr on a sub-message", where)
		}
	default:
		st, ok := scalarTypes[a.Type]
		if !ok {
			return fmt.Errorf("%s: type %q not supported", where, a.Type)
		}
		if a.Enum != "" {
			d := s.enumDef(a.Enum)
			if d == nil {
				return fmt.Errorf("%s: unknown enum %q", where, a.Enum)
			}
			if d.goUnderlying != "" && d.goUnderlying != st.goType {
				return fmt.Errorf("%s: enum %s used as %s and %s", where, a.Enum, d.goUnderlying, st.goType)
			}
			d.goUnderlying = st.goType
		}
	}
	return s.checkChecks(where, a)
}

// checkChecks resolves the bounds of an attribute's checks and refuses those
// that do not apply to its type.
func (s *Spec) checkChecks(where string, a *Attribute) error {
	c := a.Checks
	if c == nil {
		return nil
	}
	_, integer := scalarTypes[a.Type]
	lengthy := a.Type == "binary" && a.Struct == "" && a.SubType == "" || a.Type == "string"
	for _, b := range []struct {
		name  string
		bound *Bound
		ok    bool
	}{
		{"min", c.Min, integer}, {"max", c.Max, integer},
		{"min-len", c.MinLen, lengthy}, {"max-len", c.MaxLen, lengthy}, {"exact-len", c.ExactLen, lengthy},
	} {
		if b.bound == nil {
			continue
		}
		if !b.ok {
			return fmt.Errorf("%s: check %s does not apply to type %s", where, b.name, a.Type)
		}
		if err := s.resolveBound(b.bound); err != nil {
			return fmt.Errorf("%s: check %s: %w", where, b.name, err)
		}
		if integer && !fits(b.bound.value, a.Type) {
			return fmt.Errorf("%s: check %s: %s does not fit %s", where, b.name, b.bound.text, a.Type)
		}
	}
	if c.Min != nil && c.Max != nil && c.Min.value > c.Max.value {
		return fmt.Errorf("%s: check min %s above max %s", where, c.Min.text, c.Max.text)
	}
	if c.FlagsMask != "" {
		d := s.definitionByID[c.FlagsMask]
		if !integer || strings.HasPrefix(a.Type, "s") || d == nil || d.Type != "flags" {
			return fmt.Errorf("%s: flags-mask %q needs an unsigned attribute and a flags definition", where, c.FlagsMask)
		}
	}
	if c.UnterminatedOk && a.Type != "string" {
		return fmt.Errorf("%s: unterminated-ok on type %s", where, a.Type)
	}
	return nil
}

// resolveBound gives a bound its value: an integer, a const definition, or
// the limit of a fixed-width type (u8-min ... s64-max).
func (s *Spec) resolveBound(b *Bound) error {
	if v, err := strconv.ParseInt(b.text, 0, 64); err == nil {
		b.value, b.goExpr = v, b.text
		return nil
	}
	if d := s.definitionByID[b.text]; d != nil && d.Type == "const" {
		b.value, b.goExpr = *d.Value, s.goName(d.Name)
		return nil
	}
	typ, limit, ok := strings.Cut(b.text, "-")
	if st, known := scalarTypes[typ]; ok && known && (limit == "min" || limit == "max") {
		bits := st.size * 8
		switch {
		case limit == "min" && typ[0] == 'u':
			b.value = 0
		case limit == "min":
			b.value = -1 << (bits - 1)
		case typ[0] == 'u' && bits == 64:
			return fmt.Errorf("bound %s is beyond the int64 checks are held in", b.text)
		case typ[0] == 'u':
			b.value = 1<<bits - 1
		default:
			b.value = 1<<(bits-1) - 1
		}
		b.goExpr = strconv.FormatInt(b.value, 10)
		return nil
	}
	return fmt.Errorf("bound %q is not an integer, a const or a type limit", b.text)
}

// fits reports whether v is a value of the integer type typ.
func fits(v int64, typ string) bool {
	bits := scalarTypes[typ].size * 8
	if typ[0] == 'u' {
		return v >= 0 && (bits == 64 || v < 1<<bits)
	}
	return bits == 64 || v >= -1<<(bits-1) && v < 1<<(bits-1)
}

// encloses lists, for every set, the sets whose attributes carry it.
func (s *Spec) encloses() map[string][]string {
	parents := map[string][]string{}
	for _, set := range s.AttributeSets {
		for _, a := range set.Attributes {
			switch a.Type {
			case "nest", "indexed-array":
				parents[a.NestedAttributes] = append(parents[a.NestedAttributes], set.Name)
			case "sub-message":
				for _, f := range s.subMsgByName[a.SubMessage].Formats {
					if f.AttributeSet != "" {
						parents[f.AttributeSet] = append(parents[f.AttributeSet], set.Name)
					}
				}
			}
		}
	}
	return parents
}

// selectorReachable reports whether a sub-message of set can find its
// selector as YNL does: in the set, or in a set that encloses it.
func (s *Spec) selectorReachable(set, selector string) bool {
	parents := s.encloses()
	seen := map[string]bool{}
	var walk func(name string) bool
	walk = func(name string) bool {
		if seen[name] {
			return false
		}
		seen[name] = true
		if s.setByName[name].attr(selector) != nil {
			return true
		}
		for _, p := range parents[name] {
			if walk(p) {
				return true
			}
		}
		return false
	}
	return walk(set)
}

// checkStructCycles refuses a struct that contains itself, which has no size.
func (s *Spec) checkStructCycles() error {
	state := map[string]int{} // 1: being visited, 2: done
	var visit func(d *Definition) error
	visit = func(d *Definition) error {
		switch state[d.Name] {
		case 1:
			return fmt.Errorf("struct %s contains itself", d.Name)
		case 2:
			return nil
		}
		state[d.Name] = 1
		for _, m := range d.Members {
			if m.Struct != "" {
				if err := visit(s.structDef(m.Struct)); err != nil {
					return err
				}
			}
		}
		state[d.Name] = 2
		return nil
	}
	for i := range s.Definitions {
		if s.Definitions[i].Type == "struct" {
			if err := visit(&s.Definitions[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *Spec) enumDef(name string) *Definition {
	d := s.definitionByID[name]
	if d == nil || d.Type != "enum" && d.Type != "flags" {
		return nil
	}
	return d
}

func (s *Spec) structDef(name string) *Definition {
	d := s.definitionByID[name]
	if d == nil || d.Type != "struct" {
		return nil
	}
	return d
}

// selectors lists the attribute names that choose a sub-message's format.
func (s *Spec) selectors() []string {
	var names []string
	seen := map[string]bool{}
	for _, set := range s.AttributeSets {
		for _, a := range set.Attributes {
			if a.Type == "sub-message" && !seen[a.Selector] {
				seen[a.Selector] = true
				names = append(names, a.Selector)
			}
		}
	}
	return names
}
