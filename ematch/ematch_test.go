// SPDX-License-Identifier: Apache-2.0

package ematch

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/tcfmt"
)

// withEmatchMap points the ematch map at a file holding iproute2's map.
func withEmatchMap(t testing.TB) {
	t.Helper()
	dir := t.TempDir()
	f := filepath.Join(dir, "ematch_map")
	m := "# lookup table for ematch kinds\n1\tcmp\n2\tnbyte\n3\tu32\n4\tmeta\n7\tcanid\n8\tipset\n9\tipt\n"
	if err := os.WriteFile(f, []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
	saved := ematchMapFiles
	ematchMapFiles = [2]string{filepath.Join(dir, "none"), f}
	t.Cleanup(func() { ematchMapFiles = saved })
}

// printedEmatch is what tc prints of a tree as the kernel dumps it back
// (the kernel returns cmp, u32, nbyte and meta's data as they were sent).
func printedEmatch(tree *attrs.EmatchAttrs) string {
	var b strings.Builder
	p := tcfmt.NewPrinter(&b, tcfmt.Options{})
	p.StartPlain()
	PrintEmatch(p, tree)
	p.Flush()
	return b.String()
}

func TestEmatchParse(t *testing.T) {
	withEmatchMap(t)
	for _, c := range []struct {
		words   []string
		printed string
		rest    string
		list    string // hex of TCA_EMATCH_TREE_LIST, when given
	}{
		{words: []string{"cmp(u8 at 0 layer link mask 0xff gt 10)", "classid", "1:1"},
			printed: "\n  cmp(u8 at 0 layer 0 mask 0xff gt 10)\n", rest: "classid 1:1",
			list: "18000100" + "0000010000000000" + "0a000000ff000000000001010"},
		{words: strings.Fields("cmp(u8 at 0 layer 2 eq 1) classid 1:1"),
			printed: "\n  cmp(u8 at 0 layer 2 eq 1)\n", rest: "classid 1:1"},
		{words: strings.Fields("cmp(u8 at 0 layer 2 eq 1)"),
			printed: "\n  cmp(u8 at 0 layer 2 eq 1)\n", rest: "1)"},
		{words: []string{"(cmp(u8 at 0 eq 1) or cmp(u16 at 2 mask 0xff eq 2)) and not (u32(u32 0 0 at 0) or meta(nf_mark gt 24))", "classid", "1:2"},
			printed: "\n  (\n    cmp(u8 at 0 layer 1 eq 1)\n    OR cmp(u16 at 2 layer 1 mask 0xff eq 2)\n  ) AND NOT (\n    u32(00000000/00000000 at 0)\n    OR meta(nf_mark gt 24)\n  ) ",
			rest:    "classid 1:2"},
		{words: []string{"not (cmp(u8 at 0 eq 1) and (cmp(u8 at 1 eq 1) or cmp(u8 at 2 eq 2)) and cmp(u8 at 3 eq 3)) or cmp(u8 at 4 eq 4)", "classid", "1:2"},
			printed: "\n  NOT (\n    cmp(u8 at 0 layer 1 eq 1)\n    AND (\n      cmp(u8 at 1 layer 1 eq 1)\n      OR cmp(u8 at 2 layer 1 eq 2)\n    ) AND cmp(u8 at 3 layer 1 eq 3)\n  ) OR cmp(u8 at 4 layer 1 eq 4)\n",
			rest:    "classid 1:2"},
		{words: []string{"meta(random gt 5)", "and", "meta(pkt_len lt 100)", "classid"},
			printed: "\n  meta(random gt 5)\n  AND meta(pkt_len lt 100)\n", rest: "classid"},
		{words: []string{"meta(tc_index mask 0xf0 shift 2 gt 3)", "x"}, printed: "\n  meta(tc_index shift 2 mask 0x000000f0 gt 3)\n", rest: "x"},
		{words: []string{"meta(0x12345678 gt nf_mark mask 7 shift 1)", "x"}, printed: "\n  meta(305419896 gt nf_mark shift 1 mask 0x00000007)\n", rest: "x"},
		{words: []string{`meta("ab" eq "cd")`, "x"}, printed: "\n  meta(cd eq cd)\n", rest: "x"},
		{words: []string{`meta("lo" eq dev)`, "x"}, printed: "\n  meta(lo eq dev)\n", rest: "x"},
		{words: []string{`nbyte("abc" at 0) and nbyte("xy" at 1)`, "x"},
			printed: "\n  nbyte(78 79 63 \"xyc\" at 0 layer 1)\n  AND nbyte(78 79 \"xy\" at 1 layer 1)\n", rest: "x"},
		{words: []string{`nbyte("ab\x01c\101\n" at 12 layer 1) or nbyte(hello at 0 layer link)`, "x"},
			printed: "\n  nbyte(61 62 01 63 41 0a \"ab.cA.\" at 12 layer 1)\n  OR nbyte(68 65 6c 6c 6f \"hello\" at 0 layer 0)\n", rest: "x"},
		{words: []string{`nbyte("\x4g\q\t" at 0)`, "x"}, printed: "\n  nbyte(04 67 71 09 \".gq.\" at 0 layer 1)\n", rest: "x"},
		{words: []string{"cmp(u8 at 0 eq 1) and nbyte(", `"a b`, `c" at 0)`, "classid", "1:1"},
			printed: "\n  cmp(u8 at 0 layer 1 eq 1)\n  AND nbyte(61 20 62 20 63 \"a b c\" at 0 layer 1)\n", rest: "classid 1:1"},
		{words: []string{"canid(sff 1 sff 0x7ff:0x700)", "x"}, printed: "\n  canid(sff 0x1 sff 0x7FF:0x700)\n", rest: "x"},
		{words: []string{"cmp(u32 at 65537 layer 2 mask 0xffffffff eq 4294967295) and cmp(u16 at 1 trans lt 0x10000)", "x"},
			printed: "\n  cmp(u32 at 1 layer 2 mask 0xffffffff eq -1)\n  AND cmp(u16 at 1 layer 1 trans lt 65536)\n", rest: "x"},
		{words: []string{"u32(u32 0x1ffffffff 0xff at 8) and u32(u16 0x1 0x1 at 3) and u32(u8 1 1 at nexthdr+ 5) and u32(u8 1 1 at nexthdr+-2)", "x"},
			printed: "\n  u32(000000ff/000000ff at 8)\n  AND u32(00000001/00000001 at 0)\n  AND u32(00010000/00010000 at 4)\n  AND u32(00000100/00000100 at nexthdr+-4)\n", rest: "x"},
		{words: []string{"u32(u8 0xaa 0xf0 at -14)", "x"}, printed: "\n  u32(0000a000/0000f000 at -16)\n", rest: "x"},
		{words: []string{"cmp(u8 at 0 eq 1))", "classid"}, printed: "\n  cmp(u8 at 0 layer 1 eq 1)\n", rest: "cmp(u8 at 0 eq 1)) classid"},
	} {
		var stderr strings.Builder
		tree, rest, err := ParseEmatch(c.words, &stderr)
		if err != nil {
			t.Errorf("%q: %v\n%s", c.words, err, stderr.String())
			continue
		}
		if got := printedEmatch(tree); got != c.printed {
			t.Errorf("%q printed\n%q, want\n%q", c.words, got, c.printed)
		}
		if got := strings.Join(rest, " "); got != c.rest {
			t.Errorf("%q left %q, want %q", c.words, got, c.rest)
		}
		if c.list != "" {
			var e attrs.Encoder
			tree.Encode(&e)
			if got := hex.EncodeToString(e.Bytes()); !strings.HasPrefix(got, "0800010001000000") {
				t.Errorf("%q: tree %s", c.words, got)
			}
		}
	}
}

func TestEmatchRefused(t *testing.T) {
	withEmatchMap(t)
	for _, c := range []struct {
		words  []string
		stderr string
	}{
		{[]string{"cmp(u8 at 0 eq 1) and", "classid", "1:1"},
			"Parse error: syntax error\n... cmp(u8 at 0 eq 1) and classid >>1:1<< ...\n" + ematchUsage},
		{[]string{"foo(1)", "classid"}, "Unknown ematch \"foo\"\n"},
		{[]string{"CMP(u8 at 0 eq 1)", "classid"}, "Unknown ematch \"CMP\"\n"},
		{[]string{"cmp()", "classid"}, "Parse error: syntax error\n... >>cmp()<< ...\n" + ematchUsage},
		{[]string{"cmp(u64 at 0 eq 1)", "classid"}, "cmp: invalid alignment\n... >>cmp(u64 at 0 eq 1)<< ...\n... cmp(>>u64<< at 0 eq 1)...\n" + cmpUsage},
		{[]string{"cmp(u8 eq 1)", "classid"}, "cmp: offset and value required\n... >>cmp(u8 eq 1)<< ...\n... cmp(u8 eq 1)...\n" + cmpUsage},
		{[]string{"cmp(u8 at 0 bogus)", "classid"}, "nbyte: unknown parameter\n... >>cmp(u8 at 0 bogus)<< ...\n... cmp(u8 at 0 >>bogus<<)...\n" + cmpUsage},
		{[]string{"meta(priority eq -1)", "classid"}, "meta: unknown meta id\n\n... >>meta(priority eq -1)<< ...\n... meta(priority eq >>-1<<)...\n" + metaUsage},
		{[]string{"meta(nf_mark eq)", "classid"}, "meta: missing rvalue\n... >>meta(nf_mark eq)<< ...\n... meta(>>nf_mark<< eq)...\n" + metaUsage},
		{[]string{`nbyte("" at 0)`, "classid"}, "nbyte: needle length is 0\n... >>nbyte(\"\" at 0)<< ...\n... nbyte(>><< at 0)...\n" + nbyteUsage},
		{[]string{"canid(sff)", "classid"}, "canid: missing argument\n... >>canid(sff)<< ...\n" + canidUsage},
		{[]string{"canid(sff 1 sff xyz)", "classid"}, "canid: Improperly formed CAN ID & mask\n\n... >>canid(sff 1 sff xyz)<< ...\n... canid(>>xyz<<)...\n" + canidUsage},
		{[]string{"u32(u16 0x10000 1 at 0)", "classid"}, "Illegal key (>0xFFFF)\n... >>u32(u16 0x10000 1 at 0)<< ...\n... u32(u16 0x10000 1 at >>0<<)...\n" + emU32Usage},
		{[]string{"(cmp(u8 at 0 eq 1)", "classid", "1:1"}, "Parse error: syntax error\n... (cmp(u8 at 0 eq 1) >>classid<< ...\n" + ematchUsage},
		{[]string{`nbyte("\8" at 0)`, "classid"}, "error: invalid octale escape sequence\nParse error: syntax error\n... >>nbyte(\"\\8\" at 0)<< ...\n" + ematchUsage},
		{[]string{`nbyte("\0123" at 0)`, "classid"}, "error: invalid octale escape sequence\nParse error: syntax error\n... >>nbyte(\"\\0123\" at 0)<< ...\n" + ematchUsage},
		{[]string{"cmp(u8 at 0 eq 1) or", "meta(nf_mark eq", `"x`, "classid", "1:1"},
			"Parse error: syntax error\n... cmp(u8 at 0 eq 1) or meta(nf_mark eq \"x classid >>1:1<< ...\n" + ematchUsage},
	} {
		var stderr strings.Builder
		_, _, err := ParseEmatch(c.words, &stderr)
		if err == nil || err.Error() != `Illegal "ematch"` {
			t.Errorf("%q: err %v", c.words, err)
		}
		if stderr.String() != c.stderr {
			t.Errorf("%q printed\n%s\nwant\n%s", c.words, stderr.String(), c.stderr)
		}
	}
}

func TestEmatchMapLacksKind(t *testing.T) {
	f := filepath.Join(t.TempDir(), "ematch_map")
	if err := os.WriteFile(f, []byte("3 u32\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	saved := ematchMapFiles
	ematchMapFiles = [2]string{f, filepath.Join(t.TempDir(), "b")}
	defer func() { ematchMapFiles = saved }()
	var stderr strings.Builder
	_, _, err := ParseEmatch([]string{"cmp(u8 at 0 eq 1)", "x"}, &stderr)
	want := "Error: Unable to find ematch \"cmp\" in " + ematchMapFiles[0] + " or " + ematchMapFiles[1] +
		"\nPlease assign a unique ID to the ematch kind the suggested entry is:\n\t1\tcmp\n"
	if err == nil || stderr.String() != want {
		t.Errorf("err %v, printed %q", err, stderr.String())
	}
	// Without any map file, gotc takes iproute2's.
	ematchMapFiles[0] = filepath.Join(t.TempDir(), "a")
	if _, _, err := ParseEmatch([]string{"cmp(u8 at 0 eq 1)", "x"}, &stderr); err != nil {
		t.Errorf("without a map: %v", err)
	}
}

// FuzzEmatchParse feeds the expression parser words (split at NUL bytes):
// it must never panic, must leave the filter a tail of the words, and
// what it builds must print.
func FuzzEmatchParse(f *testing.F) {
	withEmatchMap(f)
	for _, s := range []string{
		"cmp(u8 at 0 layer link mask 0xff gt 10)\x00classid\x001:1",
		"(cmp(u8 at 0 eq 1) or cmp(u16 at 2 mask 0xff eq 2)) and not (u32(u32 0 0 at 0) or meta(nf_mark gt 24))\x00x",
		"meta(\x00\"ab\\x01\"\x00eq dev shift 1)\x00x",
		"nbyte(\"a\\101\\777\" at 3 layer t)\x00x",
		"canid(sff 1 eff 0x2:0xff)\x00x",
		"u32(u8 1 1 at nexthdr+4)\x00x",
		"not\x00(\x00(\x00cmp(u8 at 0 eq 1) ) )",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words := strings.Split(s, "\x00")
		var stderr strings.Builder
		tree, rest, err := ParseEmatch(words, &stderr)
		if err != nil {
			return
		}
		if len(rest) > len(words) || strings.Join(rest, "\x00") != strings.Join(words[len(words)-len(rest):], "\x00") {
			t.Fatalf("%q: rest %q is not a tail", words, rest)
		}
		if tree != nil {
			var e attrs.Encoder
			tree.Encode(&e)
			var back attrs.EmatchAttrs
			if err := back.Decode(e.Bytes()); err != nil {
				t.Fatalf("%q: tree does not decode: %v", words, err)
			}
			printedEmatch(&back)
		}
	})
}

// TestEmatchKeywords writes parsed trees back and requires the same tree
// from the words.
func TestEmatchKeywords(t *testing.T) {
	withEmatchMap(t)
	for _, expr := range []string{
		`nbyte("ab\x01" at 12 layer 1) or canid(sff 1 eff 2:0xff) or meta("lo" eq dev)`,
		"( cmp(u8 at 0 layer link mask 0xff gt 10) or not u32(u16 0x1122 0xffff at nexthdr+4) ) and meta(nf_mark mask 0xff eq 3)",
		"not (cmp(u8 at 0 eq 1) and (cmp(u8 at 1 eq 1) or cmp(u8 at 2 eq 2)) and cmp(u8 at 3 eq 3)) or cmp(u8 at 4 eq 4)",
		`meta(tc_index shift 2 mask 0xf0 lt 7) and cmp(u32 at 4 layer 2 trans eq 4294967295) and nbyte("a b(" at 3)`,
		"u32(u32 0x0a000000 0xff000000 at -4) and meta(random gt 5)",
	} {
		tree, _, err := ParseEmatch([]string{expr, "classid"}, nil)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		w, err := Keywords(tree)
		if err != nil {
			t.Errorf("%s: %v", expr, err)
			continue
		}
		back, _, err := ParseEmatch(append(w[1:], "classid"), nil)
		if err != nil || w[0] != "match" || *back.TreeHdr != *tree.TreeHdr || string(back.TreeList) != string(tree.TreeList) {
			t.Errorf("%s: the words %q give another tree (%v)", expr, w, err)
		}
	}
	if w, err := Keywords(&attrs.EmatchAttrs{TreeHdr: &attrs.TCFEmatchTreeHdr{}}); w != nil || err != nil {
		t.Errorf("an empty tree: %q, %v", w, err)
	}
}
