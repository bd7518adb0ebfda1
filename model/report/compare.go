// SPDX-License-Identifier: Apache-2.0

package report

import (
	"io"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Comparison is one capture's reports under several configurations.
type Comparison struct {
	Rows []CompareRow `json:"rows"`
	// What Plot draws: each configuration's delays, all packets and the
	// packets of the classes other than TCP data, sorted.
	all, light [][]float64
}

// CompareRow is one configuration's totals and classes.
type CompareRow struct {
	Config  string  `json:"config"`
	Total   Group   `json:"total"`
	Queues  []Group `json:"queues"`
	Classes []Group `json:"classes"`
}

// Add appends the report of the configuration config (its words).
func (c *Comparison) Add(config string, r *Report) {
	c.Rows = append(c.Rows, CompareRow{Config: config, Total: r.Total, Queues: r.Queues, Classes: r.Classes})
	var all, light []float64
	for i, ds := range r.classDelays {
		all = append(all, ds...)
		if r.classPresent[i] != "TCP data" {
			light = append(light, ds...)
		}
	}
	slices.Sort(all)
	slices.Sort(light)
	c.all, c.light = append(c.all, all), append(c.light, light)
}

// WriteText writes one line per configuration: its totals, then the p99
// delay of each traffic class.
func (c *Comparison) WriteText(w io.Writer) error {
	rows := make([]totalsRow, len(c.Rows))
	for i, r := range c.Rows {
		rows[i] = totalsRow{r.Config, r.Total, r.Classes}
	}
	return writeTotals(w, "configuration", rows, func(name string) string { return name })
}

// Plot draws each configuration's delay distribution (CDF): of every
// packet above, of the packets other than TCP data (ACKs, UDP, ICMP:
// what waits behind the bulk) below; to path (.svg or .png).
func (c *Comparison) Plot(path string) error {
	var plots [][]*plot.Plot
	for _, panel := range []struct {
		title  string
		series [][]float64
	}{{"every packet", c.all}, {"packets other than TCP data (ACKs, UDP, ICMP)", c.light}} {
		p := plot.New()
		style(p)
		p.Title.Text = "queueing delay distribution (CDF): " + panel.title
		logDelay(&p.X, "queueing delay")
		p.Y.Label.Text = "fraction of delivered packets"
		p.Y.Min, p.Y.Max = 0, 1
		p.Legend.Left = true
		p.Legend.XOffs, p.Legend.YOffs = vg.Points(15), -vg.Points(15)
		for i, ds := range panel.series {
			if len(ds) == 0 {
				continue
			}
			l, err := plotter.NewLine(cdf(ds))
			if err != nil {
				return err
			}
			l.Color = plotutil.Color(i)
			l.Width = vg.Points(2)
			l.Dashes = plotutil.Dashes(i)
			p.Add(l)
			p.Legend.Add(c.Rows[i].Config, l)
		}
		p.Add(plotter.NewGrid())
		plots = append(plots, []*plot.Plot{p})
	}
	return save(path, plots, 1000)
}
