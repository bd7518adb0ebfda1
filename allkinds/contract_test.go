// SPDX-License-Identifier: Apache-2.0

package allkinds_test

import (
	"bufio"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/roundtrip"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tckind"
)

// The contract every registered kind keeps. Each part of a kind lives in
// the kind's own file and is found through the registry; a kind that lacks
// one fails here, by name and part, unless it is listed in lacking, which
// may only shrink: a listed kind that has the part fails too.

// lacking lists the parts ("qdisc NAME", "class NAME", "filter NAME",
// "action NAME" for Keywords; "stats NAME" for a qdisc kind that prints
// statistics of its own without a table of them) that kinds do not have
// yet.
var lacking = map[string]bool{}

// oneCommandCannot lists the golden dumps (file:line) whose state no one
// command makes, so that no keywords can ask for it; a kind must refuse it
// (ErrNoKeywords) rather than write words that would lose part of it.
var oneCommandCannot = map[string]string{
	"taprio-admin.golden:4":                   "a pending (admin) schedule beside the running one takes two commands",
	"gred-vqs.golden:5":                       "gred's virtual queues are each set by a command of their own after the setup",
	"netem-rate64-slot-distribution.golden:3": "the kernel does not dump a slot distribution's table, which the words name by file",
}

// TestEveryKindWhole checks that each registered kind has every part its
// other parts call for: keywords to write back what it parses, and a
// statistics table for statistics it prints.
func TestEveryKindWhole(t *testing.T) {
	has := map[string]bool{}
	part := func(name string, present bool) { has[name] = present }
	for _, k := range tckind.Qdiscs() {
		if k.ParseQdisc != nil {
			part("qdisc "+k.Name, k.Keywords != nil)
		}
		if k.ParseClass != nil {
			part("class "+k.Name, k.ClassKeywords != nil)
		}
		if k.PrintXstats != nil {
			part("stats "+k.Name, k.Stats != nil)
		}
		if k.Restoring != nil && k.Dumped == nil {
			t.Errorf("qdisc %s: Restoring inverts a Dumped the kind does not have", k.Name)
		}
	}
	for _, k := range tckind.Filters() {
		part("filter "+k.Name, k.Keywords != nil)
	}
	for _, k := range tckind.Actions() {
		part("action "+k.Name, k.Keywords != nil)
	}
	for _, name := range slices.Sorted(mapKeys(has)) {
		switch {
		case !has[name] && !lacking[name]:
			t.Errorf("%s: the part is missing (Keywords, ClassKeywords or Stats in its registration)", name)
		case has[name] && lacking[name]:
			t.Errorf("%s: has the part now; take it off the lacking list", name)
		}
	}
	for name := range lacking {
		if _, ok := has[name]; !ok {
			t.Errorf("lacking lists %s, which no registered kind calls for", name)
		}
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// goldenDump is one object as the test-bed kernel dumped it to the
// reference tc, recorded in a golden file ("--- raw OBJECT HEX").
type goldenDump struct {
	at     string // file:line
	object string // qdisc, class, filter
	msg    netlink.Msg
}

// goldenDumps reads every dump the golden files hold.
func goldenDumps(t *testing.T) []goldenDump {
	t.Helper()
	files, err := filepath.Glob("../testdata/golden*/*.golden")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files under ../testdata: %v", err)
	}
	var out []goldenDump
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for line := 1; sc.Scan(); line++ {
			rest, ok := strings.CutPrefix(sc.Text(), "--- raw ")
			if !ok {
				continue
			}
			object, h, _ := strings.Cut(rest, " ")
			if object != "qdisc" && object != "class" && object != "filter" {
				continue // actions and chains: standalone dumps of their own
			}
			b, err := hex.DecodeString(h)
			if err != nil {
				t.Fatalf("%s:%d: %v", file, line, err)
			}
			d := goldenDump{at: fmt.Sprintf("%s:%d", filepath.Base(file), line), object: object}
			if err := d.msg.UnmarshalBinary(b); err != nil {
				t.Fatalf("%s: %v", d.at, err)
			}
			out = append(out, d)
		}
		f.Close()
	}
	return out
}

// fakeLinks names ifindex N "devN".
type fakeLinks struct{}

func (fakeLinks) Index(name string) (int32, bool) {
	n, err := strconv.ParseInt(strings.TrimPrefix(name, "dev"), 10, 32)
	return int32(n), err == nil && strings.HasPrefix(name, "dev")
}

func (fakeLinks) Name(idx int32) string { return fmt.Sprintf("dev%d", idx) }

// TestKeywordsRoundTrip writes every golden dump back as keywords, parses
// them with the kind's parser, and requires the same options
// (roundtrip.Check): every attribute the words ask for is dumped with that
// value (as the kernel keeps it: Dumped), and every attribute dumped is
// asked for, but what the kernel fills itself and what is dumped as a
// request of zero would be (the kernel's default for most; a writer
// leaves "memlimit 0" out).
func TestKeywordsRoundTrip(t *testing.T) {
	dumps := goldenDumps(t)
	count := map[string]int{}
	for _, d := range dumps {
		object := map[string]netlink.Object{"qdisc": netlink.Qdisc, "class": netlink.Class, "filter": netlink.Filter}[d.object]
		name := d.object + " " + d.msg.Kind()
		words, err := roundtrip.Check(object, &d.msg, fakeLinks{})
		switch why, listed := oneCommandCannot[d.at]; {
		case errors.Is(err, roundtrip.ErrNotMade):
			continue
		case errors.Is(err, tckind.ErrNoKeywords) && (lacking[name] || lackingAction(err)):
			continue
		case listed:
			if !errors.Is(err, tckind.ErrNoKeywords) {
				t.Errorf("%s: %s is listed as a state no one command makes (%s), but its keywords are %q (%v): take it off the list", d.at, name, why, words, err)
			}
			continue
		case err != nil:
			t.Errorf("%s: %s: %v", d.at, name, err)
			continue
		}
		count[d.object]++
	}
	for _, object := range []string{"qdisc", "class", "filter"} {
		if count[object] == 0 {
			t.Errorf("no %s dump round-tripped", object)
		}
	}
	t.Logf("round-tripped %d qdiscs, %d classes, %d filters of %d dumps", count["qdisc"], count["class"], count["filter"], len(dumps))
}

// lackingAction reports an error about an action kind on the lacking
// list, which a filter's keywords pass on.
func lackingAction(err error) bool {
	_, kind, ok := strings.Cut(err.Error(), ": action ")
	return ok && lacking["action "+kind]
}

// goldenActions reads every action of the standalone action dumps
// ("--- raw action HEX", messages of "tc actions list").
func goldenActions(t *testing.T) (at []string, acts []attrs.ActAttrs) {
	t.Helper()
	files, err := filepath.Glob("../testdata/golden-actions/*.golden")
	if err != nil || len(files) == 0 {
		t.Fatalf("no action golden files under ../testdata: %v", err)
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for line, text := range strings.Split(string(b), "\n") {
			h, ok := strings.CutPrefix(text, "--- raw action ")
			if !ok {
				continue
			}
			where := fmt.Sprintf("%s:%d", filepath.Base(file), line+1)
			raw, err := hex.DecodeString(h)
			if err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			var m netlink.ActionMsg
			if err := m.UnmarshalBinary(raw); err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			for i, a := range m.Attrs.Tab {
				at = append(at, fmt.Sprintf("%s action %d", where, i+1))
				acts = append(acts, a)
			}
		}
	}
	return at, acts
}

// TestActionKeywordsRoundTrip writes every action of the standalone
// dumps back as the words of an action list, parses them as "tc actions
// add" does, and requires the same action (roundtrip.CheckAction).
func TestActionKeywordsRoundTrip(t *testing.T) {
	at, acts := goldenActions(t)
	count := 0
	for i, d := range acts {
		_, err := roundtrip.CheckAction(d, fakeLinks{})
		if errors.Is(err, tckind.ErrNoKeywords) && lackingAction(err) {
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", at[i], err)
			continue
		}
		count++
	}
	if count == 0 {
		t.Error("no standalone action round-tripped")
	}
	t.Logf("round-tripped %d of %d standalone actions", count, len(acts))
}
