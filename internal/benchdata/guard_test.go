package benchdata

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// peerModules are the module path prefixes of benchmark peers: they belong
// to the benchmark module (bench/go.mod), never to the root module, whose
// requirements every application importing Quiver inherits.
var peerModules = []string{"github.com/blevesearch/"}

// TestRootModuleNamesNoPeer checks that the root go.mod requires no
// benchmark peer (go mod tidy adds one back as soon as a root test imports
// it).
func TestRootModuleNamesNoPeer(t *testing.T) {
	root := rootDir(t)
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range peerModules {
		if strings.Contains(string(data), p) {
			t.Errorf("go.mod names %s…: benchmark peers live in bench/go.mod; move the test that imports it to bench/", p)
		}
	}
}

// TestNoProductImport checks that no non-test file of the root module
// imports this package or a benchmark peer.
func TestNoProductImport(t *testing.T) {
	root := rootDir(t)
	self := ModulePath + "/internal/benchdata"
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || isModule(path)) {
				return filepath.SkipDir // not the root module's source
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if p == self || hasPeerPrefix(p) {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s imports %s: only tests may", rel, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// rootDir returns the root module's directory.
func rootDir(t *testing.T) string {
	t.Helper()
	root, err := currentRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// isModule reports whether dir holds a go.mod (a nested module).
func isModule(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "go.mod"))
	return err == nil
}

// hasPeerPrefix reports whether importPath is in a benchmark peer's module.
func hasPeerPrefix(importPath string) bool {
	for _, p := range peerModules {
		if strings.HasPrefix(importPath, p) {
			return true
		}
	}
	return false
}
