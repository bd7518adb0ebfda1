// SPDX-License-Identifier: Apache-2.0

package qdisc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// TestParseDRRClass checks the request against tc's drr_parse_class_opt:
// the nest always, without NLA_F_NESTED, and the quantum in bytes.
func TestParseDRRClass(t *testing.T) {
	for _, tc := range []struct {
		args string
		want []byte
	}{
		{"", tcAttr(attrs.TCAOptions, nil)},
		{"quantum 1500", tcAttr(attrs.TCAOptions, tcU32(attrs.TCADRRQuantum, 1500))},
		{"quantum 9k", tcAttr(attrs.TCAOptions, tcU32(attrs.TCADRRQuantum, 9216))},
		{"quantum 1514b", tcAttr(attrs.TCAOptions, tcU32(attrs.TCADRRQuantum, 1514))},
	} {
		o, err := parseDRRClass(strings.Fields(tc.args), tckind.ParseEnv{})
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		a := attrs.TCAttrs{Options: o}
		e := attrs.NewEncoder(nil)
		a.Encode(e)
		if got := e.Bytes(); !bytes.Equal(got, tc.want) {
			t.Errorf("%q: got %x, want %x", tc.args, got, tc.want)
		}
	}
}

func TestParseDRRErrors(t *testing.T) {
	for _, tc := range []struct {
		class     bool
		args, msg string
		usage     bool
		code      int
	}{
		{false, "foo", `What is "foo"?`, true, 1},
		{false, "help", "", true, 1},
		{true, "quantum", `Command line is not complete. Try option "help"`, false, 255},
		{true, "quantum x", `Illegal "quantum"`, false, 1},
		{true, "foo", "What is \"foo\"?\n" + drrClassUsage, false, 1},
		{true, "help", drrClassUsage, false, 1},
	} {
		parse := parseDRR
		if tc.class {
			parse = parseDRRClass
		}
		_, err := parse(strings.Fields(tc.args), tckind.ParseEnv{})
		var pe *tcword.ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%q: error %v, want a ParseError", tc.args, err)
			continue
		}
		if pe.Msg != tc.msg || pe.ShowUsage != tc.usage || pe.ExitCode() != tc.code {
			t.Errorf("%q: got (%q, usage %v, exit %d), want (%q, %v, %d)", tc.args, pe.Msg, pe.ShowUsage, pe.ExitCode(), tc.msg, tc.usage, tc.code)
		}
	}
}

// TestPrintDRRClass checks that quantum and deficit print as sizes in
// text and not at all in JSON, as tc's print_size(PRINT_FP, ...) does.
func TestPrintDRRClass(t *testing.T) {
	k := tckind.LookupQdisc("drr")
	opts := attrs.DecodeTCOptionsMsg("drr", tcU32(attrs.TCADRRQuantum, 1514))
	x := tckind.Xstats{App: attrs.DecodeStatsAppMsg("drr", binary.NativeEndian.AppendUint32(nil, 3000))}
	print := func(p *tcfmt.Printer) {
		k.PrintClassOptions(p, opts)
		k.PrintClassXstats(p, x)
	}
	if got, want := printWith(tcfmt.Options{}, print), "quantum 1514b  deficit 3000b "; got != want {
		t.Errorf("text: got %q, want %q", got, want)
	}
	if got, want := printWith(tcfmt.Options{JSON: true}, print), "{}\n"; got != want {
		t.Errorf("JSON: got %q, want %q", got, want)
	}
}
