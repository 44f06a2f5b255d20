package benchdata

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tree lays out <tmp>/repo (module modPath) with <tmp>/repo/a/b, and
// <tmp>/repo/bench/data when withData. It returns tmp.
func tree(t *testing.T, modPath string, withData bool) string {
	t.Helper()
	tmp := t.TempDir()
	mustMkdir(t, filepath.Join(tmp, "repo", "a", "b"))
	mustWrite(t, filepath.Join(tmp, "repo", "go.mod"), "// comment\nmodule "+modPath+" // trailing\n\ngo 1.26\n")
	if withData {
		mustMkdir(t, filepath.Join(tmp, "repo", "bench", "data"))
	}
	return tmp
}

func mustMkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func mustWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDirFromNestedModule finds the data from inside the benchmark module,
// whose own go.mod must be walked past.
func TestDirFromNestedModule(t *testing.T) {
	tmp := tree(t, ModulePath, true)
	mustWrite(t, filepath.Join(tmp, "repo", "bench", "go.mod"), "module "+ModulePath+"/bench\n")
	mustMkdir(t, filepath.Join(tmp, "repo", "bench", "search"))
	t.Chdir(filepath.Join(tmp, "repo", "bench", "search"))
	got, err := Dir()
	want := filepath.Join(tmp, "repo", "bench", "data")
	if err != nil || !sameDir(t, got, want) {
		t.Fatalf("Dir() = %q, %v; want %q", got, err, want)
	}
}

func TestDirAbsent(t *testing.T) {
	tmp := tree(t, ModulePath, false)
	t.Chdir(filepath.Join(tmp, "repo", "a"))
	_, err := Dir()
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), filepath.Join("bench", "data")) {
		t.Fatalf("Dir() error = %v; want ErrNotFound naming bench/data", err)
	}
}

// fakeTB records Skipf and Fatalf instead of stopping the goroutine.
type fakeTB struct {
	testing.TB
	skipped, fatal string
}

func (f *fakeTB) Helper()                        {}
func (f *fakeTB) Skipf(format string, a ...any)  { f.skipped = fmt.Sprintf(format, a...) }
func (f *fakeTB) Fatalf(format string, a ...any) { f.fatal = fmt.Sprintf(format, a...) }

// TestRequireFailsInACheckout: the data is part of every clone, so a test
// that needs it fails, naming the folder, rather than skipping.
func TestRequireFailsInACheckout(t *testing.T) {
	tmp := tree(t, ModulePath, false)
	t.Chdir(filepath.Join(tmp, "repo", "a"))
	var tb fakeTB
	if got := Require(&tb); got != "" || tb.skipped != "" || !strings.Contains(tb.fatal, RelDir) {
		t.Fatalf("Require = %q, skipped %q, fatal %q; want a failure naming %s", got, tb.skipped, tb.fatal, RelDir)
	}
}

// TestRequireSkipsInAModuleDownload: the root module's download does not
// hold bench/data, so its tests skip there (go test all in an application).
func TestRequireSkipsInAModuleDownload(t *testing.T) {
	tmp := t.TempDir()
	root := filepath.Join(tmp, "quiver@v1.2.3")
	mustMkdir(t, filepath.Join(root, "search"))
	mustWrite(t, filepath.Join(root, "go.mod"), "module "+ModulePath+"\n")
	t.Chdir(filepath.Join(root, "search"))
	var tb fakeTB
	if got := Require(&tb); got != "" || tb.fatal != "" || !strings.Contains(tb.skipped, "module download") {
		t.Fatalf("Require = %q, skipped %q, fatal %q; want a skip for a module download", got, tb.skipped, tb.fatal)
	}
}

func TestDirNoModuleRoot(t *testing.T) {
	tmp := tree(t, "example.com/not-quiver", true)
	t.Chdir(filepath.Join(tmp, "repo"))
	if _, err := Dir(); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), ModulePath) {
		t.Fatalf("Dir() error = %v; want ErrNotFound naming %s", err, ModulePath)
	}
}

func TestModulePathOf(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ content, want string }{
		{"module github.com/quiver-go/quiver\n", ModulePath},
		{"module \"github.com/quiver-go/quiver\"\n", ModulePath},
		{"// module example.com/x\nmodule\tgithub.com/quiver-go/quiver // c\n", ModulePath},
		{"modulex example.com/x\n", ""},
		{"go 1.26\n", ""},
	} {
		p := filepath.Join(dir, "go.mod")
		mustWrite(t, p, c.content)
		if got, err := modulePathOf(p); err != nil || got != c.want {
			t.Errorf("modulePathOf(%q) = %q, %v; want %q", c.content, got, err, c.want)
		}
	}
	if got, err := modulePathOf(filepath.Join(dir, "missing", "go.mod")); err != nil || got != "" {
		t.Errorf("missing go.mod: %q, %v; want \"\", nil", got, err)
	}
}

// sameDir compares directories after resolving symlinks (t.TempDir may sit
// under a symlinked path).
func sameDir(t *testing.T, a, b string) bool {
	t.Helper()
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}
