// SPDX-License-Identifier: Apache-2.0

package qdisc

import (
	"errors"
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tckind"
)

// TestTBFMatchesKernelDumps parses every recorded tbf qdisc as gotc and
// compares what it would send with the kernel's dump of tc's request:
// limit (derived from latency where given), rates and bucket times.
func TestTBFMatchesKernelDumps(t *testing.T) {
	useClock(t, testbedClock)
	cases := goldenSetups(t, "tbf", "qdisc")
	if len(cases) < 5 {
		t.Fatalf("only %d recorded tbf qdiscs", len(cases))
	}
	for _, c := range cases {
		o, err := parseTBF(c.args, tckind.ParseEnv{})
		if err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		k := c.msg.Attrs.Options.(*attrs.TBFAttrs)
		g, w := *o.Parms, *k.Parms
		// The kernel dumps no cell size, and derives the bucket's time
		// from TCA_TBF_BURST (at the 64-bit rate, with the link layer's
		// overhead) rather than keep tc's.
		g.Rate.CellLog, g.Rate.CellAlign, g.Peakrate.CellLog, g.Peakrate.CellAlign = 0, 0, 0, 0
		g.Buffer, w.Buffer = 0, 0
		if g != w {
			t.Errorf("%q:\n sent %+v\n kernel %+v", c.args, g, w)
		}
		if o.Burst == nil || len(o.Rtab) != 1024 || (o.Rate64 == nil) != (k.Rate64 == nil) {
			t.Errorf("%q: burst %v, rtab of %d bytes, rate64 %v (kernel %v)", c.args, o.Burst, len(o.Rtab), o.Rate64, k.Rate64)
		}
	}
}

// TestTBFErrors checks tc's messages and exit statuses for bad input.
func TestTBFErrors(t *testing.T) {
	for _, c := range []struct {
		args  []string
		msg   string
		usage bool
		code  int
	}{
		{nil, "tbf: the \"rate\" parameter is mandatory.\ntbf: the \"burst\" parameter is mandatory.\ntbf: either \"limit\" or \"latency\" is required.", true, 1},
		{[]string{"rate", "1mbit", "burst", "10k", "limit", "1k", "peakrate", "2mbit"}, `tbf: when "peakrate" is specified, "mtu" must also be specified.`, true, 1},
		{[]string{"limit", "1k", "latency", "5ms"}, `tbf: specifying both "limit" and "/latency" is not allowed`, false, 1},
		{[]string{"latency", "5ms", "limit", "1k"}, `tbf: specifying both "latency" and "limit" is not allowed`, false, 1},
		{[]string{"rate", "1mbit", "rate", "2mbit"}, `tbf: duplicate "rate" specification`, false, 1},
		{[]string{"burst", "1k", "buffer", "2k"}, `tbf: duplicate "buffer/burst/maxburst" specification`, false, 1},
		{[]string{"burst", "10k/3"}, `tbf: illegal value for "burst": "10k/3"`, false, 1},
		{[]string{"burst", "10k/y"}, `tbf: illegal value for "burst": "10k"`, false, 1},
		{[]string{"rate", "x"}, `tbf: illegal value for "rate": "x"`, false, 1},
		{[]string{"rate", "8bit", "burst", "100mb", "limit", "1k"}, `tbf: burst out of range`, false, 1},
		{[]string{"nosuch"}, `tbf: unknown parameter "nosuch"`, true, 1},
		{[]string{"help"}, ``, true, 1},
		{[]string{"rate"}, `Command line is not complete. Try option "help"`, false, 255},
	} {
		_, err := parseTBF(c.args, tckind.ParseEnv{})
		var pe *tcword.ParseError
		if !errors.As(err, &pe) || pe.Msg != c.msg || pe.ShowUsage != c.usage || pe.ExitCode() != c.code {
			t.Errorf("%q: %#v, want %q usage %v exit %d", c.args, err, c.msg, c.usage, c.code)
		}
	}
}

// TestTbfRestoringFindsTheBurst: the smallest burst the kernel keeps as a
// dumped bucket, found by a search over sizes whose 32-bit ticks wrap far
// above (it wrote 2147486648 for a burst of 3000 at 100kbit before).
func TestTbfRestoringFindsTheBurst(t *testing.T) {
	opts, err := parseTBF(strings.Fields("rate 100kbit burst 3000 limit 5000"), tckind.ParseEnv{})
	if err != nil {
		t.Fatal(err)
	}
	dumped := tbfDumped(opts).(*attrs.TBFAttrs)
	words, err := tbfKeywords(tbfRestoring(dumped).(*attrs.TBFAttrs))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(words, " "); got != "rate 100kbit burst 3000 limit 5000" {
		t.Errorf("words %q", got)
	}
}
