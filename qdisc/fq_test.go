// SPDX-License-Identifier: Apache-2.0

package qdisc

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// TestParseFQBytes checks the payload against what tc's fq_parse_opt
// writes: buckets first (as a log), then its order; every option named is
// sent, 0 included.
func TestParseFQBytes(t *testing.T) {
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	u8 := func(typ uint16, v uint8) []byte { return tcAttr(typ, []byte{v}) }
	prio := append(binary.NativeEndian.AppendUint32(nil, 3), 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0)
	for _, tc := range []struct {
		args string
		want []byte
	}{
		{"", nil},
		{"buckets 0", nil},
		{"limit 0 quantum 0", cat(tcU32(attrs.TCAFQPlimit, 0), tcU32(attrs.TCAFQQuantum, 0))},
		{"buckets 1000", tcU32(attrs.TCAFQBucketsLog, 10)},
		{"buckets 1024", tcU32(attrs.TCAFQBucketsLog, 10)},
		{"buckets 1", tcU32(attrs.TCAFQBucketsLog, 0)},
		{"maxrate 8mbit low_rate_threshold 8kbit defrate 8bit", cat(tcU32(attrs.TCAFQFlowMaxRate, 1000000),
			tcU32(attrs.TCAFQLowRateThreshold, 1000), tcU32(attrs.TCAFQFlowDefaultRate, 1))},
		{"nopacing pacing", tcU32(attrs.TCAFQRateEnable, 1)},
		{"timer_slack 20us", tcU32(attrs.TCAFQTimerSlack, 20000)},
		{"timer_slack 1000", tcU32(attrs.TCAFQTimerSlack, 1000)},
		{"horizon_drop horizon 1s horizon_cap", cat(tcU32(attrs.TCAFQHorizon, 1000000), u8(attrs.TCAFQHorizonDrop, 0))},
		{"orphan_mask 511 refill_delay 10ms ce_threshold 2ms", cat(tcU32(attrs.TCAFQFlowRefillDelay, 10000),
			tcU32(attrs.TCAFQOrphanMask, 511), tcU32(attrs.TCAFQCEThreshold, 2000))},
		{"weights 16384 65536 1048576 bands 3 priomap 0 1 2 0 1 2 0 1 2 0 1 2 0 1 2 0 offload_horizon 1ms",
			cat(tcAttr(attrs.TCAFQPriomap, prio), tcAttr(attrs.TCAFQWeights, u32s(16384, 65536, 1048576)),
				tcU32(attrs.TCAFQOffloadHorizon, 1000))},
		{"initial_quantum 15000 flow_limit 0x10 limit 100", cat(tcU32(attrs.TCAFQPlimit, 100),
			tcU32(attrs.TCAFQFlowPlimit, 16), tcU32(attrs.TCAFQInitialQuantum, 15000))},
	} {
		o, err := parseFQ(strings.Fields(tc.args), tckind.ParseEnv{})
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		if got := optionBytes(o); !bytes.Equal(got, tc.want) {
			t.Errorf("%q: got %x, want %x", tc.args, got, tc.want)
		}
	}
}

func TestParseFQErrors(t *testing.T) {
	incomplete := `Command line is not complete. Try option "help"`
	zeros := " 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0"
	for _, tc := range []struct {
		args, msg string
		usage     bool
		code      int
	}{
		{"limit", incomplete, false, 255},
		{"maxrate 40gbit", `Illegal "maxrate"`, false, 1},
		{"maxrate 10%", `Illegal "maxrate"`, false, 1}, // no device
		{"low_rate_threshold 10%", `Illegal "low_rate_threshold"`, false, 1},
		{"orphan_mask x", `Illegal "initial_quantum"`, false, 1},
		{"timer_slack x", `Illegal "timer_slack"`, false, 1},
		{"timer_slack 5s", `Illegal (out of range) "timer_slack"`, false, 1},
		{"bands x", `Illegal "bands"`, false, 1},
		{"bands 4", `"bands" must be 3`, false, 1},
		{"bands 3", incomplete, false, 255},
		{"bands 3 prio", `"priomap" expected`, false, 1},
		{"bands 3 priomap 0 1", "Not enough elements in priomap", false, 1},
		{"bands 3 priomap x", `Illegal "priomap" element, number in [0..2] expected`, false, 1},
		{"bands 3 priomap 0 3", `"priomap" element 3 too big`, false, 1},
		{"bands 3 priomap" + zeros + " bands 3 priomap" + zeros, `Duplicate "bands"`, false, 1},
		{"weights 16384", "Not enough elements in weights", false, 1},
		{"weights x", `Illegal "weights" element, positive number expected`, false, 1},
		{"weights 16383", `"weight" element 16383 too small`, false, 1},
		{"weights 16384 16384 16384 weights", `Duplicate "weights"`, false, 1},
		{"limt 1", `What is "limt"?`, true, 1},
		{"help", "", true, 1},
	} {
		_, err := parseFQ(strings.Fields(tc.args), tckind.ParseEnv{})
		wantParseError(t, tc.args, err, tc.msg, tc.usage, tc.code)
	}
}

func TestPrintFQOptions(t *testing.T) {
	u := func(v uint32) *uint32 { return &v }
	drop := uint8(1)
	o := &attrs.FQAttrs{Plimit: u(10000), FlowPlimit: u(100), Quantum: u(3028), InitialQuantum: u(15140),
		RateEnable: u(0), FlowMaxRate: u(0xffffffff), BucketsLog: u(10), FlowRefillDelay: u(40000),
		OrphanMask: u(1023), LowRateThreshold: u(68750), CEThreshold: u(0xffffffff), TimerSlack: u(10000),
		Horizon: u(10000000), HorizonDrop: &drop, OffloadHorizon: u(0),
		Priomap: &attrs.TCPrioQopt{Bands: 3, Priomap: [16]byte{1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1}},
		Weights: []int32{589824, 196608, 65536}}
	if got, want := printWith(tcfmt.Options{}, func(p *tcfmt.Printer) { printFQOptions(p, o) }),
		"limit 10000p flow_limit 100p buckets 1024 orphan_mask 1023 nopacing bands 3 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1 "+
			"weights 589824 196608 65536 quantum 3028b initial_quantum 15140b low_rate_threshold 550Kbit refill_delay 40ms "+
			"timer_slack 10us horizon 10s horizon_drop offload_horizon 0us "; got != want {
		t.Errorf("text: got %q\nwant %q", got, want)
	}
	if got, want := printWith(tcfmt.Options{JSON: true}, func(p *tcfmt.Printer) { printFQOptions(p, o) }),
		`{"limit":10000,"flow_limit":100,"buckets":1024,"orphan_mask":1023,"pacing":false,"bands":3,`+
			`"priomap ":[1,2,2,2,1,2,0,0,1,1,1,1,1,1,1,1],"weights ":[589824,196608,65536],"quantum":3028,`+
			`"initial_quantum":15140,"low_rate_threshold":68750,"refill_delay":40000,"timer_slack":10000,`+
			`"horizon":10000000,"horizon_drop":null,"offload_horizon":0}`+"\n"; got != want {
		t.Errorf("JSON: got %q\nwant %q", got, want)
	}
}

// fqStatsBytes lays out struct tc_fq_qd_stats from its sixteen leading
// members' values and the bands' drops and packets.
func fqStatsBytes(u64s [8]uint64, u32s [4]uint32, more [4]uint64, drops [3]uint64, pkts [3]uint32) []byte {
	var b []byte
	for _, v := range u64s {
		b = binary.NativeEndian.AppendUint64(b, v)
	}
	for _, v := range u32s {
		b = binary.NativeEndian.AppendUint32(b, v)
	}
	for _, v := range more {
		b = binary.NativeEndian.AppendUint64(b, v)
	}
	for _, v := range drops {
		b = binary.NativeEndian.AppendUint64(b, v)
	}
	for _, v := range pkts {
		b = binary.NativeEndian.AppendUint32(b, v)
	}
	return binary.NativeEndian.AppendUint32(b, 0)
}

func TestPrintFQXstats(t *testing.T) {
	k := tckind.LookupQdisc("fq")
	none := uint64(1) << 63 // a negative time_next_delayed_flow: no flow throttled
	for _, tc := range []struct {
		name       string
		payload    []byte
		text, json string
	}{
		{"idle", fqStatsBytes([8]uint64{7: none}, [4]uint32{}, [4]uint64{}, [3]uint64{}, [3]uint32{}),
			"  flows 0 (inactive 0 throttled 0) band0_pkts 0 band1_pkts 0 band2_pkts 0\n  gc 0 highprio 0 throttled 0",
			`{"flows":0,"inactive":0,"throttled":0,"band0_pkts":0,"band1_pkts":0,"band2_pkts":0,"gc":0,"highprio":0,"throttled":0}` + "\n"},
		{"busy", fqStatsBytes([8]uint64{1, 0, 3, 4, 5, 6, 7, 1500000}, [4]uint32{8, 2, 1, 2500},
			[4]uint64{9, 0, 11, 12}, [3]uint64{0, 13, 0}, [3]uint32{1, 2, 3}),
			"  flows 8 (inactive 2 throttled 1) band0_pkts 1 band1_pkts 2 band2_pkts 3 next_packet_delay 1.5ms\n" +
				"  gc 1 highprio 0 fastpath 12 retrans 3 throttled 4 latency 2.5us ce_mark 9 flows_plimit 5\n" +
				" pkts_too_long 6 alloc_errors 7  horizon_caps 11 band1_drops 13",
			`{"flows":8,"inactive":2,"throttled":1,"band0_pkts":1,"band1_pkts":2,"band2_pkts":3,"next_packet_delay":1500000,` +
				`"gc":1,"highprio":0,"fastpath":12,"retrans":3,"throttled":4,"latency":2500,"ce_mark":9,"flows_plimit":5,` +
				`"pkts_too_long":6,"alloc_errors":7,"horizon_caps":11,"band1_drops":13}` + "\n"},
	} {
		x := tckind.Xstats{App: attrs.DecodeStatsAppMsg("fq", tc.payload)}
		if got := printWith(tcfmt.Options{}, func(p *tcfmt.Printer) { k.PrintXstats(p, x) }); got != tc.text {
			t.Errorf("%s: got %q\nwant %q", tc.name, got, tc.text)
		}
		if got := printWith(tcfmt.Options{JSON: true}, func(p *tcfmt.Printer) { k.PrintXstats(p, x) }); got != tc.json {
			t.Errorf("%s, JSON: got %q\nwant %q", tc.name, got, tc.json)
		}
		// The table's values are the printed ones (tc's "throttled" twice
		// is the table's throttled_flows, then throttled); a member tc
		// leaves out is zero or, for next_packet_delay, absent.
		s := k.Stats.Of(x)
		if s == nil {
			t.Fatalf("%s: no statistics", tc.name)
		}
		got := printedJSON(t, k, x)
		for i := range k.Stats.Fields {
			f := &k.Stats.Fields[i]
			raw, ok := f.Get(s)
			v, present := got[f.Key].(float64)
			switch {
			case f.Key == "throttled_flows":
				continue
			case present && (!ok || v != float64(raw)), !present && ok && raw != 0:
				t.Errorf("%s %s: table %d (%v), printed %v", tc.name, f.Key, raw, ok, got[f.Key])
			}
		}
	}
}

func TestFQChangeAccepted(t *testing.T) {
	for args, want := range map[string]bool{
		"limit 10":                true,
		"buckets 2":               true,
		"buckets 1":               false,
		"buckets 1000000":         false,
		"initial_quantum 2000000": false,
		"offload_horizon 0":       false,
	} {
		o, err := parseFQ(strings.Fields(args), tckind.ParseEnv{})
		if err != nil {
			t.Fatal(err)
		}
		if got := fqChangeAccepted(o, ""); got != want {
			t.Errorf("%q: %v, want %v", args, got, want)
		}
	}
}
