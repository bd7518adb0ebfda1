// SPDX-License-Identifier: Apache-2.0

package tcfmt

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

// The expected JSON bytes below follow lib/json_writer.c: jsonw_name,
// jsonw_eor, jsonw_eol (4 blanks per depth), jsonw_start_array's "[ " and
// jsonw_end_array's " ]" when pretty, jsonw_destroy's final "\n"; and
// lib/json_print.c for which text or JSON each print_* call produces.

func render(o Options, f func(p *Printer)) string {
	var b bytes.Buffer
	p := NewPrinter(&b, o)
	p.Start()
	f(p)
	if err := p.Finish(); err != nil {
		panic(err)
	}
	return b.String()
}

// nested prints an object with nested arrays, objects, null, bool, float.
func nested(p *Printer) {
	p.OpenObject("")
	p.String(Any, "kind", "qdisc %s ", "cake")
	p.OpenArray(JSON, "tins")
	for i := uint64(1); i <= 2; i++ {
		p.OpenObject("")
		p.Uint(Any, "a", "a %u ", i)
		p.CloseObject()
	}
	p.CloseArray(JSON, "")
	p.OpenArray(JSON, "nums")
	p.Uint(JSON, "", "", 1)
	p.Uint(JSON, "", "", 2)
	p.CloseArray(JSON, "")
	p.OpenArray(JSON, "empty")
	p.CloseArray(JSON, "")
	p.OpenObject("o")
	p.CloseObject()
	p.Null(Any, "n", "%s ", "n")
	p.Bool(Any, "b", "b ", false)
	p.Float(Any, "f", "f %f ", 0.5)
	p.Int(Any, "i", "i %d", -3)
	p.CloseObject()
}

func TestJSONCompact(t *testing.T) {
	got := render(Options{JSON: true}, func(p *Printer) { nested(p); nested(p) })
	one := `{"kind":"cake","tins":[{"a":1},{"a":2}],"nums":[1,2],"empty":[],"o":{},"n":null,"b":false,"f":0.5,"i":-3}`
	want := "[" + one + "," + one + "]\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestJSONPretty(t *testing.T) {
	got := render(Options{JSON: true, Pretty: true}, func(p *Printer) { nested(p); nested(p) })
	one := `{
        "kind": "cake",
        "tins": [ {
                "a": 1
            },{
                "a": 2
            } ],
        "nums": [ 1,2 ],
        "empty": [ ],
        "o": {},
        "n": null,
        "b": false,
        "f": 0.5,
        "i": -3
    }`
	want := "[ " + one + "," + one + " ]\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestJSONEmptyListing(t *testing.T) {
	// "tc -j qdisc show dev X" with nothing to show.
	if got := render(Options{JSON: true}, func(*Printer) {}); got != "[]\n" {
		t.Errorf("compact %q", got)
	}
	if got := render(Options{JSON: true, Pretty: true}, func(*Printer) {}); got != "[ ]\n" {
		t.Errorf("pretty %q", got)
	}
	if got := render(Options{}, func(*Printer) {}); got != "" {
		t.Errorf("text %q", got)
	}
}

func TestJSONPlain(t *testing.T) {
	// new_json_obj_plain: no outer array.
	var b bytes.Buffer
	p := NewPrinter(&b, Options{JSON: true, Pretty: true})
	p.StartPlain()
	p.OpenObject("")
	p.Uint(Any, "x", "", 1)
	p.CloseObject()
	p.Finish()
	if got, want := b.String(), "{\n    \"x\": 1\n}\n"; got != want {
		t.Errorf("got %q want %q", got, want)
	}
}

func TestJSONEscaping(t *testing.T) {
	// jsonw_puts: \t \n \r \f \b \\ \" and \u00XX for other controls and
	// DEL; '/' and bytes >= 0x80 (even invalid UTF-8) pass through.
	in := "a\"b\\c\n\t\r\f\b\x01\x1f\x7f/é\xff'"
	want := `["a\"b\\c\n\t\r\f\b\u0001\u001f\u007f/é` + "\xff" + `'"]` + "\n"
	got := render(Options{JSON: true}, func(p *Printer) { p.String(Any, "", "%s", in) })
	if got != want {
		t.Errorf("got %q want %q", got, want)
	}
	// Member names are not escaped: they are Name constants of the code.
}

func TestJSONNumbers(t *testing.T) {
	got := render(Options{JSON: true}, func(p *Printer) {
		p.Uint(Any, "", "", math.MaxUint64)
		p.Int(Any, "", "", math.MinInt64)
		p.Float(Any, "", "", 0.1)
		p.Float(Any, "", "", 1e-7)
		p.Float(Any, "", "", 1234567)
		p.Float(Any, "", "", math.Inf(1)) // printed as C does: not valid JSON
		p.Float(Any, "", "", math.NaN())
		p.Bool(Any, "", "", true)
		p.OnOff(Any, "", "", false)
		p.Hex(Any, "", "", 0xbeef)
		p.Hex0x(Any, "", "", 0xbeef)
		p.Hex0x(Any, "", "", 0)            // "%#llx" of 0 is "0"
		p.Size(Any, "", "", 1<<32+7)       // print_size's JSON goes through %u
		p.Rate(Any, "", "", 1<<40)         // bytes/s, unscaled
		p.Time(Any, "", "", 100000)        // microseconds
		p.Null(Any, "", "", "")            //
		p.BoolOpt(Any, "nat", false, true) // always keyed in JSON
	})
	want := `[18446744073709551615,-9223372036854775808,0.1,1e-07,1.23457e+06,inf,nan,true,false,"beef","0xbeef","0",7,1099511627776,100000,null,"nat":false]` + "\n"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestTextForms(t *testing.T) {
	got := render(Options{}, func(p *Printer) {
		p.String(Any, "k", "qdisc %s ", "cake")
		p.Uint(Any, "k", "limit %up ", 10000)
		p.Int(Any, "k", "overhead %d ", -4)
		p.Float(Any, "k", "alpha %f ", 0.15625)
		p.Bool(Any, "root", "root ", true)
		p.Bool(Any, "b", "%s ", false)
		p.OnOff(Any, "o", "o %s ", true)
		p.BoolOpt(Any, "nat", false, true)
		p.BoolOpt(Any, "wash", true, true)
		p.BoolOpt(Any, "hidden", true, false)
		p.Null(Any, "split-gso", "%s ", "split_gso")
		p.Hex(Any, "h", "h %x ", 0xbeef)
		p.Hex0x(Any, "fwmark", "fwmark %#llx ", 0x10)
		p.Size(Any, "memlimit", "memlimit %s ", 32<<20)
		p.Rate(Any, "bandwidth", "bandwidth %s ", 12187500)
		p.Time(Any, "rtt", "rtt %s ", 100000)
		p.Uint(JSON, "only-json", "SHOULD NOT PRINT", 1)
		p.Text("|")
		p.OpenArray(Any, "[")
		p.CloseArray(Any, "]")
		p.NL()
	})
	want := "qdisc cake limit 10000p overhead -4 alpha 0.156250 root false o on nonat wash split_gso h beef fwmark 0x10 memlimit 32Mb bandwidth 97500Kbit rtt 100ms |[]\n"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestFPOnlyInJSON(t *testing.T) {
	got := render(Options{JSON: true}, func(p *Printer) {
		p.OpenObject("")
		p.String(FP, "x", "text only", "v")
		p.Text("text only")
		p.NL()
		p.Uint(JSON, "j", "", 1)
		p.OpenArray(FP, "delim")
		p.CloseArray(FP, "delim")
		p.CloseObject()
	})
	if want := `[{"j":1}]` + "\n"; got != want {
		t.Errorf("got %q want %q", got, want)
	}
}

func TestIEC(t *testing.T) {
	got := render(Options{IEC: true}, func(p *Printer) { p.Rate(Any, "r", "%s", 128) })
	if got != "1Kibit" {
		t.Errorf("got %q", got)
	}
	// JSON is unaffected by -iec.
	got = render(Options{IEC: true, JSON: true}, func(p *Printer) { p.Rate(Any, "", "%s", 128) })
	if got != "[128]\n" {
		t.Errorf("got %q", got)
	}
}

func TestOneline(t *testing.T) {
	// -oneline: _SL_ is a backslash; the rate line's "\n" stays hard.
	st := Stats2{HasBasic: true, HasQueue: true}
	got := render(Options{Oneline: true}, func(p *Printer) {
		p.Stats(&st, " ")
		p.NL()
	})
	want := ` Sent 0 bytes 0 pkt (dropped 0, overlimits 0 requeues 0) \ backlog 0b 0p requeues 0\`
	if got != want {
		t.Errorf("got %q want %q", got, want)
	}
}

func TestQdiscHead(t *testing.T) {
	// print_qdisc (tc/tc_qdisc.c).
	tests := []struct {
		h          QdiscHeader
		text, json string
	}{
		{QdiscHeader{Kind: "cake", Handle: 0x80010000, Parent: HandleRoot, Info: 1},
			"qdisc cake 8001: root ",
			`{"kind":"cake","handle":"8001:","root":true`},
		{QdiscHeader{Kind: "cake", Handle: 0x80010000, Parent: HandleRoot, Info: 2, Dev: "d0", ShowDev: true},
			"qdisc cake 8001: dev d0 root refcnt 2 ",
			`{"kind":"cake","handle":"8001:","dev":"d0","root":true,"refcnt":2`},
		{QdiscHeader{Kind: "dualpi2", Handle: 0x100000, Parent: 0x10001, Info: 1, Dev: "eth0", ShowDev: true},
			"qdisc dualpi2 10: dev eth0 parent 1:1 ",
			`{"kind":"dualpi2","handle":"10:","dev":"eth0","parent":"1:1"`},
		{QdiscHeader{Kind: "ingress", Handle: 0xffff0000, Parent: handleIngress, Info: 1},
			"qdisc ingress ffff: parent ffff:fff1 ",
			`{"kind":"ingress","handle":"ffff:","parent":"ffff:fff1"`},
		{QdiscHeader{Kind: "noqueue", Handle: 0, Parent: HandleRoot, Info: 2, Dev: "lo", ShowDev: true},
			"qdisc noqueue 0: dev lo root refcnt 2 ",
			`{"kind":"noqueue","handle":"0:","dev":"lo","root":true,"refcnt":2`},
		{QdiscHeader{Kind: "x", Handle: 0x10000, Parent: 0, Info: 0},
			"qdisc x 1: refcnt 0 ",
			`{"kind":"x","handle":"1:","refcnt":0`},
		{QdiscHeader{Kind: "cake", Handle: 0x80010000, Parent: HandleRoot, Info: 1, Raw: true},
			"qdisc cake 8001:[80010000] root ",
			`{"kind":"cake","handle":"8001:","root":true`},
		{QdiscHeader{Kind: "cake", Handle: 0x10000, Parent: HandleRoot, Info: 1, Deleted: true},
			"deleted qdisc cake 1: root ",
			`{"deleted":true,"kind":"cake","handle":"1:","root":true`},
		{QdiscHeader{Kind: "cake", Handle: 0x10000, Parent: HandleRoot, Info: 1, Added: true, Offloaded: true, IngressBlock: 5, EgressBlock: 6},
			"added qdisc cake 1: root offloaded ingress_block 5 egress_block 6 ",
			`{"added":true,"kind":"cake","handle":"1:","root":true,"offloaded":true,"ingress_block":5,"egress_block":6`},
		{QdiscHeader{Kind: "cake", Handle: 0x10000, Parent: HandleRoot, Info: 1, Replaced: true},
			"replaced qdisc cake 1: root ",
			`{"replaced":true,"kind":"cake","handle":"1:","root":true`},
	}
	for _, tt := range tests {
		got := render(Options{}, func(p *Printer) { p.QdiscHead(&tt.h) })
		if got != tt.text {
			t.Errorf("text: got %q want %q", got, tt.text)
		}
		got = render(Options{JSON: true}, func(p *Printer) { p.QdiscHead(&tt.h); p.CloseObject() })
		if want := "[" + tt.json + "}]\n"; got != want {
			t.Errorf("json: got %q want %q", got, want)
		}
	}
}

// qdiscFull prints one qdisc the way print_qdisc does with -s.
func qdiscFull(p *Printer, st *Stats2, warn string) {
	h := QdiscHeader{Kind: "cake", Handle: 0x80010000, Parent: HandleRoot, Info: 2, Dev: "d0", ShowDev: true}
	p.QdiscHead(&h)
	p.OpenObject("options")
	p.Rate(Any, "bandwidth", "bandwidth %s ", 12187500)
	p.CloseObject()
	p.NL()
	p.Stats(st, " ")
	p.NL()
	p.QdiscTail(warn, warn != "")
}

func TestQdiscWithStats(t *testing.T) {
	st := Stats2{
		HasBasic: true, Basic: BasicStats{Bytes: 10, Packets: 1},
		HasQueue: true, Queue: QueueStats{Qlen: 5, Backlog: 1024, Drops: 2, Requeues: 4, Overlimits: 3},
	}
	got := render(Options{}, func(p *Printer) { qdiscFull(p, &st, "") })
	want := "qdisc cake 8001: dev d0 root refcnt 2 bandwidth 97500Kbit \n" +
		" Sent 10 bytes 1 pkt (dropped 2, overlimits 3 requeues 4) \n" +
		" backlog 1Kb 5p requeues 4\n"
	if got != want {
		t.Errorf("text got\n%q\nwant\n%q", got, want)
	}
	got = render(Options{JSON: true}, func(p *Printer) { qdiscFull(p, &st, "") })
	want = `[{"kind":"cake","handle":"8001:","dev":"d0","root":true,"refcnt":2,"options":{"bandwidth":12187500},` +
		`"bytes":10,"packets":1,"drops":2,"overlimits":3,"requeues":4,"backlog":1024,"qlen":5}]` + "\n"
	if got != want {
		t.Errorf("json got\n%s\nwant\n%s", got, want)
	}
	got = render(Options{JSON: true, Pretty: true}, func(p *Printer) { qdiscFull(p, &st, "") })
	want = `[ {
        "kind": "cake",
        "handle": "8001:",
        "dev": "d0",
        "root": true,
        "refcnt": 2,
        "options": {
            "bandwidth": 12187500
        },
        "bytes": 10,
        "packets": 1,
        "drops": 2,
        "overlimits": 3,
        "requeues": 4,
        "backlog": 1024,
        "qlen": 5
    } ]
`
	if got != want {
		t.Errorf("pretty got\n%s\nwant\n%s", got, want)
	}
}

func TestStatsRateEst(t *testing.T) {
	// A qdisc with an estimator: RATE_EST, and RATE_EST64 when the 32-bit
	// rate saturates; the rate line starts with a hard "\n" and the
	// backlog follows on the same line.
	st := Stats2{
		HasBasic: true, Basic: BasicStats{Bytes: 5, Packets: 7}, Packets64: 1 << 33,
		HasQueue:   true,
		HasRateEst: true, RateEst: RateEst{BPS: 125, PPS: 3},
	}
	got := render(Options{}, func(p *Printer) { p.Stats(&st, " ") })
	want := " Sent 5 bytes 8589934592 pkt (dropped 0, overlimits 0 requeues 0) \n rate 1Kbit 3pps backlog 0b 0p requeues 0"
	if got != want {
		t.Errorf("got %q want %q", got, want)
	}
	st.HasRateEst64, st.RateEst64 = true, RateEst{BPS: 1 << 33, PPS: 9}
	got = render(Options{}, func(p *Printer) { p.Stats(&st, " ") })
	want = " Sent 5 bytes 8589934592 pkt (dropped 0, overlimits 0 requeues 0) \n rate 68719Mbit 9pps backlog 0b 0p requeues 0"
	if got != want {
		t.Errorf("got %q want %q", got, want)
	}
	got = render(Options{JSON: true}, func(p *Printer) { p.OpenObject(""); p.Stats(&st, " "); p.CloseObject() })
	want = `[{"bytes":5,"packets":8589934592,"drops":0,"overlimits":0,"requeues":0,"rate":8589934592,"pps":9,"backlog":0,"qlen":0}]` + "\n"
	if got != want {
		t.Errorf("got %q want %q", got, want)
	}
	// Only RATE_EST64 (never sent by the kernel): tc tests RATE_EST alone
	// before the separator, so backlog goes on a line of its own.
	st.HasRateEst = false
	got = render(Options{}, func(p *Printer) { p.Stats(&st, "") })
	if !strings.HasSuffix(got, "\nrate 68719Mbit 9pps\nbacklog 0b 0p requeues 0") {
		t.Errorf("got %q", got)
	}
}

func TestStatsPartial(t *testing.T) {
	// Basic only, queue only, nothing.
	got := render(Options{}, func(p *Printer) { p.Stats(&Stats2{HasBasic: true}, " ") })
	if got != " Sent 0 bytes 0 pkt" {
		t.Errorf("basic only %q", got)
	}
	got = render(Options{}, func(p *Printer) { p.Stats(&Stats2{HasQueue: true}, " ") })
	if got != " (dropped 0, overlimits 0 requeues 0) \n backlog 0b 0p requeues 0" {
		t.Errorf("queue only %q", got)
	}
	got = render(Options{}, func(p *Printer) { p.Stats(&Stats2{}, " ") })
	if got != "" {
		t.Errorf("empty %q", got)
	}
}

func TestCompatStats(t *testing.T) {
	// print_tcstats_attr's TCA_STATS fallback.
	st := CompatStats{Bytes: 100, Packets: 2, Drops: 1, BPS: 125, Qlen: 3}
	got := render(Options{}, func(p *Printer) { p.CompatStatsBlock(&st, " ") })
	want := " Sent 100 bytes 2 pkts (dropped 1, overlimits 0) \n rate 1Kbit backlog 3p "
	if got != want {
		t.Errorf("got %q want %q", got, want)
	}
	got = render(Options{JSON: true}, func(p *Printer) { p.CompatStatsBlock(&st, " ") })
	// The members are written at the array level here (no object open),
	// which only checks names and order.
	want = `["bytes":100,"packets":2,"dropped":1,"overlimits":0,"rate":125,"qlen":3]` + "\n"
	if got != want {
		t.Errorf("got %q want %q", got, want)
	}
	st = CompatStats{}
	got = render(Options{}, func(p *Printer) { p.CompatStatsBlock(&st, "") })
	if got != "Sent 0 bytes 0 pkts (dropped 0, overlimits 0) " {
		t.Errorf("zero %q", got)
	}
}

func TestQdiscWarn(t *testing.T) {
	st := Stats2{}
	got := render(Options{}, func(p *Printer) { qdiscFull(p, &st, "careful") })
	if !strings.HasSuffix(got, "\ncareful\n") {
		t.Errorf("got %q", got)
	}
	got = render(Options{JSON: true}, func(p *Printer) { qdiscFull(p, &st, "careful") })
	if !strings.HasSuffix(got, `"options":{"bandwidth":12187500},"warn":"careful"}]`+"\n") {
		t.Errorf("got %q", got)
	}
}

func TestEmptyOptions(t *testing.T) {
	// print_qdisc opens "options" even without TCA_OPTIONS.
	got := render(Options{JSON: true, Pretty: true}, func(p *Printer) {
		p.QdiscHead(&QdiscHeader{Kind: "noqueue", Parent: HandleRoot, Info: 2, Dev: "lo", ShowDev: true})
		p.OpenObject("options")
		p.CloseObject()
		p.NL()
		p.QdiscTail("", false)
	})
	want := `[ {
        "kind": "noqueue",
        "handle": "0:",
        "dev": "lo",
        "root": true,
        "refcnt": 2,
        "options": {}
    } ]
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

type failWriter struct{ n int }

func (w *failWriter) Write(b []byte) (int, error) {
	w.n++
	return 0, errors.New("boom")
}

func TestWriteError(t *testing.T) {
	w := &failWriter{}
	p := NewPrinter(w, Options{JSON: true})
	p.Start()
	p.Uint(Any, "", "", 1)
	if err := p.Finish(); err == nil || err.Error() != "boom" {
		t.Fatalf("Finish: %v", err)
	}
	if p.Err() == nil {
		t.Fatal("Err lost")
	}
	p.Flush()
	if w.n != 1 {
		t.Errorf("wrote %d times after an error", w.n)
	}
}

func TestLargeOutputFlushes(t *testing.T) {
	// Output past the buffer threshold is written in pieces; the bytes are
	// the same.
	var b bytes.Buffer
	p := NewPrinter(&b, Options{})
	st := Stats2{HasBasic: true, HasQueue: true}
	for i := 0; i < 2000; i++ {
		qdiscFull(p, &st, "")
	}
	p.Finish()
	one := render(Options{}, func(p *Printer) { qdiscFull(p, &st, "") })
	if b.String() != strings.Repeat(one, 2000) {
		t.Error("flushed output differs")
	}
	// Reset reuses the printer.
	b.Reset()
	p.Reset(&b, Options{JSON: true})
	p.Start()
	p.Finish()
	if b.String() != "[]\n" {
		t.Errorf("after Reset: %q", b.String())
	}
}

func TestAccessors(t *testing.T) {
	p := NewPrinter(&bytes.Buffer{}, Options{JSON: true, Oneline: true, IEC: true})
	if p.IsJSON() {
		t.Error("JSON before Start")
	}
	p.Start()
	if !p.IsJSON() || !p.IEC() || p.SL() != `\` {
		t.Error("accessors")
	}
	p.Key(Any, "k")
	p.OpenObject("")
	p.CloseObject()
	p.Finish()
}

// writeSizes records the size of every write it receives.
type writeSizes struct {
	bytes.Buffer
	sizes []int
}

func (w *writeSizes) Write(b []byte) (int, error) {
	w.sizes = append(w.sizes, len(b))
	return w.Buffer.Write(b)
}

func TestJSONListingIsWrittenAsItGoes(t *testing.T) {
	const records = 20000
	w := &writeSizes{}
	p := NewPrinter(w, Options{JSON: true})
	p.Start()
	for range records {
		nested(p)
	}
	if len(w.sizes) == 0 {
		t.Fatalf("nothing written before Finish after %d records", records)
	}
	if err := p.Finish(); err != nil {
		t.Fatal(err)
	}
	one := len(`{"kind":"cake","tins":[{"a":1},{"a":2}],"nums":[1,2],"empty":[],"o":{},"n":null,"b":false,"f":0.5,"i":-3},`)
	for i, n := range w.sizes {
		if n > flushAt+one {
			t.Errorf("write %d is %d bytes: more than the %d-byte threshold and one record", i, n, flushAt)
		}
	}
	if want := 2 + records*one; w.Len() != want { // "[" + records with commas (the last without) + "]\n"
		t.Errorf("listing is %d bytes, want %d", w.Len(), want)
	}
}

func TestAppendJSONStringEscapings(t *testing.T) {
	for _, tc := range []struct{ in, asTc, valid string }{
		{"eth0", `"eth0"`, `"eth0"`},
		{`a"b\c`, `"a\"b\\c"`, `"a\"b\\c"`},
		{"tab\there\n", `"tab\there\n"`, `"tab\u0009here\u000a"`},
		{"\x01\x7f", `"\u0001\u007f"`, "\"\\u0001\x7f\""},
		{"bad\xffdev", "\"bad\xffdev\"", `"bad\ufffddev"`},
		{"wlan-ü\xe2\x82", "\"wlan-ü\xe2\x82\"", `"wlan-ü\ufffd\ufffd"`},
	} {
		if got := string(AppendJSONString(nil, tc.in, EscapeAsTc)); got != tc.asTc {
			t.Errorf("EscapeAsTc %q = %s, want %s", tc.in, got, tc.asTc)
		}
		got := string(AppendJSONString([]byte("x"), tc.in, EscapeValidUTF8))
		if got != "x"+tc.valid {
			t.Errorf("EscapeValidUTF8 %q = %s, want %s", tc.in, got, tc.valid)
		}
		var s string
		if err := json.Unmarshal([]byte(got[1:]), &s); err != nil || (utf8.ValidString(tc.in) && s != tc.in) {
			t.Errorf("EscapeValidUTF8 %q decodes to %q, %v", tc.in, s, err)
		}
	}
}
