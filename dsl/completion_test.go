package dsl_test

import (
	"strings"
	"testing"

	. "goa.design/goa/v3/dsl"
	goaexpr "goa.design/goa/v3/expr"

	. "github.com/quiver-go/quiver/dsl"
	"github.com/quiver-go/quiver/expr"
)

func TestCompletionEvaluates(t *testing.T) {
	root := mustRun(t, func() {
		draft := Type("Draft", func() {
			Attribute("name", String, "Task name")
			Attribute("goal", String, "Outcome-style goal")
			Required("name", "goal")
		})
		Service("tasks", func() {
			Completion("draft_from_transcript", "Produce a task draft directly", func() {
				Return(draft)
			})
			Completion("summary", func() {
				Description("Summarize the task.")
				Return(func() { Attribute("text", String); Required("text") })
			})
		})
	})
	if len(root.Completions) != 2 {
		t.Fatalf("%d completions", len(root.Completions))
	}
	c := root.Completion("tasks", "draft_from_transcript")
	if c == nil || c.Description != "Produce a task draft directly" || c.Service.Name != "tasks" {
		t.Fatalf("completion = %+v", c)
	}
	if ut, ok := c.Return.Type.(goaexpr.UserType); !ok || ut.Name() != "Draft" {
		t.Fatalf("return type = %#v", c.Return.Type)
	}
	s := root.Completion("tasks", "summary")
	if s.Description != "Summarize the task." || s.Return == nil || goaexpr.AsObject(s.Return.Type).Attribute("text") == nil {
		t.Fatalf("completion = %+v", s)
	}
}

func TestCompletionNames(t *testing.T) {
	valid := []string{"a", "9lives", "draft_from_transcript", "a-b_c", "A1", strings.Repeat("x", 64)}
	invalid := []string{"", "_draft", "-draft", "draft from", "draft.v2", "brouillon_é", "a/b", strings.Repeat("x", 65)}
	for _, n := range valid {
		if !expr.ValidCompletionName(n) {
			t.Errorf("%q is a valid completion name", n)
		}
	}
	for _, n := range invalid {
		if expr.ValidCompletionName(n) {
			t.Errorf("%q is not a valid completion name", n)
		}
	}
	for _, n := range []string{"_draft", "draft.v2", strings.Repeat("x", 65)} {
		wantError(t, func() {
			Service("tasks", func() { Completion(n, "x", func() { Return(String) }) })
		}, `Completion: invalid name "`+n+`"`, "1 to 64 ASCII letters, digits, _ and -, starting with a letter or a digit", "completion_test.go:")
	}
}

func TestCompletionRules(t *testing.T) {
	t.Run("a completion has a Return", func(t *testing.T) {
		wantError(t, func() {
			Service("tasks", func() { Completion("draft", "x", func() { Description("y") }) })
		}, `Completion: "draft" declares no Return`)
		wantError(t, func() {
			Service("tasks", func() { Completion("draft", "x") })
		}, `Completion: "draft" declares no Return`, "completion_test.go:")
	})
	t.Run("names are unique in a service", func(t *testing.T) {
		wantError(t, func() {
			Service("tasks", func() {
				Completion("draft", "x", func() { Return(String) })
				Completion("draft", "y", func() { Return(String) })
			})
		}, `Completion: "draft" is declared twice in service "tasks"`)
	})
	t.Run("in a Service", func(t *testing.T) {
		wantError(t, func() { Completion("draft", "x", func() { Return(String) }) }, `Completion: "draft" must be declared in a Service`)
	})
	t.Run("Return in a Tool or a Completion", func(t *testing.T) {
		wantError(t, func() { Service("tasks", func() { Return(String) }) }, "Return: must be used in a Tool or a Completion")
	})
	t.Run("arguments", func(t *testing.T) {
		wantError(t, func() { Service("tasks", func() { Completion("draft", 3) }) }, `Completion: "draft": want a description and a DSL function, got int`)
	})
}

func TestDisableAgentDocs(t *testing.T) {
	root := mustRun(t, func() {
		API("orchestrator", func() { DisableAgentDocs() })
		Service("orchestrator", func() {})
	})
	if !root.DisableAgentDocs {
		t.Fatal("DisableAgentDocs() in the API did not disable the agent docs")
	}
	if root := mustRun(t, func() { Service("orchestrator", func() {}) }); root.DisableAgentDocs {
		t.Fatal("agent docs are disabled by default")
	}
	wantError(t, func() { Service("orchestrator", func() { DisableAgentDocs() }) }, "DisableAgentDocs: must be used in the API")
}
