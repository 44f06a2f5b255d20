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
// compiles with contract.CompileToolset, contract.Compile accepts every
// ToolSchemas() declaration with the generated consumer contract,
// SchemaFingerprint is stable, content-sensitive, blind to toolset-level
// annotations and rejects unknown names, Decode injects, and the
// descriptors hand out fresh copies.
const checkMain = `package main

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/quiver-go/quiver/registry"
	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/contract"

	"example.com/app/gen/registries/corp"
	"example.com/app/gen/registries/public"
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
	schemas := records.ToolSchemas()
	if len(schemas) != len(specs) || len(decl.Tools) != len(specs) {
		fail("ToolSchemas() has %d tools, Toolset() %d, Specs() %d", len(schemas), len(decl.Tools), len(specs))
	}
	for i, d := range schemas {
		s, err := contract.Compile(d)
		if err != nil {
			fail("Compile(ToolSchemas()[%d]): %v", i, err)
		}
		g := specs[i]
		if s.Name != g.Name || s.Title != g.Title || s.Exposure != g.Exposure ||
			!slices.Equal(s.RequiredLabels, g.RequiredLabels) || len(s.Inject) != len(g.Inject) ||
			!slices.Equal(tools.InheritTags(decl.Tags, s.Tags), g.Tags) ||
			(s.Confirmation == nil) != (g.Confirmation == nil) || (s.Bounds == nil) != (g.Bounds == nil) ||
			len(s.ServerData) != len(g.ServerData) || !slices.Equal(s.Meta["ui:hidden"], g.Meta["ui:hidden"]) {
			fail("Compile(ToolSchemas()[%d]) = %+v, generated spec %+v", i, s, g)
		}
		fp, err := records.SchemaFingerprint(d.Name)
		if err != nil {
			fail("SchemaFingerprint(%q): %v", d.Name, err)
		}
		again, _ := records.SchemaFingerprint(d.Name)
		want, _ := contract.FingerprintTool(d)
		if !strings.HasPrefix(fp, contract.FingerprintPrefix) || fp != again || fp != want {
			fail("SchemaFingerprint(%q) = %q then %q, want %q", d.Name, fp, again, want)
		}
		d.Description += " Changed."
		if changed, _ := contract.FingerprintTool(d); changed == fp {
			fail("the fingerprint of %q ignores its description", d.Name)
		}
	}
	a1, _ := records.SchemaFingerprint("listTables")
	a2, _ := records.SchemaFingerprint("finish")
	if a1 == a2 {
		fail("listTables and finish share fingerprint %q", a1)
	}
	retagged := records.Toolset()
	retagged.Tags = append(retagged.Tags, "extra")
	retagged.Description = "Another description."
	if fp, _ := contract.FingerprintTool(retagged.Tools[0]); fp != a1 {
		fail("toolset-level annotations change SchemaFingerprint: %q, want %q", fp, a1)
	}
	if whole, _ := contract.Fingerprint(records.Toolset()); whole == a1 {
		fail("Fingerprint(Toolset()) = SchemaFingerprint")
	}
	if fp, err := records.SchemaFingerprint("records.listTables"); err == nil || !strings.Contains(err.Error(), "listTables, delete_table, finish") {
		fail("SchemaFingerprint of an unknown name = %q, %v", fp, err)
	}
	schemas[0].Keywords[0] = "changed"
	if records.ToolSchemas()[0].Keywords[0] != "catalog" {
		fail("ToolSchemas shares its declarations")
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
	client, err := corp.NewClient("corp-secret")
	if err != nil || client.BaseURL.String() != corp.URL || corp.Credential != "corp_key" || corp.APIVersion != "v1" {
		fail("corp.NewClient = %v, %v (credential %q)", client, err, corp.Credential)
	}
	settings := client.Consumer()
	if settings.SyncInterval != 5*time.Minute || settings.CacheTTL != time.Hour ||
		!slices.Equal(settings.Include, []string{"data-*", "web-search"}) || !slices.Equal(settings.Exclude, []string{"data-experimental*"}) {
		fail("corp.NewClient's consumer settings: %+v", settings)
	}
	overridden, err := corp.NewClient("corp-secret", registry.WithCacheTTL(time.Minute))
	if err != nil || overridden.Consumer().CacheTTL != time.Minute {
		fail("an option passed to corp.NewClient does not override the design's: %v", err)
	}
	if c, err := public.NewClient(); err != nil || public.APIVersion != "v2" || public.Credential != "" || c.BaseURL.String() != public.URL {
		fail("public.NewClient = %v, %v", c, err)
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
	run := buildModule(t, files, map[string]string{"cmd/check/main.go": main})
	return run("run", "./cmd/check")
}

// buildModule renders files into a temporary module that replaces Quiver
// with this repository, adds extra (contents by slash-separated path),
// builds and vets the module, and returns a function running go commands
// in it (failing the test when one fails). It skips the test when go is
// not on PATH or in -short mode.
func buildModule(t *testing.T, files []*goacodegen.File, extra map[string]string) (run func(args ...string) string) {
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
	for p, content := range extra {
		write(t, filepath.Join(dir, filepath.FromSlash(p)), content)
	}
	run = func(args ...string) string {
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
	return run
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
