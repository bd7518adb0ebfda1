// SPDX-License-Identifier: Apache-2.0

package apply

import (
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// place is where a value stands in the file, line and column from 1; zero
// for a value not read from a file (a File made in Go).
type place struct{ line, column int }

func placeOf(n *yaml.Node) place { return place{n.Line, n.Column} }

// Fault is one thing wrong in a file: where it is and what was expected.
type Fault struct {
	// Line and Column are where the fault stands, from 1. A YAML syntax
	// error names its line only (Column 0); both are 0 for a File made in
	// Go, which has no places.
	Line, Column int
	// Msg says what is wrong, in the file's words.
	Msg string
}

// BadFile is a file refused before anything is sent to the kernel, with
// every fault found in it, in the file's order.
type BadFile struct {
	// Name is the file's name, "" when the caller gave none.
	Name   string
	Faults []Fault
}

// Error gives one fault a line, each as NAME:LINE:COLUMN: MESSAGE (what
// is unknown left out), the form editors and compilers use.
func (e *BadFile) Error() string {
	lines := make([]string, len(e.Faults))
	for i, f := range e.Faults {
		lines[i] = f.Msg
		if where := f.where(e.Name); where != "" {
			lines[i] = where + ": " + f.Msg
		}
	}
	return strings.Join(lines, "\n")
}

// where is NAME:LINE:COLUMN, with what is unknown left out.
func (f Fault) where(name string) string {
	where := name
	if f.Line > 0 {
		if where != "" {
			where += ":"
		}
		where += fmt.Sprint(f.Line)
		if f.Column > 0 {
			where += fmt.Sprintf(":%d", f.Column)
		}
	}
	return where
}

// faults collects the faults of a file, so that one run reports them all
// rather than one per attempt.
type faults struct {
	list []Fault
}

func (fs *faults) add(at place, format string, args ...any) {
	fs.list = append(fs.list, Fault{Line: at.line, Column: at.column, Msg: fmt.Sprintf(format, args...)})
}

// err is the faults found as a *BadFile of the named file, in the file's
// order; nil when there are none.
func (fs *faults) err(name string) error {
	if len(fs.list) == 0 {
		return nil
	}
	slices.SortStableFunc(fs.list, func(a, b Fault) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Column - b.Column
	})
	return &BadFile{Name: name, Faults: fs.list}
}

// closest is the name of names nearest to word, for "did you mean": one
// within a third of word's length in edits (at least one), "" when none is.
func closest(word string, names []string) string {
	best, bestDist := "", max(1, len(word)/3)+1
	for _, n := range names {
		if d := editDistance(word, n); d < bestDist {
			best, bestDist = n, d
		}
	}
	return best
}

// editDistance counts the insertions, deletions, substitutions and swaps
// of neighbours that make a into b (optimal string alignment): a swap is
// the commonest slip of a typist ("hanlde").
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// suggest is the end of a message about an unknown name: the closest
// known one, or all of them.
func suggest(word string, names []string) string {
	if c := closest(word, names); c != "" {
		return fmt.Sprintf("did you mean %q?", c)
	}
	return "known: " + strings.Join(names, ", ")
}
