// SPDX-License-Identifier: Apache-2.0

package allkinds_test

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/kindtest"
	"github.com/gotc/gotc/internal/roundtrip"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tcfmt"
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
	"netem-rate64-slot-distribution.golden:3": "the kernel does not dump a slot distribution's table, which the words name by file",
}

// TestEveryKindWhole checks that each registered kind has every part its
// other parts call for: keywords to write back what it parses, and a
// statistics table for statistics it prints.
func TestEveryKindWhole(t *testing.T) {
	has := map[string]bool{}
	// why says, for each part, which field of the registration is nil
	// and what calls for it, so that a failure says what to add.
	why := map[string]string{}
	part := func(name string, present bool, missing string) {
		has[name], why[name] = present, missing
	}
	for _, k := range tckind.Qdiscs() {
		if k.ParseQdisc != nil {
			part("qdisc "+k.Name, k.Keywords != nil, "Keywords is nil, though ParseQdisc is set")
		}
		if k.ParseClass != nil {
			part("class "+k.Name, k.ClassKeywords != nil, "ClassKeywords is nil, though ParseClass is set")
		}
		if k.PrintXstats != nil {
			part("stats "+k.Name, k.Stats != nil, "Stats is nil, though PrintXstats is set")
		}
		if k.Restoring != nil && k.Dumped == nil {
			t.Errorf("qdisc %s: Restoring inverts a Dumped the kind does not have", k.Name)
		}
	}
	for _, k := range tckind.Filters() {
		part("filter "+k.Name, k.Keywords != nil, "Keywords is nil (every filter kind writes its dumps back)")
	}
	for _, k := range tckind.Actions() {
		part("action "+k.Name, k.Keywords != nil, "Keywords is nil (every action kind writes its dumps back)")
	}
	for _, name := range slices.Sorted(mapKeys(has)) {
		switch {
		case !has[name] && !lacking[name]:
			t.Errorf("%s: a part is missing from its registration: %s", name, why[name])
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

// TestStatsTablesCoverDumps holds every kind's statistics table against
// what tc -s -j prints of the golden dumps' statistics: each member the
// kind prints is a field of its table (a record's, of its records) with
// the value the table reads. Each dump is checked as dumped and again
// with every counter of its statistics made distinct and non-zero, which
// tc prints some of only then.
func TestStatsTablesCoverDumps(t *testing.T) {
	checked := map[string]bool{}
	for _, d := range goldenDumps(t) {
		k := tckind.LookupQdisc(d.msg.Kind())
		if d.object == "filter" || k == nil {
			continue
		}
		x := tckind.XstatsOf(&d.msg.Attrs)
		print := k.PrintXstats
		if d.object == "class" {
			print = k.PrintClassXstats
		}
		if print == nil || !x.Present() {
			continue
		}
		name := d.object + " " + k.Name
		if k.Stats == nil {
			if d.object == "qdisc" && !lacking["stats "+k.Name] {
				t.Errorf("%s: %s prints statistics but has no table of them", d.at, name)
			}
			continue // a class's statistics without a table: qfq's
		}
		if k.Stats.Of(x) == nil {
			if d.object == "qdisc" {
				t.Errorf("%s: %s: the table's Of finds none of the statistics tc prints", d.at, name)
			}
			continue // a class's statistics the qdisc's table does not describe (fq_codel's flows)
		}
		checkStatsTable(t, d.at, k, print, x)
		filled := tckind.Xstats{App: fillCounters(x.App), Legacy: fillCounters(x.Legacy)}
		if k.Stats.Of(filled) != nil {
			checkStatsTable(t, d.at+" (filled)", k, print, filled)
		}
		checked[name] = true
	}
	if len(checked) == 0 {
		t.Fatal("no statistics checked")
	}
	t.Logf("checked the statistics of %s", strings.Join(slices.Sorted(mapKeys(checked)), ", "))
}

// checkStatsTable compares what print writes of x in JSON with k's table.
func checkStatsTable(t *testing.T, at string, k *tckind.Qdisc, print func(*tcfmt.Printer, tckind.Xstats), x tckind.Xstats) {
	t.Helper()
	out := kindtest.Render(tcfmt.Options{JSON: true}, func(p *tcfmt.Printer) { print(p, x) })
	var printed []map[string]any
	if err := json.Unmarshal([]byte(out), &printed); err != nil || len(printed) != 1 {
		t.Fatalf("%s: %s: %v", at, out, err)
	}
	s := k.Stats.Of(x)
	compareStats(t, at+" "+k.Name, printed[0], k.Stats.Fields, s, k.Stats.Records)
}

// compareStats checks that every member of printed is one of fields, read
// from s, with the same value; and, when r is not nil, that r's array
// holds a record of r's fields for each record of s.
func compareStats(t *testing.T, where string, printed map[string]any, fields []tckind.Stat, s any, r *tckind.StatRecords) {
	t.Helper()
	for key, v := range printed {
		if r != nil && key == r.Key {
			recs, _ := v.([]any)
			if len(recs) != r.Len(s) {
				t.Errorf("%s: %d %s printed, the table reads %d", where, len(recs), key, r.Len(s))
				continue
			}
			for i, rec := range recs {
				m, _ := rec.(map[string]any)
				compareStats(t, fmt.Sprintf("%s %s[%d]", where, key, i), m, r.Fields, r.Record(s, i), nil)
			}
			continue
		}
		i := slices.IndexFunc(fields, func(f tckind.Stat) bool { return f.Key == key })
		if i < 0 {
			t.Errorf("%s: tc prints %q, which the table lacks", where, key)
			continue
		}
		f := &fields[i]
		raw, ok := f.Get(s)
		if !ok {
			t.Errorf("%s %s: printed %v, absent from the table", where, key, v)
			continue
		}
		want := float64(raw)
		switch {
		case f.Unit.Fraction():
			want = f.Value(raw)
		case f.Signed:
			want = float64(int64(raw))
		}
		if n, isNumber := v.(float64); isNumber && math.Abs(n-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Errorf("%s %s: printed %v, the table reads %v", where, key, n, want)
		}
	}
}

// fillCounters returns a copy of the statistics s in which every integer
// (of the struct, of its arrays, of the attributes present, of its
// records) is distinct and non-zero; s itself when it is not a pointer to
// a struct.
func fillCounters[S any](s S) S {
	v := reflect.ValueOf(s)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return s
	}
	c := reflect.New(v.Elem().Type())
	c.Elem().Set(v.Elem())
	next := uint64(0)
	var fill func(v reflect.Value)
	fill = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			next++
			v.SetUint(next)
		case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			next++
			v.SetInt(int64(next))
		case reflect.Array:
			if v.Type().Elem().Kind() == reflect.Uint8 {
				return // bytes: a union or an address, not counters
			}
			for i := range v.Len() {
				fill(v.Index(i))
			}
		case reflect.Pointer:
			if !v.IsNil() {
				// A copy: the dump's own attribute stays as it was.
				c := reflect.New(v.Type().Elem())
				c.Elem().Set(v.Elem())
				v.Set(c)
				fill(c.Elem())
			}
		case reflect.Struct:
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() {
					fill(v.Field(i))
				}
			}
		case reflect.Slice:
			if v.Type().Elem().Kind() != reflect.Struct {
				return // unknown attributes
			}
			copied := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
			reflect.Copy(copied, v)
			v.Set(copied)
			for i := range v.Len() {
				fill(v.Index(i))
			}
		}
	}
	fill(c.Elem())
	return c.Interface().(S)
}

// TestKeptOnChangeDefaults checks each kind's KeptOnChange, what apply
// sends for the options a file leaves out: the defaults it sets are what
// the kernel dumps of a qdisc added without options (KIND-default.golden),
// its words parse back to exactly them, and options a request gives stay
// as given.
func TestKeptOnChangeDefaults(t *testing.T) {
	// The dumps of qdiscs added with their kind's name alone
	// ("--- setup qdisc add dev gd1 root handle 1: KIND").
	defaults := map[string]attrs.TCOptionsMsg{}
	for _, d := range goldenDumps(t) {
		kind := d.msg.Kind()
		if d.object != "qdisc" || !strings.HasSuffix(d.at, kind+"-default.golden:3") {
			continue
		}
		b, err := os.ReadFile(filepath.Join("../testdata/golden", kind+"-default.golden"))
		if err != nil {
			t.Fatal(err)
		}
		if setup := strings.Fields(strings.Split(string(b), "\n")[1]); len(setup) == 10 && setup[8] == "1:" && setup[9] == kind {
			defaults[kind] = d.msg.Attrs.Options
		}
	}
	kinds := 0
	for _, k := range tckind.Qdiscs() {
		if k.KeptOnChange == nil {
			continue
		}
		kinds++
		opts, words := k.KeptOnChange(nil)
		if len(words) == 0 {
			t.Errorf("qdisc %s: KeptOnChange sets no default", k.Name)
			continue
		}
		dumped, ok := defaults[k.Name]
		if !ok {
			t.Errorf("qdisc %s: no %s-default.golden to check its defaults against", k.Name, k.Name)
		} else if !tckind.Covers(tckind.Dumped(k.Name, opts), dumped) {
			t.Errorf("qdisc %s: KeptOnChange's defaults %+v are not what the kernel dumps of a qdisc without options, %+v", k.Name, opts, dumped)
		}
		back, err := k.ParseQdisc(words, tckind.ParseEnv{})
		if err != nil || !tckind.Covers(opts, back) || !tckind.Covers(back, opts) {
			t.Errorf("qdisc %s: the words %q of its defaults parse to %+v (%v), want %+v", k.Name, words, back, err, opts)
		}
		// What a request gives stays: the defaults fill only the rest.
		given, _ := k.KeptOnChange(opts)
		if !reflect.DeepEqual(given, opts) {
			t.Errorf("qdisc %s: KeptOnChange changed options that were given: %+v, want %+v", k.Name, given, opts)
		}
	}
	if kinds == 0 {
		t.Error("no qdisc kind has KeptOnChange")
	}
}
