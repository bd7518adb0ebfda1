// SPDX-License-Identifier: Apache-2.0

package action

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// TestParsePolice: words to the police nest, as m_police.c builds it.
func TestParsePolice(t *testing.T) {
	u32 := func(v uint32) *uint32 { return &v }
	u64 := func(v uint64) *uint64 { return &v }
	for _, c := range []struct {
		args string
		// check looks at what the case is about.
		check func(o *attrs.ActPoliceAttrs) string
		rest  string
	}{
		{"rate 1mbit burst 10k drop", func(o *attrs.ActPoliceAttrs) string {
			p := o.TBF
			if p.Action != actShot || p.Rate.Rate != 125000 || p.Burst != tcword.XmitTime(125000, 10240) || p.Rate.CellLog != 3 ||
				p.Rate.Linklayer != tcword.LinklayerEthernet || len(o.Rate) != 4*tcword.RtabEntries || o.Peakrate != nil || o.Result != nil {
				return "rate and burst"
			}
			return ""
		}, ""},
		{"rate 40gbit burst 100m peakrate 80gbit mtu 64k", func(o *attrs.ActPoliceAttrs) string {
			if o.TBF.Rate.Rate != 1<<32-1 || !cmp.Equal(o.Rate64, u64(5000000000)) || !cmp.Equal(o.Peakrate64, u64(10000000000)) ||
				o.TBF.Mtu != 65536 || len(o.Peakrate) != 4*tcword.RtabEntries || o.TBF.Burst != tcword.XmitTime(5000000000, 100<<20) {
				return "64-bit rates"
			}
			return ""
		}, ""},
		{"pkts_rate 1000 pkts_burst 200 index 4", func(o *attrs.ActPoliceAttrs) string {
			if !cmp.Equal(o.Pktrate64, u64(1000)) || !cmp.Equal(o.Pktburst64, u64(uint64(tcword.XmitTime(1000, 200)))) || o.TBF.Index != 4 || o.Rate != nil {
				return "packet rate"
			}
			return ""
		}, ""},
		{"rate 1mbit burst 10k conform-exceed drop/pipe flowid 1:1", func(o *attrs.ActPoliceAttrs) string {
			if o.TBF.Action != actShot || !cmp.Equal(o.Result, u32(actPipe)) {
				return "conform-exceed in one word"
			}
			return ""
		}, "flowid 1:1"},
		{"rate 1mbit burst 10k conform-exceed goto chain 5 / pass", func(o *attrs.ActPoliceAttrs) string {
			if o.TBF.Action != actGotoChain|5 || o.Result != nil {
				return "conform-exceed in words (pass is 0, not sent)"
			}
			return ""
		}, ""},
		{"rate 1mbit burst 10k conform-exceed 2/3", func(o *attrs.ActPoliceAttrs) string {
			if o.TBF.Action != 2 || !cmp.Equal(o.Result, u32(3)) {
				return "numeric verdicts"
			}
			return ""
		}, ""},
		{"avrate 1mbit", func(o *attrs.ActPoliceAttrs) string {
			if !cmp.Equal(o.Avrate, u32(125000)) || o.TBF.Action != actReclassify {
				return "avrate"
			}
			return ""
		}, ""},
		{"rate 1mbit burst 10k/8 mpu 64 overhead 4 linklayer atm action drop", func(o *attrs.ActPoliceAttrs) string {
			r := o.TBF.Rate
			if r.CellLog != 3 || r.MPU != 64 || r.Overhead != 4 || r.Linklayer != tcword.LinklayerATM {
				return "ratespec fields"
			}
			return ""
		}, "action drop"},
	} {
		o, rest, err := parsePolice(strings.Fields(c.args))
		if err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		if what := c.check(o); what != "" {
			t.Errorf("%q: wrong %s: %+v", c.args, what, o)
		}
		if got := strings.Join(rest, " "); got != c.rest {
			t.Errorf("%q: rest %q, want %q", c.args, got, c.rest)
		}
	}
}

// TestParsePoliceErrors: tc's refusals, as an action and as a filter
// option.
func TestParsePoliceErrors(t *testing.T) {
	const tail = "\nbad action parsing\nparse_action: bad value (%s)!\nIllegal \"action\""
	for _, c := range []struct {
		args, action, filter string
		code                 int
	}{
		{"", `Command line is not complete. Try option "help"`, "", 255},
		{"rate 1mbit", "'burst' requires 'rate'.", "'burst' requires 'rate'.\nIllegal \"police\"", 1},
		{"foo", "", "Illegal \"police\"", 1},
		{"rate 1mbit burst 10k avrate 1mbit", "", "Illegal \"police\"", 1},
		{"rate 1mbit burst 10k pkts_rate 10 pkts_burst 1", "'rate' and 'pkts_rate' are not allowed in same action.", "", 1},
		{"pkts_rate 10", "'pkts_burst' requires 'pkts_rate'.", "", 1},
		{"peakrate 2mbit", "'rate' or 'avrate' or 'mtu' or 'pkts_rate' MUST be specified.", "", 1},
		{"rate 1mbit burst 10k peakrate 2mbit", "'mtu' is required, if 'peakrate' is requested.", "", 1},
		{"mtu 2k peakrate 2mbit", "'peakrate' requires 'rate'.", "", 1},
		{"rate 1mbit rate 2mbit", `Error: duplicate "rate": "2mbit" is the second value.`, "", 255},
		{"index x", `Error: argument "x" is wrong: index`, "", 255},
		{"rate 1mbit burst 10k/3", `Error: argument "10k/3" is wrong: buffer`, "", 255},
		{"rate 1mbit burst 10k conform-exceed drop/foo", "", "", 1},
		{"rate 1mbit burst 10k conform-exceed foo", "Bad action type foo", "", 1},
		{"rate 1mbit burst 10k goto foo", `"chain index" expected`, "", 1},
		{"rate 1mbit burst 10k conform-exceed", `Command line is not complete. Try option "help"`, "", 255},
	} {
		args := append([]string{"police"}, strings.Fields(c.args)...)
		_, _, err := ParseActions(args, tckind.ActionEnv{})
		want := c.action
		if c.code == 1 {
			want = strings.TrimPrefix(c.action+strings.Replace(tail, "%s", strconv.Itoa(len(args))+":police", 1), "\n")
		}
		pe, ok := err.(*tcword.ParseError)
		if !ok || pe.Msg != want || pe.ExitCode() != c.code {
			t.Errorf("action %q: %v, want %q (exit %d)", c.args, err, want, c.code)
		}
		if c.filter == "" {
			continue
		}
		_, _, err = ParseFilterPolice(args)
		if pe, ok := err.(*tcword.ParseError); !ok || pe.Msg != c.filter || pe.ExitCode() != 1 {
			t.Errorf("filter %q: %v, want %q", c.args, err, c.filter)
		}
	}
}

// TestPrintPolice: an action as "tc actions list" prints it, in text with
// -s and in JSON, with the kernel's dump (mtu 2040 from the rate table).
func TestPrintPolice(t *testing.T) {
	o, _, err := parsePolice(strings.Fields("rate 1mbit burst 10k conform-exceed drop/pipe index 2"))
	if err != nil {
		t.Fatal(err)
	}
	o.TBF.Mtu, o.TBF.Refcnt = 2040, 1
	o.Tm = &attrs.TCFT{Install: 300}
	act := attrs.ActAttrs{Kind: new("police"), Options: o}
	for _, c := range []struct {
		opts tcfmt.Options
		want string
	}{
		{tcfmt.Options{Stats: true}, "\n\taction order 0:  police 0x2 rate 1Mbit burst 10Kb mtu 2Kb action drop/pipe overhead 0b \n\tref 1 bind 0  installed 3 sec used 0 sec\n"},
		{tcfmt.Options{JSON: true}, `[{"actions":[{"order":0,"kind":"police","index":2,"control_action":{"type":"drop"},"control_action":{"type":"pipe"},"overhead":0,"ref":1,"bind":0}]}]`},
	} {
		var b bytes.Buffer
		p := tcfmt.NewPrinter(&b, c.opts)
		p.Start()
		p.OpenObject("")
		PrintActions(p, []attrs.ActAttrs{act}, ActionPrint{Stats: c.opts.Stats})
		p.CloseObject()
		if err := p.Finish(); err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSuffix(b.String(), "\n"); got != strings.TrimSuffix(c.want, "\n") {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
}

// FuzzParseActionsPoliceEtc: any words after police, simple, skbedit or
// csum give options or a ParseError, never a panic, and the rest is a
// tail of the words.
func FuzzParseActionsPoliceEtc(f *testing.F) {
	for _, s := range []string{
		"police\x00rate\x001mbit\x00burst\x0010k", "police\x00conform-exceed\x00drop\x00/\x00pipe", "police\x00conform-exceed\x00536870912",
		"police\x00pkts_rate\x001\x00pkts_burst\x001", "simple\x00sdata\x00x", "skbedit\x00mark\x001/2", "csum\x00index\x001", "csum\x00tcp\x00goto",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		args := strings.Split(s, "\x00")
		acts, rest, err := ParseActions(args, tckind.ActionEnv{})
		if err != nil {
			if _, ok := err.(*tcword.ParseError); !ok {
				t.Fatalf("%q: error %v is not a ParseError", args, err)
			}
			return
		}
		if len(rest) > len(args) || !slices.Equal(rest, args[len(args)-len(rest):]) {
			t.Fatalf("%q: rest %q is not a tail of the words", args, rest)
		}
		for _, a := range acts {
			e := attrs.NewEncoder(nil)
			a.Encode(e)
		}
	})
}
