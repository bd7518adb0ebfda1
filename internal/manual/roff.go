// SPDX-License-Identifier: Apache-2.0

package manual

import (
	"fmt"
	"strings"
)

// Roff is the page in roff's man macros, as man(1) reads it: NAME,
// SYNOPSIS (the usage), DESCRIPTION, OPTIONS, EXAMPLES, EXIT STATUS and
// SEE ALSO, those the page has. date and source go on the title line
// ("2026-12-04", "gotc 0.2.0").
func (p *Page) Roff(date, source string) string {
	var b strings.Builder
	manual := "System Manager's Manual"
	if p.Section == "5" {
		manual = "File Formats Manual"
	}
	fmt.Fprintf(&b, ".TH %s %s %s %s %s\n", quoteArg(strings.ToUpper(p.Name)), p.Section, quoteArg(date), quoteArg(source), quoteArg(manual))
	fmt.Fprintf(&b, ".SH NAME\n%s \\- %s\n", literal(p.Name), text(p.Summary))
	if p.Usage != "" {
		b.WriteString(".SH SYNOPSIS\n.nf\n")
		for _, line := range synopsis(p.Usage) {
			b.WriteString(literal(line) + "\n")
		}
		b.WriteString(".fi\n")
	}
	if p.Description != "" {
		b.WriteString(".SH DESCRIPTION\n")
		b.WriteString(docRoff(p.Description))
	}
	if p.Options != "" {
		b.WriteString(".SH OPTIONS\n")
		for _, o := range options(p.Options) {
			fmt.Fprintf(&b, ".TP\n.B %s\n%s\n", literal(o[0]), text(o[1]))
		}
	}
	if p.Example != "" {
		b.WriteString(".SH EXAMPLES\n.nf\n.RS 4\n")
		for _, line := range strings.Split(strings.TrimSuffix(p.Example, "\n"), "\n") {
			b.WriteString(literal(line) + "\n")
		}
		b.WriteString(".RE\n.fi\n")
	}
	if p.ExitStatus != "" {
		b.WriteString(".SH EXIT STATUS\n" + text(p.ExitStatus) + "\n")
	}
	if len(p.SeeAlso) > 0 {
		b.WriteString(".SH SEE ALSO\n")
		for i, ref := range p.SeeAlso {
			name, section, _ := strings.Cut(strings.TrimSuffix(ref, ")"), "(")
			sep := ","
			if i == len(p.SeeAlso)-1 {
				sep = ""
			}
			fmt.Fprintf(&b, ".BR %s (%s)%s\n", literal(name), section, sep)
		}
	}
	return b.String()
}

// synopsis is the usage without its "Usage:", its lines lined up as help
// prints them (tabs at every eighth column) less their common indent.
func synopsis(usage string) []string {
	usage = strings.Replace(usage, "Usage:", "      ", 1)
	lines := strings.Split(strings.TrimSuffix(usage, "\n"), "\n")
	indent := -1
	for i, line := range lines {
		var b strings.Builder
		for _, r := range line {
			if r == '\t' {
				b.WriteString(strings.Repeat(" ", 8-b.Len()%8))
				continue
			}
			b.WriteRune(r)
		}
		lines[i] = strings.TrimRight(b.String(), " ")
		if n := len(lines[i]) - len(strings.TrimLeft(lines[i], " ")); indent < 0 || n < indent {
			indent = n
		}
	}
	for i := range lines {
		lines[i] = lines[i][indent:]
	}
	return lines
}

// options splits help's option lines into terms and their texts: a line
// indented by two spaces starts a term, which ends at the first run of
// two spaces; a line indented further goes on with the text before it.
func options(s string) [][2]string {
	var out [][2]string
	for _, line := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		body := strings.TrimLeft(line, " ")
		if len(line)-len(body) > 2 && len(out) > 0 {
			out[len(out)-1][1] = strings.TrimSpace(out[len(out)-1][1] + " " + body)
			continue
		}
		term, desc, _ := strings.Cut(body, "  ")
		out = append(out, [2]string{term, strings.TrimSpace(desc)})
	}
	return out
}

// docRoff renders text in Go's doc-comment syntax: paragraphs, blocks of
// code indented by a tab, "- " lists (an item going on on lines indented
// by two spaces) and "# " headings.
func docRoff(doc string) string {
	var b strings.Builder
	lines := strings.Split(strings.TrimSuffix(doc, "\n"), "\n")
	for i := 0; i < len(lines); {
		line := lines[i]
		switch {
		case strings.TrimSpace(line) == "":
			i++
		case strings.HasPrefix(line, "\t"):
			b.WriteString(".PP\n.RS 4\n.nf\n")
			for ; i < len(lines) && (strings.HasPrefix(lines[i], "\t") || strings.TrimSpace(lines[i]) == "" && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "\t")); i++ {
				b.WriteString(literal(strings.ReplaceAll(strings.TrimPrefix(lines[i], "\t"), "\t", "        ")) + "\n")
			}
			b.WriteString(".fi\n.RE\n")
		case strings.HasPrefix(line, "# "):
			b.WriteString(".SS " + text(strings.TrimPrefix(line, "# ")) + "\n")
			i++
		case strings.HasPrefix(line, "- "):
			for i < len(lines) && strings.HasPrefix(lines[i], "- ") {
				item := []string{strings.TrimPrefix(lines[i], "- ")}
				for i++; i < len(lines) && strings.HasPrefix(lines[i], "  "); i++ {
					item = append(item, strings.TrimSpace(lines[i]))
				}
				b.WriteString(".IP \\(bu 2\n" + text(strings.Join(item, "\n")) + "\n")
			}
		default:
			var para []string
			for ; i < len(lines) && strings.TrimSpace(lines[i]) != "" && !strings.HasPrefix(lines[i], "\t") && !strings.HasPrefix(lines[i], "- "); i++ {
				para = append(para, lines[i])
			}
			b.WriteString(".PP\n" + text(strings.Join(para, "\n")) + "\n")
		}
	}
	return b.String()
}

// text escapes prose for roff: backslashes, a control character at the
// start of a line, and the hyphen that starts an option (-s, --check),
// which must stay a minus sign to be typed as one.
func text(s string) string {
	lines := strings.Split(s, "\n")
	for i, line := range lines {
		line = strings.ReplaceAll(line, `\`, `\e`)
		var b strings.Builder
		for j := 0; j < len(line); j++ {
			if line[j] == '-' && (j == 0 || strings.IndexByte(" (\"'-[|", line[j-1]) >= 0) {
				b.WriteString(`\-`)
				continue
			}
			b.WriteByte(line[j])
		}
		lines[i] = controlSafe(b.String())
	}
	return strings.Join(lines, "\n")
}

// literal escapes text shown as typed (commands, code): every hyphen is a
// minus sign.
func literal(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	return controlSafe(strings.ReplaceAll(s, "-", `\-`))
}

// controlSafe keeps a line that starts with roff's control characters
// from being read as a request.
func controlSafe(line string) string {
	if strings.HasPrefix(line, ".") || strings.HasPrefix(line, "'") {
		return `\&` + line
	}
	return line
}

// quoteArg is a macro argument, quoted when it holds spaces.
func quoteArg(s string) string {
	if strings.ContainsAny(s, " \t") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}
