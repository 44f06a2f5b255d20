package codegen_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	. "goa.design/goa/v3/dsl"
	"goa.design/goa/v3/eval"
	goaexpr "goa.design/goa/v3/expr"

	"github.com/quiver-go/quiver/codegen"
	. "github.com/quiver-go/quiver/dsl"
)

// completionDesign is seed 003's completion: draft_from_transcript returns
// a Draft user type, here with a nested type (Step), a union (due) and a
// declared root example; summary returns an inline object without one.
func completionDesign() {
	step := Type("Step", func() {
		Description("One step of a task.")
		Attribute("title", String, "What to do")
		Attribute("done", Boolean, "Whether it is done")
		Required("title")
	})
	draft := Type("Draft", func() {
		Description("A task drafted from a transcript.")
		Attribute("name", String, "Task name")
		Attribute("goal", String, "Outcome-style goal")
		Attribute("steps", ArrayOf(step), "The steps, in order")
		OneOf("due", "When the task is due", func() {
			Attribute("date", String, "A calendar date", func() { Format(FormatDate) })
			Attribute("days", Int, "Days from now")
		})
		Required("name", "goal")
		Example(map[string]any{"name": "Ship the report", "goal": "The report is published", "steps": []any{map[string]any{"title": "Write it"}}})
	})
	Service("tasks", func() {
		Completion("draft_from_transcript", "Produce a task draft directly", func() {
			Return(draft)
		})
		Completion("summary", func() {
			Return(func() {
				Attribute("text", String, "The summary")
				Required("text")
			})
		})
	})
}

// TestGoldenCompletions checks the completions package of completionDesign
// against its golden files: the Draft, Step and union types, the
// unexported closed schemas and codecs, one value per completion and
// Example() only for the completion whose result declares an example.
func TestGoldenCompletions(t *testing.T) {
	files, warnings := generate(t, completionDesign)
	if len(warnings) != 0 {
		t.Errorf("warnings = %q, want none: completions generate code", warnings)
	}
	dir := t.TempDir()
	paths := render(t, dir, files)
	want := []string{"gen/tasks/completions/types.go", "gen/tasks/completions/completions.go"}
	if !slices.Equal(paths, want) {
		t.Fatalf("generated %v, want %v", paths, want)
	}
	compareGolden(t, dir, paths, func(p string) string {
		return filepath.Join("testdata", "completions", filepath.Base(p)+".golden")
	})
	exported := exportedDecls(t, filepath.Join(dir, "gen/tasks/completions/completions.go"))
	if want := []string{"type DraftFromTranscriptCompletion", "var DraftFromTranscript", "method DraftFromTranscriptCompletion.Example", "type SummaryCompletion", "var Summary"}; !slices.Equal(exported, want) {
		t.Errorf("completions.go exports %v, want %v: schemas and codecs stay unexported, and no function decodes an answer outside Complete and the Streamer", exported, want)
	}
}

// exportedDecls lists the exported top-level declarations of a Go file
// in order: "type T", "var V", "const C", "func F", "method T.M".
func exportedDecls(t *testing.T, file string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			if d.Recv == nil {
				out = append(out, "func "+d.Name.Name)
				continue
			}
			recv := d.Recv.List[0].Type
			if star, ok := recv.(*ast.StarExpr); ok {
				recv = star.X
			}
			out = append(out, "method "+recv.(*ast.Ident).Name+"."+d.Name.Name)
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch spec := spec.(type) {
				case *ast.TypeSpec:
					if spec.Name.IsExported() {
						out = append(out, "type "+spec.Name.Name)
					}
				case *ast.ValueSpec:
					for _, n := range spec.Names {
						if n.IsExported() {
							out = append(out, d.Tok.String()+" "+n.Name)
						}
					}
				}
			}
		}
	}
	return out
}

// generateErr evaluates design and runs the plugin on it, returning its
// error.
func generateErr(t *testing.T, design func()) error {
	t.Helper()
	root := mustRoot(t, design)
	saved := codegen.Warnings
	codegen.Warnings = func(string) {}
	defer func() { codegen.Warnings = saved }()
	_, err := codegen.Generate("example.com/app/gen", []eval.Root{goaexpr.Root, root}, nil)
	return err
}

// TestCompletionGoNameCollision checks that two completions of a service
// whose names differ only in '_' and '-' — the same Go name — fail
// generation with both locations, and that a completion named like a type
// of its package does too.
func TestCompletionGoNameCollision(t *testing.T) {
	err := generateErr(t, func() {
		Service("tasks", func() {
			Completion("a-b", "First", func() { Return(String) })
			Completion("a_b", "Second", func() { Return(String) })
		})
	})
	for _, want := range []string{
		`completion "a-b" of service "tasks"`, `completion "a_b" of service "tasks"`,
		"are both named AB in Go", "rename one",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Generate error = %v, want it to contain %q", err, want)
		}
	}
	if err != nil && strings.Count(err.Error(), "[completion_test.go:") != 2 {
		t.Errorf("Generate error = %v, want the location of both completions", err)
	}
	err = generateErr(t, func() {
		draft := Type("Draft", func() { Attribute("name", String) })
		Service("tasks", func() {
			Completion("draft", "Draft a task", func() { Return(draft) })
		})
	})
	if err == nil || !strings.Contains(err.Error(), `completion "draft" of service "tasks" is named Draft in Go, the name of a type of its package`) ||
		!strings.Contains(err.Error(), "[completion_test.go:") {
		t.Errorf("Generate error = %v, want the collision with type Draft, located", err)
	}
}

// TestCompletionExampleBreakingSchema checks that a root result example
// that breaks the result's schema — a required field missing, a field the
// closed schema does not declare — fails generation at the completion's
// location, naming the violation.
func TestCompletionExampleBreakingSchema(t *testing.T) {
	cases := []struct {
		name    string
		example map[string]any
		want    string
	}{
		{"missing required", map[string]any{"name": "Ship it"}, "goal"},
		{"undeclared field", map[string]any{"name": "Ship it", "goal": "Shipped", "owner": "ana"}, "owner"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := generateErr(t, func() {
				draft := Type("Draft", func() {
					Attribute("name", String)
					Attribute("goal", String)
					Required("name", "goal")
					Example(c.example)
				})
				Service("tasks", func() {
					Completion("draft_from_transcript", "Produce a task draft directly", func() { Return(draft) })
				})
			})
			if err == nil || !strings.Contains(err.Error(), `completion "draft_from_transcript" of service "tasks": the result's Example breaks its schema`) ||
				!strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "[completion_test.go:") {
				t.Errorf("Generate error = %v, want the example refused at the completion's location, naming %q", err, c.want)
			}
		})
	}
}

// badNameDesign is a design package whose completion name breaks the
// naming rule (a dot), on line 9 of design/design.go.
const badNameDesign = `package design

import (
	. "goa.design/goa/v3/dsl"
	. "github.com/quiver-go/quiver/dsl"
)

var _ = Service("tasks", func() {
	Completion("draft.v1", "Produce a task draft directly", func() {
		Return(String)
	})
})
`

// TestGoaGenRefusesBadCompletionName runs the goa CLI's gen on a design
// package declaring a completion with an invalid name, in a temporary
// module that replaces Quiver with this repository: goa gen fails, names
// the rule and the design file and line, and writes no gen/ package.
func TestGoaGenRefusesBadCompletionName(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	if testing.Short() {
		t.Skip("builds the goa CLI and runs goa gen: skipped in -short mode")
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	goa := filepath.Join(t.TempDir(), "goa")
	build := exec.Command(gobin, "build", "-o", goa, "goa.design/goa/v3/cmd/goa")
	build.Dir = repo // the repository's go.mod chooses goa's version
	build.Env = append(os.Environ(), "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Skipf("cannot build the goa CLI: %v\n%s", err, out)
	}
	dir := t.TempDir()
	write(t, filepath.Join(dir, "go.mod"), "module example.com/app\n\ngo 1.26\n\nrequire github.com/quiver-go/quiver v0.0.0\n\nreplace github.com/quiver-go/quiver => "+repo+"\n")
	write(t, filepath.Join(dir, "go.sum"), string(readFile(t, filepath.Join(repo, "go.sum"))))
	write(t, filepath.Join(dir, "design", "design.go"), badNameDesign)
	gen := exec.Command(goa, "gen", "example.com/app/design")
	gen.Dir = dir
	gen.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	out, err := gen.CombinedOutput()
	if err == nil {
		t.Fatalf("goa gen accepted completion name %q:\n%s", "draft.v1", out)
	}
	for _, want := range []string{
		`Completion: invalid name "draft.v1"`,
		"1 to 64 ASCII letters, digits, _ and -, starting with a letter or a digit",
		"design.go:9",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("goa gen output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "gen")); err == nil {
		t.Error("goa gen wrote gen/ for a design it refused")
	}
}

// TestGeneratedCompletionsRun builds and vets the completions package of
// completionDesign in a temporary module, then runs a program calling it
// on model/scripted (testdata/completionscheck): a valid answer decodes
// to the typed value, unary and streamed (deltas for preview, Value only
// after the end); an invalid answer is a *planner.OutputContractError with
// no second request; a tool-enabled request is refused before any model
// request; Example() decodes the declared example afresh.
func TestGeneratedCompletionsRun(t *testing.T) {
	files, _ := generate(t, completionDesign)
	main, err := os.ReadFile(filepath.Join("testdata", "completionscheck", "main.go.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if out := buildAndRun(t, files, string(main)); !strings.HasPrefix(out, `ok {"name":"Ship the report"`) {
		t.Errorf("check program printed %q", out)
	}
}

// quickstartCompletionMain puts the quickstart's runtime block and its
// completions block together, as the text says.
const quickstartCompletionMain = `package main

import (
	"context"
	"fmt"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/portable"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/runtime"

	"example.com/app/gen/tasks/completions"
)

func main() {
	if err := run(); err != nil {
		fmt.Println("error:", err)
	}
}

func run() error {
BODY
	return nil
}
`

// TestQuickstartListsCompletions: AGENTS_QUICKSTART.md of a design with an
// agent and completions lists each completion with its package, value and
// Example(), and its Go block, after the runtime block, builds, vets and
// runs against the generated package: the offline model of the runtime
// block replies prose, which the completion refuses as breaking its
// contract.
func TestQuickstartListsCompletions(t *testing.T) {
	design := func() {
		completionDesign()
		notes := Toolset("notes", func() { Tool("add", "Add a note.") })
		Service("desk", func() { Agent("clerk", "Keeps notes.", func() { Use(notes) }) })
	}
	files, _ := generate(t, design)
	dir := t.TempDir()
	render(t, dir, files)
	md := string(readFile(t, filepath.Join(dir, "AGENTS_QUICKSTART.md")))
	for _, want := range []string{
		"## Completions",
		"- `draft_from_transcript` of service `tasks` (`example.com/app/gen/tasks/completions`): Produce a task draft directly\n  `completions.DraftFromTranscript` answers a `Draft`; `Example()` returns its declared example.",
		"- `summary` of service `tasks` (`example.com/app/gen/tasks/completions`)\n  `completions.Summary` answers a `SummaryResult`.",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("AGENTS_QUICKSTART.md lacks %q:\n%s", want, md)
		}
	}
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(md, -1)
	if len(blocks) < 3 || !strings.Contains(blocks[len(blocks)-1][1], "completions.DraftFromTranscript.Complete(ctx, client,") {
		t.Fatalf("the quickstart's last Go block is not the completion's:\n%s", md)
	}
	body := blocks[0][1] + "_ = rt\n" + blocks[len(blocks)-1][1]
	out := buildAndRun(t, files, strings.Replace(quickstartCompletionMain, "BODY", body, 1))
	if !strings.Contains(out, `error: planner: completion "draft_from_transcript": the model's answer breaks its output contract`) {
		t.Errorf("the quickstart's completion printed %q, want the contract error of the prose reply", out)
	}
}

// TestGeneratedCompletionShapesBuild generates completions whose results
// are not a plain user type — a primitive, an array of a user type, a map,
// a user type based on a primitive, a user type holding a union — and one
// whose name starts with a digit, and builds and vets the package: structs
// and unions decode into pointers, other types into values.
func TestGeneratedCompletionShapesBuild(t *testing.T) {
	files, _ := generate(t, func() {
		item := Type("Item", func() { Attribute("id", String); Required("id") })
		label := Type("Label", String, func() { MinLength(1) })
		choice := Type("Choice", func() {
			OneOf("pick", func() { Attribute("item", item); Attribute("label", String) })
		})
		Service("shapes", func() {
			Completion("title", "A title", func() { Return(String) })
			Completion("items", func() { Return(ArrayOf(item)) })
			Completion("scores", func() { Return(MapOf(String, Int)) })
			Completion("short_label", func() { Return(label) })
			Completion("3d-model", func() { Return(choice) })
		})
	})
	dir := t.TempDir()
	render(t, dir, files)
	src := string(readFile(t, filepath.Join(dir, "gen/shapes/completions/completions.go")))
	for _, want := range []string{
		"type TitleCompletion struct {\n\t*completion.Completion[string]\n}",
		"type ItemsCompletion struct {\n\t*completion.Completion[[]*Item]\n}",
		"type ScoresCompletion struct {\n\t*completion.Completion[map[string]int]\n}",
		"type ShortLabelCompletion struct {\n\t*completion.Completion[Label]\n}",
		"type Completion3dModelCompletion struct {\n\t*completion.Completion[*Choice]\n}",
		"var Completion3dModel = Completion3dModelCompletion{",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("completions.go lacks %q", want)
		}
	}
	buildModule(t, files, nil)
}
