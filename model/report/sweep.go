// SPDX-License-Identifier: Apache-2.0

package report

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Metrics a sweep can plot, as Metric names them.
var Metrics = []string{"p50", "p95", "p99", "max", "drops", "marks", "throughput"}

// Metric returns a group's metric by name (delays in ms, throughput in
// Mbit/s), and the axis label that names it with its unit.
func Metric(g Group, name string) (float64, string, error) {
	switch name {
	case "p50":
		return g.Delay.P50, "p50 delay (ms)", nil
	case "p95":
		return g.Delay.P95, "p95 delay (ms)", nil
	case "p99":
		return g.Delay.P99, "p99 delay (ms)", nil
	case "max":
		return g.Delay.Max, "max delay (ms)", nil
	case "drops":
		return float64(g.Drops), "drops (packets)", nil
	case "marks":
		return float64(g.Marks), "ECN marks (packets)", nil
	case "throughput":
		return g.Throughput / 1e6, "throughput (Mbit/s)", nil
	}
	return 0, "", fmt.Errorf("no metric %q (have %s)", name, strings.Join(Metrics, ", "))
}

// Range is the values of a swept parameter: Steps values from From to
// To, evenly spaced, each written with the unit the bounds share.
type Range struct {
	From, To float64
	Unit     string
	Steps    int
}

// ParseRange reads "FROM TO STEPS" as a sweep gives them: "5mbit 50mbit
// 10", "20ms 200ms 4", "0 48 7". Both bounds take the same unit (or none),
// and STEPS is at least 2.
func ParseRange(from, to, steps string) (Range, error) {
	f, fu, err := splitUnit(from)
	if err != nil {
		return Range{}, err
	}
	t, tu, err := splitUnit(to)
	if err != nil {
		return Range{}, err
	}
	if fu != tu {
		return Range{}, fmt.Errorf("%q and %q differ in their units", from, to)
	}
	n, err := strconv.Atoi(steps)
	if err != nil || n < 2 || n > 1000 {
		return Range{}, fmt.Errorf("%q steps: 2 to 1000 expected", steps)
	}
	return Range{From: f, To: t, Unit: fu, Steps: n}, nil
}

// splitUnit splits "5mbit" into 5 and "mbit".
func splitUnit(s string) (float64, string, error) {
	i := strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || r == '%' })
	if i < 0 {
		i = len(s)
	}
	v, err := strconv.ParseFloat(s[:i], 64)
	if err != nil || i == 0 || v < 0 {
		return 0, "", fmt.Errorf("%q is not a number with a unit", s)
	}
	return v, s[i:], nil
}

// Values returns the range's numbers and their words ("12.5mbit").
func (r Range) Values() ([]float64, []string) {
	xs := make([]float64, r.Steps)
	ws := make([]string, r.Steps)
	for i := range xs {
		x := r.From + (r.To-r.From)*float64(i)/float64(r.Steps-1)
		// Three decimals at most, so that the words stay short.
		x = float64(int64(x*1000+0.5)) / 1000
		xs[i] = x
		ws[i] = strconv.FormatFloat(x, 'f', -1, 64) + r.Unit
	}
	return xs, ws
}

// SetWord returns words (a qdisc's options) with param set to value: the
// word after param replaced, or "param value" appended.
func SetWord(words []string, param, value string) []string {
	out := slices.Clone(words)
	if i := slices.Index(out, param); i >= 0 && i+1 < len(out) {
		out[i+1] = value
		return out
	}
	return append(out, param, value)
}

// Row is one value of a sweep.
type Row struct {
	Value  string  `json:"value"`
	X      float64 `json:"x"`
	Total  Group   `json:"total"`
	Queues []Group `json:"queues"`
}

// Sweep is a parameter's rows.
type Sweep struct {
	Kind  string `json:"kind"`
	Param string `json:"param"`
	Unit  string `json:"unit"`
	Rows  []Row  `json:"rows"`
}

// Add appends the row of one value.
func (s *Sweep) Add(value string, x float64, r *Report) {
	s.Rows = append(s.Rows, Row{Value: value, X: x, Total: r.Total, Queues: r.Queues})
}

// WriteText writes one line per value: the totals, and the p99 delay of
// each queue.
func (s *Sweep) WriteText(w io.Writer) error {
	rows := make([]totalsRow, len(s.Rows))
	for i, r := range s.Rows {
		rows[i] = totalsRow{r.Value, r.Total, r.Queues}
	}
	return writeTotals(w, s.Param, rows, func(name string) string { return trunc(name, 8) })
}

// totalsRow is one line of writeTotals: its label, its totals, and the
// groups whose p99 delay follows them.
type totalsRow struct {
	label  string
	total  Group
	groups []Group
}

// writeTotals writes the table of a sweep or a comparison: a line per
// row, under a header that names the first column first, with the row's
// totals and the p99 delay of each of its groups (their columns named by
// column from the first row's groups).
func writeTotals(w io.Writer, first string, rows []totalsRow, column func(string) string) error {
	var b strings.Builder
	wid := len(first)
	for _, r := range rows {
		wid = max(wid, len(r.label))
	}
	fmt.Fprintf(&b, "%-*s %8s %6s %6s %8s %8s %8s %8s %9s", wid, first, "sent", "drops", "marks", "p50 ms", "p95 ms", "p99 ms", "max ms", "Mbit/s")
	if len(rows) > 0 {
		for _, g := range rows[0].groups {
			fmt.Fprintf(&b, " %12s", column(g.Name)+" p99")
		}
	}
	b.WriteByte('\n')
	for _, r := range rows {
		g := r.total
		fmt.Fprintf(&b, "%-*s %8d %6d %6d %8.3f %8.3f %8.3f %8.3f %9.3f", wid, r.label,
			g.Sent, g.Drops, g.Marks, g.Delay.P50, g.Delay.P95, g.Delay.P99, g.Delay.Max, g.Throughput/1e6)
		for _, q := range r.groups {
			fmt.Fprintf(&b, " %12.3f", q.Delay.P99)
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func trunc(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
