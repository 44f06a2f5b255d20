package examplecheck

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// GeneratedCurrent runs goa gen on design (an import path) into a copy of the
// module, with -o out (the example's folder, relative to the module root),
// compares every generated file with the committed one under out/gen (and
// at the root of the output, such as AGENTS_QUICKSTART.md), then builds and
// vets the committed output (which the comparison has just shown to be
// what goa gen writes). The test must run in out: example tests run in
// their package's folder. regenerate is the command a failure tells the
// reader to run from the repository root.
func GeneratedCurrent(t *testing.T, design, out, regenerate string) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs goa gen and builds its output: skipped in -short mode")
	}
	root := ModuleRoot(t, out)
	goa := GoaCLI(t, root) // at the version go.mod requires

	// goa gen writes import paths derived from its output directory, so
	// it runs in a copy of the module with the very -o the committed
	// output was generated with; the copy also keeps goa gen's go.mod
	// edits, if any, away from the repository. The copy leaves out the
	// output goa gen rewrites.
	copyRoot := CopyModule(t, root, out+"/gen", out+"/AGENTS_QUICKSTART.md")
	GoaGen(t, goa, copyRoot, design, out)
	for _, f := range []string{"go.mod", "go.sum"} {
		if !bytes.Equal(readFile(t, filepath.Join(root, f)), readFile(t, filepath.Join(copyRoot, f))) {
			t.Errorf("goa gen edited %s", f)
		}
	}

	// Every file goa gen writes (gen/... and files at the root of the
	// output, such as AGENTS_QUICKSTART.md) must be committed unchanged, and
	// every committed file under gen/ must still be generated (goa gen wipes
	// gen/, so a stale file there is a mistake).
	outCopy := filepath.Join(copyRoot, filepath.FromSlash(out))
	generated := map[string][]byte{}
	for name, b := range files(t, filepath.Join(outCopy, "gen")) {
		generated["gen/"+name] = b
	}
	if b, err := os.ReadFile(filepath.Join(outCopy, "AGENTS_QUICKSTART.md")); err == nil {
		generated["AGENTS_QUICKSTART.md"] = b
	}
	committed := map[string][]byte{}
	for name, b := range files(t, "gen") {
		committed["gen/"+name] = b
	}
	if b, err := os.ReadFile("AGENTS_QUICKSTART.md"); err == nil {
		committed["AGENTS_QUICKSTART.md"] = b
	}
	var differ []string
	for name, got := range generated {
		want, ok := committed[name]
		switch {
		case !ok:
			differ = append(differ, name+" (not committed)")
		case !bytes.Equal(got, want):
			differ = append(differ, name)
		}
	}
	for name := range committed {
		if _, ok := generated[name]; !ok {
			differ = append(differ, name+" (no longer generated)")
		}
	}
	if len(differ) > 0 {
		slices.Sort(differ)
		t.Fatalf("the committed output differs from what goa gen writes now:\n\t%s\nregenerate it from the repository root:\n\t%s",
			strings.Join(differ, "\n\t"), regenerate)
	}
	if len(generated) == 0 {
		t.Fatal("goa gen wrote nothing")
	}

	for _, args := range [][]string{{"build", "./" + out + "/..."}, {"vet", "./" + out + "/gen/..."}} {
		if out, err := Go(root, args...); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// files reads every file under dir, by slash-separated path relative to it.
func files(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = readFile(t, path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
