// SPDX-License-Identifier: Apache-2.0

package exporter

import (
	"bufio"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/gotc/gotc/tckind"
	"github.com/prometheus/common/expfmt"
)

// textWriter writes series in the text format or OpenMetrics, one family
// at a time: each family's # lines before its first series.
type textWriter struct {
	w   *bufio.Writer
	om  bool
	b   []byte     // the line being built
	def *metricDef // the family being written; its # lines are out
}

func newTextWriter(w io.Writer, f expfmt.Format) *textWriter {
	return &textWriter{w: bufio.NewWriterSize(w, 64<<10), om: f.FormatType() == expfmt.TypeOpenMetrics, b: make([]byte, 0, 512)}
}

// start begins a series of family d: the name and the object's labels;
// the caller appends more labels, then calls end.
func (t *textWriter) start(d *metricDef, labels []byte) {
	if t.def != d {
		if t.om {
			t.w.Write(d.om)
		} else {
			t.w.Write(d.text)
		}
		t.def = d
	}
	t.b = append(t.b[:0], d.name...)
	t.b = append(t.b, '{')
	t.b = append(t.b, labels...)
}

// end closes the labels, writes the value's text v and the line.
func (t *textWriter) end() {
	t.b = append(t.b, '\n')
	t.w.Write(t.b)
}

// uint, int and float end a series with its value.
func (t *textWriter) uint(v uint64) {
	t.b = append(t.b, "} "...)
	t.b = strconv.AppendUint(t.b, v, 10)
	t.end()
}

func (t *textWriter) float(v float64) {
	t.b = append(t.b, "} "...)
	t.b = strconv.AppendFloat(t.b, v, 'g', -1, 64)
	t.end()
}

// stat ends a series with a table field's value: integers as such, times
// in seconds and fractions as floats.
func (t *textWriter) stat(f *tckind.Stat, v uint64) {
	switch {
	case f.Unit != tckind.UnitCount:
		t.float(f.Value(v))
	case f.Signed:
		t.b = append(t.b, "} "...)
		t.b = strconv.AppendInt(t.b, int64(v), 10)
		t.end()
	default:
		t.uint(v)
	}
}

// write writes the series of the objects kept by selectObjects: the
// generic families of the qdiscs, of the classes, then the kinds' own.
func (s *objectSet) write(t *textWriter) error {
	for _, class := range []bool{false, true} {
		defs := qdiscDefs
		if class {
			defs = classDefs
		}
		for g := range tckind.NumGenericStats {
			d := defs.stats[g]
			for i := range s.objs {
				o := &s.objs[i]
				if v, ok := o.gen.Get(g); ok && o.keep && o.class == class {
					t.start(d, s.lab[o.labStart:o.labEnd])
					t.uint(v)
				}
			}
		}
		for i := range s.objs {
			if o := &s.objs[i]; o.keep && o.class == class {
				t.start(defs.unknown, s.lab[o.labStart:o.labEnd])
				t.uint(uint64(o.unknown))
			}
		}
	}
	kinds := kindDefs()
	for _, tab := range s.tables {
		km, objs := kinds[tab], s.byTable[tab]
		for j, d := range km.fields {
			if d == nil {
				continue
			}
			f := &tab.Fields[j]
			for _, i := range objs {
				if o := &s.objs[i]; o.okBits&(1<<j) != 0 {
					t.start(d, s.lab[o.labStart:o.labEnd])
					t.stat(f, s.vals[int(o.valOff)+j])
				}
			}
		}
		if r := tab.Records; r != nil {
			s.writeRecords(t, r, km, objs)
		}
	}
	return t.w.Flush()
}

// writeRecords writes the families of a table's records (CAKE's tins), each
// series labelled with its record's index and name.
func (s *objectSet) writeRecords(t *textWriter, r *tckind.StatRecords, km *kindMetrics, objs []int32) {
	n := len(r.Fields)
	for j, d := range km.recFields {
		if d == nil {
			continue
		}
		f := &r.Fields[j]
		for _, i := range objs {
			o := &s.objs[i]
			for rec := range int(o.recs) {
				if s.recOK[int(o.recOKOff)+rec]&(1<<j) == 0 {
					continue
				}
				t.start(d, s.lab[o.labStart:o.labEnd])
				t.b = append(t.b, ',')
				t.b = append(t.b, r.Label...)
				t.b = append(t.b, `="`...)
				t.b = strconv.AppendInt(t.b, int64(rec), 10)
				t.b = append(t.b, `",`...)
				t.b = append(t.b, r.NameLabel...)
				t.b = append(t.b, `="`...)
				t.b = appendLabelValue(t.b, r.Name(int(o.recs), rec))
				t.b = append(t.b, '"')
				t.stat(f, s.vals[int(o.recOff)+rec*n+j])
			}
		}
	}
}

// appendLabelValue appends a label value escaped for the text format. A
// value that is not UTF-8 (device names are bytes) has its invalid bytes
// written as \x escapes first, as a label must be UTF-8.
func appendLabelValue(b []byte, v string) []byte {
	if !utf8.ValidString(v) {
		q := strconv.QuoteToASCII(v)
		v = q[1 : len(q)-1]
	}
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case '\\':
			b = append(b, `\\`...)
		case '"':
			b = append(b, `\"`...)
		case '\n':
			b = append(b, `\n`...)
		default:
			b = append(b, c)
		}
	}
	return b
}

func appendInt(b []byte, v int64) []byte { return strconv.AppendInt(b, v, 10) }
