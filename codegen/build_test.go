package codegen_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	goacodegen "goa.design/goa/v3/codegen"
)

// checkMain runs against the generated package: every spec validates, its
// search document equals what search computes at run time, Toolset()
// compiles with contract.CompileToolset, Decode injects, and the
// descriptors hand out fresh copies.
const checkMain = `package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/contract"

	"example.com/app/gen/toolsets/records"
)

func main() {
	decl := records.Toolset()
	specs := records.Specs()
	for i, s := range specs {
		if err := s.Validate(); err != nil {
			fail("%s: %v", s.Name, err)
		}
		if want := search.NewDocument(s.SearchSource(decl.Tools[i].Keywords...)); !s.Search.Equal(want) {
			fail("%s: search document %#v, run time computes %#v", s.Name, s.Search, want)
		}
	}
	if _, err := contract.CompileToolset(decl); err != nil {
		fail("CompileToolset: %v", err)
	}
	p, err := records.DecodeDeleteTable(json.RawMessage(` + "`" + `{"name":"orders"}` + "`" + `),
		tools.CallMeta{SessionID: "s1"}, map[string]string{"tenant": "acme"})
	if err != nil || p.Name != "orders" || p.SessionID != "s1" || p.Tenant != "acme" {
		fail("DecodeDeleteTable = %+v, %v", p, err)
	}
	a := records.ListTablesTool()
	a.Spec.Tags[0] = "changed"
	if records.ListTablesSpec().Tags[0] != "data" {
		fail("ListTablesTool shares its spec")
	}
	out, err := records.ListTablesTool().Result.ToJSON(&records.ListTablesResult{Tables: []*records.Table{{Name: "t"}}})
	if err != nil {
		fail("encode result: %v", err)
	}
	fmt.Printf("ok %s\n", out)
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}
`

// TestGeneratedPackageBuilds writes the generated package into a temporary
// module that replaces Quiver with this repository, then builds, vets and
// runs a program using it.
func TestGeneratedPackageBuilds(t *testing.T) {
	files, _ := generate(t, recordsDesign)
	if out := buildAndRun(t, files, checkMain); !strings.HasPrefix(out, "ok ") {
		t.Errorf("check program printed %q", out)
	}
}

// buildAndRun renders files into a temporary module that replaces Quiver
// with this repository, adds main as cmd/check, builds and vets the module
// and returns what the check program prints. It skips the test when go is
// not on PATH or in -short mode.
func buildAndRun(t *testing.T, files []*goacodegen.File, main string) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	if testing.Short() {
		t.Skip("builds a module: skipped in -short mode")
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	render(t, dir, files)
	gomod := "module example.com/app\n\ngo 1.26\n\nrequire github.com/quiver-go/quiver v0.0.0\n\nreplace github.com/quiver-go/quiver => " + repo + "\n"
	write(t, filepath.Join(dir, "go.mod"), gomod)
	write(t, filepath.Join(dir, "go.sum"), string(readFile(t, filepath.Join(repo, "go.sum"))))
	write(t, filepath.Join(dir, "cmd", "check", "main.go"), main)
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(gobin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("build", "./...")
	run("vet", "./...")
	return run("run", "./cmd/check")
}

// write creates a file and its directory.
func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
