// SPDX-License-Identifier: Apache-2.0

package qdisc

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tckind"
)

// TestREDEval checks the RED arithmetic against values worked out from
// tc_red.c's formulas.
func TestREDEval(t *testing.T) {
	var notes bytes.Buffer
	for _, c := range []struct {
		qmin, burst, avpkt uint32
		want               int
	}{
		// a = burst + 1 - qmin/avpkt; the first wlog with a <= (1-(1-W)^burst)/W.
		{102400, 136, 1500, 7}, {33333, 55, 1000, 5}, {1000, 1, 1000, 1},
		{0, 0, 1000, -1},       // a zero burst never fits
		{102400, 10, 1500, -1}, // a < 1
		{0, 1 << 30, 1, -1},    // no weight up to 2^-31 averages that long a burst
	} {
		if got := redEvalEWMA(c.qmin, c.burst, c.avpkt, &notes); got != c.want {
			t.Errorf("ewma(%d, %d, %d) = %d, want %d", c.qmin, c.burst, c.avpkt, got, c.want)
		}
	}
	if want := "tc_red_eval_ewma() burst 10 is too small ? Try burst 69\n"; notes.String() != want {
		t.Errorf("note %q, want %q", notes.String(), want)
	}
	for _, c := range []struct {
		qmin, qmax uint32
		prob       float64
		want       int
	}{
		{102400, 307200, 0.02, 24}, {100, 100, 0.5, 0}, {200, 100, 0.5, -1}, {0, 1, 1, 1}, {0, 1, 0, -1},
		{0, 1 << 31, 0.5, -1}, // negative as tc's int
	} {
		if got := redEvalP(c.qmin, c.qmax, c.prob); got != c.want {
			t.Errorf("P(%d, %d, %g) = %d, want %d", c.qmin, c.qmax, c.prob, got, c.want)
		}
	}
	if got := redMaxP(1); got != 0 {
		t.Errorf("max_P of 1 is %d, want 0 (2^32 wraps)", got)
	}
	if got := redMaxP(0.02); got != 85899345 {
		t.Errorf("max_P of 0.02 is %d", got)
	}
}

// TestREDIdleDamping checks the table's shape: 0 first, 31 last, growing,
// capped at 31, and a cell that covers the decay in 512 cells.
func TestREDIdleDamping(t *testing.T) {
	useClock(t, testbedClock)
	clog, stab := redEvalIdleDamping(7, 1500, redDefaultBandwidth)
	if clog < 0 || len(stab) != redStabLen || stab[0] != 0 || stab[redStabLen-1] != 31 {
		t.Fatalf("clog %d, table %v", clog, stab)
	}
	for i := 1; i < redStabLen; i++ {
		if stab[i] < stab[i-1] || stab[i] > 31 {
			t.Fatalf("entry %d: %d after %d", i, stab[i], stab[i-1])
		}
	}
	if cInt32(math.NaN()) != math.MinInt32 || cInt32(1e10) != math.MinInt32 || cInt32(-2.5) != -2 {
		t.Error("cInt32 is not cvttsd2si")
	}
}

// TestREDKindsMatchKernelDumps holds what the parsers send against the
// kernel's dumps of the recorded scenarios: the kernel stores the RED
// parameters as given and dumps them back.
func TestREDKindsMatchKernelDumps(t *testing.T) {
	useClock(t, testbedClock)
	n := 0
	for _, c := range goldenSetups(t, "red", "qdisc") {
		o, err := parseRED(c.args, tckind.ParseEnv{})
		if err != nil {
			t.Errorf("red %q: %v", c.args, err)
			continue
		}
		k := c.msg.Attrs.Options.(*attrs.REDAttrs)
		// The kernel dumps the historic flags in the struct too, and
		// derives a max_P of its own from Plog when tc sends 0.
		sent := *o.Parms
		sent.Flags = uint8(o.Flags.Value & (redFlagECN | redFlagHarddrop | redFlagAdaptive))
		if sent != *k.Parms || (*o.MaxP != 0 && *o.MaxP != *k.MaxP) || o.Flags.Value != k.Flags.Value {
			t.Errorf("red %q: sent %+v %d %v, kernel %+v %d %v", c.args, *o.Parms, *o.MaxP, *o.Flags, *k.Parms, *k.MaxP, *k.Flags)
		}
		n++
	}
	for _, c := range goldenSetups(t, "choke", "qdisc") {
		o, err := parseChoke(c.args, tckind.ParseEnv{})
		if err != nil {
			t.Errorf("choke %q: %v", c.args, err)
			continue
		}
		k := c.msg.Attrs.Options.(*attrs.ChokeAttrs)
		if *o.Parms != *k.Parms || *o.MaxP != *k.MaxP {
			t.Errorf("choke %q: sent %+v %d, kernel %+v %d", c.args, *o.Parms, *o.MaxP, *k.Parms, *k.MaxP)
		}
		n++
	}
	for _, c := range goldenSetups(t, "sfb", "qdisc") {
		o, err := parseSFB(c.args)
		if err != nil {
			t.Errorf("sfb %q: %v", c.args, err)
			continue
		}
		k := c.msg.Attrs.Options.(*attrs.SFBAttrs)
		if o.Parms.Limit == 0 {
			o.Parms.Limit = k.Parms.Limit // the device's queue length
		}
		if *o.Parms != *k.Parms {
			t.Errorf("sfb %q: sent %+v, kernel %+v", c.args, *o.Parms, *k.Parms)
		}
		n++
	}
	for _, c := range goldenSetups(t, "sfq", "qdisc") {
		o, err := sfqOptions(c.args, tckind.ParseEnv{})
		if err != nil || o == nil {
			continue // the default sends nothing
		}
		k := c.msg.Attrs.Options.(*attrs.TCSFQQoptV1)
		// The kernel keeps redflowlimit as a flow's depth in bytes and
		// dumps no limit.
		if o.QthMin != k.QthMin || o.QthMax != k.QthMax || o.Wlog != k.Wlog ||
			o.Plog != k.Plog || o.MaxP != k.MaxP || o.Flags != k.Flags || o.Headdrop != k.Headdrop {
			t.Errorf("sfq %q: sent %+v, kernel %+v", c.args, *o, *k)
		}
		n++
	}
	if n < 8 {
		t.Errorf("only %d recorded RED-family qdiscs", n)
	}
}

// TestREDFamilyParseErrors checks tc's messages and exit codes for bad
// input, and the notes tc prints on the way.
func TestREDFamilyParseErrors(t *testing.T) {
	for _, c := range []struct {
		kind, args, msg string
		code            int
		usage           bool
	}{
		{"red", "limit 1M", "RED: Required parameter (limit, avpkt) is missing", 1, false},
		{"red", "limit x", `Illegal "limit"`, 1, false},
		{"red", "limit 1M avpkt 1500 foo", `What is "foo"?`, 1, true},
		{"red", "limit 1M avpkt", `Command line is not complete. Try option "help"`, 255, false},
		{"red", "help", "", 1, true},
		{"red", "limit 1M avpkt 1500 min 100K max 300K burst 1", "RED: failed to calculate EWMA constant.", 1, false},
		{"red", "limit 1M avpkt 1500 min 300K max 100K burst 300", "RED: failed to calculate probability.", 1, false},
		{"red", "limit 1M avpkt 1500 qevent bogus block 1", "Unknown qevent `bogus'", 1, false},
		{"red", "limit 1M avpkt 1500 qevent mark", `Command line is not complete. Try option "help"`, 255, false},
		{"red", "limit 1M avpkt 1500 qevent mark block 0", "Illegal qevent block index", 1, false},
		{"red", "limit 1M avpkt 1500 qevent mark foo", "Unspecified qevent block index", 1, false},
		{"red", "limit 1M avpkt 1500 qevent mark block 1 block 2", "Qevent block index already specified", 1, false},
		{"red", "limit 1M avpkt 1500 qevent mark block 1 qevent mark block 2", "Duplicate qevent", 1, false},
		{"choke", "limit 1000", "Required parameter (bandwidth, limit) is missing", 1, false},
		{"choke", "limit 1000 bandwidth 1mbit max 2000", `"max" is larger than "limit"`, 1, false},
		{"choke", "limit 1000 bandwidth 1mbit min 300 max 300", `"min" is not smaller than "max"`, 1, false},
		{"choke", "limit 1000 bandwidth z", `Illegal "bandwidth"`, 1, false},
		{"sfb", "help", `What is "help"?`, 1, true},
		{"sfb", "increment 2", `Illegal "increment"`, 1, false},
		{"sfb", "rehash", `Command line is not complete. Try option "help"`, 255, false},
		{"sfq", "limit 1", `Illegal "limit", must be > 1`, 1, false},
		{"sfq", "quantum y", `Illegal "limit"`, 1, false},
		{"sfq", "depth z", `Illegal "flows"`, 1, false},
		{"sfq", "ecn", "Required parameter (redflowlimit) is missing", 1, false},
		{"sfq", "redflowlimit 1000 max 2000", `"max" is larger than "limit"`, 1, false},
		{"sfq", "bandwidth 1mbit", `What is "bandwidth"?`, 1, true},
		{"gred", "", "", 1, true},
		{"gred", "limit 10k setup vqs 4 default 0", `Illegal "setup"`, 1, false},
		{"gred", "setup vqs 17 default 1", "GRED: only 16 VQs are currently supported", 1, false},
		{"gred", "setup default 1", `"default" must be defined after "vqs"`, 1, false},
		{"gred", "setup vqs 4 default 4", `"default" must be less than "vqs"`, 1, false},
		{"gred", "setup vqs 4", "Illegal gred setup parameters", 1, false},
		{"gred", "limit 60KB min 15K max 25K avpkt 1500", "Required parameter (vq, limit, min, max, avpkt) is missing", 1, false},
		{"gred", "vq 16", "GRED: only 16 VQs are currently supported", 1, false},
	} {
		_, err := tckind.LookupQdisc(c.kind).ParseQdisc(strings.Fields(c.args), tckind.ParseEnv{})
		var perr *tcword.ParseError
		if !errors.As(err, &perr) {
			t.Errorf("%s %q: %v, want a ParseError", c.kind, c.args, err)
			continue
		}
		if perr.Msg != c.msg || perr.ExitCode() != c.code || perr.ShowUsage != c.usage {
			t.Errorf("%s %q: %q (exit %d, usage %v), want %q (exit %d, usage %v)",
				c.kind, c.args, perr.Msg, perr.ExitCode(), perr.ShowUsage, c.msg, c.code, c.usage)
		}
	}
}

// TestREDFamilyNotes checks what tc prints on stderr while it fills in
// defaults, and the options the defaults give.
func TestREDFamilyNotes(t *testing.T) {
	useClock(t, testbedClock)
	var notes bytes.Buffer
	o, err := parseRED(strings.Fields("limit 400000 avpkt 1000"), tckind.ParseEnv{Stderr: &notes})
	if err != nil {
		t.Fatal(err)
	}
	if q := o.Parms; q.QthMax != 100000 || q.QthMin != 33333 || notes.String() != "RED: set bandwidth to 10Mbit\n" {
		t.Errorf("red defaults: %+v, notes %q", *q, notes.String())
	}
	if o.Flags.Selector != redSupportedFlags || len(o.Stab) != redStabLen {
		t.Errorf("red flags %v, table of %d", *o.Flags, len(o.Stab))
	}
	notes.Reset()
	g, err := parseGRED(strings.Fields("vq 1 limit 60KB min 15K max 25K avpkt 1500"), tckind.ParseEnv{Stderr: &notes})
	if err != nil {
		t.Fatal(err)
	}
	if want := "GRED: set burst to 12\nGRED: set bandwidth to 10Mbit\n"; notes.String() != want {
		t.Errorf("gred notes %q, want %q", notes.String(), want)
	}
	if len(g.Parms) != attrs.TCGREDQoptLen || len(g.MaxP) != 1 || g.VqList == nil || *g.VqList.Entry[0].Dp != 1 {
		t.Errorf("gred queue options %+v", g)
	}
	s, err := sfqOptions(nil, tckind.ParseEnv{})
	if s != nil || err != nil {
		t.Errorf("sfq without keywords: %v %v, want no options", s, err)
	}
	b, err := parseSFB(nil)
	if err != nil || b.Parms.Max != 25 || b.Parms.BinSize != 20 || b.Parms.Increment != 33 || b.Parms.Decrement != 3 {
		t.Errorf("sfb defaults: %+v %v", b.Parms, err)
	}
}
