// SPDX-License-Identifier: Apache-2.0

package main

import (
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// generateFile parses and generates a spec file, formatted as run writes it.
func generateFile(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := parseSpec(raw)
	if err != nil {
		t.Fatal(err)
	}
	src, err := generate(spec, "attrs", path)
	if err != nil {
		t.Fatal(err)
	}
	out, err := format.Source(src)
	if err != nil {
		t.Fatalf("generated code does not parse: %v", err)
	}
	return string(out)
}

// TestEmitterSnippets holds each emitter's output for testdata/all.yaml.
func TestEmitterSnippets(t *testing.T) {
	// Compared with runs of blanks as one: gofmt aligns fields.
	blanks := regexp.MustCompile(`[ \t]+`)
	out := blanks.ReplaceAllString(generateFile(t, "testdata/all.yaml"), " ")
	for _, want := range []string{
		// struct member, big-endian
		"b = binary.BigEndian.AppendUint16(b, uint16(s.Port))",
		"s.Port = uint16(binary.BigEndian.Uint16(b[4:]))",
		// byte array member
		"copy(s.Mac[:], b[8:14])",
		// flexible arrays: counted by a member, or filling the payload
		"Keys []Key",
		"n := int(s.Nkeys)\n\tif len(b) < 4+n*8 {",
		"for i := range s.Keys {\n\t\tb = s.Keys[i].Append(b)",
		"Hits []uint64",
		"n := (len(b) - 8) / 8",
		"const SelLen = 4",
		// const
		"const MaxGap = 1000",
		// flags: bits; enum: value-start
		"ClsFlagsSkipSw ClsFlags = 1 << 1",
		"ModeFast Mode = 1",
		// attribute, big-endian, and the encode-order (gap before key)
		"e.BigUint32(TCATestKey, uint32((*s.Key)))",
		"if v, ok := getBigUint32(data); ok {",
		// multi-attr
		"Band []uint8",
		"for i := range s.Band {\n\t\te.Uint8(TCATestBand, uint8(s.Band[i]))",
		"s.Band = append(s.Band, uint8(v))",
		"Entry []EntryAttrs",
		// binary array of integers
		"Dist []int16",
		"e.Attr(TCATestDist, appendInts(nil, s.Dist, false))",
		// checks
		`if v < 1 {
			return &CheckError{Set: "test-attrs", Attribute: "gap", Check: "min", Bound: 1, Value: strconv.FormatUint(uint64(v), 10)}`,
		"if v > MaxGap {",
		"if uint64(v)&^0x3 != 0 {",
		"if len(v) > 4 {",
		// an s32-min bound is the type's own: nothing to check
		"if v < -2147483648 {",
		// nest flag of the set inside the indexed/nested attributes
		"e.Nest(TCATestEntry, false, s.Entry[i].Encode)",
		// fixed header with attributes
		"type OptionsMsgTest struct {\n\tHeader Qopt\n\tAttrs  TestAttrs\n}",
		"return s.Attrs.decode(b[min(len(b), (QoptLen+3)&^3):], sel)",
		"func (s *OptionsMsgTest) encodeOptionsMsg(e *Encoder, typ uint16) { e.Nest(typ, true, s.Encode) }",
		// scoped selector
		"sel = sel.scope(selKind)",
		"switch sel.selectorKind() {",
	} {
		if !strings.Contains(out, blanks.ReplaceAllString(want, " ")) {
			t.Errorf("generated code lacks:\n%s", want)
		}
	}
	if strings.Contains(out, `"empty"`) {
		t.Error("a format without content has a case")
	}
}

// TestGeneratedCodeWorks builds the code generated from testdata/all.yaml
// with attrs' runtime, vets it and runs testdata/roundtrip_test.go.txt on it.
func TestGeneratedCodeWorks(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a package")
	}
	dir := t.TempDir()
	runtime, err := os.ReadFile("../attrs/runtime.go")
	if err != nil {
		t.Fatal(err)
	}
	rt, err := os.ReadFile("testdata/roundtrip_test.go.txt")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"go.mod":            "module example.com/attrs\n\ngo 1.24\n",
		"runtime.go":        string(runtime),
		"test_gen.go":       generateFile(t, "testdata/all.yaml"),
		"roundtrip_test.go": string(rt),
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"vet", "."}, {"test", "-count=1", "."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// TestTCSpecIsReproduced: the committed attrs/tc_gen.go is what the spec
// generates (test.sh checks the same through go generate).
func TestTCSpecIsReproduced(t *testing.T) {
	committed, err := os.ReadFile("../attrs/tc_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if got := generateFile(t, "../specs/tc.yaml"); got != string(committed) {
		t.Error("attrs/tc_gen.go differs from what specs/tc.yaml generates: run go generate ./...")
	}
}

const header = "name: t\nprotocol: netlink-raw\ndoc: t\n"

// TestParseErrors: every inconsistency of a spec is refused with a message
// that names it.
func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ name, spec, want string }{
		{"unknown key", "bogus: 1\n", "field bogus not found"},
		{"unknown attribute key", "attribute-sets:\n  - name: a\n    attributes:\n      - {name: x, type: u32, colour: red}\n", "field colour not found"},
		{"protocol", "name: t\nprotocol: genetlink\n", "only netlink-raw"},
		{"unknown struct", "attribute-sets:\n  - name: a\n    attributes:\n      - {name: x, type: binary, struct: nope}\n", `unknown struct "nope"`},
		{"unknown member struct", "definitions:\n  - name: s\n    type: struct\n    members:\n      - {name: m, type: binary, struct: nope}\n", `member m: unknown struct "nope"`},
		{"cyclic struct", "definitions:\n  - name: s\n    type: struct\n    members:\n      - {name: m, type: binary, struct: r}\n  - name: r\n    type: struct\n    members:\n      - {name: m, type: binary, struct: s}\n", "contains itself"},
		{"bad check bound", "attribute-sets:\n  - name: a\n    attributes:\n      - {name: x, type: u32, checks: {min: lots}}\n", `bound "lots" is not an integer`},
		{"check on the wrong type", "attribute-sets:\n  - name: a\n    attributes:\n      - {name: x, type: u32, checks: {max-len: 4}}\n", "check max-len does not apply to type u32"},
		{"check out of range", "attribute-sets:\n  - name: a\n    attributes:\n      - {name: x, type: u8, checks: {max: 256}}\n", "256 does not fit u8"},
		{"min above max", "attribute-sets:\n  - name: a\n    attributes:\n      - {name: x, type: u8, checks: {min: 3, max: 2}}\n", "min 3 above max 2"},
		{"unknown check", "attribute-sets:\n  - name: a\n    attributes:\n      - {name: x, type: u8, checks: {most: 2}}\n", "field most not found"},
		{"encode-order names a missing attribute", "attribute-sets:\n  - name: a\n    encode-order: [y]\n    attributes:\n      - {name: x, type: u8}\n", "encode-order names y, which the set lacks"},
		{"duplicate number", "attribute-sets:\n  - name: a\n    attributes:\n      - {name: x, type: u8}\n      - {name: y, type: u8, value: 1}\n", "share number 1"},
		{"byte order of a u8", "attribute-sets:\n  - name: a\n    attributes:\n      - {name: x, type: u8, byte-order: big-endian}\n", "byte-order on type"},
		{"display hint", "attribute-sets:\n  - name: a\n    attributes:\n      - {name: x, type: binary, display-hint: pink}\n", "unknown display-hint"},
		{"nest-type-value", "attribute-sets:\n  - name: a\n    attributes:\n      - {name: x, type: nest-type-value, nested-attributes: a}\n", "nest-type-value is not supported"},
		{"selector out of reach", "attribute-sets:\n  - name: a\n    attributes:\n      - {name: x, type: sub-message, sub-message: m, selector: kind}\nsub-messages:\n  - name: m\n    formats: [{value: v}]\n", "selector kind is neither in the set"},
		{"selector not a string", "attribute-sets:\n  - name: a\n    attributes:\n      - {name: kind, type: u32}\n      - {name: x, type: sub-message, sub-message: m, selector: kind}\nsub-messages:\n  - name: m\n    formats: [{value: v}]\n", "a selector must be a single string attribute"},
		{"unknown enum", "attribute-sets:\n  - name: a\n    attributes:\n      - {name: x, type: u32, enum: e}\n", `unknown enum "e"`},
		{"flags-mask without flags", "attribute-sets:\n  - name: a\n    attributes:\n      - {name: x, type: u32, checks: {flags-mask: nope}}\n", `flags-mask "nope"`},
		{"flexible array not last", "definitions:\n  - name: s\n    type: struct\n    members:\n      - {name: a, type: binary, sub-type: u8, flexible-array: true}\n      - {name: b, type: u8}\n", "must be the last member"},
		{"flexible array without elements", "definitions:\n  - name: s\n    type: struct\n    members:\n      - {name: a, type: binary, flexible-array: true}\n", "needs a struct or an integer sub-type"},
		{"flexible array counted by nothing", "definitions:\n  - name: s\n    type: struct\n    members:\n      - {name: a, type: binary, sub-type: u8, flexible-array: true, count: n}\n", `count "n" is not an earlier integer member`},
		{"count without flexible array", "definitions:\n  - name: s\n    type: struct\n    members:\n      - {name: n, type: u8}\n      - {name: a, type: u8, count: n}\n", "need flexible-array"},
		{"unknown format set", "sub-messages:\n  - name: m\n    formats: [{value: v, attribute-set: nope}]\n", `unknown set "nope"`},
	} {
		spec := c.spec
		if !strings.HasPrefix(spec, "name:") {
			spec = header + spec
		}
		_, err := parseSpec([]byte(spec))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}
