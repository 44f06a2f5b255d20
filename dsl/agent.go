package dsl

import (
	"goa.design/goa/v3/eval"
	goaexpr "goa.design/goa/v3/expr"

	"github.com/quiver-go/quiver/expr"
)

// Agent declares an LLM agent in a Goa service: Agent(name, description,
// func() { ... }) or Agent(name, func() { ... }).
func Agent(name string, args ...any) *expr.AgentExpr {
	svc, ok := eval.Current().(*goaexpr.ServiceExpr)
	if !ok {
		eval.ReportError("Agent: %q must be declared in a Service", name)
		return nil
	}
	a := &expr.AgentExpr{Name: name, Service: svc}
	for _, arg := range args {
		switch v := arg.(type) {
		case string:
			a.Description = v
		case func():
			a.DSLFunc = v
		default:
			eval.ReportError("Agent: %q: want a description and a DSL function, got %T", name, arg)
			return nil
		}
	}
	expr.Root.Agents = append(expr.Root.Agents, a)
	return a
}

// Use declares that the current agent consumes a toolset: a top-level
// Toolset (optionally selecting tools with Tool(name) and deferring some
// with Deferred), another agent's export named by AgentToolset, a whole
// Registry (its tools resolved at run time; Deferred() defers them all), or
// an agent-local toolset declared inline with Use("name", func() { Tool(...) }).
func Use(value any, fn ...func()) {
	a, ok := eval.Current().(*expr.AgentExpr)
	if !ok {
		eval.ReportError("Use: must be used in an Agent")
		return
	}
	if len(fn) > 1 {
		eval.ReportError("Use: takes one DSL function")
		return
	}
	u := &expr.UseExpr{Agent: a}
	switch v := value.(type) {
	case *expr.ToolsetExpr:
		if v == nil {
			eval.ReportError("Use: the toolset is nil (was it declared with Toolset at the top level?)")
			return
		}
		u.Toolset = v
	case string:
		if len(fn) == 0 {
			eval.ReportError("Use: %q: an inline toolset needs a DSL function declaring its tools", v)
			return
		}
		u.Inline = &expr.ToolsetExpr{Name: v, Inline: true}
	case *expr.AgentToolsetExpr:
		if v == nil {
			return // AgentToolset reported why
		}
		v.Use, u.AgentToolset = u, v
	case *expr.RegistryExpr:
		if v == nil {
			eval.ReportError("Use: the registry is nil (was it declared with Registry at the top level?)")
			return
		}
		u.Registry = v
	default:
		eval.ReportError("Use: want a Toolset, an AgentToolset, a Registry or the name of an inline toolset, got %T", value)
		return
	}
	if len(fn) == 1 {
		u.DSLFunc = fn[0]
	}
	a.Uses = append(a.Uses, u)
}

// Deferred chooses tools of the current Use that the model finds by search
// instead of seeing them up front: Deferred() defers every tool of the use;
// Deferred("search", "analyze") defers those (exact local names). Calls
// combine; the choice belongs to this consumer only.
func Deferred(names ...string) {
	u, ok := eval.Current().(*expr.UseExpr)
	if !ok {
		eval.ReportError("Deferred: must be used in a consumer's Use, never in a shared Toolset or an Export: deferral belongs to the agent that consumes the tools")
		return
	}
	u.AddDeferred(names)
}
