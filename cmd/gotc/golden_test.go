// SPDX-License-Identifier: Apache-2.0

package main

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gotc/gotc/netlink"
)

// golden is one scenario recorded by selftests/capture on a real kernel: the
// kernel's raw dump messages and what the reference tc printed of them.
type golden struct {
	dump    map[netlink.Object][]*netlink.Msg
	actions []*netlink.ActionMsg // the messages of an action dump
	ifindex int32                // the scenario's device, from its first message
	views   [][2]string          // command line, tc's output
}

var deviceName = regexp.MustCompile(`dev (gd[0-9]+)`)

func readGolden(t testing.TB, path string) (*golden, string) {
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	g := &golden{dump: map[netlink.Object][]*netlink.Msg{}}
	var dev string
	sections := strings.Split(string(raw), "\n--- ")
	for i, sec := range sections[1:] {
		head, body, _ := strings.Cut(sec, "\n")
		// Splitting took the line end before the next "--- "; a view's output
		// had it unless capture marked the view "no newline".
		if body != "" && !(i+2 < len(sections) && strings.HasPrefix(sections[i+2], "no newline")) {
			body += "\n"
		}
		switch {
		case strings.HasPrefix(head, "setup "):
			if m := deviceName.FindStringSubmatch(head); m != nil {
				dev = m[1]
			}
		case strings.HasPrefix(head, "raw action "):
			b, err := hex.DecodeString(strings.TrimPrefix(head, "raw action "))
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			m := &netlink.ActionMsg{}
			if err := m.UnmarshalBinary(b); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			g.actions = append(g.actions, m)
		case strings.HasPrefix(head, "raw "):
			f := strings.Fields(head)
			b, err := hex.DecodeString(f[2])
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			m := &netlink.Msg{}
			if err := m.UnmarshalBinary(b); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			obj, ok := map[string]netlink.Object{"qdisc": netlink.Qdisc, "class": netlink.Class, "filter": netlink.Filter, "chain": netlink.Chain}[f[1]]
			if !ok {
				t.Fatalf("%s: raw message of unknown object %q", path, f[1])
			}
			if g.ifindex == 0 {
				g.ifindex = m.Header.Ifindex
			}
			g.dump[obj] = append(g.dump[obj], m)
		case strings.HasPrefix(head, "view "):
			g.views = append(g.views, [2]string{strings.TrimPrefix(head, "view "), body})
		}
	}
	return g, dev
}

// actionTimeValue matches the seconds of an action's times in tc's output
// (not a qdisc's "memory-used").
var actionTimeValue = regexp.MustCompile(`([\s"])(installed|used|firstused|first_used|last_used|expires)( |": ?)[0-9]+`)

// actionSeconds blanks the seconds of action times. tc reads them from its
// own dump, a moment after the capture's raw one: on a loaded test bed the
// two can fall on either side of a second.
func actionSeconds(s string) string {
	return actionTimeValue.ReplaceAllString(s, "${1}${2}${3}N")
}

// TestOutputGoldens replays each recorded kernel dump through gotc and expects
// the reference tc's output byte for byte, in every recorded mode.
func TestOutputGoldens(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/golden/*.golden")
	if len(files) == 0 {
		t.Fatal("no output goldens in testdata/golden (record them with selftests/capture.sh)")
	}
	// Filters, recorded with capture -filters (see selftests/capture).
	filterFiles, _ := filepath.Glob("../../testdata/golden-filters/*.golden")
	if len(filterFiles) == 0 {
		t.Fatal("no filter goldens in testdata/golden-filters")
	}
	// Standalone actions, recorded with capture -actions.
	actionFiles, _ := filepath.Glob("../../testdata/golden-actions/*.golden")
	if len(actionFiles) == 0 {
		t.Fatal("no action goldens in testdata/golden-actions")
	}
	// Chains and shared blocks, recorded with capture -chains and -block.
	chainFiles, _ := filepath.Glob("../../testdata/golden-chains/*.golden")
	if len(chainFiles) == 0 {
		t.Fatal("no chain goldens in testdata/golden-chains")
	}
	files = append(append(append(files, filterFiles...), actionFiles...), chainFiles...)
	compared := 0
	for _, file := range files {
		g, dev := readGolden(t, file)
		for _, v := range g.views {
			k := newFake()
			k.dump = g.dump
			k.actions = g.actions
			if g.ifindex != 0 {
				k.links[dev] = g.ifindex
			}
			line := strings.ReplaceAll(v[0], "DEV", dev)
			status, stdout, stderr := gotc(k, line)
			if status != 0 || actionSeconds(stdout) != actionSeconds(v[1]) {
				t.Errorf("%s: gotc %s: status %d stderr %q\n got:\n%s\n want:\n%s", filepath.Base(file), line, status, stderr, stdout, v[1])
			}
			compared++
		}
	}
	t.Logf("%d outputs compared from %d scenarios", compared, len(files))
}
