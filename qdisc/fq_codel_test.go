// SPDX-License-Identifier: Apache-2.0

package qdisc

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// tcAttr builds one netlink attribute the way tc's addattr_l does: header,
// payload, padding to 4 bytes.
func tcAttr(typ uint16, payload []byte) []byte {
	b := binary.NativeEndian.AppendUint16(nil, uint16(4+len(payload)))
	b = binary.NativeEndian.AppendUint16(b, typ)
	b = append(b, payload...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

func tcU32(typ uint16, v uint32) []byte {
	return tcAttr(typ, binary.NativeEndian.AppendUint32(nil, v))
}

// fqCodelOptionBytes is the TCA_OPTIONS payload gotc sends for o.
func fqCodelOptionBytes(o *attrs.FQCodelAttrs) []byte {
	e := attrs.NewEncoder(nil)
	o.Encode(e)
	return bytes.Clone(e.Bytes())
}

// TestParseFQCodelBytes checks the request payload against what tc's
// fq_codel_parse_opt writes: its attribute order (limit, flows, quantum,
// interval, target, ecn, ce_threshold, mask, selector, memory_limit,
// drop_batch), tc's units, and the values it leaves out.
func TestParseFQCodelBytes(t *testing.T) {
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	for _, tc := range []struct {
		args string
		want []byte
	}{
		{"", nil},
		{"limit 1000", tcU32(attrs.TCAFQCodelLimit, 1000)},
		{"limit 0x10", tcU32(attrs.TCAFQCodelLimit, 16)},
		{"limit 010", tcU32(attrs.TCAFQCodelLimit, 8)},
		{"target 5ms", tcU32(attrs.TCAFQCodelTarget, 5000)},
		{"target 2000", tcU32(attrs.TCAFQCodelTarget, 2000)},
		{"interval 1s", tcU32(attrs.TCAFQCodelInterval, 1000000)},
		{"memory_limit 32Mb", tcU32(attrs.TCAFQCodelMemoryLimit, 32<<20)},
		{"memory_limit 100000", tcU32(attrs.TCAFQCodelMemoryLimit, 100000)},
		{"memory_limit 8kbit", tcU32(attrs.TCAFQCodelMemoryLimit, 1024)},
		{"ce_threshold 1024000", tcU32(attrs.TCAFQCodelCEThreshold, 1024000)},
		{"ce_threshold 0", tcU32(attrs.TCAFQCodelCEThreshold, 0)},
		{"ecn", tcU32(attrs.TCAFQCodelECN, 1)},
		{"noecn", tcU32(attrs.TCAFQCodelECN, 0)},
		{"noecn ecn", tcU32(attrs.TCAFQCodelECN, 1)},
		{"drop_batch 100", tcU32(attrs.TCAFQCodelDropBatchSize, 100)},
		{"ce_threshold_selector 0x1/0xfc",
			cat(tcAttr(attrs.TCAFQCodelCEThresholdMask, []byte{0xfc}), tcAttr(attrs.TCAFQCodelCEThresholdSelector, []byte{1}))},
		// A selector of 0xff means "not given" to tc, whatever the mask.
		{"ce_threshold_selector 0xff/0x3", nil},
		// tc's "not given" values.
		{"limit 0 flows 0 quantum 0 interval 0 target 0 drop_batch 0", nil},
		{"memory_limit 4294967295", nil},
		{"limit 2 limit 3", tcU32(attrs.TCAFQCodelLimit, 3)},
		{"drop_batch 64 memory_limit 1Mb ce_threshold_selector 2/3 ce_threshold 4ms noecn target 3ms interval 30ms quantum 300 flows 128 limit 77",
			cat(tcU32(attrs.TCAFQCodelLimit, 77), tcU32(attrs.TCAFQCodelFlows, 128), tcU32(attrs.TCAFQCodelQuantum, 300),
				tcU32(attrs.TCAFQCodelInterval, 30000), tcU32(attrs.TCAFQCodelTarget, 3000), tcU32(attrs.TCAFQCodelECN, 0),
				tcU32(attrs.TCAFQCodelCEThreshold, 4000), tcAttr(attrs.TCAFQCodelCEThresholdMask, []byte{3}),
				tcAttr(attrs.TCAFQCodelCEThresholdSelector, []byte{2}), tcU32(attrs.TCAFQCodelMemoryLimit, 1<<20),
				tcU32(attrs.TCAFQCodelDropBatchSize, 64))},
	} {
		o, err := parseFQCodel(strings.Fields(tc.args))
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		if got := fqCodelOptionBytes(o); !bytes.Equal(got, tc.want) {
			t.Errorf("%q:\n got %s\nwant %s", tc.args, hex.EncodeToString(got), hex.EncodeToString(tc.want))
		}
	}
}

// TestFQCodelNestFlag checks that the nest goes out without NLA_F_NESTED,
// as tc's addattr_nest sends it, and is sent even when empty.
func TestFQCodelNestFlag(t *testing.T) {
	o, err := parseFQCodel(nil)
	if err != nil || o == nil {
		t.Fatalf("no options: %v %v", o, err)
	}
	a := attrs.TCAttrs{Options: o}
	e := attrs.NewEncoder(nil)
	a.Encode(e)
	if want := tcAttr(attrs.TCAOptions, nil); !bytes.Equal(e.Bytes(), want) {
		t.Errorf("empty options: got %x, want %x", e.Bytes(), want)
	}
}

func TestParseFQCodelErrors(t *testing.T) {
	for _, tc := range []struct {
		args, msg string
		usage     bool
		code      int
	}{
		{"limit", `Command line is not complete. Try option "help"`, false, 255},
		{"ce_threshold_selector", `Command line is not complete. Try option "help"`, false, 255},
		{"limit -1", `Illegal "limit"`, false, 1},
		{"limit 4294967296", `Illegal "limit"`, false, 1},
		{"flows 1k", `Illegal "flows"`, false, 1},
		{"quantum x", `Illegal "quantum"`, false, 1},
		{"drop_batch ''", `Illegal "drop_batch"`, false, 1},
		{"target 5parsecs", `Illegal "target"`, false, 1},
		{"interval -1ms", `Illegal "interval"`, false, 1},
		{"ce_threshold x", `Illegal "ce_threshold"`, false, 1},
		{"memory_limit 5Tb", `Illegal "memory_limit"`, false, 1},
		{"memory_limit 32Mx", `Illegal "memory_limit"`, false, 1},
		{"ce_threshold_selector 3", `Missing mask for "ce_threshold_selector"`, false, 1},
		{"ce_threshold_selector 3/0x100", `Illegal mask for "ce_threshold_selector"`, false, 1},
		{"ce_threshold_selector x/y", `Illegal mask for "ce_threshold_selector"`, false, 1},
		{"ce_threshold_selector 256/1", `Illegal "ce_threshold_selector"`, false, 1},
		{"lim 10", `What is "lim"?`, true, 1},
		{"ECN", `What is "ECN"?`, true, 1},
		{"help", "", true, 1},
	} {
		_, err := parseFQCodel(strings.Fields(tc.args))
		var pe *tcword.ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%q: error %v, want a ParseError", tc.args, err)
			continue
		}
		if pe.Msg != tc.msg || pe.ShowUsage != tc.usage || pe.ExitCode() != tc.code {
			t.Errorf("%q: got (%q, usage %v, exit %d), want (%q, %v, %d)", tc.args, pe.Msg, pe.ShowUsage, pe.ExitCode(), tc.msg, tc.usage, tc.code)
		}
	}
}

// printWith runs print inside a JSON object (as the qdisc's or class's
// object around it) or as plain text.
func printWith(opt tcfmt.Options, print func(*tcfmt.Printer)) string {
	var out bytes.Buffer
	p := tcfmt.NewPrinter(&out, opt)
	if opt.JSON {
		p.StartPlain()
		p.OpenObject("")
	}
	print(p)
	if opt.JSON {
		p.CloseObject()
	}
	p.Finish()
	return out.String()
}

func TestPrintFQCodelOptions(t *testing.T) {
	u32 := func(v uint32) *uint32 { return &v }
	u8 := func(v uint8) *uint8 { return &v }
	// What the kernel dumps for "fq_codel" on a dummy device.
	defaults := attrs.FQCodelAttrs{Target: u32(4999), Limit: u32(10240), Interval: u32(99999), ECN: u32(1),
		Quantum: u32(1514), DropBatchSize: u32(64), MemoryLimit: u32(32 << 20), Flows: u32(1024)}
	withCE := defaults
	withCE.CEThreshold, withCE.CEThresholdSelector, withCE.CEThresholdMask = u32(1023999), u8(1), u8(0xfc)
	noECN := defaults
	noECN.ECN, noECN.DropBatchSize = u32(0), u32(0)
	ceOff := defaults
	ceOff.CEThreshold, ceOff.CEThresholdSelector, ceOff.CEThresholdMask = u32(2000), u8(0), u8(0)
	for _, tc := range []struct {
		name       string
		o          attrs.FQCodelAttrs
		text, json string
	}{
		{"defaults", defaults,
			"limit 10240p flows 1024 quantum 1514 target 5ms interval 100ms memory_limit 32Mb ecn drop_batch 64 ",
			`{"limit":10240,"flows":1024,"quantum":1514,"target":4999,"interval":99999,"memory_limit":33554432,"ecn":true,"drop_batch":64}` + "\n"},
		{"ce_threshold with a selector", withCE,
			"limit 10240p flows 1024 quantum 1514 target 5ms ce_threshold 1.02s ce_threshold_selector 0x1/0xfc interval 100ms memory_limit 32Mb ecn drop_batch 64 ",
			`{"limit":10240,"flows":1024,"quantum":1514,"target":4999,"ce_threshold":1023999,"ce_threshold_selector":1,"ce_threshold_mask":252,"interval":99999,"memory_limit":33554432,"ecn":true,"drop_batch":64}` + "\n"},
		{"ce_threshold without a selector", ceOff,
			"limit 10240p flows 1024 quantum 1514 target 5ms ce_threshold 2ms interval 100ms memory_limit 32Mb ecn drop_batch 64 ",
			`{"limit":10240,"flows":1024,"quantum":1514,"target":4999,"ce_threshold":2000,"interval":99999,"memory_limit":33554432,"ecn":true,"drop_batch":64}` + "\n"},
		{"ecn and drop_batch off", noECN,
			"limit 10240p flows 1024 quantum 1514 target 5ms interval 100ms memory_limit 32Mb ",
			`{"limit":10240,"flows":1024,"quantum":1514,"target":4999,"interval":99999,"memory_limit":33554432}` + "\n"},
		{"only a mask", attrs.FQCodelAttrs{CEThresholdMask: u8(3)},
			"ce_threshold_selector 0/0x3 ", `{"ce_threshold_selector":0,"ce_threshold_mask":3}` + "\n"},
		{"nothing", attrs.FQCodelAttrs{}, "", "{}\n"},
	} {
		o := tc.o
		print := func(p *tcfmt.Printer) { printFQCodelOptions(p, &o) }
		if got := printWith(tcfmt.Options{}, print); got != tc.text {
			t.Errorf("%s: text\n got %q\nwant %q", tc.name, got, tc.text)
		}
		if got := printWith(tcfmt.Options{JSON: true}, print); got != tc.json {
			t.Errorf("%s: JSON\n got %q\nwant %q", tc.name, got, tc.json)
		}
	}
}

// fqCodelXstatsBytes lays out a struct tc_fq_codel_xstats: the type, then
// the union's words.
func fqCodelXstatsBytes(typ uint32, words ...uint32) []byte {
	b := binary.NativeEndian.AppendUint32(nil, typ)
	for _, w := range words {
		b = binary.NativeEndian.AppendUint32(b, w)
	}
	return append(b, make([]byte, attrs.TCFQCodelXstatsLen-len(b))...)
}

func TestPrintFQCodelXstats(t *testing.T) {
	neg := func(v int32) uint32 { return uint32(v) }
	for _, tc := range []struct {
		name       string
		payload    []byte
		text, json string
	}{
		{"idle qdisc", fqCodelXstatsBytes(0),
			"  maxpacket 0 drop_overlimit 0 new_flow_count 0 ecn_mark 0\n  new_flows_len 0 old_flows_len 0",
			`{"maxpacket":0,"drop_overlimit":0,"new_flow_count":0,"ecn_mark":0,"new_flows_len":0,"old_flows_len":0}` + "\n"},
		// Union order: maxpacket, drop_overlimit, ecn_mark, new_flow_count,
		// new_flows_len, old_flows_len, ce_mark, memory_usage, drop_overmemory.
		{"busy qdisc", fqCodelXstatsBytes(0, 1514, 2, 3, 4, 5, 6, 7, 8, 9),
			"  maxpacket 1514 drop_overlimit 2 new_flow_count 4 ecn_mark 3 ce_mark 7 memory_used 8 drop_overmemory 9\n  new_flows_len 5 old_flows_len 6",
			`{"maxpacket":1514,"drop_overlimit":2,"new_flow_count":4,"ecn_mark":3,"ce_mark":7,"memory_used":8,"drop_overmemory":9,"new_flows_len":5,"old_flows_len":6}` + "\n"},
		{"memory only", fqCodelXstatsBytes(0, 0, 0, 0, 0, 1, 0, 0, 2304, 0),
			"  maxpacket 0 drop_overlimit 0 new_flow_count 0 ecn_mark 0 memory_used 2304\n  new_flows_len 1 old_flows_len 0",
			`{"maxpacket":0,"drop_overlimit":0,"new_flow_count":0,"ecn_mark":0,"memory_used":2304,"new_flows_len":1,"old_flows_len":0}` + "\n"},
		// Class union order: deficit, ldelay, count, lastcount, dropping, drop_next.
		{"flow", fqCodelXstatsBytes(1, neg(-86), 3, 0, 0, 0, 0),
			"  deficit -86 count 0 lastcount 0 ldelay 3us",
			`{"deficit":-86,"count":0,"lastcount":0,"ldelay":3}` + "\n"},
		{"dropping flow", fqCodelXstatsBytes(1, 1514, 12000, 5, 4, 1, 2500),
			"  deficit 1514 count 5 lastcount 4 ldelay 12ms dropping drop_next 2.5ms",
			`{"deficit":1514,"count":5,"lastcount":4,"ldelay":12000,"dropping":true,"drop_next":2500}` + "\n"},
		{"overdue drop", fqCodelXstatsBytes(1, 0, 0, 1, 0, 1, neg(-1500)),
			"  deficit 0 count 1 lastcount 0 ldelay 0us dropping drop_next -1.5ms",
			`{"deficit":0,"count":1,"lastcount":0,"ldelay":0,"dropping":true,"drop_next":-1500}` + "\n"},
		// tc zero-fills a short payload.
		{"short payload", fqCodelXstatsBytes(0, 1500)[:8],
			"  maxpacket 1500 drop_overlimit 0 new_flow_count 0 ecn_mark 0\n  new_flows_len 0 old_flows_len 0",
			`{"maxpacket":1500,"drop_overlimit":0,"new_flow_count":0,"ecn_mark":0,"new_flows_len":0,"old_flows_len":0}` + "\n"},
		{"unknown type", fqCodelXstatsBytes(2, 1), "", "{}\n"},
	} {
		for _, where := range []string{"app", "legacy"} {
			var x tckind.Xstats
			if where == "app" {
				x.App = attrs.DecodeStatsAppMsg("fq_codel", tc.payload)
			} else {
				x.Legacy = attrs.DecodeTCXstatsMsg("fq_codel", tc.payload)
			}
			print := func(p *tcfmt.Printer) { tckind.LookupQdisc("fq_codel").PrintXstats(p, x) }
			if got := printWith(tcfmt.Options{}, print); got != tc.text {
				t.Errorf("%s (%s): text\n got %q\nwant %q", tc.name, where, got, tc.text)
			}
			if got := printWith(tcfmt.Options{JSON: true}, print); got != tc.json {
				t.Errorf("%s (%s): JSON\n got %q\nwant %q", tc.name, where, got, tc.json)
			}
		}
	}
	// TCA_STATS_APP wins over TCA_XSTATS, as in tc.
	x := tckind.Xstats{App: attrs.DecodeStatsAppMsg("fq_codel", fqCodelXstatsBytes(0, 1)),
		Legacy: attrs.DecodeTCXstatsMsg("fq_codel", fqCodelXstatsBytes(0, 2))}
	if s := fqCodelStatsOf(x); s == nil || s.Union[0] != 1 {
		t.Errorf("fqCodelStatsOf took %v; want TCA_STATS_APP's", s)
	}
}

func TestFQCodelChangeAccepted(t *testing.T) {
	k := tckind.LookupQdisc("fq_codel")
	for _, tc := range []struct {
		args string
		want bool
	}{
		{"", true},
		{"limit 100 target 2ms interval 20ms ecn ce_threshold 1ms memory_limit 1Mb drop_batch 8 quantum 1048576", true},
		{"quantum 1048577", false},
		{"flows 1024", false},
	} {
		o, err := k.ParseQdisc(strings.Fields(tc.args), tckind.ParseEnv{})
		if err != nil {
			t.Fatal(err)
		}
		if got := k.ChangeAccepted(o, ""); got != tc.want {
			t.Errorf("%q: ChangeAccepted %v, want %v", tc.args, got, tc.want)
		}
	}
	if k.ChangeAccepted(attrs.TCOptionsMsgRaw{}, "") {
		t.Error("raw options accepted")
	}
}
