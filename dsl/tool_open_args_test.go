package dsl_test

import (
	"path/filepath"
	"testing"

	. "goa.design/goa/v3/dsl"

	. "github.com/quiver-go/quiver/dsl"
)

func TestOpenArgsEvaluates(t *testing.T) {
	root := mustRun(t, func() {
		var Note = Type("Note", func() {
			Attribute("text", String)
			Required("text")
		})
		Toolset("notes", func() {
			Tool("annotate", "Annotate a record with free-form fields", func() {
				Args(func() {
					Attribute("record_id", String)
					Required("record_id")
				})
				OpenArgs()
			})
			Tool("save", "Save a note", func() {
				Args(Note)
				OpenArgs()
			})
			Tool("any", "Take any arguments", func() { OpenArgs() })
			Tool("read", "Read a note", func() {
				Args(func() { Attribute("id", String) })
			})
		})
	})
	ts := root.Toolset("notes")
	for _, name := range []string{"annotate", "save", "any"} {
		tool := ts.Tool(name)
		if !tool.OpenArgs {
			t.Errorf("%s: OpenArgs not recorded", name)
		}
		if at := tool.OpenArgsAt; filepath.Base(at.File) != "tool_open_args_test.go" || at.Line == 0 {
			t.Errorf("%s: OpenArgs located at %q, want this test file", name, at)
		}
	}
	if ts.Tool("read").OpenArgs {
		t.Error("a tool without OpenArgs is open")
	}
}

func TestOpenArgsRules(t *testing.T) {
	withArgs := func(args any) func() {
		return oneTool(func() {
			Args(args)
			OpenArgs()
		})
	}
	t.Run("only in a tool", func(t *testing.T) {
		wantError(t, func() { Toolset("records", func() { OpenArgs() }) }, "OpenArgs: must be used in a Tool", "tool_open_args_test.go:")
		wantError(t, func() {
			Toolset("records", func() {
				Tool("list", "List records", func() { Args(func() { OpenArgs() }) })
			})
		}, "OpenArgs: must be used in a Tool")
	})
	t.Run("once per tool", func(t *testing.T) {
		wantError(t, oneTool(func() { OpenArgs(); OpenArgs() }), "OpenArgs: declared twice in the tool (first at tool_open_args_test.go:", "call it once")
	})
	t.Run("a map accepts any key already", func(t *testing.T) {
		wantError(t, withArgs(MapOf(String, String)), "OpenArgs at tool_open_args_test.go:", "Args is a map, which accepts any key already: remove OpenArgs")
	})
	t.Run("a user type of a map accepts any key already", func(t *testing.T) {
		wantError(t, func() {
			labels := Type("Labels", MapOf(String, String))
			oneTool(func() { Args(labels); OpenArgs() })()
		}, `Args (type Labels) is a map, which accepts any key already`)
	})
	t.Run("a primitive has no properties", func(t *testing.T) {
		wantError(t, withArgs(String), "OpenArgs at tool_open_args_test.go:", "Args is the primitive string, not an object: only an object payload has properties to open")
	})
	t.Run("an array has no properties", func(t *testing.T) {
		wantError(t, withArgs(ArrayOf(String)), "Args is an array, not an object")
	})
	t.Run("a user type of a primitive has no properties", func(t *testing.T) {
		wantError(t, func() {
			id := Type("RecordID", String)
			oneTool(func() { Args(id); OpenArgs() })()
		}, "Args (type RecordID) is the primitive string, not an object")
	})
	t.Run("a bound tool passes declared fields only", func(t *testing.T) {
		wantError(t, seriesService(func() {
			Args(func() {
				Attribute("device", String)
				Required("device")
			})
			BindTo("series")
			OpenArgs()
		}), "OpenArgs at tool_open_args_test.go:", "the tool is bound with BindTo", "declare them in Args, or remove OpenArgs")
	})
}
