// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"strings"
)

// Statistics lists the statistics that one struct (a kind's xstats) or
// attribute set (CAKE's) carries, in the order of tc's JSON: a gotc
// extension of the schema, which codegen -stats turns into a table of
// tckind.Stat (a kind's StatsTable.Fields, or its records' Fields).
type Statistics struct {
	// Struct or AttributeSet names what the statistics are read from;
	// exactly one is given.
	Struct       string      `yaml:"struct"`
	AttributeSet string      `yaml:"attribute-set"`
	Fields       []StatField `yaml:"fields"`
}

// StatField is one statistic: the integer it reads and what consumers
// show of it. Its width (tckind.Stat's Wide) and sign (Signed) are the
// integer's type's.
type StatField struct {
	// Member names the struct's member, Attribute the set's attribute;
	// Index picks an element of a member that is an array of integers.
	Member    string `yaml:"member"`
	Attribute string `yaml:"attribute"`
	Index     *int   `yaml:"index"`
	// Key is the JSON key: tc's for what tc -s -j prints; by default the
	// member's or attribute's name with '_' for '-'.
	Key string `yaml:"key"`
	// Metric is the Prometheus metric's name, none when empty; Help its
	// help text, by default the member's or attribute's doc.
	Metric string `yaml:"metric"`
	Help   string `yaml:"help"`
	// Counter marks a value that only grows (wrapping or being reset).
	Counter bool `yaml:"counter"`
	// Unit is what the raw value counts when it is not a plain number:
	// one of statUnits.
	Unit string `yaml:"unit"`
	// Boolean reads any value but 0 as 1 (a state, as codel's dropping).
	Boolean bool `yaml:"boolean"`
	// PresentIf names a member that must be non-zero for the value to be
	// present (pie's avg-dq-rate only while dq-rate-estimating);
	// PresentIfPositive makes it present only when above 0.
	PresentIf         string `yaml:"present-if"`
	PresentIfPositive bool   `yaml:"present-if-positive"`
	// Text, TextRow and TextFormat place a record's statistic in tc's -s
	// text table: its row's label, position (from 1) and how its cells are
	// written (one of statTextFormats).
	Text       string `yaml:"text"`
	TextRow    int    `yaml:"text-row"`
	TextFormat string `yaml:"text-format"`

	// typ is the integer's spec type; pointer says it is an optional
	// attribute's (a Go pointer).
	typ     string
	pointer bool
}

// statUnits and statTextFormats map the spec's words to tckind's
// constants.
var (
	statUnits = map[string]string{
		"microseconds": "UnitMicroseconds", "nanoseconds": "UnitNanoseconds", "psched-ticks": "UnitPschedTicks",
		"probability": "UnitProbability", "probability64": "UnitProbability64",
		"sfb-probability": "UnitSFBProbability",
	}
	statTextFormats = map[string]string{"count": "TextCount", "size": "TextSize", "time": "TextTime", "rate": "TextRate"}
)

// checkStatistics resolves every statistic's integer and refuses what
// would not make a table: a member or attribute that is not an integer, a
// key given twice, an unknown unit, a metric without a help text.
func (s *Spec) checkStatistics() error {
	seen := map[string]bool{}
	for i := range s.Statistics {
		st := &s.Statistics[i]
		where := "statistics of " + st.Struct + st.AttributeSet
		if (st.Struct == "") == (st.AttributeSet == "") {
			return fmt.Errorf("%s: needs exactly one of struct and attribute-set", where)
		}
		if seen[where] {
			return fmt.Errorf("%s: listed twice", where)
		}
		seen[where] = true
		keys := map[string]bool{}
		for j := range st.Fields {
			f := &st.Fields[j]
			if f.Key == "" {
				f.Key = strings.ReplaceAll(f.Member+f.Attribute, "-", "_")
			}
			fwhere := fmt.Sprintf("%s: %s", where, f.Key)
			if f.Key == "" || keys[f.Key] {
				return fmt.Errorf("%s: every statistic needs a key of its own", fwhere)
			}
			keys[f.Key] = true
			doc, err := s.resolveStat(st, f)
			if err != nil {
				return fmt.Errorf("%s: %w", fwhere, err)
			}
			if f.Help == "" {
				f.Help = strings.TrimSpace(doc)
			}
			if f.Metric != "" && f.Help == "" {
				return fmt.Errorf("%s: metric %s needs a help text (help, or the doc)", fwhere, f.Metric)
			}
			if _, ok := statUnits[f.Unit]; f.Unit != "" && !ok {
				return fmt.Errorf("%s: unknown unit %q", fwhere, f.Unit)
			}
			if _, ok := statTextFormats[f.TextFormat]; f.TextFormat != "" && !ok {
				return fmt.Errorf("%s: unknown text-format %q", fwhere, f.TextFormat)
			}
			if f.Boolean && f.typ[0] == 's' {
				return fmt.Errorf("%s: boolean needs an unsigned integer", fwhere)
			}
			if (f.Text == "") != (f.TextRow == 0) || f.Text == "" && f.TextFormat != "" {
				return fmt.Errorf("%s: text and text-row go together, and text-format with them", fwhere)
			}
		}
	}
	return nil
}

// resolveStat finds the integer a statistic reads, sets its type, and
// returns its doc.
func (s *Spec) resolveStat(st *Statistics, f *StatField) (doc string, err error) {
	if st.AttributeSet != "" {
		set := s.setByName[st.AttributeSet]
		switch {
		case set == nil:
			return "", fmt.Errorf("unknown attribute-set %q", st.AttributeSet)
		case f.Member != "" || f.Index != nil || f.PresentIf != "":
			return "", fmt.Errorf("member, index and present-if are for a struct's statistics")
		}
		a := set.attr(f.Attribute)
		if a == nil || scalarTypes[a.Type].size == 0 || a.MultiAttr {
			return "", fmt.Errorf("attribute %q is not a single integer of the set", f.Attribute)
		}
		f.typ, f.pointer = a.Type, true
		return a.Doc, nil
	}
	d := s.structDef(st.Struct)
	if d == nil {
		return "", fmt.Errorf("unknown struct %q", st.Struct)
	}
	if f.Attribute != "" {
		return "", fmt.Errorf("attribute is for a set's statistics")
	}
	m := integerMember(d, f.Member)
	switch {
	case m == nil:
		return "", fmt.Errorf("member %q is not an integer of the struct", f.Member)
	case (m.Len > 0) != (f.Index != nil):
		return "", fmt.Errorf("member %s: an index picks an element of an array, and only of one", f.Member)
	case f.Index != nil && (*f.Index < 0 || *f.Index >= m.Len):
		return "", fmt.Errorf("member %s: index %d outside its %d elements", f.Member, *f.Index, m.Len)
	case f.PresentIf != "" && integerMember(d, f.PresentIf) == nil:
		return "", fmt.Errorf("present-if %q is not an integer member of the struct", f.PresentIf)
	}
	f.typ = m.Type
	return m.Doc, nil
}

// integerMember returns the member of that name when it is an integer or
// an array of them, else nil.
func integerMember(d *Definition, name string) *Member {
	for i := range d.Members {
		if m := &d.Members[i]; m.Name == name && m.Type != "pad" && scalarTypes[m.Type].size > 0 && !m.FlexibleArray {
			return m
		}
	}
	return nil
}

// Where the statistics tables go: their element type and the package of
// the types they read.
const (
	tckindImport = "github.com/gotc/gotc/tckind"
	attrsImport  = "github.com/gotc/gotc/attrs"
)

// generateStats writes the statistics tables of the spec's statistics
// section, one []tckind.Stat per struct or set, named after its type
// (tcREDXstatsFields for tc-red-xstats).
func generateStats(spec *Spec, pkg, specPath string) []byte {
	g := &generator{spec: spec}
	g.header(specPath, pkg, attrsImport, tckindImport)
	for i := range spec.Statistics {
		g.statsTable(&spec.Statistics[i])
	}
	return g.buf.Bytes()
}

// statsTableName is the Go variable of a struct's or set's statistics.
func (g *generator) statsTableName(st *Statistics) string {
	name := st.Struct + st.AttributeSet
	first, rest, _ := strings.Cut(name, "-")
	return first + g.goName(rest) + "Fields"
}

func (g *generator) statsTable(st *Statistics) {
	what, name := "struct", st.Struct
	if st.AttributeSet != "" {
		what, name = "attribute set", st.AttributeSet
	}
	typ := "attrs." + g.goName(name)
	table := g.statsTableName(st)
	g.comment("", table, fmt.Sprintf("the statistics of %s %s (%s), in the order of tc's JSON.", what, name, typ), "")
	g.p("var %s = []tckind.Stat{", table)
	for i := range st.Fields {
		f := &st.Fields[i]
		g.p("{")
		g.p("Key: %q,", f.Key)
		if f.Metric != "" {
			g.p("Metric: %q, Help: %q,", f.Metric, f.Help)
		}
		if f.Counter {
			g.p("Counter: true,")
		}
		if scalarTypes[f.typ].size == 8 {
			g.p("Wide: true,")
		}
		if f.typ[0] == 's' {
			g.p("Signed: true,")
		}
		if f.Unit != "" {
			g.p("Unit: tckind.%s,", statUnits[f.Unit])
		}
		if f.Text != "" {
			g.p("Text: %q, TextRow: %d,", f.Text, f.TextRow)
		}
		if f.TextFormat != "" {
			g.p("TextFormat: tckind.%s,", statTextFormats[f.TextFormat])
		}
		g.p("Get: func(s any) (uint64, bool) {")
		g.statGet(typ, f)
		g.p("},")
		g.p("},")
	}
	g.p("}")
	g.p("")
}

// statGet writes the body of a statistic's Get, which reads it from s, a
// *typ.
func (g *generator) statGet(typ string, f *StatField) {
	field := g.goName(f.Member + f.Attribute)
	if f.Index != nil {
		field += fmt.Sprintf("[%d]", *f.Index)
	}
	// raw converts v, of the integer's type, to Get's uint64: a signed
	// one as an int64's bits.
	raw := func(v string) string {
		if f.Boolean {
			v = "min(" + v + ", 1)"
		}
		if f.typ[0] == 's' {
			return "uint64(int64(" + v + "))"
		}
		return "uint64(" + v + ")"
	}
	switch {
	case f.pointer:
		g.p("if v := s.(*%s).%s; v != nil { return %s, true }", typ, field, raw("*v"))
		g.p("return 0, false")
	case f.PresentIf != "":
		g.p("x := s.(*%s)", typ)
		g.p("return %s, x.%s != 0", raw("x."+field), g.goName(f.PresentIf))
	case f.PresentIfPositive:
		g.p("v := s.(*%s).%s", typ, field)
		g.p("return %s, v > 0", raw("v"))
	default:
		g.p("return %s, true", raw("s.(*"+typ+")."+field))
	}
}
