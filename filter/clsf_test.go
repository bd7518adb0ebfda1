// SPDX-License-Identifier: Apache-2.0

package filter

import (
	"bufio"
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gotc/gotc/action"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// fakeLinks names two devices, for route's fromif.
type fakeLinks struct{}

func (fakeLinks) Index(name string) (int32, bool) {
	switch name {
	case "lo":
		return 1, true
	case "eth0":
		return 2, true
	}
	return 0, false
}

func (fakeLinks) Name(idx int32) string {
	return map[int32]string{1: "lo", 2: "eth0"}[idx]
}

// parseCase is one filter command line: the handle word, the options,
// and the options and handle tc 7.3 sends for them.
type parseCase struct {
	handle, args string
	want         attrs.TCOptionsMsg
	wantHandle   uint32
}

func checkParse(t *testing.T, parse func([]string, tckind.FilterEnv) (attrs.TCOptionsMsg, uint32, error), cases []parseCase) {
	t.Helper()
	for _, c := range cases {
		o, h, err := parse(strings.Fields(c.args), tckind.FilterEnv{Handle: c.handle, ActionEnv: tckind.ActionEnv{Links: fakeLinks{}}})
		if err != nil {
			t.Errorf("%q %q: %v", c.handle, c.args, err)
			continue
		}
		if h != c.wantHandle {
			t.Errorf("%q %q: handle %#x, want %#x", c.handle, c.args, h, c.wantHandle)
		}
		if diff := cmp.Diff(c.want, o); diff != "" {
			t.Errorf("%q %q (-want +got):\n%s", c.handle, c.args, diff)
		}
	}
}

// errCase is a refused command line, with the start of tc's message and
// its exit status.
type errCase struct {
	handle, args, want string
	code               int
}

func checkErrors(t *testing.T, parse func([]string, tckind.FilterEnv) (attrs.TCOptionsMsg, uint32, error), cases []errCase) {
	t.Helper()
	for _, c := range cases {
		_, _, err := parse(strings.Fields(c.args), tckind.FilterEnv{Handle: c.handle, ActionEnv: tckind.ActionEnv{Links: fakeLinks{}}})
		var pe *tcword.ParseError
		if !errors.As(err, &pe) || !strings.HasPrefix(pe.Msg, c.want) || pe.ExitCode() != c.code {
			t.Errorf("%q %q: %v (%T), want %q exit %d", c.handle, c.args, err, err, c.want, c.code)
		}
	}
}

func printOpts(t *testing.T, print func(*tcfmt.Printer, attrs.TCOptionsMsg, tckind.FilterPrint), o attrs.TCOptionsMsg, f tckind.FilterPrint, json bool) string {
	t.Helper()
	var b bytes.Buffer
	p := tcfmt.NewPrinter(&b, tcfmt.Options{JSON: json})
	p.Start()
	if json {
		p.OpenObject("")
	}
	print(p, o, f)
	if json {
		p.CloseObject()
	}
	if err := p.Finish(); err != nil {
		t.Fatal(err)
	}
	if json {
		// The printer holds a listing: take the one object out of it.
		return strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(b.String()), "["), "]")
	}
	return b.String()
}

func TestParseFw(t *testing.T) {
	act := func(args string) []attrs.ActAttrs {
		a, _, err := action.ParseActions(strings.Fields(args), tckind.ActionEnv{})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	checkParse(t, parseFw, []parseCase{
		{"1", "classid 1:1", &attrs.FwAttrs{Classid: ptrOf(uint32(0x10001))}, 1},
		{"0x10/0xff", "flowid 1:2 indev eth0", &attrs.FwAttrs{Mask: ptrOf(uint32(0xff)), Classid: ptrOf(uint32(0x10002)), Indev: ptrOf("eth0")}, 0x10},
		{"4294967295/4294967295", "classid 1:1", &attrs.FwAttrs{Mask: ptrOf(uint32(0xffffffff)), Classid: ptrOf(uint32(0x10001))}, 0xffffffff},
		{"2", "classid 10 classid 4", &attrs.FwAttrs{Classid: ptrOf(uint32(4))}, 2},
		{"3", "indev abcdefghijklmnopqrstu", &attrs.FwAttrs{Indev: ptrOf("abcdefghijklmnop")}, 3},
		{"5", "action drop", &attrs.FwAttrs{Act: act("drop")}, 5},
		{"5", "action ok classid 1:3", &attrs.FwAttrs{Act: act("ok"), Classid: ptrOf(uint32(0x10003))}, 5},
		// Without options the mask is not sent.
		{"5/0xff", "", nil, 5},
	})
	checkErrors(t, parseFw, []errCase{
		{"4294967296", "classid 1:1", `Illegal "handle"`, 1},
		{"1/4294967296", "classid 1:1", `Illegal "handle" mask`, 1},
		{"1/", "classid 1:1", `Illegal "handle" mask`, 1},
		{"1", "classid 6789defg", `Illegal "classid"`, 1},
		{"1", "classid", `Command line is not complete`, 255},
		{"1", "indev", `Illegal indev`, 1},
		{"1", "bogus", `What is "bogus"?`, 1},
		{"1", "police rate 1mbit burst 10k bogus", `What is "bogus"?`, 1},
		{"1", "action", `Command line is not complete`, 255},
	})
}

func TestPrintFw(t *testing.T) {
	o := &attrs.FwAttrs{Mask: ptrOf(uint32(0xff)), Classid: ptrOf(uint32(0x10006)), Indev: ptrOf("d1")}
	if got, want := printOpts(t, printFw, o, tckind.FilterPrint{Handle: 6}, false), "handle 0x6/0xff classid 1:6 input dev d1 "; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
	if got, want := printOpts(t, printFw, o, tckind.FilterPrint{Handle: 6}, true), `{"fw":{"mark":"0x6","mask":"0xff"},"classid":"1:6","indev":"d1"}`; got != want {
		t.Errorf("json %s, want %s", got, want)
	}
	o = &attrs.FwAttrs{Classid: ptrOf(uint32(0xffffffff))}
	if got, want := printOpts(t, printFw, o, tckind.FilterPrint{Handle: 5}, false), "handle 0x5 classid root "; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
	if got, want := printOpts(t, printFw, o, tckind.FilterPrint{Handle: 5}, true), `{"fw":{"mark":"0x5","mask":"0xffffffff"},"classid":"root"}`; got != want {
		t.Errorf("json %s, want %s", got, want)
	}
}

func TestParseRoute(t *testing.T) {
	checkParse(t, parseRoute, []parseCase{
		{"", "to 10 from 2 classid 1:2", &attrs.RouteAttrs{To: ptrOf(uint32(10)), From: ptrOf(uint32(2)), Classid: ptrOf(uint32(0x10002))}, 0x0002000a},
		{"", "fromif lo to 0 flowid 1:3", &attrs.RouteAttrs{Iif: ptrOf(uint32(1)), To: ptrOf(uint32(0)), Classid: ptrOf(uint32(0x10003))}, 0x80010000},
		{"", "to 3 order 5 classid 1:3", &attrs.RouteAttrs{To: ptrOf(uint32(3)), Classid: ptrOf(uint32(0x10003))}, 0xffff0503},
		{"", "from 0x20", &attrs.RouteAttrs{From: ptrOf(uint32(0x20))}, 0x00208000},
		{"0x10005", "to 5 from 1", &attrs.RouteAttrs{To: ptrOf(uint32(5)), From: ptrOf(uint32(1))}, 0x10005},
		{"7", "", nil, 7},
	})
	checkErrors(t, parseRoute, []errCase{
		{"", "to 256", `Illegal "to"`, 1},
		{"", "from x", `Illegal "from"`, 1},
		{"", "fromif nosuch", `Illegal "fromif"`, 1},
		{"", "order x", `Illegal "order"`, 1},
		{"", "to", `Command line is not complete`, 255},
		{"", "to 1 bogus", `What is "bogus"?`, 1},
		{"x", "to 1", `Illegal "handle"`, 1},
	})
}

func TestPrintRoute(t *testing.T) {
	o := &attrs.RouteAttrs{To: ptrOf(uint32(7)), Iif: ptrOf(uint32(2)), Classid: ptrOf(uint32(0x10003))}
	f := tckind.FilterPrint{Handle: 0x80020007, Links: fakeLinks{}}
	if got, want := printOpts(t, printRoute, o, f, false), "fh 0x80020007 flowid 1:3 to 7 fromif eth0"; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
	o = &attrs.RouteAttrs{To: ptrOf(uint32(3)), From: ptrOf(uint32(2))}
	if got, want := printOpts(t, printRoute, o, tckind.FilterPrint{Handle: 0x00020503}, true), `{"fh":"0x20503","order":5,"name":"3","name":"2"}`; got != want {
		t.Errorf("json %s, want %s", got, want)
	}
}

// TestReadRealms: rt_realms lines as rtnl_tab_initialize reads them.
func TestReadRealms(t *testing.T) {
	tab := &[256]string{0: "unknown"}
	readRealms(bufio.NewScanner(strings.NewReader("#\n# reserved\n0\tcosmos\n  0x10 sixteen\n300 big\n#2 off\n3 three # c\n")), tab)
	for id, want := range map[int]string{0: "cosmos", 16: "sixteen", 2: "", 3: "three"} {
		if tab[id] != want {
			t.Errorf("realm %d: %q, want %q", id, tab[id], want)
		}
	}
	tab = &[256]string{}
	readRealms(bufio.NewScanner(strings.NewReader("1 one\nbad\n2 two\n")), tab)
	if tab[1] != "one" || tab[2] != "" {
		t.Errorf("after a bad line: %q %q, want reading to stop there", tab[1], tab[2])
	}
}

func TestParseFlow(t *testing.T) {
	u := func(v uint32) *uint32 { return &v }
	checkParse(t, parseFlow, []parseCase{
		{"1", "map key dst and 0xff", &attrs.FlowAttrs{Keys: u(2), Mode: u(flowModeMap), Mask: u(0xff), Xor: u(0)}, 1},
		{"1", "map key dst or 0xff", &attrs.FlowAttrs{Keys: u(2), Mode: u(flowModeMap), Mask: u(0xffffff00), Xor: u(0xff)}, 1},
		{"1", "map key dst xor 0xff", &attrs.FlowAttrs{Keys: u(2), Mode: u(flowModeMap), Mask: u(0xffffffff), Xor: u(0xff)}, 1},
		{"1", "map key mark rshift 0x1f addend -3", &attrs.FlowAttrs{Keys: u(1 << 7), Mode: u(flowModeMap), Rshift: u(31), Addend: u(0xfffffffd)}, 1},
		{"1", "map key src addend 10.0.0.1", &attrs.FlowAttrs{Keys: u(1), Mode: u(flowModeMap), Addend: u(0x0a000001)}, 1},
		{"1", "map key proto-src addend -::1:2", &attrs.FlowAttrs{Keys: u(1 << 3), Mode: u(flowModeMap), Addend: u(0xfffefffe)}, 1},
		{"2", "hash keys s,d,pr perturb 10 divisor 1024 baseclass 1:1", &attrs.FlowAttrs{Keys: u(7), Mode: u(flowModeHash), Perturb: u(10), Divisor: u(1024), Baseclass: u(0x10001)}, 2},
		{"", "", &attrs.FlowAttrs{Mode: u(flowModeMap)}, 0},
	})
	checkErrors(t, parseFlow, []errCase{
		{"1", "map keys src,dst", `Invalid mode "map" for multiple keys`, 1},
		{"1", "hash keys src,bogus", `Unknown flow key "bogus"`, 1},
		{"1", "hash keys src,", `Unknown flow key ""`, 1},
		{"1", "map key dst baseclass 1:0", `Illegal "baseclass"`, 1},
		{"1", "map key mark addend 10.0.0.1", `Illegal "addend"`, 1},
		{"1", "map key dst addend any", `Illegal "addend"`, 1},
		{"1", "map key dst addend nothing", `Error: any valid address is expected rather than "nothing".`, 1},
		{"1", "map key dst and x", `Illegal "mask"`, 1},
		{"1", "map key dst divisor", `Command line is not complete`, 255},
		// tc's ematch lexer leaves the word it stopped in to the filter:
		// an expression that ends the line leaves its last word.
		{"1", "map key dst match cmp(u8 at 0 layer link mask 0xff gt 10)", `What is "10)"?`, 1},
		{"x", "map key dst", `Illegal "handle"`, 1},
	})
}

func TestPrintFlow(t *testing.T) {
	u := func(v uint32) *uint32 { return &v }
	o := &attrs.FlowAttrs{Keys: u(1<<7 | 1), Mode: u(flowModeHash), Mask: u(0xff), Xor: u(0xf3), Rshift: u(2), Addend: u(5), Divisor: u(16), Baseclass: u(0x10001), Perturb: u(10)}
	want := "handle 0x1 hash keys src,mark and 0x000000ff xor 0x000000f3 rshift 2 addend 0x5 divisor 16 baseclass 1:1 perturb 10sec "
	if got := printOpts(t, printFlow, o, tckind.FilterPrint{Handle: 1}, false); got != want {
		t.Errorf("text %q, want %q", got, want)
	}
	o = &attrs.FlowAttrs{Keys: u(2), Mode: u(flowModeMap), Mask: u(0xffffff00), Xor: u(0xff)}
	if got, want := printOpts(t, printFlow, o, tckind.FilterPrint{Handle: 1}, false), "handle 0x1 map keys dst and 0xffffff00 or 0x000000ff "; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
	if got, want := printOpts(t, printFlow, o, tckind.FilterPrint{Handle: 1}, true), `{"handle":"0x1","mode":"map","keys":["dst"],"and":"0xffffff00","or":"0xff"}`; got != want {
		t.Errorf("json %s, want %s", got, want)
	}
}

// FuzzParseClsf: the fw, route and flow parsers never panic, and what they
// accept encodes and decodes back to itself.
func FuzzParseClsf(f *testing.F) {
	for _, s := range []string{
		"fw 1/0xff classid 1:1 indev eth0 action drop",
		"route 0 from 1 to 10 classid 1:1 order 3",
		"route 0 fromif lo to 3 action ok",
		"flow 1 hash keys src,dst perturb 10 divisor 1024 baseclass 1:1",
		"flow 1 map key mark and 0xff or 3 xor 4 rshift 2 addend -10.0.0.1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		w := strings.Fields(line)
		if len(w) < 2 {
			return
		}
		kind := tckind.LookupFilter(w[0])
		if kind == nil || (w[0] != "fw" && w[0] != "route" && w[0] != "flow") {
			return
		}
		handle := w[1]
		if handle == "0" {
			handle = ""
		}
		o, _, err := kind.Parse(w[2:], tckind.FilterEnv{Handle: handle, ActionEnv: tckind.ActionEnv{Links: fakeLinks{}}})
		if err != nil || o == nil {
			return
		}
		// A word that names no action kind is sent as that kind with
		// gact's options, as tc does: those decode raw.
		var acts []attrs.ActAttrs
		switch o := o.(type) {
		case *attrs.FwAttrs:
			acts = o.Act
		case *attrs.RouteAttrs:
			acts = o.Act
		case *attrs.FlowAttrs:
			acts = o.Act
		}
		if slices.ContainsFunc(acts, func(a attrs.ActAttrs) bool { return tckind.LookupAction(*a.Kind) == nil }) {
			return
		}
		want := &attrs.TCAttrs{Kind: ptrOf(w[0]), Options: o}
		e := attrs.NewEncoder(nil)
		want.Encode(e)
		var got attrs.TCAttrs
		if err := got.Decode(e.Bytes()); err != nil {
			t.Fatalf("%q: decode: %v", line, err)
		}
		if diff := cmp.Diff(want, &got); diff != "" {
			t.Fatalf("%q: round trip (-want +got):\n%s", line, diff)
		}
	})
}

// TestFilterPoliceAndEmatch: fw, route and flow read tc's police option and
// go on after it; flow reads an extended match and goes on after it.
func TestFilterPoliceAndEmatch(t *testing.T) {
	parse := func(f func([]string, tckind.FilterEnv) (attrs.TCOptionsMsg, uint32, error), handle, args string) attrs.TCOptionsMsg {
		t.Helper()
		o, _, err := f(strings.Fields(args), tckind.FilterEnv{Handle: handle, ActionEnv: tckind.ActionEnv{Links: fakeLinks{}}})
		if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		return o
	}
	if o := parse(parseFw, "1", "police rate 1mbit burst 10k drop classid 1:1").(*attrs.FwAttrs); o.Police == nil || o.Police.TBF == nil || o.Classid == nil {
		t.Errorf("fw: police %+v, classid %v", o.Police, o.Classid)
	}
	if o := parse(parseRoute, "", "to 10 police rate 1mbit burst 10k classid 1:1").(*attrs.RouteAttrs); o.Police == nil || o.Police.TBF == nil || o.Classid == nil {
		t.Errorf("route: police %+v, classid %v", o.Police, o.Classid)
	}
	o := parse(parseFlow, "1", "map key dst match cmp(u8 at 0 layer link mask 0xff gt 10) police rate 1mbit burst 10k action drop").(*attrs.FlowAttrs)
	if o.Ematches == nil || o.Police == nil || o.Act == nil {
		t.Errorf("flow: ematches %+v, police %+v, actions %+v", o.Ematches, o.Police, o.Act)
	}
}
