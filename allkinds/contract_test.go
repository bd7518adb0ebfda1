package allkinds_test

import (
	"bufio"
	"encoding/hex"
	"errors"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
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
var lacking = map[string]bool{
	"action bpf":        true,
	"action connmark":   true,
	"action csum":       true,
	"action ct":         true,
	"action gact":       true,
	"action gate":       true,
	"action ife":        true,
	"action mpls":       true,
	"action nat":        true,
	"action pedit":      true,
	"action police":     true,
	"action sample":     true,
	"action simple":     true,
	"action skbmod":     true,
	"action tunnel_key": true,
	"action vlan":       true,
}

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
		if (k.Dumped == nil) != (k.Restoring == nil) {
			t.Errorf("qdisc %s: Dumped and Restoring come together", k.Name)
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
// them with the kind's parser, and requires the same options: every
// attribute the words ask for is dumped with that value (as the kernel
// keeps it: Dumped), and every attribute dumped is asked for, but for
// those dumped as zero (the kernel's default for most; a writer leaves
// "memlimit 0" out).
func TestKeywordsRoundTrip(t *testing.T) {
	dumps := goldenDumps(t)
	count := map[string]int{}
	for _, d := range dumps {
		kind, opts := d.msg.Kind(), d.msg.Attrs.Options
		var name string
		var words []string
		var err error
		var parse func([]string) (attrs.TCOptionsMsg, error)
		switch d.object {
		case "qdisc", "class":
			k := tckind.LookupQdisc(kind)
			if k == nil && emptyOptions(opts) {
				continue // a kind without options that tc has no module for (mq)
			}
			if k == nil {
				t.Errorf("%s: %s of unregistered kind %q", d.at, d.object, kind)
				continue
			}
			name = d.object + " " + kind
			if d.object == "qdisc" {
				// What apply --from-kernel writes: the request that
				// restores the dumped state, as keywords.
				words, err = tckind.QdiscKeywords(kind, tckind.Restoring(kind, opts))
				parse = func(w []string) (attrs.TCOptionsMsg, error) {
					if k.ParseQdisc == nil {
						return nil, nil
					}
					return k.ParseQdisc(w, tckind.ParseEnv{})
				}
			} else {
				if k.ParseClass == nil || d.msg.Header.Handle&0xffff == 0 {
					// A class the kind makes itself (mq's, prio's bands),
					// or the qdisc's own root class (hfsc's X:0): no
					// command creates it.
					continue
				}
				words, err = tckind.ClassKeywords(kind, opts)
				parse = func(w []string) (attrs.TCOptionsMsg, error) { return k.ParseClass(w, tckind.ParseEnv{}) }
			}
		case "filter":
			k := tckind.LookupFilter(kind)
			if k == nil || opts == nil {
				continue // the entry a dump gives each pref before its filters
			}
			name = "filter " + kind
			words, err = tckind.FilterKeywords(kind, opts, fakeLinks{})
			handle := d.msg.Header.Handle
			env := tckind.FilterEnv{Protocol: bits.ReverseBytes16(uint16(d.msg.Header.Info)), Parent: d.msg.Header.Parent,
				Handle: tckind.FilterHandleWord(kind, handle, opts)}
			env.Links = fakeLinks{}
			parse = func(w []string) (attrs.TCOptionsMsg, error) {
				o, h, err := k.Parse(w, env)
				if err == nil && h != handle {
					err = fmt.Errorf("handle %q reads back as %#x, dumped %#x", env.Handle, h, handle)
				}
				return o, err
			}
		}
		if errors.Is(err, tckind.ErrNoKeywords) && (lacking[name] || lackingAction(err)) {
			continue
		}
		if why, ok := oneCommandCannot[d.at]; ok {
			if !errors.Is(err, tckind.ErrNoKeywords) {
				t.Errorf("%s: %s is listed as a state no one command makes (%s), but its keywords are %q (%v): take it off the list", d.at, name, why, words, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %s: keywords: %v", d.at, name, err)
			continue
		}
		back, err := parse(words)
		if err != nil {
			t.Errorf("%s: %s %s: the kind's parser refuses its keywords: %v", d.at, name, strings.Join(words, " "), err)
			continue
		}
		if d.object != "class" {
			back = tckind.Dumped(kind, back)
		}
		if back == nil && emptyOptions(opts) {
			count[d.object]++ // ingress, clsact: an empty nest, asked for by no words
			continue
		}
		if !tckind.Covers(back, opts) {
			t.Errorf("%s: %s %s: asks for what the kernel did not dump\n asked  %+v\n dumped %+v", d.at, name, strings.Join(words, " "), back, opts)
		} else if !tckind.Covers(withoutZeroLeftOut(opts, back), back) {
			t.Errorf("%s: %s %s: leaves out what the kernel dumped\n asked  %+v\n dumped %+v", d.at, name, strings.Join(words, " "), back, opts)
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

// withoutZeroLeftOut returns a copy of dumped options without the
// attributes that asked leaves out and that are dumped as a request of
// zero would be (by Covers' rule: a classifier's flags with only the bits
// the kernel adds count as zero).
func withoutZeroLeftOut(dumped, asked attrs.TCOptionsMsg) attrs.TCOptionsMsg {
	d, a := reflect.ValueOf(dumped), reflect.ValueOf(asked)
	if d.Kind() != reflect.Pointer || d.IsNil() || d.Elem().Kind() != reflect.Struct || a.Type() != d.Type() || a.IsNil() {
		return dumped
	}
	out := reflect.New(d.Elem().Type())
	out.Elem().Set(d.Elem())
	for i := range d.Elem().NumField() {
		f := out.Elem().Field(i)
		if !f.CanSet() || f.Kind() != reflect.Pointer || f.IsNil() || !a.Elem().Field(i).IsZero() {
			continue
		}
		zero := reflect.New(d.Elem().Type())
		zero.Elem().Field(i).Set(reflect.New(f.Type().Elem()))
		if tckind.Covers(zero.Interface(), dumped) {
			f.Set(reflect.Zero(f.Type()))
		}
	}
	return out.Interface().(attrs.TCOptionsMsg)
}

// emptyOptions reports options that hold nothing: the empty nest ingress
// and clsact dump.
func emptyOptions(opts attrs.TCOptionsMsg) bool {
	switch o := opts.(type) {
	case nil:
		return true
	case attrs.TCOptionsMsgRaw:
		return len(o) == 0
	case attrs.TCOptionsMsgNest:
		return len(o) == 0
	}
	return false
}

// lackingAction reports an error about an action kind on the lacking
// list, which a filter's keywords pass on.
func lackingAction(err error) bool {
	_, kind, ok := strings.Cut(err.Error(), ": action ")
	return ok && lacking["action "+kind]
}
