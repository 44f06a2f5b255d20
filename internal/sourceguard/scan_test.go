package sourceguard

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// sourceFile is one Go file of the module, its path relative to the
// module root (slash-separated).
type sourceFile struct {
	Path string
	Text string
}

// IsTest reports whether the file is a _test.go file.
func (f sourceFile) IsTest() bool { return strings.HasSuffix(f.Path, "_test.go") }

// IsGenerated reports whether the file says it is generated.
func (f sourceFile) IsGenerated() bool {
	return strings.Contains(f.Text, "Code generated") && strings.Contains(f.Text, "DO NOT EDIT")
}

// moduleFiles reads every Go file of the module (testdata and hidden
// folders left out). It fails the test when it finds too few to be the
// module.
func moduleFiles(t *testing.T) []sourceFile {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found from %s: %v", root, err)
	}
	var files []sourceFile
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		files = append(files, sourceFile{Path: filepath.ToSlash(rel), Text: string(b)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 100 {
		t.Fatalf("read %d Go files under %s: too few to be the module", len(files), root)
	}
	return files
}

// productFiles are the module's hand-written non-test files.
func productFiles(t *testing.T) []sourceFile {
	var out []sourceFile
	for _, f := range moduleFiles(t) {
		if !f.IsTest() && !f.IsGenerated() {
			out = append(out, f)
		}
	}
	return out
}

// handWritten are the module's hand-written files, tests included.
func handWritten(t *testing.T) []sourceFile {
	var out []sourceFile
	for _, f := range moduleFiles(t) {
		if !f.IsGenerated() {
			out = append(out, f)
		}
	}
	return out
}

// where lists the files (with match counts) in which re matches.
func where(files []sourceFile, re *regexp.Regexp) map[string]int {
	out := map[string]int{}
	for _, f := range files {
		if n := len(re.FindAllStringIndex(f.Text, -1)); n > 0 {
			out[f.Path] = n
		}
	}
	return out
}

// total is the sum of a where answer.
func total(m map[string]int) int {
	n := 0
	for _, c := range m {
		n += c
	}
	return n
}

// TestScanSeesTheModule keeps the helpers honest: a pattern known to occur
// is found.
func TestScanSeesTheModule(t *testing.T) {
	got := where(productFiles(t), regexp.MustCompile(`(?m)^package tools$`))
	if got["tools/ident.go"] != 1 {
		t.Fatalf("the scan did not find package tools in tools/ident.go: %v", got)
	}
}
