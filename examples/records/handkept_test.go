package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/dsl/dsltest"
	"github.com/quiver-go/quiver/examples/records/design"
)

// TestNoHandKeptToolLists fails if hand-written code of the example keeps a
// list of the design's tool names — a deferred set, a confirmation set, an
// exposure tier — instead of deriving it from the design (seed 004: two
// hand-kept lists of the same tools eventually disagree, and the
// disagreement shows up at a security boundary). The design itself is the
// one place tools are named; generated code derives from it.
func TestNoHandKeptToolLists(t *testing.T) {
	root, err := dsltest.Run(design.Design)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, ts := range root.Toolsets {
		for _, tool := range ts.Tools {
			names[tool.Name] = true
			names[string(tool.Ident())] = true
		}
	}
	fset := token.NewFileSet()
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (path == "gen" || path == "design") {
			return filepath.SkipDir // generated code, and the design that names each tool once
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			var elts []ast.Expr
			switch n := n.(type) {
			case *ast.CompositeLit:
				elts = n.Elts
			case *ast.CallExpr:
				elts = n.Args
			default:
				return true
			}
			count := 0
			for _, e := range elts {
				if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, err := strconv.Unquote(lit.Value); err == nil && names[s] {
						count++
					}
				}
			}
			if count >= 2 {
				t.Errorf("%s: a hand-kept list of %d tool names: derive it from the design (the evaluated expressions or the generated packages)", fset.Position(n.Pos()), count)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
