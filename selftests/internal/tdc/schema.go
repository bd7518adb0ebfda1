// SPDX-License-Identifier: Apache-2.0

// Package tdc reads and runs test cases in the JSON format of the kernel's
// tc-testing suite ("tdc", tools/testing/selftests/tc-testing in the kernel
// tree), reproducing the verdicts of the kernel's tdc.py and its nsPlugin.
//
// The schema lives in this file, variable substitution in subst.go, the two
// verifiers (matchPattern, matchJSON) in match.go, process execution in
// exec.go, the per-test network namespace in sandbox.go and the per-test
// pipeline and report in runner.go.
package tdc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Case is one test case of a tdc JSON file.
//
// Fields mirror the keys tdc.py reads. Keys this runner does not know are
// kept in Extra instead of being rejected, so that files written for a newer
// schema (or for extensions of this runner, such as a traffic block) still
// load; an extension reads its own key from Extra.
type Case struct {
	ID       string
	Name     string
	Category []string
	// Plugins lists the plugins named by "plugins": {"requires": ...};
	// tdc.py accepts a single name or a list.
	Plugins []string
	// Skip is the raw "skip" value; tdc.py skips only on exactly "yes".
	Skip string
	// DependsOn is a probe command: a non-zero exit skips the test.
	DependsOn    string
	Setup        []Command
	CmdUnderTest string
	// ExpExitCode is the expected exit status of CmdUnderTest. tdc.py
	// applies int() to it, so it is usually a string such as "0" or "2".
	ExpExitCode Int
	VerifyCmd   string
	// MatchPattern is a Python regular expression; its match count over the
	// verify output must equal MatchCount.
	MatchPattern *string
	MatchCount   Int
	// MatchJSON is the raw expected JSON, or nil when the key is absent.
	// tdc.py prefers it over MatchPattern when both are present.
	MatchJSON json.RawMessage
	Teardown  []Command

	// Extra holds every key not listed above, untouched.
	Extra map[string]json.RawMessage

	// File and Index locate the case for messages (Index counts from 0).
	File  string
	Index int
}

// Command is one setup or teardown entry: a command and the exit statuses
// that count as success. A plain string in the file accepts only 0; the
// list form [cmd, code, ...] accepts any of the listed codes.
type Command struct {
	Cmd   string
	Codes []int
}

// Accepts reports whether exit status code counts as success.
func (c Command) Accepts(code int) bool {
	for _, k := range c.Codes {
		if k == code {
			return true
		}
	}
	return false
}

// Int is an integer field that tdc.py converts with int(): the file may hold
// a JSON number or a string such as "2". Set is false when the key is absent
// or null; Err is non-nil when the value is present but not an integer, so
// that the failure is reported on the test that has it, as tdc.py would only
// fail when it reaches that test.
type Int struct {
	Val int
	Set bool
	Err error
}

// UnmarshalJSON accepts 2, "2" and " 2 " (Python's int() strips blanks).
func (n *Int) UnmarshalJSON(b []byte) error {
	*n = Int{}
	if string(b) == "null" {
		return nil
	}
	n.Set = true
	var s string
	if b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		s = strings.TrimSpace(s)
	} else {
		s = string(b)
		// int(2.0) is 2 in Python; accept integral floats the same way.
		if f, err := strconv.ParseFloat(s, 64); err == nil && f == float64(int64(f)) && strings.ContainsAny(s, ".eE") {
			n.Val = int(f)
			return nil
		}
	}
	v, err := strconv.Atoi(strings.TrimPrefix(s, "+"))
	if err != nil {
		n.Err = fmt.Errorf("%s is not an integer", b)
		return nil
	}
	n.Val = v
	return nil
}

// knownKeys are the keys Case decodes itself; everything else goes to Extra.
var knownKeys = map[string]bool{
	"id": true, "name": true, "category": true, "plugins": true, "skip": true,
	"dependsOn": true, "setup": true, "cmdUnderTest": true, "expExitCode": true,
	"verifyCmd": true, "matchPattern": true, "matchCount": true, "matchJSON": true,
	"teardown": true,
}

// UnmarshalJSON decodes one test case. Type errors name the offending key;
// unknown keys are kept in Extra.
func (c *Case) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*c = Case{}
	field := func(key string, dst any) error {
		v, ok := raw[key]
		if !ok || string(v) == "null" {
			return nil
		}
		if err := json.Unmarshal(v, dst); err != nil {
			return fmt.Errorf("key %q: %v", key, err)
		}
		return nil
	}
	var matchPattern flexString
	var skip flexString
	steps := []struct {
		key string
		dst any
	}{
		{"id", &c.ID}, {"name", &c.Name}, {"category", &c.Category},
		{"skip", &skip}, {"dependsOn", &c.DependsOn}, {"cmdUnderTest", &c.CmdUnderTest},
		{"expExitCode", &c.ExpExitCode}, {"verifyCmd", &c.VerifyCmd},
		{"matchPattern", &matchPattern}, {"matchCount", &c.MatchCount},
	}
	for _, s := range steps {
		if err := field(s.key, s.dst); err != nil {
			return err
		}
	}
	c.Skip = string(skip)
	if v, ok := raw["matchPattern"]; ok && string(v) != "null" {
		p := string(matchPattern)
		c.MatchPattern = &p
	}
	if v, ok := raw["matchJSON"]; ok {
		c.MatchJSON = v
	}
	var err error
	if c.Plugins, err = decodePlugins(raw["plugins"]); err != nil {
		return err
	}
	if c.Setup, err = decodeCommands("setup", raw["setup"]); err != nil {
		return err
	}
	if c.Teardown, err = decodeCommands("teardown", raw["teardown"]); err != nil {
		return err
	}
	for k, v := range raw {
		if !knownKeys[k] {
			if c.Extra == nil {
				c.Extra = map[string]json.RawMessage{}
			}
			c.Extra[k] = v
		}
	}
	return nil
}

// flexString accepts a string, or any other scalar as its JSON text; tdc.py
// applies str() to matchPattern, so a number is a (silly but valid) pattern.
type flexString string

func (s *flexString) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var v string
		err := json.Unmarshal(b, &v)
		*s = flexString(v)
		return err
	}
	if len(b) > 0 && (b[0] == '[' || b[0] == '{') {
		return fmt.Errorf("want a string, got %s", b)
	}
	*s = flexString(b)
	return nil
}

// decodePlugins reads {"requires": "name"} or {"requires": ["a", "b"]}.
func decodePlugins(b json.RawMessage) ([]string, error) {
	if len(b) == 0 || string(b) == "null" {
		return nil, nil
	}
	var p struct {
		Requires json.RawMessage `json:"requires"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("key \"plugins\": %v", err)
	}
	if len(p.Requires) == 0 || string(p.Requires) == "null" {
		return nil, nil
	}
	var one string
	if json.Unmarshal(p.Requires, &one) == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(p.Requires, &many); err != nil {
		return nil, fmt.Errorf("key \"plugins\": \"requires\" must be a string or a list of strings")
	}
	return many, nil
}

// decodeCommands reads a setup or teardown list. Each entry is a string
// (exit status 0 required) or [cmd, code, ...].
func decodeCommands(key string, b json.RawMessage) ([]Command, error) {
	if len(b) == 0 || string(b) == "null" {
		return nil, nil
	}
	var entries []json.RawMessage
	if err := json.Unmarshal(b, &entries); err != nil {
		return nil, fmt.Errorf("key %q must be a list", key)
	}
	out := make([]Command, 0, len(entries))
	for i, e := range entries {
		var s string
		if json.Unmarshal(e, &s) == nil {
			out = append(out, Command{Cmd: s, Codes: []int{0}})
			continue
		}
		var list []json.RawMessage
		if err := json.Unmarshal(e, &list); err != nil || len(list) == 0 {
			return nil, fmt.Errorf("%s[%d]: want a string or [command, exit code, ...], got %s", key, i, e)
		}
		var c Command
		if err := json.Unmarshal(list[0], &c.Cmd); err != nil {
			return nil, fmt.Errorf("%s[%d]: the command must be a string, got %s", key, i, list[0])
		}
		// tdc.py compares the exit status with the listed values using
		// Python's "in", so a string "2" would never match an exit status:
		// reject it here rather than fail mysteriously later.
		for _, code := range list[1:] {
			var n int
			if err := json.Unmarshal(code, &n); err != nil {
				return nil, fmt.Errorf("%s[%d]: exit code %s is not an integer", key, i, code)
			}
			c.Codes = append(c.Codes, n)
		}
		if len(c.Codes) == 0 {
			// tdc.py would accept no exit status at all for [cmd]: the
			// entry could never succeed, which is certainly a mistake.
			return nil, fmt.Errorf("%s[%d]: [command] lists no accepted exit code", key, i)
		}
		out = append(out, c)
	}
	return out, nil
}

// Requires reports whether the case names plugin p.
func (c *Case) Requires(p string) bool {
	for _, q := range c.Plugins {
		if q == p {
			return true
		}
	}
	return false
}

// Parse decodes a tdc JSON file's contents: an array of test cases. name is
// used in messages only.
func Parse(name string, data []byte) ([]Case, error) {
	data = bytes.TrimSpace(data)
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	cases := make([]Case, 0, len(raws))
	for i, r := range raws {
		var c Case
		if err := json.Unmarshal(r, &c); err != nil {
			return nil, fmt.Errorf("%s: test case #%d%s: %v", name, i+1, peekID(r), err)
		}
		c.File, c.Index = name, i
		cases = append(cases, c)
	}
	return cases, nil
}

// peekID returns " (id XXXX)" for messages about a case that failed to decode.
func peekID(r json.RawMessage) string {
	var v struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(r, &v) == nil && v.ID != "" {
		return " (id " + v.ID + ")"
	}
	return ""
}

// Load reads and parses one tdc JSON file.
func Load(path string) ([]Case, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Select filters cases like tdc.py's -e and -c: with neither, all cases;
// with only ids, the cases with those ids; with only categories, the cases
// in any of them; with both, the union (tdc.py adds the -e cases to the -c
// ones). File order is kept. Unknown ids are returned so the caller can
// warn about them.
func Select(cases []Case, ids, categories []string) (sel []Case, unknownIDs []string) {
	if len(ids) == 0 && len(categories) == 0 {
		return cases, nil
	}
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	seen := map[string]bool{}
	for _, c := range cases {
		ok := want[c.ID]
		for _, cat := range categories {
			for _, have := range c.Category {
				ok = ok || have == cat
			}
		}
		if ok {
			sel = append(sel, c)
		}
		seen[c.ID] = true
	}
	for _, id := range ids {
		if !seen[id] {
			unknownIDs = append(unknownIDs, id)
		}
	}
	return sel, unknownIDs
}

// DuplicateIDs returns the ids used by more than one case; tdc.py refuses to
// run such a set.
func DuplicateIDs(cases []Case) []string {
	count := map[string]int{}
	var dups []string
	for _, c := range cases {
		count[c.ID]++
		if count[c.ID] == 2 {
			dups = append(dups, c.ID)
		}
	}
	return dups
}
