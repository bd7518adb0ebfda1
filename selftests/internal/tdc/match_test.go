// SPDX-License-Identifier: Apache-2.0

package tdc

import (
	"strings"
	"testing"
)

func TestCountMatches(t *testing.T) {
	out := "qdisc cake 1: root refcnt 2 bandwidth unlimited diffserv3\n" +
		"qdisc cake 0: parent 1:1 bandwidth unlimited diffserv3\n" +
		"qdisc cake 0: parent 1:2 bandwidth unlimited diffserv3\n"
	for _, tt := range []struct {
		pattern string
		want    int
	}{
		{"qdisc cake [01]: (root|parent)", 3},
		{"refcnt [0-9]+ bandwidth", 1},
		{"diffserv4", 0},
		// DOTALL: "." crosses newlines, so a greedy .* eats to the last match.
		{"qdisc.*diffserv3", 1},
		// MULTILINE: ^ and $ match at each line.
		{"^qdisc", 3},
		{"diffserv3$", 3},
		// \Z is Python's end of text (Go's \z).
		{`diffserv3\n\Z`, 1},
		// {,n} is Python's {0,n}.
		{`1:[12]{,1} bandwidth`, 2},
		// Non-overlapping, left to right, like re.findall.
		{"cake", 3},
	} {
		re, err := CompilePattern(tt.pattern)
		if err != nil {
			t.Errorf("CompilePattern(%q): %v", tt.pattern, err)
			continue
		}
		if got := CountMatches(re, out); got != tt.want {
			t.Errorf("CountMatches(%q) = %d, want %d", tt.pattern, got, tt.want)
		}
	}
}

func TestTranslatePattern(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`a\Z`, `a\z`},
		{`a\\Z`, `a\\Z`}, // escaped backslash, then a literal Z
		{`[\Z]`, `[\Z]`}, // inside a class: left for the compiler to judge
		{`x{,3}`, `x{0,3}`},
		{`x{,}`, `x{,}`}, // not a Python repeat either: a literal
		{`[{,3}]`, `[{,3}]`},
		{`[]{,3}]`, `[]{,3}]`},
		{`(?P<n>a)`, `(?P<n>a)`},
	} {
		if got := translatePattern(tt.in); got != tt.want {
			t.Errorf("translatePattern(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCompilePatternPythonOnly(t *testing.T) {
	for _, p := range []string{`foo(?=bar)`, `(?<!x)y`, `(a)\1`, `(?P<n>a)(?P=n)`} {
		_, err := CompilePattern(p)
		if err == nil || !strings.Contains(err.Error(), "RE2") {
			t.Errorf("CompilePattern(%q) = %v, want an RE2 syntax error", p, err)
		}
	}
}

func TestMatchJSON(t *testing.T) {
	qdiscs := `[{"kind":"qfq","handle":"1:","root":true,"options":{},"packets":2,"backlog":0,"qlen":0,"flags":["a","b"]},
	            {"kind":"dualpi2","handle":"2:","parent":"1:1","packets":2,"backlog":0,"qlen":0,"big":18446744073709551615}]`
	for _, tt := range []struct {
		name, out, exp string
		ok             bool
		msg            string // part of the error
	}{
		{"subset of dicts, prefix of list", qdiscs,
			`[{"kind":"qfq","packets":2,"backlog":0,"qlen":0},{"kind":"dualpi2","handle":"2:"}]`, true, ""},
		{"prefix: first element only", qdiscs, `[{"kind":"qfq"}]`, true, ""},
		{"empty list is a prefix", qdiscs, `[]`, true, ""},
		{"longer than output", qdiscs, `[{},{},{}]`, false, "3 elements, output only 2"},
		{"order matters", qdiscs, `[{"kind":"dualpi2"}]`, false, `[0].kind: value doesn't match`},
		{"missing key", qdiscs, `[{"kind":"qfq","drops":0}]`, false, "[0].drops: key not found"},
		{"wrong value", qdiscs, `[{"packets":3}]`, false, "expected 3, output has 2"},
		{"int equals float", qdiscs, `[{"packets":2.0}]`, true, ""},
		{"true equals 1, as in Python", `{"a":1}`, `{"a":true}`, true, ""},
		{"string is not a number", qdiscs, `[{"packets":"2"}]`, false, "value doesn't match"},
		{"large integers exact", qdiscs, `[{},{"big":18446744073709551615}]`, true, ""},
		{"large integers differ", qdiscs, `[{},{"big":18446744073709551614}]`, false, "value doesn't match"},
		{"null", `{"a":null}`, `{"a":null}`, true, ""},
		{"null vs 0", `{"a":0}`, `{"a":null}`, false, "value doesn't match"},
		{"top-level type", qdiscs, `{"kind":"qfq"}`, false, "not the same type: output is array, matchJSON is object"},
		{"nested list prefix", qdiscs, `[{"flags":["a"]}]`, true, ""},
		{"scalars inside lists compared", qdiscs, `[{"flags":["b"]}]`, false, `[0].flags[0]: value doesn't match`},
		{"empty list under a key means empty", qdiscs, `[{"flags":[]}]`, false, "expected an empty array"},
		{"empty object under a key matches empty", qdiscs, `[{"options":{}}]`, true, ""},
		{"object vs array", qdiscs, `[{"flags":{"a":1}}]`, false, "expected an object, output has array"},
		{"scalar vs container", qdiscs, `[{"flags":"a"}]`, false, "value doesn't match"},
		{"not JSON", "Error: bad", `[]`, false, "cannot decode verify command's output"},
		{"trailing garbage", `[] x`, `[]`, false, "cannot decode"},
		{"nested objects", `{"a":{"b":{"c":1,"d":2}}}`, `{"a":{"b":{"c":1}}}`, true, ""},
		{"nested mismatch path", `{"a":{"b":{"c":1}}}`, `{"a":{"b":{"c":2}}}`, false, "a.b.c:"},
	} {
		err := MatchJSON(tt.out, []byte(tt.exp))
		if (err == nil) != tt.ok {
			t.Errorf("%s: MatchJSON = %v, want ok=%v", tt.name, err, tt.ok)
			continue
		}
		if err != nil && !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: error %q does not contain %q", tt.name, err, tt.msg)
		}
	}
}
