package dsl_test

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	. "goa.design/goa/v3/dsl"

	. "github.com/quiver-go/quiver/dsl"
	"github.com/quiver-go/quiver/dsl/dsltest"
	"github.com/quiver-go/quiver/expr"
	"github.com/quiver-go/quiver/tools"
)

// here returns "file:line" of the line after its call, as errors print it.
func here() (string, int) {
	_, file, line, _ := runtime.Caller(1)
	return filepath.Base(file), line + 1
}

func TestHintsReminderAndConfirmationEvaluate(t *testing.T) {
	var hintLine int
	root := mustRun(t, oneTool(func() {
		Args(func() {
			Attribute("key", String)
			Attribute("value", Any)
			Required("key")
		})
		Return(func() { Attribute("items", ArrayOf(String)) })
		_, hintLine = here()
		CallHintTemplate("Listing items{{ with .Key }} in {{ . }}{{ end }}")
		ResultHintTemplate("{{ count .Result.Items }} items")
		ResultReminder("The user sees the items as a table.")
		Confirmation(func() {
			Title("Confirm change")
			PromptTemplate(`Approve write: set {{ .key }} to {{ json .value }}`)
			DeniedResultTemplate(`{"summary":"Cancelled","key":{{ json .key }}}`)
		})
	}))
	tool := root.Toolset("records").Tool("list")
	if h := tool.CallHintTemplate; h.Source() != "Listing items{{ with .Key }} in {{ . }}{{ end }}" || h.Func != "CallHintTemplate" ||
		filepath.Base(h.Location.File) != "tool_display_test.go" || h.Location.Line != hintLine {
		t.Errorf("call hint = %+v (want line %d)", h, hintLine)
	}
	if tool.ResultHintTemplate.Source() != "{{ count .Result.Items }} items" || tool.ResultReminder != "The user sees the items as a table." {
		t.Errorf("result hint %+v, reminder %q", tool.ResultHintTemplate, tool.ResultReminder)
	}
	want := tools.ConfirmationSpec{
		Title:                "Confirm change",
		PromptTemplate:       `Approve write: set {{ .key }} to {{ json .value }}`,
		DeniedResultTemplate: `{"summary":"Cancelled","key":{{ json .key }}}`,
	}
	if got := tool.Confirmation.Spec(); *got != want {
		t.Errorf("confirmation = %+v", got)
	}
	if tool.Title != "List" {
		t.Errorf("Title in Confirmation titles the confirmation, not the tool: %q", tool.Title)
	}
}

func TestConfirmationWithoutTemplates(t *testing.T) {
	root := mustRun(t, oneTool(func() { Confirmation() }))
	if c := root.Toolset("records").Tool("list").Confirmation; c == nil || *c.Spec() != (tools.ConfirmationSpec{}) {
		t.Fatalf("confirmation = %+v", c)
	}
	var nilTemplate *expr.TemplateExpr
	if nilTemplate.Source() != "" {
		t.Fatal("a nil template has no source")
	}
}

func TestTemplateRules(t *testing.T) {
	t.Run("hint templates parse, located in the design", func(t *testing.T) {
		var file string
		var line int
		_, err := dsltest.Run(oneTool(func() {
			file, line = here()
			CallHintTemplate("Searching for {{ .Query ")
		}))
		want := fmt.Sprintf("CallHintTemplate at %s:%d: the template does not parse: template: CallHintTemplate:1: unclosed action", file, line)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("error %v, want it to contain %q", err, want)
		}
	})
	t.Run("unknown template functions are rejected", func(t *testing.T) {
		wantError(t, oneTool(func() { ResultHintTemplate("{{ shout .Result }}") }), "ResultHintTemplate at tool_display_test.go:", `function "shout" not defined`)
	})
	t.Run("the runtime's template functions are known", func(t *testing.T) {
		mustRun(t, oneTool(func() {
			CallHintTemplate(`{{ quote .Query }} {{ truncate .Query 20 }} {{ join .Tags ", " }} {{ json . }}`)
		}))
	})
	t.Run("templates are not empty", func(t *testing.T) {
		wantError(t, oneTool(func() { CallHintTemplate(" ") }), "CallHintTemplate: the template is empty")
	})
	t.Run("templates are declared once", func(t *testing.T) {
		wantError(t, oneTool(func() { ResultHintTemplate("a"); ResultHintTemplate("b") }), "ResultHintTemplate: declared twice in the tool")
	})
	t.Run("hint templates only in a tool", func(t *testing.T) {
		wantError(t, func() { Toolset("records", func() { CallHintTemplate("x") }) }, "CallHintTemplate: must be used in a Tool")
		wantError(t, func() { Toolset("records", func() { ResultHintTemplate("x") }) }, "ResultHintTemplate: must be used in a Tool")
	})
}

func TestResultReminderRules(t *testing.T) {
	wantError(t, oneTool(func() { ResultReminder("<system-reminder>Shown as a chart.</system-reminder>") }), "ResultReminder: leave out the <system-reminder> tags")
	wantError(t, oneTool(func() { ResultReminder("") }), "ResultReminder: the reminder is empty")
	wantError(t, oneTool(func() { ResultReminder("a"); ResultReminder("b") }), "ResultReminder: declared twice in the tool")
	wantError(t, func() { Toolset("records", func() { ResultReminder("a") }) }, "ResultReminder: must be used in a Tool")
}

func TestConfirmationRules(t *testing.T) {
	t.Run("the prompt template parses", func(t *testing.T) {
		wantError(t, oneTool(func() { Confirmation(func() { PromptTemplate("Approve {{ .key ") }) }),
			"confirmation of tool", "PromptTemplate at tool_display_test.go:", "the template does not parse")
	})
	t.Run("the denied result template parses", func(t *testing.T) {
		wantError(t, oneTool(func() { Confirmation(func() { DeniedResultTemplate(`{"key":{{ nope .key }}}`) }) }),
			"DeniedResultTemplate at tool_display_test.go:", `function "nope" not defined`)
	})
	t.Run("a static denied result is JSON", func(t *testing.T) {
		wantError(t, oneTool(func() { Confirmation(func() { DeniedResultTemplate("Cancelled by the user") }) }),
			`DeniedResultTemplate at tool_display_test.go:`, `"Cancelled by the user" is not JSON`)
	})
	t.Run("templates only in a Confirmation", func(t *testing.T) {
		wantError(t, oneTool(func() { PromptTemplate("x") }), "PromptTemplate: must be used in a Confirmation")
		wantError(t, oneTool(func() { DeniedResultTemplate("{}") }), "DeniedResultTemplate: must be used in a Confirmation")
	})
	t.Run("one Confirmation per tool", func(t *testing.T) {
		wantError(t, oneTool(func() { Confirmation(); Confirmation() }), "Confirmation: declared twice in the tool")
	})
	t.Run("confirmation templates are declared once", func(t *testing.T) {
		wantError(t, oneTool(func() { Confirmation(func() { PromptTemplate("a"); PromptTemplate("b") }) }), "PromptTemplate: declared twice in the Confirmation")
	})
	t.Run("only in a tool", func(t *testing.T) {
		wantError(t, func() { Toolset("records", func() { Confirmation() }) }, "Confirmation: must be used in a Tool")
	})
}
