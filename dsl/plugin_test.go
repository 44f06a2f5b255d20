package dsl_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// bareDesign imports Goa's DSL and Quiver's, and nothing else: no blank
// import of the code generator.
const bareDesign = `package design

import (
	. "goa.design/goa/v3/dsl"

	. "github.com/quiver-go/quiver/dsl"
)

var _ = API("notes", func() { Title("Notes") })

var Notes = Toolset("notes", func() {
	Tool("find", "Find notes by text", func() {
		Args(func() {
			Attribute("query", String, "Words to look for.")
			Required("query")
		})
		Exposure("read_only")
	})
})

var _ = Service("desk", func() {
	Agent("reader", "Find notes.", func() {
		Use(Notes, func() { Deferred("find") })
	})
})
`

// TestDSLEnablesTheGenerator: goa gen on a design that imports only the
// two DSLs writes Quiver's packages, because package dsl imports the code
// generator itself. It runs the real goa gen, offline, in a temporary
// module that replaces Quiver with this repository.
func TestDSLEnablesTheGenerator(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs goa gen: skipped in -short mode")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gosum, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	goaVersion := requiredVersion(t, filepath.Join(repo, "go.mod"), "goa.design/goa/v3")
	files := map[string]string{
		"go.mod":           "module example.com/app\n\ngo 1.26\n\nrequire (\n\tgithub.com/quiver-go/quiver v0.0.0\n\tgoa.design/goa/v3 " + goaVersion + "\n)\n\nreplace github.com/quiver-go/quiver => " + repo + "\n",
		"go.sum":           string(gosum),
		"design/design.go": bareDesign,
	}
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(gobin, "run", "goa.design/goa/v3/cmd/goa", "gen", "example.com/app/design")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("goa gen: %v\n%s", err, out)
	}
	for _, want := range []string{
		"gen/toolsets/notes/specs.go",
		"gen/toolsets/notes/tool_schemas.json",
		"gen/agents/desk/reader/agent.go",
	} {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(want))); err != nil {
			t.Errorf("goa gen wrote no %s (a design importing only the DSLs must get Quiver's code): %v\n%s", want, err, out)
		}
	}
}

// requiredVersion returns the version go.mod at path requires of module.
func requiredVersion(t *testing.T, path, module string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		f := strings.Fields(line)
		if i := slices.Index(f, module); i >= 0 && i+1 < len(f) {
			return f[i+1]
		}
	}
	t.Fatalf("%s requires no %s", path, module)
	return ""
}
