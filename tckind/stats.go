// SPDX-License-Identifier: Apache-2.0

package tckind

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// StatsTable describes a kind's own statistics (what TCA_STATS_APP or
// TCA_XSTATS carry) as data, so that consumers of every kind's statistics
// (package watch's JSON lines, package exporter's metrics, the tin table of
// CAKE's -s) need no code of their own per kind. The kind's PrintXstats
// still prints tc's -s text and JSON; the table's keys are the JSON members
// it prints.
type StatsTable struct {
	// Of picks the kind's decoded statistics out of a dump's: nil when the
	// message has none, or none that decoded as this kind's. Fields' and
	// Records' accessors take what it returns.
	Of func(x Xstats) any
	// Fields are the qdisc's statistics, in the order of tc's JSON.
	Fields []Stat
	// Records, when not nil, is a repeated sub-record of the statistics
	// (CAKE's tins).
	Records *StatRecords
}

// StatRecords describes an array of records within a kind's statistics,
// each with the same fields: CAKE's per-tin statistics.
type StatRecords struct {
	// Key is the JSON key of the array ("tins").
	Key string
	// Label and NameLabel are the Prometheus labels of a record's metrics
	// that hold its index and its name ("tin", "tin_name"), beside the
	// qdisc's labels (dev, handle, kind, parent). Both sort after "parent",
	// Label before NameLabel: label pairs go out sorted by name.
	Label, NameLabel string
	// Name names record i of n.
	Name func(n, i int) string
	// Len returns the number of records in the statistics Of returned.
	Len func(s any) int
	// Record returns record i, the value Fields' accessors take.
	Record func(s any, i int) any
	// Fields are a record's statistics in the order of tc's JSON, then the
	// ones tc does not print. Those with a Text label are tc's text table,
	// one row each, in TextRow order.
	Fields []Stat

	textRows []*Stat // Fields with a Text label, by TextRow; set by check
}

// MaxStats is the most fields a StatsTable (or its StatRecords) may have,
// so that a consumer can keep which ones a sample had in a uint32.
const MaxStats = 32

// Stat is one statistic: where it goes in JSON and in Prometheus, what kind
// of value it is, and how to read it from the decoded statistics.
type Stat struct {
	// Key is the JSON key: tc's for what tc -s -j prints, gotc's own
	// (in the same style) for what tc does not print.
	Key string
	// Metric and Help are the Prometheus metric's name and help text;
	// Metric "" means not exported. A name ending in a unit (_seconds,
	// _bytes, _bytes_per_second, before any _total) states the OpenMetrics
	// unit.
	Metric, Help string
	// Counter marks a counter (it only grows, wrapping or being reset):
	// a Prometheus counter, and in watch's deltas and rates. Anything else
	// is a gauge.
	Counter bool
	// Wide marks a 64-bit value: a 32-bit counter wraps at 2^32.
	Wide bool
	// Signed marks a value that Get returns as an int64's bits.
	Signed bool
	// Unit is what the raw value counts, which Value scales.
	Unit Unit
	// Text is the label of the statistic's row in tc's -s text table
	// (records only), "" when tc prints none; tc's JSON then has no such
	// member either. TextRow is the row's position (from 1) and TextFormat
	// how its cells are written.
	Text       string
	TextRow    int
	TextFormat TextFormat
	// Get reads the raw value from what StatsTable.Of (or, for a record's
	// field, StatRecords.Record) returned; false when absent.
	Get func(s any) (uint64, bool)
}

// Unit is what a statistic's raw value counts.
type Unit uint8

const (
	// UnitCount is a plain number: packets, flows, marks, bytes' sizes
	// counted as numbers alike.
	UnitCount Unit = iota
	// UnitMicroseconds is a time in µs; Value gives seconds.
	UnitMicroseconds
	// UnitProbability is a fraction scaled to 2^32-1 (DualPI2's prob);
	// Value gives the fraction.
	UnitProbability
	// UnitProbability64 is a fraction scaled to 2^64 (pie's prob, which tc
	// divides by UINT64_MAX as a double); Value gives the fraction.
	UnitProbability64
	// UnitNanoseconds is a time in ns; Value gives seconds.
	UnitNanoseconds
	// UnitSFBProbability is a fraction scaled to SFB_MAX_PROB (0xFFFF,
	// sfb's maxprob and avgprob); Value gives the fraction.
	UnitSFBProbability
	// UnitPschedTicks is a time in the packet scheduler's ticks of 64 ns
	// (PSCHED_NS2TICKS: htb's tokens); Value gives seconds.
	UnitPschedTicks
)

// pschedTickNanoseconds is the length of one packet-scheduler tick
// (1 << PSCHED_SHIFT ns).
const pschedTickNanoseconds = 64

// Fraction reports whether Value gives a fraction rather than a count or
// seconds: JSON writes it as a float.
func (u Unit) Fraction() bool {
	return u == UnitProbability || u == UnitProbability64 || u == UnitSFBProbability
}

// TextFormat is how tc writes a statistic in its -s text table.
type TextFormat uint8

const (
	// TextCount writes the number.
	TextCount TextFormat = iota
	// TextSize writes a size as tc's sprint_size ("1514b", "3Kb").
	TextSize
	// TextTime writes µs as tc's sprint_time ("5ms").
	TextTime
	// TextRate writes bytes per second as tc's sprint_rate ("100Mbit").
	TextRate
)

// Value converts a raw value as Get returns it to the number consumers
// show: seconds for microseconds and nanoseconds, the fraction for a
// probability; negative for a Signed one below 0.
func (s *Stat) Value(raw uint64) float64 {
	v := float64(raw)
	if s.Signed {
		v = float64(int64(raw))
	}
	switch s.Unit {
	case UnitMicroseconds:
		return v / 1e6
	case UnitProbability:
		return v / math.MaxUint32
	case UnitProbability64:
		return v / math.MaxUint64
	case UnitNanoseconds:
		return v / 1e9
	case UnitSFBProbability:
		return v / SfbMaxProb
	case UnitPschedTicks:
		return v * pschedTickNanoseconds / 1e9
	}
	return v
}

// TextRows returns the fields of tc's text table in tc's row order.
func (r *StatRecords) TextRows() []*Stat { return r.textRows }

// check validates a table as Register takes it; nil is valid (no table).
func (t *StatsTable) check() error {
	if t == nil {
		return nil
	}
	if t.Of == nil {
		return errors.New("statistics table without Of")
	}
	if err := checkFields(t.Fields); err != nil {
		return err
	}
	r := t.Records
	if r == nil {
		return nil
	}
	if r.Key == "" || r.Name == nil || r.Len == nil || r.Record == nil {
		return errors.New("statistics records need Key, Name, Len and Record")
	}
	if !(r.Label > "parent" && r.NameLabel > r.Label) {
		return fmt.Errorf("statistics records' labels %q, %q do not sort after \"parent\" in that order", r.Label, r.NameLabel)
	}
	if err := checkFields(r.Fields); err != nil {
		return err
	}
	r.textRows = r.textRows[:0]
	for i := range r.Fields {
		if r.Fields[i].Text != "" {
			r.textRows = append(r.textRows, &r.Fields[i])
		}
	}
	slices.SortStableFunc(r.textRows, func(a, b *Stat) int { return cmp.Compare(a.TextRow, b.TextRow) })
	return nil
}

func checkFields(fs []Stat) error {
	if len(fs) > MaxStats {
		return fmt.Errorf("%d statistics, more than MaxStats (%d)", len(fs), MaxStats)
	}
	keys := map[string]bool{}
	for i := range fs {
		f := &fs[i]
		if f.Key == "" || f.Get == nil {
			return fmt.Errorf("statistic %d needs a Key and Get", i)
		}
		if keys[f.Key] {
			return fmt.Errorf("statistic %q listed twice", f.Key)
		}
		keys[f.Key] = true
		if f.Metric != "" && (f.Help == "" || f.Counter != strings.HasSuffix(f.Metric, "_total")) {
			return fmt.Errorf("statistic %q: metric %q needs a help text, and _total exactly when a counter", f.Key, f.Metric)
		}
	}
	return nil
}

// SfbMaxProb is SFB_MAX_PROB, the scale of sfb's probabilities.
const SfbMaxProb = 0xFFFF
