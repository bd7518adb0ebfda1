// SPDX-License-Identifier: Apache-2.0

package qdisc

import (
	"errors"
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// TestPrintPfifoFast prints what the kernel dumps for pfifo_fast: the bare
// struct tc_prio_qopt with the default priomap.
func TestPrintPfifoFast(t *testing.T) {
	raw := []byte{3, 0, 0, 0, 1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1}
	opts := attrs.DecodeTCOptionsMsg("pfifo_fast", raw)
	print := func(p *tcfmt.Printer) { tckind.LookupQdisc("pfifo_fast").PrintOptions(p, opts) }
	if got, want := printWith(tcfmt.Options{}, print), "bands 3 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1"; got != want {
		t.Errorf("text\n got %q\nwant %q", got, want)
	}
	want := `{"bands":3,"priomap":[1,2,2,2,1,2,0,0,1,1,1,1,1,1,1,1],"multiqueue":false}` + "\n"
	if got := printWith(tcfmt.Options{JSON: true}, print); got != want {
		t.Errorf("JSON\n got %q\nwant %q", got, want)
	}
	// Too short for the struct: tc's printer gives up silently.
	short := attrs.DecodeTCOptionsMsg("pfifo_fast", raw[:19])
	if got := printWith(tcfmt.Options{}, func(p *tcfmt.Printer) { tckind.LookupQdisc("pfifo_fast").PrintOptions(p, short) }); got != "" {
		t.Errorf("short options printed %q", got)
	}
}

// TestOptionlessKinds: tc has a pfifo_fast module without a parser, which
// refuses every option, and no noqueue module at all, so the command line
// refuses noqueue's options with its generic message.
func TestOptionlessKinds(t *testing.T) {
	pf := tckind.LookupQdisc("pfifo_fast")
	if opts, err := pf.ParseQdisc(nil, tckind.ParseEnv{}); opts != nil || err != nil {
		t.Errorf("pfifo_fast without options: %v, %v", opts, err)
	}
	for _, args := range [][]string{{"bands", "3"}, {"help"}} {
		_, err := pf.ParseQdisc(args, tckind.ParseEnv{})
		var pe *tcword.ParseError
		if !errors.As(err, &pe) || pe.Msg != "qdisc 'pfifo_fast' does not support option parsing" || pe.ExitCode() != 255 || pe.ShowUsage {
			t.Errorf("pfifo_fast %q: got %v", args, err)
		}
	}
	if k := tckind.LookupQdisc("noqueue"); k == nil || k.ParseQdisc != nil {
		t.Errorf("noqueue: want a kind without a parser, got %+v", k)
	}
	print := func(opts attrs.TCOptionsMsg) string {
		return printWith(tcfmt.Options{}, func(p *tcfmt.Printer) { tckind.LookupQdisc("noqueue").PrintOptions(p, opts) })
	}
	if got := print(attrs.TCOptionsMsgRaw{}); got != "" {
		t.Errorf("noqueue, empty options: %q", got)
	}
	if got, want := print(attrs.TCOptionsMsgRaw{1, 2, 3, 4}), "[Unknown qdisc, optlen=4] "; got != want {
		t.Errorf("noqueue options: got %q, want %q", got, want)
	}
}

func TestIngressClsact(t *testing.T) {
	for _, tc := range []struct {
		kind, args, msg string
		code            int
	}{
		{"ingress", "", "", 0},
		{"ingress", "handle ffff:", "", 0},
		{"ingress", "handle anything handle 1:", "", 0},
		{"ingress", "handle", `Command line is not complete. Try option "help"`, 255},
		{"ingress", "foorbar", `What is "foorbar"?`, 1},
		{"ingress", "help", `What is "help"?`, 1},
		{"clsact", "", "", 0},
		{"clsact", "handle ffff:", `What is "handle"?`, 1},
	} {
		opts, err := tckind.LookupQdisc(tc.kind).ParseQdisc(strings.Fields(tc.args), tckind.ParseEnv{})
		if tc.code == 0 {
			if err != nil || opts != nil {
				t.Errorf("%s %q: got %v, %v; want no options", tc.kind, tc.args, opts, err)
			}
			continue
		}
		var pe *tcword.ParseError
		if !errors.As(err, &pe) || pe.Msg != tc.msg || pe.ExitCode() != tc.code {
			t.Errorf("%s %q: got %v, want %q (exit %d)", tc.kind, tc.args, err, tc.msg, tc.code)
		}
	}
	// The kernel dumps an empty nest for both; tc prints dashes for ingress.
	for kind, want := range map[string]string{"ingress": "---------------- ", "clsact": ""} {
		print := func(p *tcfmt.Printer) {
			if k := tckind.LookupQdisc(kind); k.PrintOptions != nil {
				k.PrintOptions(p, attrs.DecodeTCOptionsMsg(kind, nil))
			}
		}
		if got := printWith(tcfmt.Options{}, print); got != want {
			t.Errorf("%s: text %q, want %q", kind, got, want)
		}
		if got := printWith(tcfmt.Options{JSON: true}, print); got != "{}\n" {
			t.Errorf("%s: JSON %q", kind, got)
		}
	}
}
