package dsl_test

import (
	"slices"
	"testing"

	. "goa.design/goa/v3/dsl"

	. "github.com/quiver-go/quiver/dsl"
	"github.com/quiver-go/quiver/expr"
)

// records declares the seed's Records toolset: lookup, search, analyze.
func records() *expr.ToolsetExpr {
	return Toolset("records", func() {
		Tool("lookup", "Look a record up by id")
		Tool("search", "Search records")
		Tool("analyze", "Analyze records")
	})
}

func TestDeferredNamedToolsBelongToTheConsumer(t *testing.T) {
	root := mustRun(t, func() {
		r := records()
		Service("assistant", func() {
			Agent("assistant", "Find and analyze records.", func() {
				Use(r, func() { Deferred("search", "analyze") })
			})
			Agent("other", "Uses the same toolset eagerly.", func() {
				Use(r)
			})
		})
	})
	if got := root.Agents[0].Uses[0].DeferredTools(); !slices.Equal(got, []string{"search", "analyze"}) {
		t.Fatalf("deferred %v", got)
	}
	if got := root.Agents[1].Uses[0].DeferredTools(); len(got) != 0 {
		t.Fatalf("another consumer defers %v", got)
	}
}

func TestDeferredRules(t *testing.T) {
	inAgent := func(use func(r *expr.ToolsetExpr)) func() {
		return func() {
			r := records()
			Service("assistant", func() {
				Agent("assistant", "x", func() { use(r) })
			})
		}
	}
	t.Run("Deferred() defers every tool and may repeat", func(t *testing.T) {
		root := mustRun(t, inAgent(func(r *expr.ToolsetExpr) { Use(r, func() { Deferred(); Deferred() }) }))
		if got := root.Agents[0].Uses[0].DeferredTools(); !slices.Equal(got, []string{"lookup", "search", "analyze"}) {
			t.Fatalf("deferred %v", got)
		}
	})
	t.Run("named declarations combine", func(t *testing.T) {
		root := mustRun(t, inAgent(func(r *expr.ToolsetExpr) { Use(r, func() { Deferred("search"); Deferred("analyze") }) }))
		if got := root.Agents[0].Uses[0].DeferredTools(); !slices.Equal(got, []string{"search", "analyze"}) {
			t.Fatalf("deferred %v", got)
		}
	})
	t.Run("empty names are rejected", func(t *testing.T) {
		wantError(t, inAgent(func(r *expr.ToolsetExpr) { Use(r, func() { Deferred("") }) }), "Deferred: a tool name is empty")
	})
	t.Run("duplicates are rejected, also across declarations", func(t *testing.T) {
		wantError(t, inAgent(func(r *expr.ToolsetExpr) { Use(r, func() { Deferred("search"); Deferred("search") }) }), `Deferred: "search" is named twice`)
	})
	t.Run("unknown names are rejected once the tools are known", func(t *testing.T) {
		wantError(t, inAgent(func(r *expr.ToolsetExpr) { Use(r, func() { Deferred("export") }) }), `toolset "records" has no tool "export"`, "lookup, search, analyze")
	})
	t.Run("exact local names only", func(t *testing.T) {
		wantError(t, inAgent(func(r *expr.ToolsetExpr) { Use(r, func() { Deferred("records.search") }) }), `use the tool's local name "search"`)
	})
	t.Run("Deferred() mixed with names is rejected", func(t *testing.T) {
		wantError(t, inAgent(func(r *expr.ToolsetExpr) { Use(r, func() { Deferred(); Deferred("search") }) }), "cannot be combined")
	})
	t.Run("not in a shared Toolset", func(t *testing.T) {
		wantError(t, func() {
			Toolset("records", func() { Deferred() })
		}, "Deferred: must be used in a consumer's Use")
	})
	t.Run("inline toolsets defer their own tools", func(t *testing.T) {
		root := mustRun(t, func() {
			Service("assistant", func() {
				Agent("assistant", "x", func() {
					Use("helpers", func() {
						Tool("answer", "Answer a question")
						Tool("export", "Export the answer")
						Deferred("export")
					})
				})
			})
		})
		u := root.Agents[0].Uses[0]
		if u.Inline == nil || len(u.Inline.Tools) != 2 || !slices.Equal(u.DeferredTools(), []string{"export"}) {
			t.Fatalf("inline use = %+v", u)
		}
	})
}

func TestUseRules(t *testing.T) {
	t.Run("subsetting selects existing tools", func(t *testing.T) {
		wantError(t, func() {
			r := records()
			Service("assistant", func() {
				Agent("assistant", "x", func() { Use(r, func() { Tool("notify") }) })
			})
		}, `has no tool "notify" to select`)
	})
	t.Run("a toolset is used once per agent", func(t *testing.T) {
		wantError(t, func() {
			r := records()
			Service("assistant", func() {
				Agent("assistant", "x", func() { Use(r); Use(r) })
			})
		}, `toolset "records" is used twice`)
	})
	t.Run("agents live in services", func(t *testing.T) {
		wantError(t, func() { Agent("loose", "x") }, `Agent: "loose" must be declared in a Service`)
	})
}
