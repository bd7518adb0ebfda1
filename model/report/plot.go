// SPDX-License-Identifier: Apache-2.0

package report

import (
	"fmt"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Plots are 800 points wide, drawn at 72 dpi: 800 pixels in a PNG.
const (
	plotWidth = 800
	plotDPI   = 72
	// maxPoints bounds the points a delay-over-time series draws (every
	// n-th packet beyond it): a picture of a million dots is a blot.
	maxPoints = 20000
	// floorMS is where the delay axes (logarithmic, so that a voice tin's
	// 0.1 ms shows beside a bulk tin's 100 ms) start: shorter delays are
	// drawn at it.
	floorMS = 0.01
)

// logDelay makes ax a logarithmic delay axis from floorMS.
func logDelay(ax *plot.Axis, label string) {
	ax.Label.Text = label + " (ms, log scale)"
	ax.Scale = plot.LogScale{}
	ax.Tick.Marker = plot.LogTicks{Prec: -1}
	ax.Min = floorMS
}

// style sets a plot's fonts to sizes that stay readable at 800 pixels.
func style(p *plot.Plot) {
	p.Title.TextStyle.Font.Size = vg.Points(15)
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle.Font.Size = vg.Points(13)
		ax.Tick.Label.Font.Size = vg.Points(11)
	}
	p.Legend.TextStyle.Font.Size = vg.Points(12)
	p.Legend.ThumbnailWidth = vg.Points(30)
	p.Legend.Top = true
}

// Plot draws the report to path (.svg or .png): the queueing delay of
// every delivered packet over time, one colour per queue, above the delay
// CDF of each traffic class.
func (r *Report) Plot(path string) error {
	top := plot.New()
	style(top)
	top.Title.Text = r.Kind + ": queueing delay of each packet over time, by queue"
	top.X.Label.Text = "time since the first packet (s)"
	logDelay(&top.Y, "queueing delay")
	for i, pts := range r.queueSeries {
		if len(pts) == 0 {
			continue
		}
		step := (len(pts) + maxPoints - 1) / maxPoints
		xy := make(plotter.XYs, 0, len(pts)/step+1)
		for j := 0; j < len(pts); j += step {
			xy = append(xy, plotter.XY{X: pts[j].T, Y: max(pts[j].Delay, floorMS)})
		}
		s, err := plotter.NewScatter(xy)
		if err != nil {
			return err
		}
		s.GlyphStyle.Color = plotutil.Color(i)
		s.GlyphStyle.Radius = vg.Points(2)
		s.GlyphStyle.Shape = draw.CircleGlyph{}
		top.Add(s)
		top.Legend.Add(r.Queues[i].Name, s)
	}
	top.Add(plotter.NewGrid())

	bottom := plot.New()
	style(bottom)
	bottom.Title.Text = r.Kind + ": distribution (CDF) of the queueing delay, by traffic class"
	logDelay(&bottom.X, "queueing delay")
	bottom.Y.Label.Text = "fraction of delivered packets"
	bottom.Y.Min, bottom.Y.Max = 0, 1
	bottom.Legend.Left = true
	for i, ds := range r.classDelays {
		if len(ds) == 0 {
			continue
		}
		l, err := plotter.NewLine(cdf(ds))
		if err != nil {
			return err
		}
		l.Color = plotutil.Color(i + 3)
		l.Width = vg.Points(2)
		l.Dashes = plotutil.Dashes(i)
		bottom.Add(l)
		bottom.Legend.Add(r.classPresent[i], l)
	}
	bottom.Add(plotter.NewGrid())
	return save(path, [][]*plot.Plot{{top}, {bottom}}, 1000)
}

// cdf returns the empirical CDF of sorted values as a step line, thinned
// to at most maxPoints steps.
func cdf(sorted []float64) plotter.XYs {
	n := len(sorted)
	step := (n + maxPoints - 1) / maxPoints
	xy := plotter.XYs{{X: floorMS, Y: 0}}
	for i := 0; i < n; i += step {
		xy = append(xy, plotter.XY{X: max(sorted[i], floorMS), Y: float64(i) / float64(n)})
	}
	return append(xy, plotter.XY{X: max(sorted[n-1], floorMS), Y: 1})
}

// Plot draws the sweep's metric (one of Metrics) against the parameter,
// the total and each queue, to path (.svg or .png).
func (s *Sweep) Plot(path, metric string) error {
	if len(s.Rows) == 0 {
		return fmt.Errorf("plot: an empty sweep")
	}
	_, ylabel, err := Metric(s.Rows[0].Total, metric)
	if err != nil {
		return err
	}
	p := plot.New()
	style(p)
	p.Title.Text = fmt.Sprintf("%s: %s against %s", s.Kind, ylabel, s.Param)
	p.X.Label.Text = s.Param
	if s.Unit != "" {
		p.X.Label.Text += " (" + s.Unit + ")"
	}
	delay := strings.HasSuffix(ylabel, " (ms)")
	if delay {
		logDelay(&p.Y, strings.TrimSuffix(ylabel, " (ms)"))
	} else {
		p.Y.Label.Text = ylabel
		p.Y.Min = 0
	}
	series := []struct {
		name string
		get  func(r Row) Group
	}{{"total", func(r Row) Group { return r.Total }}}
	for i, q := range s.Rows[0].Queues {
		if !slices.ContainsFunc(s.Rows, func(r Row) bool { return r.Queues[i].Packets > 0 }) {
			continue // an unused tin
		}
		series = append(series, struct {
			name string
			get  func(r Row) Group
		}{q.Name, func(r Row) Group { return r.Queues[i] }})
	}
	for i, se := range series {
		xy := make(plotter.XYs, len(s.Rows))
		for j, r := range s.Rows {
			v, _, _ := Metric(se.get(r), metric)
			if delay {
				v = max(v, floorMS)
			}
			xy[j] = plotter.XY{X: r.X, Y: v}
		}
		l, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			return err
		}
		l.Color, pts.Color = plotutil.Color(i), plotutil.Color(i)
		l.Width = vg.Points(2)
		if i == 0 {
			// The total, under the queues: wide and pale.
			l.Width = vg.Points(6)
			l.Color = color.Gray{Y: 190}
		}
		pts.Shape = plotutil.Shape(i)
		p.Add(l, pts)
		p.Legend.Add(se.name, l, pts)
	}
	p.Add(plotter.NewGrid())
	return save(path, [][]*plot.Plot{{p}}, 560)
}

// save draws plots (rows of columns) on a canvas plotWidth wide and
// height high, in the format path's extension names.
func save(path string, plots [][]*plot.Plot, height int) error {
	w, h := vg.Length(plotWidth), vg.Length(height)
	var (
		c  draw.Canvas
		wr io.WriterTo
	)
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".png":
		img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(plotDPI), vgimg.UseBackgroundColor(color.White))
		c, wr = draw.New(img), vgimg.PngCanvas{Canvas: img}
	case ".svg":
		img := vgsvg.New(w, h)
		c, wr = draw.New(img), img
	default:
		return fmt.Errorf("plot %s: .svg or .png expected", path)
	}
	tiles := draw.Tiles{Rows: len(plots), Cols: len(plots[0]), PadX: vg.Points(20), PadY: vg.Points(30),
		PadTop: vg.Points(10), PadBottom: vg.Points(10), PadLeft: vg.Points(10), PadRight: vg.Points(20)}
	canvases := plot.Align(plots, tiles, c)
	for i := range plots {
		for j := range plots[i] {
			plots[i][j].Draw(canvases[i][j])
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := wr.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
