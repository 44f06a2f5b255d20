package expr

import (
	"fmt"
	"slices"
	"strings"

	"goa.design/goa/v3/eval"
	goaexpr "goa.design/goa/v3/expr"
)

// ExportExpr is a toolset an agent or a service exposes to other agents
// (agent-as-tool): a top-level toolset exported as declared, or one declared
// in the Export itself. Other agents consume an agent's exports with
// Use(AgentToolset(service, agent, toolset)).
type ExportExpr struct {
	eval.DSLFunc
	// Agent is the exporting agent; nil for an export of a service.
	Agent *AgentExpr
	// Service is the service that declares the export (the agent's).
	Service *goaexpr.ServiceExpr
	// Toolset is an exported top-level toolset (nil for an inline one).
	Toolset *ToolsetExpr
	// Inline is a toolset declared in the Export.
	Inline *ToolsetExpr
	// Description describes an exported top-level toolset as published
	// (an inline export's description is its toolset's).
	Description string
	// Tags are added to an exported top-level toolset's own when published
	// (an inline export's tags are its toolset's, inherited by its tools).
	Tags []string
	// Passthroughs forward exported tools to Goa service methods, in
	// declaration order.
	Passthroughs []*PassthroughExpr
	// Location is where the Export is declared.
	Location Location
}

// PassthroughExpr forwards an exported tool to a Goa service method,
// bypassing the planner.
type PassthroughExpr struct {
	// Tool is the forwarded tool.
	Tool *ToolExpr
	// ServiceName and MethodName name the target, as declared.
	ServiceName, MethodName string
	// Method is the target, resolved after evaluation.
	Method *goaexpr.MethodExpr
	// Location is where Passthrough is called in the design, for the
	// errors of code generation.
	Location Location
}

// Name returns the exported toolset's name.
func (e *ExportExpr) Name() string {
	if ts := e.Exported(); ts != nil {
		return ts.Name
	}
	return ""
}

// Exported returns the exported toolset.
func (e *ExportExpr) Exported() *ToolsetExpr {
	if e.Toolset != nil {
		return e.Toolset
	}
	return e.Inline
}

// Owner describes the exporting agent or service.
func (e *ExportExpr) Owner() string {
	if e.Agent != nil {
		return e.Agent.EvalName()
	}
	if e.Service != nil {
		return fmt.Sprintf("service %q", e.Service.Name)
	}
	return "the design"
}

// EvalName implements eval.Expression.
func (e *ExportExpr) EvalName() string {
	return fmt.Sprintf("export of toolset %q by %s", e.Name(), e.Owner())
}

// SetDescription lets Goa's Description describe the export.
func (e *ExportExpr) SetDescription(d string) {
	if e.Inline != nil {
		e.Inline.Description = d
		return
	}
	e.Description = d
}

// AddTags records Tags declared in the Export.
func (e *ExportExpr) AddTags(tags ...string) {
	if e.Inline != nil {
		e.Inline.Tags = append(e.Inline.Tags, tags...)
		return
	}
	e.Tags = append(e.Tags, tags...)
}

// PassthroughOnly reports whether every exported tool forwards to a
// service method: such an export never runs its agent.
func (e *ExportExpr) PassthroughOnly() bool {
	ts := e.Exported()
	return ts != nil && len(ts.Tools) > 0 && len(e.Passthroughs) == len(ts.Tools)
}

// Passthrough returns the passthrough of the exported tool of that name.
func (e *ExportExpr) Passthrough(tool string) *PassthroughExpr {
	for _, p := range e.Passthroughs {
		if p.Tool.Name == tool {
			return p
		}
	}
	return nil
}

// Prepare resolves the passthrough targets.
func (e *ExportExpr) Prepare() {
	for _, p := range e.Passthroughs {
		if svc := goaexpr.Root.Service(p.ServiceName); svc != nil {
			p.Method = svc.Method(p.MethodName)
		}
	}
}

// Validate reports empty or repeated exports, repeated tools and
// passthroughs to methods the design lacks.
func (e *ExportExpr) Validate() error {
	verr := new(eval.ValidationErrors)
	at := e.Location.Of(e)
	if e.Inline != nil {
		if len(e.Inline.Tools) == 0 {
			verr.Add(at, "Export: %q declares no tool", e.Inline.Name)
		}
		var seen []string
		for _, tool := range e.Inline.Tools {
			if slices.Contains(seen, tool.Name) {
				verr.Add(at, "Tool: %q is declared twice in export %q", tool.Name, e.Inline.Name)
			}
			seen = append(seen, tool.Name)
		}
	}
	for _, other := range Root.Exports {
		if other == e {
			break
		}
		if other.Agent == e.Agent && other.Service == e.Service && other.Name() == e.Name() {
			verr.Add(at, "Export: toolset %q is exported twice by %s", e.Name(), e.Owner())
			break
		}
	}
	for _, p := range e.Passthroughs {
		if p.Method != nil {
			continue
		}
		svc := goaexpr.Root.Service(p.ServiceName)
		if svc == nil {
			verr.Add(p.Tool, "Passthrough: no service %q in the design", p.ServiceName)
			continue
		}
		names := make([]string, len(svc.Methods))
		for i, m := range svc.Methods {
			names[i] = m.Name
		}
		verr.Add(p.Tool, "Passthrough: service %q has no method %q (its methods: %s)", p.ServiceName, p.MethodName, strings.Join(names, ", "))
	}
	return result(verr)
}

// ExportDeclaring returns the export whose inline toolset is ts, or nil.
func (r *RootExpr) ExportDeclaring(ts *ToolsetExpr) *ExportExpr {
	for _, e := range r.Exports {
		if e.Inline != nil && e.Inline == ts {
			return e
		}
	}
	return nil
}

// Exports returns the toolsets the agent exports, in declaration order.
func (a *AgentExpr) Exports() []*ExportExpr {
	var out []*ExportExpr
	for _, e := range Root.Exports {
		if e.Agent == a {
			out = append(out, e)
		}
	}
	return out
}

// Export returns the agent's export of the toolset of that name, or nil.
func (a *AgentExpr) Export(name string) *ExportExpr {
	for _, e := range a.Exports() {
		if e.Name() == name {
			return e
		}
	}
	return nil
}
