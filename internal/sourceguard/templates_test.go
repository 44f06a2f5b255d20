package sourceguard

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// TestCodegenTemplatesLiveInFiles fails when a code-generation template
// is written as a Go string again: codegen's templates are the files in
// codegen/templates, embedded, so that each reads as the code it produces.
// Any string literal in codegen's non-test Go files holding a template
// action ("{{") is one.
func TestCodegenTemplatesLiveInFiles(t *testing.T) {
	checked := 0
	for _, f := range moduleFiles(t) {
		if !strings.HasPrefix(f.Path, "codegen/") || strings.Count(f.Path, "/") != 1 || f.IsTest() {
			continue
		}
		checked++
		file, err := parser.ParseFile(token.NewFileSet(), f.Path, f.Text, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && strings.Contains(lit.Value, "{{") {
				t.Errorf("%s: a template in a Go string (%.40s…): move it to codegen/templates/*.tpl and load it with templateText", f.Path, lit.Value)
			}
			return true
		})
	}
	if checked < 10 {
		t.Fatalf("checked %d codegen files: the guard no longer finds the package", checked)
	}
}
