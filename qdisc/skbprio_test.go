// SPDX-License-Identifier: Apache-2.0

package qdisc

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// TestParseSKBPrio checks the request against tc's skbprio_parse_opt: the
// struct as the whole TCA_OPTIONS payload, nothing without a limit.
func TestParseSKBPrio(t *testing.T) {
	for _, tc := range []struct {
		args string
		want []byte // the TCA_OPTIONS attribute; nil for none
	}{
		{"", nil},
		{"limit 100", tcU32(attrs.TCAOptions, 100)},
		{"limit 10kb", tcU32(attrs.TCAOptions, 10240)},
		{"limit 0", tcU32(attrs.TCAOptions, 0)},
		{"limit 1 limit 2", tcU32(attrs.TCAOptions, 2)},
	} {
		o, err := parseSKBPrio(strings.Fields(tc.args), tckind.ParseEnv{})
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

func TestParseSKBPrioErrors(t *testing.T) {
	for _, tc := range []struct {
		args, msg string
		usage     bool
		code      int
	}{
		{"limit", `Command line is not complete. Try option "help"`, false, 255},
		{"limit x", `skbprio: Illegal "limit" value:"x"`, false, 1},
		{"limit 5Tb", `skbprio: Illegal "limit" value:"5Tb"`, false, 1},
		{"lim 10", `skbprio: unknown parameter "lim"`, true, 1},
		{"help", "", true, 1},
	} {
		_, err := parseSKBPrio(strings.Fields(tc.args), tckind.ParseEnv{})
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

func TestPrintSKBPrio(t *testing.T) {
	k := tckind.LookupQdisc("skbprio")
	opts := attrs.DecodeTCOptionsMsg("skbprio", []byte{64, 0, 0, 0})
	if got, want := printWith(tcfmt.Options{}, func(p *tcfmt.Printer) { k.PrintOptions(p, opts) }), "limit 64 "; got != want {
		t.Errorf("text: got %q, want %q", got, want)
	}
	if got, want := printWith(tcfmt.Options{JSON: true}, func(p *tcfmt.Printer) { k.PrintOptions(p, opts) }), `{"limit":64}`+"\n"; got != want {
		t.Errorf("JSON: got %q, want %q", got, want)
	}
	// tc prints nothing of a payload shorter than the struct.
	short := attrs.DecodeTCOptionsMsg("skbprio", []byte{64})
	if got := printWith(tcfmt.Options{}, func(p *tcfmt.Printer) { k.PrintOptions(p, short) }); got != "" {
		t.Errorf("short: got %q", got)
	}
}
