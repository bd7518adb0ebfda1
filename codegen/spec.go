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

// Member is one field of a struct definition.
type Member struct {
	Name string `yaml:"name"`
	Type string `yaml:"type"`
	Len  int    `yaml:"len"`
	Doc  string `yaml:"doc"`
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
			if _, ok := scalarTypes[m.Type]; !ok && m.Type != "pad" {
				return nil, fmt.Errorf("struct %s member %s: type %q not supported", d.Name, m.Name, m.Type)
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
	}
	s.subMsgByName = map[string]*SubMessage{}
	for i := range s.SubMessages {
		s.subMsgByName[s.SubMessages[i].Name] = &s.SubMessages[i]
	}
	return &s, s.check()
}

func (s *Spec) check() error {
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
			default:
				return fmt.Errorf("sub-message %s format %s: empty", sm.Name, f.Value)
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
