package attrs

import (
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
			Name string `yaml:"name"`
			Type string `yaml:"type"`
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
	for _, name := range []string{"pkt_sched.h", "pkt_cls.h", "rtnetlink.h", "gen_stats.h", "tc_act/tc_gact.h"} {
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
			expect(cName(set.NamePrefix+a.Name), next)
			next++
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
			for _, m := range d.Members {
				ours = append(ours, cType(m.Type)+" "+strings.ReplaceAll(m.Name, "-", "_"))
			}
			if strings.Join(ours, "; ") != strings.Join(members, "; ") {
				t.Errorf("struct %s:\n spec:   %s\n kernel: %s", cStruct, strings.Join(ours, "; "), strings.Join(members, "; "))
			}
			checked++
		}
	}
	t.Logf("checked %d attribute numbers, enum values and structs against %s", checked, dir)
}

func cName(s string) string { return strings.ToUpper(strings.ReplaceAll(s, "-", "_")) }

func cType(ynl string) string {
	if strings.HasPrefix(ynl, "s") {
		return "__s" + ynl[1:]
	}
	return "__u" + ynl[1:]
}

var (
	enumBody = regexp.MustCompile(`(?s)enum\s*\w*\s*\{(.*?)\}`)
	comments = regexp.MustCompile(`(?s)/\*.*?\*/|//[^\n]*`)
	// Preprocessor lines inside an enum (rtnetlink.h's TCA_ROOT_* has
	// "#define TCA_ACT_TAB TCA_ROOT_TAB" among its enumerators).
	directives = regexp.MustCompile(`(?m)^[ \t]*#.*$`)
	structBody = `(?s)struct\s+%s\s*\{(.*?)\}`
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
	// The actions' structs begin with pkt_cls.h's tc_gen macro.
	src = strings.ReplaceAll(src, "tc_gen;", "__u32 index; __u32 capab; int action; int refcnt; int bindcnt;")
	m := regexp.MustCompile(strings.Replace(structBody, "%s", regexp.QuoteMeta(name), 1)).FindStringSubmatch(src)
	if m == nil {
		return nil
	}
	var members []string
	for _, decl := range strings.Split(m[1], ";") {
		fields := strings.Fields(decl)
		if len(fields) == 2 {
			if fields[0] == "int" {
				fields[0] = "__s32"
			}
			members = append(members, fields[0]+" "+fields[1])
		}
	}
	return members
}
