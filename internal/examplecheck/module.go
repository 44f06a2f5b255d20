package examplecheck

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ModuleRoot returns the absolute path of the module root, for a test
// running in out (its package's folder, relative to the root).
func ModuleRoot(t *testing.T, out string) string {
	t.Helper()
	depth := len(strings.Split(filepath.ToSlash(filepath.Clean(out)), "/"))
	root, err := filepath.Abs(strings.Repeat("../", depth))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// Go runs the go command in dir, outside any workspace (GOWORK=off), and
// returns its combined output.
func Go(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	return cmd.CombinedOutput()
}

// GoaCLI builds the goa CLI at the version the go.mod of the module at root
// requires, and returns its path. It skips the test when go is not on PATH
// or the CLI cannot be built (no module proxy).
func GoaCLI(t *testing.T, root string) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	goa := filepath.Join(t.TempDir(), "goa")
	// Built in a directory of the module, so that go.mod chooses the version.
	if out, err := Go(root, "build", "-o", goa, "goa.design/goa/v3/cmd/goa"); err != nil {
		t.Skipf("cannot build the goa CLI (no module proxy?): %v\n%s", err, out)
	}
	return goa
}

// GoaGen runs goa (GoaCLI's) gen on design (an import path) with -o out
// (relative to the module root) in the module at dir, usually a copy
// (CopyModule): goa gen writes import paths derived from its output
// directory and may edit go.mod.
func GoaGen(t *testing.T, goa, dir, design, out string) {
	t.Helper()
	gen := exec.Command(goa, "gen", design, "-o", out)
	gen.Dir = dir // goa gen builds its generator program in a directory of the module
	gen.Env = append(os.Environ(), "GOWORK=off")
	if b, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("goa gen %s: %v\n%s", design, err, b)
	}
}

// CopyModule copies the module at root into a temporary directory removed
// when the test ends, and returns the copy's path. It leaves out .git,
// anything that is not a regular file or a directory, and the paths in
// skip (slash-separated, relative to root: a file, or a folder with
// everything under it).
func CopyModule(t *testing.T, root string, skip ...string) string {
	t.Helper()
	dst := t.TempDir()
	skipped := map[string]bool{".git": true}
	for _, s := range skip {
		skipped[filepath.ToSlash(filepath.Clean(s))] = true
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if skipped[rel] {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		target := filepath.Join(dst, filepath.FromSlash(rel))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatalf("copy the module: %v", err)
	}
	return dst
}
