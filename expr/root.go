package expr

import (
	"goa.design/goa/v3/eval"
	goaexpr "goa.design/goa/v3/expr"
)

// Root is the root of the design being evaluated. Like Goa's own root it is
// package state that the DSL functions fill; Reset empties it.
var Root = &RootExpr{}

// RootExpr holds every expression of a design.
type RootExpr struct {
	// Toolsets are the toolsets declared at the top level of the design,
	// in declaration order.
	Toolsets []*ToolsetExpr
	// Agents are the agents declared in services.
	Agents []*AgentExpr
	// Registries are the registries declared at the top level.
	Registries []*RegistryExpr
	// MCPServers are the MCP servers of Goa services.
	MCPServers []*MCPExpr
	// Publications are the PublishTo declarations of exports.
	Publications []*PublicationExpr
	// Warnings are what code generation prints about the declarations it
	// does not generate code for yet; filled once the design validated.
	Warnings []string
	// Exports are the toolsets agents and services export, in declaration
	// order.
	Exports []*ExportExpr
	// Completions are the typed completions services declare.
	Completions []*CompletionExpr
	// DisableAgentDocs turns off AGENTS_QUICKSTART.md (set in Goa's API).
	DisableAgentDocs bool
}

// Reset empties the root, for tests that evaluate several designs.
func Reset() { Root = &RootExpr{} }

// EvalName implements eval.Expression.
func (*RootExpr) EvalName() string { return "quiver design" }

// DependsOn makes Goa's root run first: agents live in Goa services.
func (*RootExpr) DependsOn() []eval.Root { return []eval.Root{goaexpr.Root} }

// Packages lists the packages whose stack frames error locations skip, so
// errors point at the design file.
func (*RootExpr) Packages() []string {
	return []string{"github.com/quiver-go/quiver/expr", "github.com/quiver-go/quiver/dsl"}
}

// WalkSets hands the engine the expressions in the order their DSL must
// run: registries, MCP servers and publications, then toolsets, then their
// tools, then agents, then agent uses.
func (r *RootExpr) WalkSets(walk eval.SetWalker) {
	walk(eval.ToExpressionSet(r.Registries))
	walk(eval.ToExpressionSet(r.MCPServers))
	walk(eval.ToExpressionSet(r.Publications))
	// Warnings about code generation gaps come last, once all is final.
	defer walk(eval.ExpressionSet{&pendingCodegen{root: r}})
	walk(eval.ToExpressionSet(r.Toolsets))
	var tools []*ToolExpr
	for _, ts := range r.Toolsets {
		tools = append(tools, ts.Tools...)
	}
	walk(eval.ToExpressionSet(tools))
	walk(eval.ToExpressionSet(r.Agents))
	var uses []*UseExpr
	var inline []*ToolExpr
	for _, a := range r.Agents {
		uses = append(uses, a.Uses...)
	}
	walk(eval.ToExpressionSet(uses))
	for _, u := range uses {
		if u.Inline != nil {
			inline = append(inline, u.Inline.Tools...)
		}
	}
	walk(eval.ToExpressionSet(inline))
	r.walkAdditions(walk)
}

// Toolset returns the top-level toolset of that name.
func (r *RootExpr) Toolset(name string) *ToolsetExpr {
	for _, ts := range r.Toolsets {
		if ts.Name == name {
			return ts
		}
	}
	return nil
}
