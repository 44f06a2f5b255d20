package expr

import (
	"fmt"
	"slices"
	"strings"

	"goa.design/goa/v3/eval"
	goaexpr "goa.design/goa/v3/expr"
)

// AgentExpr is an agent declared in a Goa service.
type AgentExpr struct {
	eval.DSLFunc
	// Name identifies the agent within its service.
	Name string
	// Description says what the agent does.
	Description string
	// Service is the Goa service that declares the agent.
	Service *goaexpr.ServiceExpr
	// Uses are the toolsets the agent consumes, in declaration order.
	Uses []*UseExpr
	// RunPolicy is the agent's run policy, or nil.
	RunPolicy *RunPolicyExpr
}

// EvalName implements eval.Expression.
func (a *AgentExpr) EvalName() string {
	if a.Service == nil {
		return fmt.Sprintf("agent %q", a.Name)
	}
	return fmt.Sprintf("agent %q of service %q", a.Name, a.Service.Name)
}

// SetDescription lets Goa's Description set the agent description.
func (a *AgentExpr) SetDescription(d string) { a.Description = d }

// Validate reports repeated agent names in a service and toolsets used
// twice.
func (a *AgentExpr) Validate() error {
	verr := new(eval.ValidationErrors)
	if a.Name == "" {
		verr.Add(a, "Agent: the name is empty")
	}
	for _, other := range Root.Agents {
		if other != a && other.Service == a.Service && other.Name == a.Name {
			verr.Add(a, "Agent: %q is declared twice in service %q", a.Name, a.Service.Name)
			break
		}
	}
	var used []string
	for _, u := range a.Uses {
		if name := u.ToolsetName(); name != "" {
			if slices.Contains(used, name) {
				verr.Add(a, "Use: toolset %q is used twice by the agent: merge the uses", name)
			}
			used = append(used, name)
		}
	}
	a.validateSources(verr)
	return result(verr)
}

// UseExpr is an agent's consumption of a toolset: a top-level toolset, or
// an inline one.
type UseExpr struct {
	eval.DSLFunc
	// Agent is the consuming agent.
	Agent *AgentExpr
	// Toolset is the consumed top-level toolset (nil for an inline one).
	Toolset *ToolsetExpr
	// Inline is a toolset declared in the Use itself.
	Inline *ToolsetExpr
	// AgentToolset is a reference to another agent's export; once
	// resolved, Toolset is the exported toolset.
	AgentToolset *AgentToolsetExpr
	// Registry is a whole registry consumed by Use(registry).
	Registry *RegistryExpr
	// Subset selects tools of a top-level toolset by name (nil: all).
	Subset []string
	// DeferAll is set by Deferred() without names.
	DeferAll bool
	// Deferred are the names given to Deferred(...), in order, across
	// every Deferred call of the use.
	Deferred []string
	// deferredCalls counts Deferred calls with and without names, to
	// reject mixing them.
	namedCalls, allCalls int
	// errors recorded while the DSL ran, reported by Validate.
	errs []string
}

// EvalName implements eval.Expression.
func (u *UseExpr) EvalName() string {
	if u.Registry != nil {
		return fmt.Sprintf("use of registry %q by %s", u.Registry.Name, u.Agent.EvalName())
	}
	return fmt.Sprintf("use of toolset %q by %s", u.ToolsetName(), u.Agent.EvalName())
}

// ToolsetName returns the consumed toolset's name.
func (u *UseExpr) ToolsetName() string {
	switch {
	case u.Toolset != nil:
		return u.Toolset.Name
	case u.Inline != nil:
		return u.Inline.Name
	case u.AgentToolset != nil:
		return u.AgentToolset.ToolsetName
	}
	return ""
}

// Consumed returns the consumed toolset.
func (u *UseExpr) Consumed() *ToolsetExpr {
	if u.Toolset != nil {
		return u.Toolset
	}
	return u.Inline
}

// AddDeferred records one Deferred call: no names selects every tool of
// the use; names select those tools.
func (u *UseExpr) AddDeferred(names []string) {
	if len(names) == 0 {
		u.allCalls++
		u.DeferAll = true
		return
	}
	u.namedCalls++
	for _, n := range names {
		switch {
		case strings.TrimSpace(n) == "":
			u.errs = append(u.errs, "Deferred: a tool name is empty")
		case slices.Contains(u.Deferred, n):
			u.errs = append(u.errs, fmt.Sprintf("Deferred: %q is named twice", n))
		default:
			u.Deferred = append(u.Deferred, n)
		}
	}
}

// Validate enforces the Deferred rules of seed 000 once the toolset's full
// tool list is known: names must be the exact local names of its tools,
// and Deferred() cannot be combined with named selections in one use.
func (u *UseExpr) Validate() error {
	verr := new(eval.ValidationErrors)
	for _, e := range u.errs {
		verr.Add(u, "%s", e)
	}
	if u.allCalls > 0 && u.namedCalls > 0 {
		verr.Add(u, "Deferred: Deferred() defers every tool of the use and cannot be combined with Deferred(names...) in the same Use")
	}
	if u.validateRegistryUse(verr) {
		return result(verr)
	}
	ts := u.Consumed()
	if ts == nil && u.AgentToolset != nil {
		return result(verr) // the unresolved reference reports itself
	}
	if ts == nil {
		verr.Add(u, "Use: no toolset given")
		return result(verr)
	}
	for _, n := range u.Subset {
		if ts.Tool(n) == nil {
			verr.Add(u, "Use: toolset %q has no tool %q to select (its tools: %s)", ts.Name, n, strings.Join(ts.ToolNames(), ", "))
		}
	}
	for _, n := range u.Deferred {
		if ts.Tool(n) != nil {
			continue
		}
		if i := strings.LastIndex(n, "."); i >= 0 && ts.Tool(n[i+1:]) != nil {
			verr.Add(u, "Deferred: %q: use the tool's local name %q, not a qualified one", n, n[i+1:])
			continue
		}
		verr.Add(u, "Deferred: toolset %q has no tool %q (its tools: %s)", ts.Name, n, strings.Join(ts.ToolNames(), ", "))
	}
	return result(verr)
}

// DeferredTools returns the local names of the tools this use defers.
func (u *UseExpr) DeferredTools() []string {
	ts := u.Consumed()
	if ts == nil {
		return nil
	}
	if u.DeferAll {
		return ts.ToolNames()
	}
	return slices.Clone(u.Deferred)
}
