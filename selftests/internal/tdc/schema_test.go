// SPDX-License-Identifier: Apache-2.0

package tdc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	data := `[
	{
		"id": "a1b2",
		"name": "all forms",
		"category": ["qdisc", "cake"],
		"plugins": {"requires": "nsPlugin"},
		"setup": [
			"$TC qdisc add dev $DUMMY root cake",
			["$TC qdisc del dev $DUMMY root", 0, 2],
			""
		],
		"cmdUnderTest": "$TC qdisc change dev $DUMMY root cake",
		"expExitCode": "2",
		"verifyCmd": "$TC qdisc show dev $DUMMY",
		"matchPattern": "qdisc cake",
		"matchCount": "1",
		"teardown": ["$TC qdisc del dev $DUMMY root"],
		"traffic": {"send": 10},
		"future": true
	},
	{
		"id": "c3d4",
		"name": "numbers, lists, json",
		"category": [],
		"plugins": {"requires": ["nsPlugin", "scapyPlugin"]},
		"skip": "yes",
		"dependsOn": "true",
		"cmdUnderTest": "true",
		"expExitCode": 0,
		"verifyCmd": "echo []",
		"matchJSON": [],
		"matchCount": 0
	},
	{"id": "e5f6", "name": "bad numbers", "expExitCode": "x", "matchCount": " 3 "}
	]`
	cases, err := Parse("t.json", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 3 {
		t.Fatalf("got %d cases", len(cases))
	}
	a, b, c := cases[0], cases[1], cases[2]
	if a.ID != "a1b2" || a.Name != "all forms" || strings.Join(a.Category, ",") != "qdisc,cake" {
		t.Errorf("case a: %+v", a)
	}
	if !a.Requires("nsPlugin") || a.Requires("scapyPlugin") {
		t.Errorf("case a plugins: %v", a.Plugins)
	}
	if len(a.Setup) != 3 || !a.Setup[0].Accepts(0) || a.Setup[0].Accepts(1) ||
		!a.Setup[1].Accepts(2) || a.Setup[1].Accepts(1) || a.Setup[2].Cmd != "" {
		t.Errorf("case a setup: %+v", a.Setup)
	}
	if !a.ExpExitCode.Set || a.ExpExitCode.Val != 2 || a.MatchCount.Val != 1 || a.MatchPattern == nil || *a.MatchPattern != "qdisc cake" {
		t.Errorf("case a fields: %+v", a)
	}
	if a.MatchJSON != nil {
		t.Errorf("case a: MatchJSON = %s, want nil", a.MatchJSON)
	}
	if string(a.Extra["traffic"]) != `{"send": 10}` || string(a.Extra["future"]) != "true" || len(a.Extra) != 2 {
		t.Errorf("case a extra: %v", a.Extra)
	}
	if a.File != "t.json" || a.Index != 0 || c.Index != 2 {
		t.Errorf("locations: %s %d %d", a.File, a.Index, c.Index)
	}
	if !b.Requires("scapyPlugin") || b.Skip != "yes" || b.DependsOn != "true" || b.ExpExitCode.Val != 0 ||
		string(b.MatchJSON) != "[]" || !b.MatchCount.Set || b.MatchCount.Val != 0 {
		t.Errorf("case b: %+v", b)
	}
	if c.ExpExitCode.Err == nil || c.MatchCount.Val != 3 {
		t.Errorf("case c: %+v", c)
	}
	if err := Validate(&c); err == nil || !strings.Contains(err.Error(), "expExitCode") {
		t.Errorf("Validate(c) = %v", err)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tt := range []struct{ data, msg string }{
		{`{"id": "x"}`, "t.json"},
		{`[{"id": "ab12", "setup": "echo"}]`, `(id ab12): key "setup" must be a list`},
		{`[{"id": "ab12", "setup": [["echo", "0"]]}]`, "exit code \"0\" is not an integer"},
		{`[{"id": "ab12", "teardown": [["echo"]]}]`, "lists no accepted exit code"},
		{`[{"id": "ab12", "teardown": [7]}]`, "want a string or [command, exit code, ...]"},
		{`[{"id": "ab12", "category": "qdisc"}]`, `key "category"`},
		{`[{"id": "ab12", "plugins": {"requires": 3}}]`, "requires"},
		{`[{"id": "ab12", "matchPattern": ["x"]}]`, `key "matchPattern"`},
		{`[1]`, "test case #1"},
	} {
		_, err := Parse("t.json", []byte(tt.data))
		if err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("Parse(%s) = %v, want error containing %q", tt.data, err, tt.msg)
		}
	}
}

func TestSelect(t *testing.T) {
	cases := []Case{
		{ID: "0001", Category: []string{"qdisc", "cake"}},
		{ID: "0002", Category: []string{"qdisc", "dualpi2"}},
		{ID: "0003", Category: []string{"qdisc", "cake_mq"}},
	}
	ids := func(cs []Case) string {
		var s []string
		for _, c := range cs {
			s = append(s, c.ID)
		}
		return strings.Join(s, ",")
	}
	for _, tt := range []struct {
		ids, cats []string
		want      string
		unknown   string
	}{
		{nil, nil, "0001,0002,0003", ""},
		{[]string{"0003", "0001", "ffff"}, nil, "0001,0003", "ffff"},
		{nil, []string{"cake"}, "0001", ""},
		{nil, []string{"cake", "dualpi2"}, "0001,0002", ""},
		{[]string{"0003"}, []string{"cake"}, "0001,0003", ""},
	} {
		got, unknown := Select(cases, tt.ids, tt.cats)
		if ids(got) != tt.want || strings.Join(unknown, ",") != tt.unknown {
			t.Errorf("Select(%v, %v) = %s (unknown %v), want %s (unknown %s)", tt.ids, tt.cats, ids(got), unknown, tt.want, tt.unknown)
		}
	}
	if d := DuplicateIDs(append(cases, Case{ID: "0002"}, Case{ID: "0002"})); strings.Join(d, ",") != "0002" {
		t.Errorf("DuplicateIDs = %v", d)
	}
}

// TestKernelFiles parses the kernel's own qdisc test files. GOTC_TC_TESTING
// names the kernel's tools/testing/selftests/tc-testing folder (the VM test
// bed keeps a copy under ~/.cache/gotc).
func TestKernelFiles(t *testing.T) {
	dir := os.Getenv("GOTC_TC_TESTING")
	if dir == "" {
		t.Skip("GOTC_TC_TESTING is not set; set it to the kernel's tools/testing/selftests/tc-testing folder to parse cake.json, dualpi2.json and cake_mq.json")
	}
	for _, f := range []struct {
		name  string
		count int
	}{{"cake.json", 21}, {"dualpi2.json", 13}, {"cake_mq.json", 25}} {
		path := filepath.Join(dir, "tc-tests", "qdiscs", f.name)
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("GOTC_TC_TESTING=%s, but %v", dir, err)
		}
		cases, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(cases) != f.count {
			t.Errorf("%s: %d cases, want %d", f.name, len(cases), f.count)
		}
		if d := DuplicateIDs(cases); len(d) > 0 {
			t.Errorf("%s: duplicate ids %v", f.name, d)
		}
		for i := range cases {
			c := &cases[i]
			if err := Validate(c); err != nil {
				t.Errorf("%s %s: %v", f.name, c.ID, err)
			}
			if !c.Requires("nsPlugin") {
				t.Errorf("%s %s: does not require nsPlugin", f.name, c.ID)
			}
			if len(c.Extra) > 0 {
				t.Errorf("%s %s: unexpected keys %v", f.name, c.ID, c.Extra)
			}
			if c.MatchPattern != nil {
				// Every pattern must mean the same in RE2 as in Python:
				// nothing to translate, and it compiles.
				if tr := translatePattern(*c.MatchPattern); tr != *c.MatchPattern {
					t.Errorf("%s %s: pattern needs translation: %q", f.name, c.ID, *c.MatchPattern)
				}
				if _, err := CompilePattern(*c.MatchPattern); err != nil {
					t.Errorf("%s %s: %v", f.name, c.ID, err)
				}
			}
			if c.ID == "891f" && c.MatchJSON == nil {
				t.Errorf("%s 891f: no matchJSON", f.name)
			}
		}
	}
}
