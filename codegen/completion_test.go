package codegen_test

import (
	"path/filepath"
	"slices"
	"testing"

	. "goa.design/goa/v3/dsl"

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
}
