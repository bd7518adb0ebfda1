// SPDX-License-Identifier: Apache-2.0

package action

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

func gact(action int32, index uint32) attrs.ActAttrs {
	return attrs.ActAttrs{Kind: new("gact"), Options: &attrs.ActGactAttrs{Parms: &attrs.TCGact{Action: action, Index: index}}}
}

// TestParseActions: the list as tc's parse_action reads it, from the word
// after the filter's first "action".
func TestParseActions(t *testing.T) {
	withCookie := func(a attrs.ActAttrs, c []byte) attrs.ActAttrs { a.Cookie = c; return a }
	for _, c := range []struct {
		args string
		want []attrs.ActAttrs
		rest string
	}{
		{"ok", []attrs.ActAttrs{gact(actOK, 0)}, ""},
		// A verb after an action starts the next one without "action".
		{"drop pass", []attrs.ActAttrs{gact(actShot, 0), gact(actOK, 0)}, ""},
		{"gact continue index 7 action reclassify action pipe", []attrs.ActAttrs{gact(actUnspec, 7), gact(actReclassify, 0), gact(actPipe, 0)}, ""},
		{"goto chain 4 action jump 2 action trap", []attrs.ActAttrs{gact(actGotoChain|4, 0), gact(actJump|2, 0), gact(actTrap, 0)}, ""},
		// Binding an existing action by index.
		{"gact index 9", []attrs.ActAttrs{gact(0, 9)}, ""},
		// The list ends at classid, flowid and the words of "tc actions".
		{"drop classid 1:1", []attrs.ActAttrs{gact(actShot, 0)}, "classid 1:1"},
		{"drop action pass flowid 1:2", []attrs.ActAttrs{gact(actShot, 0), gact(actOK, 0)}, "flowid 1:2"},
		{"pass index 1 add action drop", []attrs.ActAttrs{gact(actOK, 1)}, "add action drop"},
		// tc keeps a cookie for the actions after the one that named it.
		{"drop cookie 0a0b action pass", []attrs.ActAttrs{withCookie(gact(actShot, 0), []byte{10, 11}), withCookie(gact(actOK, 0), []byte{10, 11})}, ""},
	} {
		got, rest, err := ParseActions(strings.Fields(c.args), tckind.ActionEnv{})
		if err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", c.args, diff)
		}
		if r := strings.Join(rest, " "); r != c.rest {
			t.Errorf("%q: rest %q, want %q", c.args, r, c.rest)
		}
	}
}

func TestParseActionsFlagsAndRandom(t *testing.T) {
	got, _, err := ParseActions(strings.Fields("pipe random netrand reclassify 5000 hw_stats delayed no_percpu skip_hw skip_sw"), tckind.ActionEnv{})
	if err != nil {
		t.Fatal(err)
	}
	want := []attrs.ActAttrs{{
		Kind: new("gact"),
		Options: &attrs.ActGactAttrs{
			Parms: &attrs.TCGact{Action: actPipe},
			Prob:  &attrs.TCGactP{Ptype: gactProbNetrand, Pval: 5000, Paction: actReclassify},
		},
		HWStats: &attrs.Bitfield32{Value: actHWStatsDelayed, Selector: actHWStatsDelayed},
		Flags:   &attrs.Bitfield32{Value: 7, Selector: 7},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestParseActionsErrors: tc's messages and exit statuses (checked against
// tc 7.3; cmd/gotc's request goldens hold the full texts).
func TestParseActionsErrors(t *testing.T) {
	for _, c := range []struct {
		args, msg string
		code      int
	}{
		{"", `Illegal "action"`, 1},
		{"help", `Illegal "action"`, 1},
		{"drop action", "bad action empty 1\nparse_action: bad value (0:(null))!\nIllegal \"action\"", 1},
		{"drop index x", "Illegal \"index\"\nbad action parsing\nparse_action: bad value (3:drop)!\nIllegal \"action\"", 1},
		{"gact drop random foo", "Illegal \"random type\"\nbad action parsing\nparse_action: bad value (4:gact)!\nIllegal \"action\"", 1},
		{"pump", "Bad action type pump\n" + gactUsage, 255},
		{"drop help", gactUsage, 255},
		{"jump x", "Invalid \"jump count\" (x)\n" + gactUsage, 255},
		{"goto 3", "\"chain index\" expected\n" + gactUsage, 255},
		{"goto chain", `Command line is not complete. Try option "help"`, 255},
		{"drop cookie abc", "Error: argument \"abc\" is wrong: cookie must be a hex string\n", 255},
		{"drop hw_stats sometimes", "Error: argument \"sometimes\" is wrong: value is invalid\n", 255},
		{"police rate 1mbit", "'burst' requires 'rate'.\nbad action parsing\nparse_action: bad value (3:police)!\nIllegal \"action\"", 1},
	} {
		_, _, err := ParseActions(strings.Fields(c.args), tckind.ActionEnv{})
		pe, ok := err.(*tcword.ParseError)
		if !ok {
			t.Errorf("%q: error %v, want a *ParseError", c.args, err)
			continue
		}
		if pe.Msg != c.msg || pe.ExitCode() != c.code {
			t.Errorf("%q: %q (exit %d), want %q (exit %d)", c.args, pe.Msg, pe.ExitCode(), c.msg, c.code)
		}
	}
}

// TestPrintActionControlJSON: goto and jump carry their value in JSON as a
// member of control_action, as print_action_control prints it.
func TestPrintActionControlJSON(t *testing.T) {
	var b bytes.Buffer
	p := tcfmt.NewPrinter(&b, tcfmt.Options{JSON: true})
	p.Start()
	p.OpenObject("")
	PrintActions(p, []attrs.ActAttrs{gact(actGotoChain|4, 2), gact(actJump|1, 3)}, ActionPrint{Bind: true, FirstOrder: 1})
	p.CloseObject()
	if err := p.Finish(); err != nil {
		t.Fatal(err)
	}
	want := `[{"actions":[{"order":1,"kind":"gact","control_action":{"type":"goto","chain":4},"prob":{"random_type":"none","control_action":{"type":"pass"},"val":0},"index":2,"ref":0,"bind":0},` +
		`{"order":2,"kind":"gact","control_action":{"type":"jump","jump":1},"prob":{"random_type":"none","control_action":{"type":"pass"},"val":0},"index":3,"ref":0,"bind":0}]}]`
	if got := strings.TrimSpace(b.String()); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
