// SPDX-License-Identifier: Apache-2.0

package action

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// fuzzLinks knows two devices, as a test bed with a dummy and an ifb has.
type fuzzLinks struct{}

func (fuzzLinks) Index(name string) (int32, bool) {
	switch name {
	case "lo":
		return 1, true
	case "ifb0":
		return 7, true
	}
	return 0, false
}

func (fuzzLinks) Name(idx int32) string {
	switch idx {
	case 1:
		return "lo"
	case 7:
		return "ifb0"
	}
	return "if?"
}

// FuzzParseActions: tc's action list (gact's verbs and options, mirred's,
// cookies, flags, indexes, goto chain) never panics; what it refuses it
// refuses with tc's message and status, what it accepts leaves a tail of
// the words, encodes and decodes back to itself, and prints in text and
// JSON.
func FuzzParseActions(f *testing.F) {
	for _, s := range []string{
		"drop",
		"gact pass random determ drop 10 index 5 cookie 0a0b hw_stats immediate no_percpu skip_sw",
		"goto chain 4 action jump 2 action pipe random netrand reclassify 5000 flowid 1:1",
		"mirred egress redirect dev ifb0 index 3 action drop",
		"mirred ingress mirror dev lo pipe cookie aa action mirred egress redirect blockid 7",
		"gact continue index 4294967295 action reclassify skip_hw skip_sw classid 1:2",
		"pass index 1 add action drop",
		"mirred egress mirror dev nosuch",
		"gact drop random determ goto chain 1 2",
		"action",
		"bogus words here",
	} {
		f.Add(s)
	}
	env := tckind.ActionEnv{Links: fuzzLinks{}, Stderr: io.Discard}
	f.Fuzz(func(t *testing.T, line string) {
		words := strings.Fields(line)
		acts, rest, err := ParseActions(words, env)
		if err != nil {
			var pe *tcword.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("%q: error %v (%T) is not a ParseError", line, err, err)
			}
			if pe.Code != 0 && pe.Code != 1 && pe.Code != 255 {
				t.Fatalf("%q: exit status %d", line, pe.Code)
			}
			return
		}
		if len(rest) > len(words) || !slices.Equal(rest, words[len(words)-len(rest):]) {
			t.Fatalf("%q: rest %q is not a tail of the words", line, rest)
		}
		want := &attrs.ActRootAttrs{Tab: acts}
		e := attrs.NewEncoder(nil)
		want.Encode(e)
		var got attrs.ActRootAttrs
		if err := got.Decode(e.Bytes()); err != nil {
			t.Fatalf("%q: decode: %v", line, err)
		}
		if len(got.Tab) != len(acts) {
			t.Fatalf("%q: %d actions parsed, %d decoded", line, len(acts), len(got.Tab))
		}
		// A word that names no kind is sent as the kind with gact's
		// options, as tc does: those decode raw, the others to what was
		// sent.
		for i := range acts {
			if tckind.LookupAction(*acts[i].Kind) == nil {
				continue
			}
			if diff := cmp.Diff(acts[i], got.Tab[i], cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("%q: action %d round trip (-sent +decoded):\n%s", line, i+1, diff)
			}
		}
		for _, o := range []tcfmt.Options{{}, {JSON: true, Stats: true}} {
			var b bytes.Buffer
			p := tcfmt.NewPrinter(&b, o)
			p.Start()
			p.OpenObject("")
			PrintActions(p, got.Tab, ActionPrint{Stats: o.Stats, FirstOrder: 1, Links: fuzzLinks{}})
			p.CloseObject()
			if err := p.Finish(); err != nil {
				t.Fatalf("%q: print: %v", line, err)
			}
		}
	})
}
