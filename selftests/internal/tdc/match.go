// SPDX-License-Identifier: Apache-2.0

package tdc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"regexp"
	"strconv"
	"strings"
)

// CompilePattern compiles a tdc matchPattern, a Python regular expression
// that tdc.py compiles with re.DOTALL|re.MULTILINE, as a Go regexp with the
// same flags, (?ms).
//
// RE2 and Python agree on everything the kernel's qdisc files use (classes,
// groups, alternation, greedy repeats). Two spellings are translated:
// Python's \Z (end of text) is Go's \z, and Python's {,n} is {0,n}.
// Python-only constructs (lookarounds, backreferences, conditionals, atomic
// groups) have no RE2 equivalent: they are reported as an error rather than
// silently matching something else.
func CompilePattern(p string) (*regexp.Regexp, error) {
	re, err := regexp.Compile("(?ms)" + translatePattern(p))
	if err != nil {
		return nil, fmt.Errorf("matchPattern %q is not valid in Go's RE2 syntax (Python-only constructs such as lookarounds and backreferences cannot be translated): %v", p, err)
	}
	return re, nil
}

// translatePattern rewrites the Python spellings RE2 lacks; see
// CompilePattern. It skips escaped characters and character classes, where
// neither rewrite applies.
func translatePattern(p string) string {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			if p[i+1] == 'Z' && !inClass {
				b.WriteString(`\z`)
			} else {
				b.WriteByte(c)
				b.WriteByte(p[i+1])
			}
			i++
			continue
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
			b.WriteByte(c)
			// A ']' right after '[' or '[^' is a literal in both dialects.
			if i+1 < len(p) && p[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				b.WriteByte(']')
				i++
			}
			continue
		case c == '{' && strings.HasPrefix(p[i:], "{,"):
			if j := strings.IndexByte(p[i:], '}'); j > 2 && isDigits(p[i+2:i+j]) {
				b.WriteString("{0,")
				i++ // skip '{'; the ',' is written next round
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// isDigits reports whether s is a non-empty run of ASCII digits.
func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// CountMatches returns len(re.findall(pattern, out)) as tdc.py computes it:
// the number of non-overlapping matches, scanning left to right.
//
// One corner differs from Python 3.7+: Python also counts an empty match
// that starts right where a non-empty match ended, Go's FindAll skips it.
// Only a pattern that can match the empty string is affected.
func CountMatches(re *regexp.Regexp, out string) int {
	return len(re.FindAllStringIndex(out, -1))
}

// MatchJSON checks the verify command's output against a test's matchJSON
// value, following tdc.py's verify_by_json and find_in_json*:
//
//   - the output must parse as JSON, and at the top level be of the same
//     type (array or object) as the expectation;
//   - an expected array is a prefix: the output needs at least as many
//     elements, and element i must match expected element i;
//   - an expected object is a subset: every expected key must exist in the
//     output and its value match; extra keys are ignored;
//   - an expected empty array or object under a key means "equal": the
//     output's value must be an empty array or object too (tdc.py compares
//     such a value with == instead of descending into it);
//   - scalars compare with Python's ==: numbers by value (1 == 1.0,
//     true == 1), strings exactly, null only with null, and a string never
//     equals a number.
//
// tdc.py's implementation has gaps this one closes, each of which would only
// turn a wrong expectation into a pass or a crash: it never compares scalars
// inside arrays, lets an expected scalar "match" an array or object, checks
// a nested expected object against the parent object when the output has a
// scalar there, and raises a Python exception instead of failing when an
// expected object meets an output array. Here all of these fail the test
// with a message naming the path.
//
// It returns nil on a match, or an error describing the first mismatch.
func MatchJSON(output string, expected json.RawMessage) error {
	exp, err := decodeOrdered(expected)
	if err != nil {
		return fmt.Errorf("matchJSON value is not valid JSON: %v", err)
	}
	out, err := decodeOrdered([]byte(output))
	if err != nil {
		return fmt.Errorf("cannot decode verify command's output as JSON: %v", err)
	}
	if kindOf(out) != kindOf(exp) {
		return fmt.Errorf("output and matchJSON are not the same type: output is %s, matchJSON is %s", kindOf(out), kindOf(exp))
	}
	return matchValue(out, exp, "", false)
}

// jsonObject keeps an object's keys in document order, so that the first
// mismatch reported is the first one in the test file, as in tdc.py (which
// loads tests into OrderedDicts).
type jsonObject struct {
	keys []string
	vals map[string]any
}

// decodeOrdered parses one JSON document into nil, bool, string, json.Number,
// []any or *jsonObject. Numbers stay textual so that large counters and the
// int/float distinction survive.
func decodeOrdered(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	v, err := decodeValue(d)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("extra data after the JSON value")
	}
	return v, nil
}

func decodeValue(d *json.Decoder) (any, error) {
	t, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch t := t.(type) {
	case json.Delim:
		switch t {
		case '[':
			arr := []any{}
			for d.More() {
				v, err := decodeValue(d)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			_, err := d.Token() // ']'
			return arr, err
		case '{':
			obj := &jsonObject{vals: map[string]any{}}
			for d.More() {
				kt, err := d.Token()
				if err != nil {
					return nil, err
				}
				k := kt.(string)
				v, err := decodeValue(d)
				if err != nil {
					return nil, err
				}
				// A repeated key keeps its first position and its last
				// value, like Python's dict.
				if _, dup := obj.vals[k]; !dup {
					obj.keys = append(obj.keys, k)
				}
				obj.vals[k] = v
			}
			_, err := d.Token() // '}'
			return obj, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil
	}
}

// kindOf names a decoded value's JSON type for messages and type checks.
func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		return "number"
	case []any:
		return "array"
	case *jsonObject:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// matchValue compares out against exp at path. underKey is true when exp is
// the value of an object key, where tdc.py treats empty containers as
// "must be equal".
func matchValue(out, exp any, path string, underKey bool) error {
	switch e := exp.(type) {
	case []any:
		o, ok := out.([]any)
		if !ok {
			return fmt.Errorf("%s: expected an array, output has %s %s", where(path), kindOf(out), short(out))
		}
		if underKey && len(e) == 0 && len(o) != 0 {
			return fmt.Errorf("%s: expected an empty array, output has %d elements", where(path), len(o))
		}
		if len(e) > len(o) {
			return fmt.Errorf("%s: matchJSON array has %d elements, output only %d", where(path), len(e), len(o))
		}
		for i := range e {
			if err := matchValue(o[i], e[i], fmt.Sprintf("%s[%d]", path, i), false); err != nil {
				return err
			}
		}
		return nil
	case *jsonObject:
		o, ok := out.(*jsonObject)
		if !ok {
			return fmt.Errorf("%s: expected an object, output has %s %s", where(path), kindOf(out), short(out))
		}
		if underKey && len(e.keys) == 0 && len(o.keys) != 0 {
			return fmt.Errorf("%s: expected an empty object, output has %d keys", where(path), len(o.keys))
		}
		for _, k := range e.keys {
			ov, ok := o.vals[k]
			p := path + "." + k
			if !ok {
				return fmt.Errorf("%s: key not found in output %s", where(p), short(out))
			}
			if err := matchValue(ov, e.vals[k], p, true); err != nil {
				return err
			}
		}
		return nil
	default:
		if !scalarEqual(out, exp) {
			return fmt.Errorf("%s: value doesn't match: expected %s, output has %s", where(path), short(exp), short(out))
		}
		return nil
	}
}

// scalarEqual is Python's == on values json.loads produces.
func scalarEqual(a, b any) bool {
	an, aNum := pyNumber(a)
	bn, bNum := pyNumber(b)
	if aNum || bNum {
		return aNum && bNum && an.Cmp(bn) == 0
	}
	switch a := a.(type) {
	case nil:
		return b == nil
	case string:
		s, ok := b.(string)
		return ok && a == s
	}
	return false
}

// pyNumber converts a JSON number or boolean to an exact big.Float, as
// Python compares int, float and bool (True == 1) by value. A JSON number
// with a fraction or exponent is a Python float, so it is rounded to float64
// first, exactly as json.loads would.
func pyNumber(v any) (*big.Float, bool) {
	switch v := v.(type) {
	case bool:
		if v {
			return big.NewFloat(1), true
		}
		return big.NewFloat(0), true
	case json.Number:
		s := string(v)
		if !strings.ContainsAny(s, ".eE") {
			if i, ok := new(big.Int).SetString(s, 10); ok {
				return new(big.Float).SetInt(i), true
			}
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, false
		}
		return big.NewFloat(f), true
	}
	return nil, false
}

func where(path string) string {
	if path == "" {
		return "top level"
	}
	return strings.TrimPrefix(path, ".")
}

// short renders a decoded value compactly for messages.
func short(v any) string {
	var b strings.Builder
	render(&b, v)
	s := b.String()
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

func render(b *strings.Builder, v any) {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case *jsonObject:
		b.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(b, "%q: ", k)
			render(b, v.vals[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			render(b, e)
		}
		b.WriteByte(']')
	case string:
		fmt.Fprintf(b, "%q", v)
	default:
		fmt.Fprint(b, v)
	}
}
