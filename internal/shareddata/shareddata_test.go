package shareddata

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeTB records Skipf and Fatalf instead of stopping the goroutine.
type fakeTB struct {
	testing.TB
	skipped, fatal string
}

func (f *fakeTB) Helper()                       {}
func (f *fakeTB) Skipf(format string, a ...any) { f.skipped = fmt.Sprintf(format, a...) }
func (f *fakeTB) Fatalf(format string, a ...any) {
	f.fatal = fmt.Sprintf(format, a...)
}

// tree lays out <tmp>/repo (module modPath) with <tmp>/repo/a/b, and
// <tmp>/shared/data when withData. It returns tmp.
func tree(t *testing.T, modPath string, withData bool) string {
	t.Helper()
	tmp := t.TempDir()
	mustMkdir(t, filepath.Join(tmp, "repo", "a", "b"))
	mustWrite(t, filepath.Join(tmp, "repo", "go.mod"), "// comment\nmodule "+modPath+" // trailing\n\ngo 1.26\n")
	if withData {
		mustMkdir(t, filepath.Join(tmp, "shared", "data"))
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

func TestDirFromEnv(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvVar, dir)
	got, err := Dir()
	if err != nil || got != dir {
		t.Fatalf("Dir() = %q, %v; want %q", got, err, dir)
	}
}

func TestDirFromEnvMissing(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	t.Setenv(EnvVar, missing)
	if _, err := Dir(); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), missing) {
		t.Fatalf("Dir() error = %v; want ErrNotFound naming %s", err, missing)
	}
	var tb fakeTB
	if got := Require(&tb); got != "" || tb.fatal == "" || tb.skipped != "" {
		t.Fatalf("Require = %q, fatal %q, skipped %q; want a failure for a wrong %s", got, tb.fatal, tb.skipped, EnvVar)
	}
}

func TestDirFromModuleRoot(t *testing.T) {
	t.Setenv(EnvVar, "")
	tmp := tree(t, ModulePath, true)
	// A nested module of another path must be walked past.
	mustWrite(t, filepath.Join(tmp, "repo", "a", "go.mod"), "module example.com/other\n")
	t.Chdir(filepath.Join(tmp, "repo", "a", "b"))
	got, err := Dir()
	want := filepath.Join(tmp, "shared", "data")
	if err != nil || !sameDir(t, got, want) {
		t.Fatalf("Dir() = %q, %v; want %q", got, err, want)
	}
	var tb fakeTB
	if got := Require(&tb); !sameDir(t, got, want) || tb.skipped != "" || tb.fatal != "" {
		t.Fatalf("Require = %q (skipped %q, fatal %q); want %q", got, tb.skipped, tb.fatal, want)
	}
}

func TestDirAbsentSkips(t *testing.T) {
	t.Setenv(EnvVar, "")
	tmp := tree(t, ModulePath, false)
	t.Chdir(filepath.Join(tmp, "repo", "a"))
	if _, err := Dir(); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Dir() error = %v; want ErrNotFound", err)
	}
	var tb fakeTB
	Require(&tb)
	if tb.fatal != "" || !strings.Contains(tb.skipped, filepath.Join("shared", "data")) || !strings.Contains(tb.skipped, EnvVar) {
		t.Fatalf("Require skipped %q, fatal %q; want a skip naming the path and %s", tb.skipped, tb.fatal, EnvVar)
	}
}

func TestDirNoModuleRoot(t *testing.T) {
	t.Setenv(EnvVar, "")
	tmp := tree(t, "example.com/not-quiver", true)
	t.Chdir(filepath.Join(tmp, "repo"))
	if _, err := Dir(); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), ModulePath) {
		t.Fatalf("Dir() error = %v; want ErrNotFound naming %s", err, ModulePath)
	}
	var tb fakeTB
	Require(&tb)
	if tb.skipped == "" || tb.fatal != "" {
		t.Fatalf("Require skipped %q, fatal %q; want a skip", tb.skipped, tb.fatal)
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
