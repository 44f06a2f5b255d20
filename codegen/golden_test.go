package codegen_test

import (
	"bytes"
	"flag"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

func TestGoldenRecords(t *testing.T) {
	files, warnings := generate(t, recordsDesign)
	dir := t.TempDir()
	paths := render(t, dir, files)
	want := []string{
		"gen/toolsets/records/types.go",
		"gen/toolsets/records/specs.go",
		"gen/toolsets/records/tool_schemas.json",
		"gen/registries/corp/client.go",
		"gen/registries/public/client.go",
	}
	if !slices.Equal(paths, want) {
		t.Fatalf("generated %v, want %v", paths, want)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings = %q, want none: a registry reference generates no package, an agent using it lists it", warnings)
	}
	compareGolden(t, dir, paths, func(p string) string {
		if strings.HasPrefix(p, "gen/registries/") { // client.go twice
			return filepath.Join("testdata", "records", path.Base(path.Dir(p))+"_"+path.Base(p)+".golden")
		}
		return filepath.Join("testdata", "records", filepath.Base(p)+".golden")
	})
}

// compareGolden compares each rendered file (paths, relative to dir) with
// its golden file, or rewrites the golden files under -update.
func compareGolden(t *testing.T, dir string, paths []string, goldenPath func(string) string) {
	t.Helper()
	for _, p := range paths {
		got := readFile(t, filepath.Join(dir, p))
		golden := goldenPath(p)
		if *update {
			if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if w := readFile(t, golden); !bytes.Equal(got, w) {
			t.Errorf("%s differs from %s (run go test ./codegen -update to accept):\n%s", p, golden, got)
		}
	}
}
