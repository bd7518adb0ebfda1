// SPDX-License-Identifier: Apache-2.0

package qdisc

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/kindtest"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// checkParseError holds err to tc's message, usage and exit status.
func checkParseError(t *testing.T, args string, err error, msg string, usage bool, code int) {
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

// TestParseMQPrio checks the struct and attributes tc's mqprio_parse_opt
// builds.
func TestParseMQPrio(t *testing.T) {
	u16 := func(v uint16) *uint16 { return &v }
	for _, tc := range []struct {
		args string
		want func(o *attrs.TCOptionsMsgMQPrio)
	}{
		{"", func(*attrs.TCOptionsMsgMQPrio) {}},
		{"num_tc 2 map 0 1 queues 2@0 2@2 hw 0", func(o *attrs.TCOptionsMsgMQPrio) {
			o.Header.NumTC, o.Header.HW = 2, 0
			o.Header.PrioTCMap = [16]byte{0, 1}
			o.Header.Count[0], o.Header.Count[1], o.Header.Offset[1] = 2, 2, 2
		}},
		// strtok: '@'s in a row are one, a third field is ignored.
		{"queues 1@@3 4@5@6", func(o *attrs.TCOptionsMsgMQPrio) {
			o.Header.Count[0], o.Header.Offset[0], o.Header.Count[1], o.Header.Offset[1] = 1, 3, 4, 5
		}},
		{"mode channel shaper bw_rlimit min_rate 1mbit 2mbit max_rate 8bit num_tc 2", func(o *attrs.TCOptionsMsgMQPrio) {
			o.Header.NumTC = 2
			o.Attrs.Mode, o.Attrs.Shaper = u16(1), u16(1)
			o.Attrs.MinRate64 = &attrs.MQPrioRatesAttrs{Min: make([]uint64, 16)}
			o.Attrs.MinRate64.Min[0], o.Attrs.MinRate64.Min[1] = 125000, 250000
			o.Attrs.MaxRate64 = &attrs.MQPrioRatesAttrs{Max: make([]uint64, 16)}
			o.Attrs.MaxRate64.Max[0] = 1
		}},
		// dcb is the default: not sent.
		{"mode dcb shaper dcb", func(*attrs.TCOptionsMsgMQPrio) {}},
		{"fp P E fp E", func(o *attrs.TCOptionsMsgMQPrio) {
			for i, fp := range []uint32{1, 1, 0} {
				o.Attrs.TCEntry = append(o.Attrs.TCEntry, attrs.MQPrioTCEntryAttrs{Index: tcword.PtrTo(uint32(i)), FP: tcword.PtrTo(fp)})
			}
		}},
	} {
		got, err := parseMQPrio(strings.Fields(tc.args))
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		want := &attrs.TCOptionsMsgMQPrio{Header: mqprioDefault}
		tc.want(want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q:\n got  %+v\n want %+v", tc.args, got, want)
		}
	}
}

func TestParseMQPrioErrors(t *testing.T) {
	for _, tc := range []struct {
		args, msg string
		usage     bool
		code      int
	}{
		{"num_tc", `Command line is not complete. Try option "help"`, false, 255},
		{"num_tc 256", `Illegal "num_tc"`, false, 1},
		{"hw x", `Illegal "hw"`, false, 1},
		{"mode foo", "Illegal mode (foo)", false, 1},
		{"shaper foo", "Illegal shaper (foo)", false, 1},
		{"shaper bw_rlimit", "Incomplete shaper arguments", false, 1},
		{"shaper bw_rlimit min_rate 1mbit", "Incomplete arguments, min_rate values expected", false, 1},
		{"hw 0 mode channel", `Error: argument "mode" is wrong: unknown argument`, false, 255},
		{"min_rate 1mbit", `Error: argument "min_rate" is wrong: unknown argument`, false, 255},
		{"map 0 1 x", `Error: argument "x" is wrong: unknown argument`, false, 255},
		// A count without its offset is read again as a keyword.
		{"queues 1@0 3 hw 0", `Error: argument "3" is wrong: unknown argument`, false, 255},
		{"num_tc 1 queues 1@0 1@1", "queues count/offset pair count 2 can not be higher than given num_tc 1", false, 1},
		{"num_tc 2 queues 1@0 1@1 queues 1@0", "queues count/offset pair count 3 can not be higher than given num_tc 2", false, 1},
		{"help", "", true, 1},
	} {
		_, err := parseMQPrio(strings.Fields(tc.args))
		checkParseError(t, tc.args, err, tc.msg, tc.usage, tc.code)
	}
}

// TestMQPrioRequestLayout: the attributes start after the struct padded
// to 4 bytes, as the kernel reads them (NLA_ALIGN).
func TestMQPrioRequestLayout(t *testing.T) {
	o, err := parseMQPrio(strings.Fields("fp P"))
	if err != nil {
		t.Fatal(err)
	}
	e := attrs.NewEncoder(nil)
	(&attrs.TCAttrs{Options: o}).Encode(e)
	b := e.Bytes()
	// TCA_OPTIONS header, 82 bytes of struct, 2 of padding, then the
	// TC_ENTRY nest with NLA_F_NESTED.
	if len(b) < 4+84+4 || b[4] != 8 || b[4+82] != 0 || b[4+84+2] != 5 || b[4+84+3] != 0x80 {
		t.Fatalf("layout %x", b)
	}
}

// TestParseTAPrio checks the attributes tc's taprio_parse_opt sends.
func TestParseTAPrio(t *testing.T) {
	entry := func(cmd uint8, mask, interval uint32) attrs.TAPrioSchedEntry {
		return attrs.TAPrioSchedEntry{Cmd: &cmd, GateMask: &mask, Interval: &interval}
	}
	for _, tc := range []struct {
		args string
		want func(o *attrs.TAPrioAttrs)
	}{
		// The schedule list is always sent; num_tc 0 sends no priomap.
		{"", func(*attrs.TAPrioAttrs) {}},
		{"num_tc 2 queues 1@0 1@1 sched-entry S 01 300000 sched-entry H ff 0x10 sched-entry R 3 010 clockid CLOCK_TAI", func(o *attrs.TAPrioAttrs) {
			q := &attrs.TCMQPrioQopt{NumTC: 2}
			q.Count[0], q.Count[1], q.Offset[1] = 1, 1, 1
			o.Priomap = q
			o.SchedEntryList.Entry = []attrs.TAPrioSchedEntry{entry(0, 1, 300000), entry(1, 0xff, 16), entry(2, 3, 8)}
			o.SchedClockid = tcword.PtrTo(int32(11))
		}},
		{"base-time 5 cycle-time 100 cycle-time-extension 7 flags 0x2 txtime-delay 010 clockid monotonic", func(o *attrs.TAPrioAttrs) {
			o.SchedBaseTime, o.SchedCycleTime, o.SchedCycleTimeExtension = tcword.PtrTo(int64(5)), tcword.PtrTo(int64(100)), tcword.PtrTo(int64(7))
			o.Flags, o.TxtimeDelay, o.SchedClockid = tcword.PtrTo(uint32(2)), tcword.PtrTo(uint32(8)), tcword.PtrTo(int32(1))
		}},
		// A bad base-time ends the parsing: the rest is never read.
		{"clockid TAI base-time x bogus", func(o *attrs.TAPrioAttrs) { o.SchedClockid = tcword.PtrTo(int32(11)) }},
		// Zeros are not sent, and may be given again.
		{"flags 0 flags 0 cycle-time 0 cycle-time 0", func(*attrs.TAPrioAttrs) {}},
		{"max-sdu 1500 0 300 fp E", func(o *attrs.TAPrioAttrs) {
			o.TCEntry = []attrs.TAPrioTCEntryAttrs{
				{Index: tcword.PtrTo(uint32(0)), MaxSDU: tcword.PtrTo(uint32(1500)), FP: tcword.PtrTo(uint32(1))},
				{Index: tcword.PtrTo(uint32(1)), MaxSDU: tcword.PtrTo(uint32(0))},
				{Index: tcword.PtrTo(uint32(2)), MaxSDU: tcword.PtrTo(uint32(300))},
			}
		}},
	} {
		got, err := parseTAPrio(strings.Fields(tc.args))
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		want := &attrs.TAPrioAttrs{SchedEntryList: &attrs.TAPrioSchedEntryList{}}
		tc.want(want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q:\n got  %+v\n want %+v", tc.args, got, want)
		}
	}
}

func TestParseTAPrioErrors(t *testing.T) {
	const entryUsage = "Usage: ... taprio ... sched-entry <cmd> <gate mask> <interval>"
	for _, tc := range []struct {
		args, msg string
		usage     bool
		code      int
	}{
		{"sched-entry X 1 1", entryUsage, false, 1},
		{"sched-entry S zz 1", entryUsage, false, 1},
		{"sched-entry S 1 x", entryUsage, false, 1},
		{"sched-entry S 1", `Command line is not complete. Try option "help"`, false, 255},
		{"clockid foo", "taprio: illegal value for \"clockid\": \"foo\".\nIt must be a valid SYS-V id (i.e. CLOCK_TAI)", false, 1},
		{"clockid XCLOCK_TAI", "taprio: illegal value for \"clockid\": \"XCLOCK_TAI\".\nIt must be a valid SYS-V id (i.e. CLOCK_TAI)", false, 1},
		{"clockid TAI clockid TAI", `taprio: duplicate "clockid" specification`, false, 1},
		{"cycle-time 5 cycle-time 6", `taprio: duplicate "cycle-time" specification`, false, 1},
		{"flags 1 flags 2", `taprio: duplicate "flags" specification`, false, 1},
		{"txtime-delay x", "", false, 1},
		{"cycle-time 5 cycle-time", `Command line is not complete. Try option "help"`, false, 255},
		{"bogus", "Unknown argument", false, 1},
		{"help", "", true, 1},
	} {
		_, err := parseTAPrio(strings.Fields(tc.args))
		checkParseError(t, tc.args, err, tc.msg, tc.usage, tc.code)
	}
}

// TestPrintTAPrio prints a dump as tc does: the queues, the clock, the
// schedule an entry a line, the admin schedule, max-sdu and fp.
func TestPrintTAPrio(t *testing.T) {
	q := &attrs.TCMQPrioQopt{NumTC: 2, PrioTCMap: [16]byte{1}}
	q.Count[0], q.Count[1], q.Offset[1] = 2, 2, 2
	idx := func(i uint32) *uint32 { return &i }
	cmd := uint8(0)
	o := &attrs.TAPrioAttrs{
		Priomap:        q,
		SchedClockid:   tcword.PtrTo(int32(11)),
		SchedBaseTime:  tcword.PtrTo(int64(-1)),
		SchedCycleTime: tcword.PtrTo(int64(1000)),
		SchedEntryList: &attrs.TAPrioSchedEntryList{Entry: []attrs.TAPrioSchedEntry{{Index: idx(0), Cmd: &cmd, GateMask: idx(3), Interval: idx(1000)}}},
		TCEntry:        []attrs.TAPrioTCEntryAttrs{{Index: idx(1), MaxSDU: idx(0), FP: idx(2)}},
	}
	text := kindtest.Render(tcfmt.Options{}, func(p *tcfmt.Printer) { printTAPrio(p, o) })
	want := "tc 2 map 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\nqueues offset 0 count 2 offset 2 count 2\n" +
		"clockid TAI\tbase-time -1 cycle-time 1000\n\tindex 0 cmd S gatemask 0x3 interval 1000\n" +
		"max-sdu 0 0\nfp ? P\n"
	if text != want {
		t.Errorf("text:\n%q\nwant\n%q", text, want)
	}
	js := kindtest.Render(tcfmt.Options{JSON: true}, func(p *tcfmt.Printer) { printTAPrio(p, o) })
	if !strings.Contains(js, `"base_time":18446744073709551615,"cycle_time":1000,"schedule":[{"index":0,"cmd":"S","gatemask":"0x3","interval":1000}]`) {
		t.Errorf("json: %s", js)
	}
}

func TestParseETF(t *testing.T) {
	for _, tc := range []struct {
		args string
		want attrs.TCETFQopt
	}{
		{"", attrs.TCETFQopt{Clockid: -1}},
		{"delta 0x10 clockid tai deadline_mode skip_sock_check", attrs.TCETFQopt{Delta: 16, Clockid: 11, Flags: 5}},
		{"o c CLOCK_TAI d", attrs.TCETFQopt{Clockid: 11, Flags: 3}},
		{"delta 0 delta -3", attrs.TCETFQopt{Delta: -3, Clockid: -1}},
	} {
		got, err := parseETF(strings.Fields(tc.args))
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
		} else if *got.Parms != tc.want {
			t.Errorf("%q: got %+v, want %+v", tc.args, *got.Parms, tc.want)
		}
	}
	for _, tc := range []struct {
		args, msg string
		usage     bool
		code      int
	}{
		{"delta x", `etf: illegal value for "delta": "x"`, false, 1},
		{"delta 1 delta 2", `etf: duplicate "delta" specification`, false, 1},
		{"offload offload", `etf: duplicate "offload" specification`, false, 1},
		{"skip", `etf: unknown parameter "skip"`, true, 1},
		{"clockid", `Command line is not complete. Try option "help"`, false, 255},
	} {
		_, err := parseETF(strings.Fields(tc.args))
		checkParseError(t, tc.args, err, tc.msg, tc.usage, tc.code)
	}
}

func TestParseCBS(t *testing.T) {
	for _, tc := range []struct {
		args string
		want attrs.TCCBSQopt
	}{
		{"", attrs.TCCBSQopt{}},
		{"h 30 l -1470 s -980000 i 20000 o 0x0", attrs.TCCBSQopt{Hicredit: 30, Locredit: -1470, Sendslope: -980000, Idleslope: 20000}},
		{"hicredit 0 hicredit 010 offload 1", attrs.TCCBSQopt{Hicredit: 8, Offload: 1}},
	} {
		got, err := parseCBS(strings.Fields(tc.args))
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
		} else if *got.Parms != tc.want {
			t.Errorf("%q: got %+v, want %+v", tc.args, *got.Parms, tc.want)
		}
	}
	for _, tc := range []struct {
		args, msg string
		usage     bool
		code      int
	}{
		{"hicredit x", `cbs: illegal value for "hicredit": "x"`, false, 1},
		{"idleslope 1 idleslope 2", `cbs: duplicate "idleslope" specification`, false, 1},
		{"offload 256", `cbs: illegal value for "offload": "256"`, false, 1},
		{"foo", `cbs: unknown parameter "foo"`, true, 1},
		{"sendslope", `Command line is not complete. Try option "help"`, false, 255},
		{"help", "", true, 1},
	} {
		_, err := parseCBS(strings.Fields(tc.args))
		checkParseError(t, tc.args, err, tc.msg, tc.usage, tc.code)
	}
}

// FuzzParseTAPrio: whatever the words, taprio's parser returns options
// or a ParseError, and what it returns encodes, decodes and prints the
// same after the round trip.
func FuzzParseTAPrio(f *testing.F) {
	for _, s := range []string{
		"num_tc 3 map 2 2 1 0 2 2 2 2 2 2 2 2 2 2 2 2 queues 1@0 1@0 1@0 base-time 1000000000 sched-entry S 01 300000 flags 0x1 clockid CLOCK_TAI",
		"sched-entry H ff 0x10 fp P E max-sdu 1 2 3", "queues 1@@2 3", "cycle-time 5 cycle-time", "clockid clock_tai base-time x",
		"fp E E E E E E E E E E E E E E E E fp E E E E E E E E E E E E E E E E",
	} {
		f.Add(strings.ReplaceAll(s, " ", "\x00"))
	}
	f.Fuzz(func(t *testing.T, s string) {
		args := strings.Split(s, "\x00")
		o, err := parseTAPrio(args)
		if err != nil {
			var pe *tcword.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("%q: error %v is not a ParseError", args, err)
			}
			return
		}
		e := attrs.NewEncoder(nil)
		o.Encode(e)
		b := e.Bytes()
		var back attrs.TAPrioAttrs
		if err := back.Decode(b); err != nil {
			t.Fatalf("%q: encoding %x does not decode: %v", args, b, err)
		}
		e2 := attrs.NewEncoder(nil)
		back.Encode(e2)
		if !bytes.Equal(e2.Bytes(), b) {
			t.Fatalf("%q: round trip %x != %x", args, e2.Bytes(), b)
		}
		for _, opt := range []tcfmt.Options{{}, {JSON: true}} {
			before := kindtest.Render(opt, func(p *tcfmt.Printer) { printTAPrio(p, o) })
			after := kindtest.Render(opt, func(p *tcfmt.Printer) { printTAPrio(p, &back) })
			if before != after {
				t.Fatalf("%q: prints %q after the round trip, %q before", args, after, before)
			}
		}
	})
}

// TestTAPrioDumped: what the kernel fills in of a schedule (the entries'
// numbers, the cycle time as the intervals' sum, base time and extension
// 0) and the 16 traffic-class entries it dumps, of which only those the
// request named carry values to compare.
func TestTAPrioDumped(t *testing.T) {
	opts, err := parseTAPrio(strings.Fields("num_tc 2 queues 1@0 1@1 sched-entry S 1 300000 sched-entry S 2 200000 max-sdu 0 1500 clockid CLOCK_TAI"))
	if err != nil {
		t.Fatal(err)
	}
	d := tckind.Dumped("taprio", opts).(*attrs.TAPrioAttrs)
	for i, e := range d.SchedEntryList.Entry {
		if e.Index == nil || *e.Index != uint32(i) {
			t.Errorf("entry %d: index %v", i, e.Index)
		}
	}
	if d.SchedCycleTime == nil || *d.SchedCycleTime != 500000 {
		t.Errorf("cycle time %v, want 500000", d.SchedCycleTime)
	}
	if d.SchedBaseTime == nil || *d.SchedBaseTime != 0 || d.SchedCycleTimeExtension == nil || *d.SchedCycleTimeExtension != 0 {
		t.Errorf("base time %v, extension %v, want 0 and 0", d.SchedBaseTime, d.SchedCycleTimeExtension)
	}
	if len(d.TCEntry) != 16 {
		t.Fatalf("%d traffic-class entries, want 16", len(d.TCEntry))
	}
	for i, e := range d.TCEntry {
		if e.Index == nil || *e.Index != uint32(i) {
			t.Errorf("traffic class %d: index %v", i, e.Index)
		}
		named := i < 2
		if (e.MaxSDU != nil) != named {
			t.Errorf("traffic class %d: max-sdu %v, want it set only for the named classes", i, e.MaxSDU)
		}
	}
	if *d.TCEntry[1].MaxSDU != 1500 {
		t.Errorf("class 1's max-sdu %d, want 1500", *d.TCEntry[1].MaxSDU)
	}
	if opts.SchedCycleTime != nil || len(opts.TCEntry) != 2 || opts.SchedEntryList.Entry[0].Index != nil {
		t.Error("Dumped changed the request")
	}

	given, err := parseTAPrio(strings.Fields("num_tc 2 queues 1@0 1@1 sched-entry S 1 300000 cycle-time 1000000 base-time 200 clockid CLOCK_TAI"))
	if err != nil {
		t.Fatal(err)
	}
	g := tckind.Dumped("taprio", given).(*attrs.TAPrioAttrs)
	if *g.SchedCycleTime != 1000000 || *g.SchedBaseTime != 200 || g.TCEntry != nil {
		t.Errorf("cycle time %d, base time %d, %d traffic-class entries; want the request's 1000000 and 200, none", *g.SchedCycleTime, *g.SchedBaseTime, len(g.TCEntry))
	}
}
