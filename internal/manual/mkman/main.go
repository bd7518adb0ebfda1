// SPDX-License-Identifier: Apache-2.0

// Command mkman writes gotc's man pages, from the pages of package manual
// (the source of the commands' help too):
//
//	go run ./internal/manual/mkman -o DIR [-root DIR] [-date YYYY-MM-DD] [-source "gotc VERSION"]
//
// writes DIR/man8/gotc.8, DIR/man8/gotc-apply.8, DIR/man5/gotc-apply.5 and
// the others, DIR laid out as /usr/share/man (MANPATH finds them there). A
// page whose description is a package's documentation (gotc-apply(5) is
// package apply's) reads it from the source under -root, the module's
// root (the working directory by default). The packaging script runs it.
package main

import (
	"flag"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gotc/gotc/internal/manual"
)

func main() {
	out := flag.String("o", ".", "directory to write the pages to, in manN/ folders")
	root := flag.String("root", ".", "the module's root, for the pages that are a package's documentation")
	date := flag.String("date", time.Now().UTC().Format("2006-01-02"), "the date on the pages' title lines")
	source := flag.String("source", "gotc", "the source on the pages' title lines, with its version")
	flag.Parse()
	if err := write(*out, *root, *date, *source); err != nil {
		fmt.Fprintf(os.Stderr, "mkman: %v\n", err)
		os.Exit(1)
	}
}

// write renders every page into dir's manN folders.
func write(dir, root, date, source string) error {
	for _, p := range manual.Pages {
		page, err := resolve(p, root)
		if err != nil {
			return err
		}
		section := filepath.Join(dir, "man"+page.Section)
		if err := os.MkdirAll(section, 0o755); err != nil {
			return err
		}
		name := filepath.Join(section, page.Name+"."+page.Section)
		if err := os.WriteFile(name, []byte(page.Roff(date, source)), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// resolve returns p with its description, read from the package's doc
// comment when DocOf names one.
func resolve(p *manual.Page, root string) (*manual.Page, error) {
	if p.DocOf == "" {
		return p, nil
	}
	doc, err := packageDoc(filepath.Join(root, p.DocOf))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.Ref(), err)
	}
	cp := *p
	cp.Description = doc
	return &cp, nil
}

// packageDoc is the doc comment of the package in dir, less its first
// paragraph, which speaks of "Package NAME" to Go programmers and which
// the man page's NAME line says to the reader.
func packageDoc(dir string) (string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return "", err
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			return "", err
		}
		if f.Doc != nil {
			doc := f.Doc.Text()
			if strings.HasPrefix(doc, "Package ") {
				_, doc, _ = strings.Cut(doc, "\n\n")
			}
			return doc, nil
		}
	}
	return "", fmt.Errorf("no package documentation in %s", dir)
}
