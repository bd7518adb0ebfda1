// SPDX-License-Identifier: Apache-2.0

package allkinds_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gotc/gotc/tckind"
)

// tcWords are the comparisons with a kind's name outside the kinds that
// are tc's grammar, not a kind's logic: the words that name a qdisc's
// place ("ingress", "clsact" after dev), by file and function.
var tcWords = map[string]string{
	"tcline/qdisc.go:readTarget": `"ingress" and "clsact" name the parent and handle, as tc's qdisc grammar reads them`,
}

// TestNoKindNamesOutsideKinds: what is about one kind lives in the kind's
// file and is found through the registry, so no package outside the
// kinds compares a kind's name (a switch on "htb", an if on "u32"). The
// packages of the kinds themselves, the generated attributes (whose
// decoder chooses a kind's attribute set by name), the models (of two
// kinds by definition) and the test bed are not looked at.
func TestNoKindNamesOutsideKinds(t *testing.T) {
	names := map[string]bool{}
	for _, k := range tckind.Qdiscs() {
		names[k.Name] = true
	}
	for _, k := range tckind.Filters() {
		names[k.Name] = true
	}
	for _, k := range tckind.Actions() {
		names[k.Name] = true
	}
	skip := map[string]bool{"qdisc": true, "filter": true, "action": true, "ematch": true, "tckind": true, "allkinds": true,
		"attrs": true, "codegen": true, "model": true, "selftests": true, "traffic": true, "testdata": true, "specs": true}
	seen := 0
	allowed := map[string]bool{} // the tcWords entries the walk met
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("..", path)
		if d.IsDir() {
			if rel != "." && (skip[strings.Split(rel, string(filepath.Separator))[0]] || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		seen++
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			where := filepath.ToSlash(rel) + ":" + fn.Name.Name
			ast.Inspect(fn, func(n ast.Node) bool {
				var lits []ast.Expr
				switch n := n.(type) {
				case *ast.BinaryExpr:
					if n.Op == token.EQL || n.Op == token.NEQ {
						lits = []ast.Expr{n.X, n.Y}
					}
				case *ast.CaseClause:
					lits = n.List
				}
				for _, e := range lits {
					lit, ok := e.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					s, _ := strconv.Unquote(lit.Value)
					if names[s] && tcWords[where] != "" {
						allowed[where] = true
					} else if names[s] {
						t.Errorf("%s: %s compares the kind name %q: give the kind a part in its registration instead", fset.Position(lit.Pos()), fn.Name.Name, s)
					}
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 50 {
		t.Fatalf("looked at %d files: the walk missed the tree", seen)
	}
	for where := range tcWords {
		if !allowed[where] {
			t.Errorf("tcWords lists %s, which compares no kind name any more: take it off", where)
		}
	}
}
