// SPDX-License-Identifier: Apache-2.0

package filter

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

func ptrOf[T any](v T) *T { return &v }

// TestParseU32Handle: get_u32_handle's forms, checked against tc 7.3's
// requests (the handles the kernel then reported).
func TestParseU32Handle(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint32
		ok   bool
	}{
		{"800:", 0x80000000, true},
		{"800::", 0x80000000, true},
		{"800::800", 0x80000800, true},
		{"2:7:800", 0x00207800, true},
		{"::1", 1, true},
		{":5:", 0x5000, true},
		{"0x80000800", 0x80000800, true},
		{"1:2:3:4", 0x00102003, true}, // what follows the node is not read
		{"1000:", 0, false},           // htid has 12 bits
		{"1:100:", 0, false},          // the bucket 8
		{"1::1000", 0, false},         // the node 12
		{"800", 0, false},             // no colon: only 0x...
		{"zz", 0, false},
		{"1:zz", 0, false},
	} {
		got, err := parseU32Handle(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("%q: %#x, %v; want %#x ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
	for h, want := range map[uint32]string{0: "none", 0x80000000: "800:", 0x80000800: "800::800", 0x00207800: "2:7:800", 0x5000: "5"} {
		if got := formatU32Handle(h, false); got != want {
			t.Errorf("formatU32Handle(%#x) = %q, want %q", h, got, want)
		}
	}
	if got := formatU32Handle(0x80000000, true); got != "800:[80000000]" {
		t.Errorf("raw: %q", got)
	}
	if got := formatU32Handle(0x5000, true); got != "5[00005000]" {
		t.Errorf("raw, zero-padded: %q", got)
	}
}

// A u32 handle is printed for every filter of a dump.
func BenchmarkFormatU32Handle(b *testing.B) {
	b.ReportAllocs()
	for i := range b.N {
		formatU32Handle(0x80000800|uint32(i&0x7ff), false)
	}
}

// TestParseU32: keys as tc packs them (values from tc 7.3's dumps).
func TestParseU32(t *testing.T) {
	key := func(val, mask uint32, off, offmask int32) attrs.TCU32Key {
		return attrs.TCU32Key{Val: val, Mask: mask, Off: off, Offmask: offmask}
	}
	for _, c := range []struct {
		args   string
		keys   []attrs.TCU32Key
		flags  uint8
		handle uint32
	}{
		{"match ip protocol 1 0xff flowid 1:1", []attrs.TCU32Key{key(0x00010000, 0x00ff0000, 8, 0)}, u32Terminal, 0},
		{"match ip dst 10.10.10.2/32 match ip sport 80 0xffff", []attrs.TCU32Key{key(0x0a0a0a02, 0xffffffff, 16, 0), key(0x00500000, 0xffff0000, 20, 0)}, 0, 0},
		{"match ip sport 1 0xffff match ip dport 2 0xffff", []attrs.TCU32Key{key(0x00010002, 0xffffffff, 20, 0)}, 0, 0},
		{"match u16 0x0000 0xfe00 at 2", []attrs.TCU32Key{key(0, 0x0000fe00, 0, 0)}, 0, 0},
		{"match tcp dst 22 0xffff", []attrs.TCU32Key{key(0x16, 0xffff, 0, -1)}, 0, 0},
		{"match u8 1 0xff at nexthdr+3", []attrs.TCU32Key{key(1, 0xff, 0, -1)}, 0, 0},
		{"match u8 1 0xff at nexthdr+ 3", []attrs.TCU32Key{key(1, 0xff, 0, -1)}, 0, 0},
		{"match ip6 dst 2001:db8::/64", []attrs.TCU32Key{key(0x20010db8, 0xffffffff, 24, 0), key(0, 0xffffffff, 28, 0)}, 0, 0},
		{"match ip6 src 2001:db8::/20", []attrs.TCU32Key{key(0x20010000, 0xfffff000, 8, 0)}, 0, 0},
		{"match ip6 priority 0x10 0xff", []attrs.TCU32Key{key(0x01000000, 0x0ff00000, 0, 0)}, 0, 0},
		{"match ether dst 00:11:22:33:44:55", []attrs.TCU32Key{key(0x00000011, 0x0000ffff, -16, 0), key(0x22334455, 0xffffffff, -12, 0)}, 0, 0},
		{"match ip dst 1.2.3.4/255.255.255.0", []attrs.TCU32Key{key(0x01020300, 0xffffff00, 16, 0)}, 0, 0},
		{"match ip nofrag flowid 1:1", []attrs.TCU32Key{key(0, 0x3fff, 4, 0)}, u32Terminal, 0},
		{"match u32 0 0 action drop", []attrs.TCU32Key{key(0, 0, 0, 0)}, u32Terminal, 0},
		{"match u32 0 0 offset plus 20 at 0 mask 0x0f00 shift 6 eat", []attrs.TCU32Key{key(0, 0, 0, 0)}, u32Offset | u32VarOffset | u32Eat, 0},
		{"match u32 0 0 order 5", []attrs.TCU32Key{key(0, 0, 0, 0)}, 0, 5},
	} {
		o, handle, err := parseU32(strings.Fields(c.args), tckind.FilterEnv{})
		if err != nil {
			t.Errorf("%s: %v", c.args, err)
			continue
		}
		u := o.(*attrs.U32Attrs)
		if diff := cmp.Diff(c.keys, u.Sel.Keys); diff != "" || u.Sel.Nkeys != uint8(len(c.keys)) || u.Sel.Flags != c.flags || handle != c.handle {
			t.Errorf("%s: keys (-want +got):\n%s nkeys %d flags %#x handle %#x", c.args, diff, u.Sel.Nkeys, u.Sel.Flags, handle)
		}
	}
}

// TestParseU32Hashing: hash tables, links and samples.
func TestParseU32Hashing(t *testing.T) {
	o, h, err := parseU32(strings.Fields("divisor 256"), tckind.FilterEnv{Handle: "2:"})
	if err != nil || h != 0x00200000 || *o.(*attrs.U32Attrs).Divisor != 256 {
		t.Errorf("divisor: %v %#x %v", o, h, err)
	}
	o, _, err = parseU32(strings.Fields("ht 800:: sample ip dst 10.0.0.7 divisor 16 link 2: match ip protocol 17 0xff"), tckind.FilterEnv{})
	u := o.(*attrs.U32Attrs)
	// 10.0.0.7's bucket: 0x0a000007 % 16 = 7.
	if err != nil || *u.Hash != 0x80007000 || *u.Link != 0x00200000 {
		t.Errorf("sample: hash %#x link %#x err %v", *u.Hash, *u.Link, err)
	}
	o, _, _ = parseU32(strings.Fields("match mark 0x10 0xff indev lo skip_hw"), tckind.FilterEnv{})
	u = o.(*attrs.U32Attrs)
	if diff := cmp.Diff(&attrs.TCU32Mark{Val: 0x10, Mask: 0xff}, u.Mark); diff != "" || *u.Indev != "lo" || *u.Flags != clsFlagSkipHW || u.Sel == nil {
		t.Errorf("mark, indev, flags: %s %v", diff, u)
	}
}

// TestParseU32Errors: tc's messages and exit statuses.
func TestParseU32Errors(t *testing.T) {
	for _, c := range []struct {
		args, handle, want string
		code               int
	}{
		{"match ip foo 1", "", `Illegal "match"`, 1},
		{"match", "", `Command line is not complete. Try option "help"`, 255},
		{"match ip src 1.2.3.4 at", "", `Command line is not complete. Try option "help"`, 255},
		{"match u8 300 0xff at", "", `Illegal "match"`, 1},
		{"divisor 3", "", `Illegal "divisor"`, 1},
		{"link 1:2:3", "", `"link" must be a hash table.`, 1},
		{"ht 1:2:3", "1:", `"ht" must be a hash table.`, 1},
		{"match u8 0 0", "zz", "Illegal filter ID", 1},
		{"match ether src 00:11:22", "", "parse_ether_addr: improperly formed address '00:11:22'\nIllegal \"match\"", 1},
		{"match mark 3 1 flowid 1:1", "", "Illegal \"mark\" (impossible combination)\nIllegal \"match\"", 1},
		{"match mark 3", "", `Error: argument "mark" is required`, 255},
		{"match mark 3 1", "", `Command line is not complete. Try option "help"`, 255},
		{"match ip protocol 6 0xff offset at 1", "", "offset \"at\" must be even\nIllegal \"offset\"", 1},
		{"match u32 1 0xff at 3", "", `Illegal "match"`, 1},
		{"skip_hw skip_sw match u32 0 0", "", "skip_hw and skip_sw are mutually exclusive", 1},
		{"sample ether dst 00:11:22:33:44:55", "", `"sample" must contain exactly ONE key.`, 1},
		{"order 2 match u32 0 0", "800::3", `"order" contradicts "handle"`, 1},
		{"bogus", "", `What is "bogus"?`, 1},
	} {
		_, _, err := parseU32(strings.Fields(c.args), tckind.FilterEnv{Handle: c.handle})
		var pe *tcword.ParseError
		if !errors.As(err, &pe) || !strings.HasPrefix(pe.Msg, c.want) || pe.ExitCode() != c.code {
			t.Errorf("%s: %v (%T), want %q exit %d", c.args, err, err, c.want, c.code)
		}
	}
}

// TestPrintU32: text lines recorded from tc 7.3, raw and pretty.
func TestPrintU32(t *testing.T) {
	o, _, err := parseU32(strings.Fields("match ip src 1.2.3.0/24 match ip sport 80 0xffff hashkey mask 0x000000ff at 12 link 2: flowid 1:1"), tckind.FilterEnv{})
	if err != nil {
		t.Fatal(err)
	}
	u := o.(*attrs.U32Attrs)
	u.Hash = ptrOf(uint32(0x80000000))
	u.Flags = ptrOf(uint32(clsFlagNotHW))
	print := func(opts tcfmt.Options) string {
		var b bytes.Buffer
		p := tcfmt.NewPrinter(&b, opts)
		p.Start()
		printU32(p, u, tckind.FilterPrint{Handle: 0x80000801, Protocol: tckind.EthPIP})
		if err := p.Finish(); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	raw := "fh 800::801 order 2049 key ht 800 bkt 0 flowid 1:1 link 2: not_in_hw \n" +
		"  match 01020300/ffffff00 at 12\n  match 00500000/ffff0000 at 20\n    hash mask 000000ff at 12 "
	if got := print(tcfmt.Options{}); got != raw {
		t.Errorf("text:\n%q\nwant\n%q", got, raw)
	}
	pretty := "fh 800::801 order 2049 key ht 800 bkt 0 flowid 1:1 link 2: not_in_hw \n" +
		"  match IP src 1.2.3.0/24\n  match sport 80\n    hash mask 000000ff at 12 "
	if got := print(tcfmt.Options{Pretty: true}); got != pretty {
		t.Errorf("pretty:\n%q\nwant\n%q", got, pretty)
	}
}

// FuzzParseU32: the selector grammar never panics, and what it accepts
// encodes and decodes back to itself.
func FuzzParseU32(f *testing.F) {
	for _, s := range []string{
		"match ip protocol 1 0xff flowid 1:1",
		"match ip6 dst 2001:db8::/64 match ip6 protocol 6 0xff",
		"match mark 0x10 0xff offset plus 20 at 0 mask 0x0f00 shift 6 eat match tcp dst 22 0xffff",
		"ht 800:: sample ip dst 10.0.0.7 divisor 16 link 2: hashkey mask 0xff at 12",
		"match ether dst 00:11:22:33:44:55 match u16 1 0xff at nexthdr+2 action drop",
	} {
		f.Add(s, "")
	}
	f.Add("divisor 16", "2:")
	f.Fuzz(func(t *testing.T, args, handle string) {
		o, _, err := parseU32(strings.Fields(args), tckind.FilterEnv{Handle: handle})
		if err != nil || o == nil {
			return
		}
		// A word tc has no action kind for is handed to gact under its
		// own name, which no decoder knows (FuzzParseClsf's rule).
		if u, ok := o.(*attrs.U32Attrs); ok && slices.ContainsFunc(u.Act, func(a attrs.ActAttrs) bool { return tckind.LookupAction(*a.Kind) == nil }) {
			return
		}
		want := &attrs.TCAttrs{Kind: ptrOf("u32"), Options: o}
		e := attrs.NewEncoder(nil)
		want.Encode(e)
		var got attrs.TCAttrs
		if err := got.Decode(e.Bytes()); err != nil {
			t.Fatalf("%q: decode: %v", args, err)
		}
		// A selector without keys is sent as the same bytes whether its
		// list is nil or empty ("ip6 dst ::/0" matches on nothing).
		if diff := cmp.Diff(want, &got, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("%q: round trip (-want +got):\n%s", args, diff)
		}
	})
}
