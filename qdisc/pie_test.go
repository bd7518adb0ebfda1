// SPDX-License-Identifier: Apache-2.0

package qdisc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// optionBytes is the TCA_OPTIONS payload gotc sends for o.
func optionBytes(o interface{ Encode(*attrs.Encoder) }) []byte {
	e := attrs.NewEncoder(nil)
	o.Encode(e)
	return bytes.Clone(e.Bytes())
}

// wantParseError checks that err is tc's refusal: msg, whether the usage
// follows, and the exit status.
func wantParseError(t *testing.T, args string, err error, msg string, usage bool, code int) {
	t.Helper()
	var pe *tcword.ParseError
	if !errors.As(err, &pe) {
		t.Errorf("%q: error %v, want a ParseError", args, err)
		return
	}
	if pe.Msg != msg || pe.ShowUsage != usage || pe.ExitCode() != code {
		t.Errorf("%q: got (%q, usage %v, exit %d), want (%q, %v, %d)", args, pe.Msg, pe.ShowUsage, pe.ExitCode(), msg, usage, code)
	}
}

// TestParsePIEBytes checks the payload against what tc's pie_parse_opt
// writes: limit, tupdate, target, alpha, beta, then the switches; zeros
// left out.
func TestParsePIEBytes(t *testing.T) {
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	for _, tc := range []struct {
		args string
		want []byte
	}{
		{"", nil},
		{"limit 0 target 0 alpha 0", nil},
		{"limit 0x10", tcU32(attrs.TCAPIELimit, 16)},
		{"target 15ms tupdate 1s", cat(tcU32(attrs.TCAPIETupdate, 1000000), tcU32(attrs.TCAPIETarget, 15000))},
		{"alpha 32 beta 1", cat(tcU32(attrs.TCAPIEAlpha, 32), tcU32(attrs.TCAPIEBeta, 1))},
		{"noecn bytemode no_dq_rate_estimator", cat(tcU32(attrs.TCAPIEECN, 0), tcU32(attrs.TCAPIEBytemode, 1),
			tcU32(attrs.TCAPIEDQRateEstimator, 0))},
		{"ecn noecn ecn", tcU32(attrs.TCAPIEECN, 1)},
		{"dq_rate_estimator limit 5", cat(tcU32(attrs.TCAPIELimit, 5), tcU32(attrs.TCAPIEDQRateEstimator, 1))},
	} {
		o, err := parsePIE(strings.Fields(tc.args))
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		if got := optionBytes(o); !bytes.Equal(got, tc.want) {
			t.Errorf("%q: got %x, want %x", tc.args, got, tc.want)
		}
	}
}

func TestParseFQPIEBytes(t *testing.T) {
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	for _, tc := range []struct {
		args string
		want []byte
	}{
		{"", nil},
		{"ecn_prob 0 quantum 0 flows 0", nil},
		{"quantum 1k memory_limit 4Mb", cat(tcU32(attrs.TCAFQPIEQuantum, 1024), tcU32(attrs.TCAFQPIEMemoryLimit, 4<<20))},
		{"ecn bytemode flows 256 limit 10 ecn_prob 99 target 1ms", cat(tcU32(attrs.TCAFQPIELimit, 10),
			tcU32(attrs.TCAFQPIEFlows, 256), tcU32(attrs.TCAFQPIETarget, 1000), tcU32(attrs.TCAFQPIEECNProb, 99),
			tcU32(attrs.TCAFQPIEECN, 1), tcU32(attrs.TCAFQPIEBytemode, 1))},
	} {
		o, err := parseFQPIE(strings.Fields(tc.args))
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		if got := optionBytes(o); !bytes.Equal(got, tc.want) {
			t.Errorf("%q: got %x, want %x", tc.args, got, tc.want)
		}
	}
}

func TestParsePIEErrors(t *testing.T) {
	incomplete := `Command line is not complete. Try option "help"`
	for _, tc := range []struct {
		fqPIE     bool
		args, msg string
		usage     bool
		code      int
	}{
		{false, "limit", incomplete, false, 255},
		{false, "alpha 33", `Illegal "alpha"`, false, 1},
		{false, "beta -1", `Illegal "beta"`, false, 1},
		{false, "tupdate 5parsecs", `Illegal "tupdate"`, false, 1},
		{false, "flows 3", `What is "flows"?`, true, 1},
		{false, "help", "", true, 1},
		{true, "ecn_prob 100", `Illegal "ecn_prob"`, false, 1},
		{true, "quantum x", `Illegal "quantum"`, false, 1},
		{true, "memory_limit 5Tb", `Illegal "memory_limit"`, false, 1},
		{true, "alpha 33", `Illegal "alpha"`, false, 1},
		{true, "flows", incomplete, false, 255},
		{true, "flow 3", `What is "flow"?`, true, 1},
	} {
		var err error
		if tc.fqPIE {
			_, err = parseFQPIE(strings.Fields(tc.args))
		} else {
			_, err = parsePIE(strings.Fields(tc.args))
		}
		wantParseError(t, tc.args, err, tc.msg, tc.usage, tc.code)
	}
}

func TestPrintPIEOptions(t *testing.T) {
	u := func(v uint32) *uint32 { return &v }
	def := &attrs.PIEAttrs{Target: u(15000), Limit: u(1000), Tupdate: u(15000), Alpha: u(2), Beta: u(20),
		ECN: u(0), Bytemode: u(0), DQRateEstimator: u(0)}
	if got, want := printWith(tcfmt.Options{}, func(p *tcfmt.Printer) { printPIEOptions(p, def) }),
		"limit 1000p target 15ms tupdate 15ms alpha 2 beta 20 "; got != want {
		t.Errorf("defaults: got %q, want %q", got, want)
	}
	def.ECN, def.DQRateEstimator = u(1), u(1)
	if got, want := printWith(tcfmt.Options{JSON: true}, func(p *tcfmt.Printer) { printPIEOptions(p, def) }),
		`{"limit":1000,"target":15000,"tupdate":15000,"alpha":2,"beta":20,"ecn":true,"dq_rate_estimator":true}`+"\n"; got != want {
		t.Errorf("JSON: got %q, want %q", got, want)
	}
	fq := &attrs.FQPIEAttrs{Limit: u(10240), Flows: u(1024), Target: u(15000), Tupdate: u(15000), Alpha: u(2),
		Beta: u(20), Quantum: u(1514), MemoryLimit: u(32 << 20), ECNProb: u(10), ECN: u(0), Bytemode: u(1),
		DQRateEstimator: u(0)}
	if got, want := printWith(tcfmt.Options{}, func(p *tcfmt.Printer) { printFQPIEOptions(p, fq) }),
		"limit 10240p flows 1024 target 15ms tupdate 15ms alpha 2 beta 20 quantum 1514b memory_limit 32Mb ecn_prob 10 bytemode "; got != want {
		t.Errorf("fq_pie: got %q, want %q", got, want)
	}
}

func u32s(words ...uint32) []byte {
	var b []byte
	for _, w := range words {
		b = binary.NativeEndian.AppendUint32(b, w)
	}
	return b
}

func TestPrintPIEXstats(t *testing.T) {
	k := tckind.LookupQdisc("pie")
	half := binary.NativeEndian.AppendUint64(nil, 1<<63)
	for _, tc := range []struct {
		name       string
		payload    []byte
		text, json string
	}{
		{"idle", append(make([]byte, 8), u32s(0, 0, 0, 0, 0, 0, 0, 0)...),
			"  prob 0 delay 0us\n  pkts_in 0 overlimit 0 dropped 0 maxq 0 ecn_mark 0",
			`{"prob":0,"delay":0,"pkts_in":0,"overlimit":0,"dropped":0,"maxq":0,"ecn_mark":0}` + "\n"},
		{"estimating", append(half, u32s(2500, 125000, 1, 10, 2, 3, 4, 5)...),
			"  prob 0.5 delay 2.5ms avg_dq_rate 125000\n  pkts_in 10 overlimit 3 dropped 2 maxq 4 ecn_mark 5",
			`{"prob":0.5,"delay":2500,"avg_dq_rate":125000,"pkts_in":10,"overlimit":3,"dropped":2,"maxq":4,"ecn_mark":5}` + "\n"},
		// tc prints nothing of a payload shorter than the struct.
		{"short", u32s(1, 2, 3), "", "{}\n"},
	} {
		x := tckind.Xstats{App: attrs.DecodeStatsAppMsg("pie", tc.payload)}
		if got := printWith(tcfmt.Options{}, func(p *tcfmt.Printer) { k.PrintXstats(p, x) }); got != tc.text {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.text)
		}
		if got := printWith(tcfmt.Options{JSON: true}, func(p *tcfmt.Printer) { k.PrintXstats(p, x) }); got != tc.json {
			t.Errorf("%s, JSON: got %q, want %q", tc.name, got, tc.json)
		}
	}
}

func TestPrintFQPIEXstats(t *testing.T) {
	k := tckind.LookupQdisc("fq_pie")
	x := tckind.Xstats{Legacy: attrs.DecodeTCXstatsMsg("fq_pie", u32s(1, 2, 3, 4, 5, 6, 7, 8, 9))}
	if got, want := printWith(tcfmt.Options{}, func(p *tcfmt.Printer) { k.PrintXstats(p, x) }),
		"  pkts_in 1 overlimit 3 overmemory 4 dropped 2 ecn_mark 5\n  new_flow_count 6 new_flows_len 7 old_flows_len 8 memory_used 9"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// A short payload is zero-filled.
	x = tckind.Xstats{App: attrs.DecodeStatsAppMsg("fq_pie", u32s(1))}
	if got, want := printWith(tcfmt.Options{}, func(p *tcfmt.Printer) { k.PrintXstats(p, x) }),
		"  pkts_in 1 overlimit 0 overmemory 0 dropped 0 ecn_mark 0\n  new_flow_count 0 new_flows_len 0 old_flows_len 0 memory_used 0"; got != want {
		t.Errorf("short: got %q, want %q", got, want)
	}
}

// TestPIEStatsTablesMatchPrintedJSON holds pie's, fq_pie's and hhf's
// tables against what their -s -j prints.
func TestPIEStatsTablesMatchPrintedJSON(t *testing.T) {
	pie := append(binary.NativeEndian.AppendUint64(nil, 1<<62), u32s(2500, 125000, 1, 10, 2, 3, 4, 5)...)
	for _, tc := range []struct {
		kind    string
		payload []byte
	}{
		{"pie", pie},
		{"fq_pie", u32s(1, 2, 3, 4, 5, 6, 7, 8, 9)},
		{"hhf", u32s(1, 2, 3, 4)},
	} {
		k := tckind.LookupQdisc(tc.kind)
		x := tckind.Xstats{App: attrs.DecodeStatsAppMsg(tc.kind, tc.payload)}
		got := printedJSON(t, k, x)
		s := k.Stats.Of(x)
		if s == nil {
			t.Fatalf("%s: Of found no statistics", tc.kind)
		}
		if len(got) != len(k.Stats.Fields) {
			t.Errorf("%s: tc prints %d members, the table has %d", tc.kind, len(got), len(k.Stats.Fields))
		}
		for i := range k.Stats.Fields {
			f := &k.Stats.Fields[i]
			raw, ok := f.Get(s)
			want := float64(raw)
			if f.Unit == tckind.UnitProbability64 {
				want = f.Value(raw)
			}
			if v, present := got[f.Key].(float64); !ok || !present || math.Abs(v-want) > 1e-9 {
				t.Errorf("%s %s: table %v (%v), printed %v", tc.kind, f.Key, want, ok, got[f.Key])
			}
		}
	}
}
