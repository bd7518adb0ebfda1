// SPDX-License-Identifier: Apache-2.0

package allkinds_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// kindRegistrations are the calls by which a file registers a kind:
// tckind's for qdiscs, filters and actions, package ematch's own for
// its extended matches.
var kindRegistrations = []string{"MustRegisterQdisc", "MustRegisterFilter", "MustRegisterAction", "registerEmatch"}

// TestNoKindUsesAnotherKindsFile: a kind's file holds what is about that
// kind, so no kind's file uses a name another kind's file declares. What
// several kinds share lives in a file of the family that registers no kind
// (codelwords.go, filterargs.go, actionargs.go, ...), in internal/tcword,
// or in tckind.
func TestNoKindUsesAnotherKindsFile(t *testing.T) {
	kindFiles := 0
	for _, family := range []string{"qdisc", "filter", "action", "ematch"} {
		paths, err := filepath.Glob(filepath.Join("..", family, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		files := map[string]*ast.File{}
		declaredIn := map[string]string{} // top-level name -> file
		registers := map[string]bool{}    // file -> registers a kind
		for _, path := range paths {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			name := family + "/" + filepath.Base(path)
			files[name] = f
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if d.Recv == nil && d.Name.Name != "init" {
						declaredIn[d.Name.Name] = name
					}
					if d.Name.Name == "init" && d.Recv == nil {
						ast.Inspect(d, func(n ast.Node) bool {
							call, ok := n.(*ast.CallExpr)
							if !ok {
								return true
							}
							fn := call.Fun
							if sel, ok := fn.(*ast.SelectorExpr); ok {
								fn = sel.Sel
							}
							if id, ok := fn.(*ast.Ident); ok && slices.Contains(kindRegistrations, id.Name) {
								registers[name] = true
							}
							return true
						})
					}
				case *ast.GenDecl:
					for _, s := range d.Specs {
						switch s := s.(type) {
						case *ast.TypeSpec:
							declaredIn[s.Name.Name] = name
						case *ast.ValueSpec:
							for _, n := range s.Names {
								declaredIn[n.Name] = name
							}
						}
					}
				}
			}
		}
		for name, f := range files {
			if !registers[name] {
				continue
			}
			kindFiles++
			// The parser resolves what a file declares itself; the names
			// it leaves unresolved come from the package's other files
			// (or are Go's own, which no file declares).
			reported := map[string]bool{}
			for _, id := range f.Unresolved {
				from, ok := declaredIn[id.Name]
				if !ok || from == name || !registers[from] || reported[id.Name] {
					continue
				}
				reported[id.Name] = true
				t.Errorf("%s: uses %s, which %s declares: move what kinds share to a file of the family that registers no kind, internal/tcword or tckind", fset.Position(id.Pos()), id.Name, from)
			}
		}
	}
	if kindFiles < 60 {
		t.Fatalf("found %d kind files: the walk missed the families", kindFiles)
	}
	t.Logf("checked %d kind files", kindFiles)
}
