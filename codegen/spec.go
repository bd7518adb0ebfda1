package main

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// Spec is the part of the YNL netlink-raw schema that codegen understands.
type Spec struct {
	Name           string         `yaml:"name"`
	Protocol       string         `yaml:"protocol"`
	Protonum       int            `yaml:"protonum"`
	Doc            string         `yaml:"doc"`
	Definitions    []Definition   `yaml:"definitions"`
	AttributeSets  []AttributeSet `yaml:"attribute-sets"`
	SubMessages    []SubMessage   `yaml:"sub-messages"`
	definitionByID map[string]*Definition
	setByName      map[string]*AttributeSet
	subMsgByName   map[string]*SubMessage
}

// Definition is a struct or an enum of the spec's definitions section.
type Definition struct {
	Name       string      `yaml:"name"`
	Type       string      `yaml:"type"`
	Doc        string      `yaml:"doc"`
	NamePrefix string      `yaml:"name-prefix"`
	Members    []Member    `yaml:"members"`
	Entries    []EnumEntry `yaml:"entries"`
	// goUnderlying is the integer type of the attributes that use an enum.
	goUnderlying string
}

// Member is one field of a struct definition: a scalar, padding, or binary,
// which is either a nested struct (Struct) or an array of Len bytes.
type Member struct {
	Name   string `yaml:"name"`
	Type   string `yaml:"type"`
	Len    int    `yaml:"len"`
	Struct string `yaml:"struct"`
	Doc    string `yaml:"doc"`
}

// EnumEntry is one value of an enum; a bare name in YAML takes the next value.
type EnumEntry struct {
	Name  string `yaml:"name"`
	Value *int64 `yaml:"value"`
	Doc   string `yaml:"doc"`
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
	// EncodeOrder names the attributes in the order Encode writes them (tc's
	// order, which requests must keep to be byte-identical to tc's); the
	// attributes it does not name follow in the set's order. A gotc extension
	// of the schema.
	EncodeOrder []string `yaml:"encode-order"`
	// NestFlag sets NLA_F_NESTED on the attribute that carries the set as a
	// nest, as tc does for the kinds whose kernel parser is strict. A gotc
	// extension of the schema; without it the flag is clear, as tc and the
	// kernel's dumps leave it for most sets.
	NestFlag bool `yaml:"nest-flag"`
}

// Attribute is one attribute of a set; Value is assigned in order when absent.
type Attribute struct {
	Name             string `yaml:"name"`
	Type             string `yaml:"type"`
	Value            *int64 `yaml:"value"`
	Doc              string `yaml:"doc"`
	Enum             string `yaml:"enum"`
	Struct           string `yaml:"struct"`
	NestedAttributes string `yaml:"nested-attributes"`
	SubType          string `yaml:"sub-type"`
	SubMessage       string `yaml:"sub-message"`
	Selector         string `yaml:"selector"`
	number           int64
}

// SubMessage is a payload whose layout a selector attribute chooses.
type SubMessage struct {
	Name    string   `yaml:"name"`
	Formats []Format `yaml:"formats"`
}

// Format is one choice of a sub-message: an attribute set or a fixed struct.
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
		if d.Type != "struct" && d.Type != "enum" {
			return nil, fmt.Errorf("definition %s: type %q not supported", d.Name, d.Type)
		}
		if _, dup := s.definitionByID[d.Name]; dup {
			return nil, fmt.Errorf("definition %s defined twice", d.Name)
		}
		s.definitionByID[d.Name] = d
		for _, m := range d.Members {
			switch {
			case m.Type == "pad" || m.Type == "binary" && m.Struct == "" && m.Len > 0:
			case m.Type == "binary" && m.Struct != "" && m.Len == 0:
			case m.Type != "binary" && m.Struct == "" && scalarTypes[m.Type].size > 0:
			default:
				return nil, fmt.Errorf("struct %s member %s: type %q not supported (binary needs a struct or a len)", d.Name, m.Name, m.Type)
			}
		}
		next := int64(0)
		for j := range d.Entries {
			if d.Entries[j].Value == nil {
				v := next
				d.Entries[j].Value = &v
			}
			next = *d.Entries[j].Value + 1
		}
	}
	s.setByName = map[string]*AttributeSet{}
	for i := range s.AttributeSets {
		set := &s.AttributeSets[i]
		s.setByName[set.Name] = set
		next := int64(0)
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
	return &s, s.check()
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

// structSize is the size of a struct definition on the wire.
func (s *Spec) structSize(d *Definition) int {
	size := 0
	for _, m := range d.Members {
		switch {
		case m.Struct != "":
			size += s.structSize(s.structDef(m.Struct))
		case m.Type == "pad" || m.Type == "binary":
			size += m.Len
		default:
			size += scalarTypes[m.Type].size
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
		}
	}
	if err := s.checkStructCycles(); err != nil {
		return err
	}
	for _, set := range s.AttributeSets {
		for _, a := range set.Attributes {
			where := fmt.Sprintf("set %s attribute %s", set.Name, a.Name)
			switch a.Type {
			case "unused", "pad", "flag", "string", "bitfield32":
			case "binary":
				if a.Struct != "" && s.structDef(a.Struct) == nil {
					return fmt.Errorf("%s: unknown struct %q", where, a.Struct)
				}
			case "nest":
				if s.setByName[a.NestedAttributes] == nil {
					return fmt.Errorf("%s: unknown set %q", where, a.NestedAttributes)
				}
			case "indexed-array":
				if a.SubType != "nest" || s.setByName[a.NestedAttributes] == nil {
					return fmt.Errorf("%s: indexed-array needs sub-type nest and a known set", where)
				}
			case "sub-message":
				if s.subMsgByName[a.SubMessage] == nil {
					return fmt.Errorf("%s: unknown sub-message %q", where, a.SubMessage)
				}
				if a.Selector == "" {
					return fmt.Errorf("%s: sub-message without selector", where)
				}
			default:
				st, ok := scalarTypes[a.Type]
				if !ok {
					return fmt.Errorf("%s: type %q not supported", where, a.Type)
				}
				if a.Enum != "" {
					d := s.definitionByID[a.Enum]
					if d == nil || d.Type != "enum" {
						return fmt.Errorf("%s: unknown enum %q", where, a.Enum)
					}
					if d.goUnderlying != "" && d.goUnderlying != st.goType {
						return fmt.Errorf("%s: enum %s used as %s and %s", where, a.Enum, d.goUnderlying, st.goType)
					}
					d.goUnderlying = st.goType
				}
			}
		}
	}
	for _, sm := range s.SubMessages {
		for _, f := range sm.Formats {
			switch {
			case f.AttributeSet != "" && f.FixedHeader != "":
				return fmt.Errorf("sub-message %s format %s: a fixed header with attributes is not supported", sm.Name, f.Value)
			case f.AttributeSet != "":
				if s.setByName[f.AttributeSet] == nil {
					return fmt.Errorf("sub-message %s format %s: unknown set %q", sm.Name, f.Value, f.AttributeSet)
				}
			case f.FixedHeader != "":
				if s.structDef(f.FixedHeader) == nil {
					return fmt.Errorf("sub-message %s format %s: unknown struct %q", sm.Name, f.Value, f.FixedHeader)
				}
			}
		}
	}
	return nil
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
