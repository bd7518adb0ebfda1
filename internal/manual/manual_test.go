// SPDX-License-Identifier: Apache-2.0

package manual

import (
	"strings"
	"testing"
)

// TestPages: the pages the package promises, each whole: a page of its
// own has a usage, options, an example, a description and its exit
// status; its help fits 80 columns; every option has a text; and every
// gotc page it refers to exists.
func TestPages(t *testing.T) {
	have := map[string]bool{}
	for _, p := range Pages {
		if have[p.Ref()] {
			t.Errorf("%s twice", p.Ref())
		}
		have[p.Ref()] = true
	}
	for _, want := range []string{"gotc(8)", "gotc-apply(8)", "gotc-stats(8)", "gotc-model(8)", "gotc-exporter(8)", "gotc-apply(5)", "gotc-traffic(8)", "gotc-bpf(8)"} {
		if !have[want] {
			t.Errorf("no page %s", want)
		}
	}
	for _, p := range Pages {
		if p.Summary == "" || (p.Section != "5" && p.Section != "8") {
			t.Errorf("%s: summary %q, section %q", p.Ref(), p.Summary, p.Section)
		}
		for _, ref := range p.SeeAlso {
			if strings.HasPrefix(ref, "gotc") && !have[ref] {
				t.Errorf("%s refers to %s, which is no page", p.Ref(), ref)
			}
		}
		if p.DocOf != "" {
			continue
		}
		if !strings.HasPrefix(p.Usage, "Usage:") || p.Options == "" || p.Example == "" || p.Description == "" || p.ExitStatus == "" {
			t.Errorf("%s: a part is missing: usage %t, options %t, example %t, description %t, exit status %t",
				p.Ref(), p.Usage != "", p.Options != "", p.Example != "", p.Description != "", p.ExitStatus != "")
		}
		for _, line := range strings.Split(strings.ReplaceAll(p.Help(), "\t", "        "), "\n") {
			if len(line) > 80 {
				t.Errorf("%s: help line of %d columns: %q", p.Ref(), len(line), line)
			}
		}
		for _, o := range options(p.Options) {
			if o[1] == "" {
				t.Errorf("%s: option %q has no text (two spaces end a term)", p.Ref(), o[0])
			}
		}
	}
}

// TestHelp: help is the usage, what the command is, its options, an
// example indented under "Example:" and the page to read.
func TestHelp(t *testing.T) {
	p := Page{Name: "gotc-x", Section: "8", Usage: "Usage: gotc x [ y ]\n", About: "What x is.\n", Options: "  y  a y\n", Example: "gotc x y   # one\ngotc x"}
	want := "Usage: gotc x [ y ]\nWhat x is.\n  y  a y\nExample:\n  gotc x y   # one\n  gotc x\nMore in gotc-x(8).\n"
	if got := p.Help(); got != want {
		t.Errorf("help:\n%s\nwant:\n%s", got, want)
	}
}

func TestIsHelp(t *testing.T) {
	for word, want := range map[string]bool{"help": true, "-h": true, "-help": true, "--help": true, "h": false, "--h": false, "helpful": false, "": false} {
		if IsHelp(word) != want {
			t.Errorf("IsHelp(%q) = %v", word, !want)
		}
	}
}

// TestRoff: the parts of a page in man's macros, with roff's special
// characters escaped.
func TestRoff(t *testing.T) {
	p := Page{
		Name: "gotc-x", Section: "8", Summary: "do x",
		Usage:       "Usage:\tgotc x [ -v ] FILE\n\tgotc x --list\n",
		Options:     "  -v          say more\n  FILE        the file; a\n              backslash \\ kept\n",
		Example:     "gotc x -v f   # x it",
		Description: "Para one\n.starts a line.\n\n\tcode -x\n\n- item one\n  goes on\n- item two\n\n# Head\n\nLast --flag.",
		ExitStatus:  "0 always.",
		SeeAlso:     []string{"tc(8)", "gotc(8)"},
	}
	want := `.TH GOTC-X 8 2026-12-04 "gotc 1.0" "System Manager's Manual"
.SH NAME
gotc\-x \- do x
.SH SYNOPSIS
.nf
gotc x [ \-v ] FILE
gotc x \-\-list
.fi
.SH DESCRIPTION
.PP
Para one
\&.starts a line.
.PP
.RS 4
.nf
code \-x
.fi
.RE
.IP \(bu 2
item one
goes on
.IP \(bu 2
item two
.SS Head
.PP
Last \-\-flag.
.SH OPTIONS
.TP
.B \-v
say more
.TP
.B FILE
the file; a backslash \e kept
.SH EXAMPLES
.nf
.RS 4
gotc x \-v f   # x it
.RE
.fi
.SH EXIT STATUS
0 always.
.SH SEE ALSO
.BR tc (8),
.BR gotc (8)
`
	if got := p.Roff("2026-12-04", "gotc 1.0"); got != want {
		t.Errorf("roff:\n%s\nwant:\n%s", got, want)
	}
}
