// SPDX-License-Identifier: Apache-2.0

package attrs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// The spec's numbers are checked against the UAPI headers of a kernel that has
// DualPI2. GOTC_KERNEL_UAPI names the kernel source's include/uapi directory;
// the test bed sets it to the source it builds its kernel from.
const uapiEnv = "GOTC_KERNEL_UAPI"

// testSpec is the part of specs/tc.yaml the header check needs.
type testSpec struct {
	Definitions []struct {
		Name       string `yaml:"name"`
		Type       string `yaml:"type"`
		NamePrefix string `yaml:"name-prefix"`
		Members    []struct {
			Name          string `yaml:"name"`
			Type          string `yaml:"type"`
			Struct        string `yaml:"struct"`
			SubType       string `yaml:"sub-type"`
			Len           int    `yaml:"len"`
			ByteOrder     string `yaml:"byte-order"`
			FlexibleArray bool   `yaml:"flexible-array"`
		} `yaml:"members"`
		Entries []yaml.Node `yaml:"entries"`
	} `yaml:"definitions"`
	AttributeSets []struct {
		Name       string `yaml:"name"`
		NamePrefix string `yaml:"name-prefix"`
		Attributes []struct {
			Name  string `yaml:"name"`
			Value *int64 `yaml:"value"`
		} `yaml:"attributes"`
	} `yaml:"attribute-sets"`
}

func TestSpecMatchesKernelHeaders(t *testing.T) {
	dir := os.Getenv(uapiEnv)
	if dir == "" {
		t.Skipf("%s is not set: the spec is not checked against kernel headers (the test bed sets it)", uapiEnv)
	}
	var headers strings.Builder
	// Every action's and ematch's header, so that a new kind's structs are
	// checked without an edit here.
	names := []string{"pkt_sched.h", "pkt_cls.h", "rtnetlink.h", "gen_stats.h", "ife.h", "filter.h"}
	for _, pattern := range []string{"tc_act/*.h", "tc_ematch/*.h"} {
		more, _ := filepath.Glob(filepath.Join(dir, "linux", pattern))
		for _, m := range more {
			names = append(names, strings.TrimPrefix(m, filepath.Join(dir, "linux")+"/"))
		}
	}
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(dir, "linux", name))
		if err != nil {
			t.Fatalf("%s=%s: %v", uapiEnv, dir, err)
		}
		headers.Write(b)
	}
	constants := parseEnums(headers.String())
	if _, ok := constants["TCA_DUALPI2_LIMIT"]; !ok {
		t.Fatalf("%s/linux/pkt_sched.h has no DualPI2: need a kernel >= 6.17", dir)
	}

	raw, err := os.ReadFile("../specs/tc.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var spec testSpec
	if err := yaml.Unmarshal(raw, &spec); err != nil {
		t.Fatal(err)
	}
	checked := 0
	expect := func(cname string, want int64) {
		t.Helper()
		got, ok := constants[cname]
		if !ok {
			t.Errorf("%s: not in the kernel headers", cname)
			return
		}
		if got != want {
			t.Errorf("%s: spec says %d, kernel says %d", cname, want, got)
		}
		checked++
	}
	for _, set := range spec.AttributeSets {
		next := int64(0)
		for _, a := range set.Attributes {
			if a.Value != nil {
				next = *a.Value
			}
			name := cName(set.NamePrefix + a.Name)
			if want, ok := notInUAPI[name]; ok {
				if next != want {
					t.Errorf("%s: spec says %d, tc says %d", name, next, want)
				}
				checked++
			} else {
				expect(name, next)
			}
			next++
		}
	}
	// Each struct's alignment, its largest scalar member's.
	structAlign := map[string]int{}
	for _, d := range spec.Definitions {
		for _, m := range d.Members {
			structAlign[d.Name] = max(structAlign[d.Name], memberSize(m.Type))
		}
	}
	for _, d := range spec.Definitions {
		switch d.Type {
		case "enum":
			next := int64(0)
			for _, n := range d.Entries {
				name := n.Value
				if n.Kind == yaml.MappingNode {
					var e struct {
						Name  string `yaml:"name"`
						Value *int64 `yaml:"value"`
					}
					if err := n.Decode(&e); err != nil {
						t.Fatal(err)
					}
					name = e.Name
					if e.Value != nil {
						next = *e.Value
					}
				}
				expect(cName(d.NamePrefix+name), next)
				next++
			}
		case "struct":
			cStruct := strings.ReplaceAll(d.Name, "-", "_")
			if d.Name == "tcmsg" {
				continue // declared in rtnetlink.h with different member names
			}
			members := parseStruct(headers.String(), cStruct)
			if members == nil {
				t.Errorf("struct %s: not in the kernel headers", cStruct)
				continue
			}
			var ours []string
			off := 0
			for i, m := range d.Members {
				if m.Type == "pad" && m.Name == "align" {
					// A gap C leaves implicit: it must be the one C's
					// alignment of the next member (a scalar, or an array
					// of structs) makes, or at the end the one that rounds
					// the struct up to its widest member (tc_connmark's two
					// bytes after zone).
					align := 0
					if i+1 < len(d.Members) {
						align = memberSize(d.Members[i+1].Type)
						if st := d.Members[i+1].Struct; st != "" {
							align = structAlign[st]
						}
					} else {
						for _, o := range d.Members {
							align = max(align, memberSize(o.Type))
						}
					}
					if align == 0 || (off+m.Len)%align != 0 || m.Len >= align {
						t.Errorf("struct %s: an alignment gap of %d at %d is not C's", cStruct, m.Len, off)
					}
					off += m.Len
					continue
				}
				typ, name := m.Type, strings.ReplaceAll(m.Name, "-", "_")
				if m.FlexibleArray {
					typ, name = m.SubType, name+"[]"
				}
				if m.ByteOrder == "big-endian" && !beInHostType[cStruct+"."+name] {
					typ = "be" + typ[1:]
				}
				ours = append(ours, cMember(typ, m.Struct, m.Len, name))
				off += memberSize(m.Type) * max(m.Len, 1)
			}
			for i, m := range members {
				// A flexible array's bounds annotation says nothing of its layout.
				if j := strings.Index(m, " __counted_by("); j >= 0 {
					m = m[:j]
				}
				if strings.HasSuffix(m, "[]") {
					members[i] = arrayMember(m)
				}
			}
			if strings.Join(ours, "; ") != strings.Join(members, "; ") {
				t.Errorf("struct %s:\n spec:   %s\n kernel: %s", cStruct, strings.Join(ours, "; "), strings.Join(members, "; "))
			}
			checked++
		}
	}
	t.Logf("checked %d attribute numbers, enum values and structs against %s", checked, dir)
}

// notInUAPI holds the numbers the spec names that the kernel's headers do
// not define, with their values: prio's TCA_PRIO_* are tc's own
// (tc_util.h), and the compat nest around them is a second TCA_OPTIONS;
// mqprio's rates are TCA_MQPRIO_MIN_RATE64 and TCA_MQPRIO_MAX_RATE64 again.
var notInUAPI = map[string]int64{
	// The rates inside mqprio's rate nests are numbered as the nest.
	"TCA_MQPRIO_RATES_MIN":    3,
	"TCA_MQPRIO_RATES_MAX":    4,
	"TCA_PRIO_UNSPEC":         0,
	"TCA_PRIO_MQ":             1,
	"TCA_PRIO_COMPAT_OPTIONS": 2,
}

// beInHostType holds the struct members the spec marks big-endian that
// the headers declare with a host-order type although they hold network
// order: pedit's keys are masked and xored onto the packet's bytes as they
// stand.
var beInHostType = map[string]bool{
	"tc_pedit_key.mask": true,
	"tc_pedit_key.val":  true,
}

func cName(s string) string { return strings.ToUpper(strings.ReplaceAll(s, "-", "_")) }

// cMember is a spec struct member as parseStruct renders the C one: a
// nested struct by its C name, a binary member or a flexible array (name
// ending in "[]") as an array of any element type without its size (see
// arrayMember), padding of 1, 2, 4 or 8 bytes as the unsigned integer of
// that size, and a member named "union" as the anonymous union it stands
// for. A scalar with a length is an integer array. typ "be32" is __be32.
func cMember(typ, structName string, n int, name string) string {
	switch {
	case strings.HasSuffix(name, "[]"):
		return "array " + name
	case structName != "":
		return "struct " + strings.ReplaceAll(structName, "-", "_") + " " + name
	case typ == "binary" && name == "union":
		return "union"
	case typ == "binary":
		return "array " + name + "[]"
	case typ == "pad" && (n == 1 || n == 2 || n == 4 || n == 8):
		return "__u" + strconv.Itoa(8*n) + " " + name
	case n > 0:
		return "array " + name + "[]"
	}
	return "__" + typ + " " + name
}

// memberSize is the size of a scalar member's type (u32: 4), 0 for others.
func memberSize(typ string) int {
	var bits int
	if _, err := fmt.Sscanf(typ, "u%d", &bits); err != nil {
		fmt.Sscanf(typ, "s%d", &bits)
	}
	return bits / 8
}

// arrayMember renders a C array member ("__u64 band_drops[]") as cMember
// renders a binary one: the spec holds arrays as bytes, whatever C's
// element type (fq's u64 band_drops[3] is 24 bytes), and C writes their
// size as an expression; the kernel's tc.yaml, which codegen's oracle test
// holds the spec against, gives their length in bytes.
func arrayMember(m string) string {
	fields := strings.Fields(m)
	return "array " + fields[len(fields)-1]
}

// cIntegers are C's plain integer types as the UAPI headers' fixed ones.
var cIntegers = map[string]string{
	"int": "__s32", "unsigned int": "__u32", "unsigned": "__u32", "short": "__s16",
	"unsigned short": "__u16", "char": "__s8", "unsigned char": "__u8", "signed char": "__s8",
}

var (
	enumBody    = regexp.MustCompile(`(?s)enum\s*\w*\s*\{(.*?)\}`)
	comments    = regexp.MustCompile(`(?s)/\*.*?\*/|//[^\n]*`)
	structStart = `struct\s+%s\s*\{`
	// Preprocessor lines inside an enum (rtnetlink.h's TCA_ROOT_* has
	// "#define TCA_ACT_TAB TCA_ROOT_TAB" among its enumerators).
	directives = regexp.MustCompile(`(?m)^[ \t]*#.*$`)
)

// parseEnums evaluates the enumerators of every enum in C source: explicit
// values are decimal, hex or a previous enumerator; others count on.
func parseEnums(src string) map[string]int64 {
	src = directives.ReplaceAllString(comments.ReplaceAllString(src, ""), "")
	out := map[string]int64{}
	for _, m := range enumBody.FindAllStringSubmatch(src, -1) {
		next := int64(0)
		for _, item := range strings.Split(m[1], ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				continue
			}
			name, value, hasValue := strings.Cut(item, "=")
			name = strings.TrimSpace(name)
			if hasValue {
				value = strings.TrimSpace(value)
				if v, err := strconv.ParseInt(value, 0, 64); err == nil {
					next = v
				} else if v, ok := out[value]; ok {
					next = v
				} else {
					continue // an expression this test does not evaluate
				}
			}
			out[name] = next
			next++
		}
	}
	return out
}

// parseStruct returns the members of a C struct as "type name".
func parseStruct(src, name string) []string {
	src = comments.ReplaceAllString(src, "")
	// tc_gact_p declares its constants between its members.
	src = regexp.MustCompile(`(?m)^\s*#.*$`).ReplaceAllString(src, "")
	// Members grouped by __struct_group(TAG, NAME, ATTRS, MEMBERS) are the
	// struct's own.
	src = regexp.MustCompile(`__struct_group\([^,]*,[^,]*,[^,]*,`).ReplaceAllString(src, "")
	src = regexp.MustCompile(`;\s*\)\s*;`).ReplaceAllString(src, ";")
	// The actions' structs begin with pkt_cls.h's tc_gen macro.
	src = strings.ReplaceAll(src, "tc_gen;", "__u32 index; __u32 capab; int action; int refcnt; int bindcnt;")
	loc := regexp.MustCompile(strings.Replace(structStart, "%s", regexp.QuoteMeta(name), 1)).FindStringIndex(src)
	if loc == nil {
		return nil
	}
	// The body ends at the brace that closes the struct's, past any union's.
	depth, end := 1, loc[1]
	for ; end < len(src) && depth > 0; end++ {
		switch src[end] {
		case '{':
			depth++
		case '}':
			depth--
		}
	}
	m := []string{"", src[loc[1] : end-1]}
	// An anonymous union is one member, whatever it holds.
	body := regexp.MustCompile(`(?s)union\s*\{.*?\}`).ReplaceAllString(m[1], "union")
	// Array sizes are expressions, blanks and all (TC_QOPT_BITMASK + 1).
	body = regexp.MustCompile(`\[[^\]]*\]`).ReplaceAllString(body, "[]")
	var members []string
	for _, decl := range strings.Split(body, ";") {
		fields := strings.Fields(decl)
		switch {
		case len(fields) == 1 && fields[0] == "union":
			members = append(members, "union")
			continue
		case len(fields) < 2:
			continue
		}
		name := fields[len(fields)-1]
		typ := strings.Join(fields[:len(fields)-1], " ")
		if t, ok := cIntegers[typ]; ok {
			typ = t
		}
		if i := strings.IndexByte(name, '['); i >= 0 {
			name = name[:i] + "[]"
		}
		members = append(members, typ+" "+name)
	}
	return members
}
