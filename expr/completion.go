package expr

import (
	"fmt"

	"goa.design/goa/v3/eval"
	goaexpr "goa.design/goa/v3/expr"

	"github.com/quiver-go/quiver/model"
)

// MaxCompletionName is the longest completion name, in bytes: a
// completion's name is the name of the structured output its requests
// carry, so it follows [model.MaxStructuredOutputName].
const MaxCompletionName = model.MaxStructuredOutputName

// CompletionExpr is a typed direct-output contract a service owns: the
// assistant answers with its Return type instead of calling a tool.
// Generated code decodes and validates the model's final answer against it.
type CompletionExpr struct {
	eval.DSLFunc
	// Name is the completion's name, part of the structured-output
	// contract: see ValidCompletionName.
	Name string
	// Description says what the completion produces.
	Description string
	// Service is the Goa service that owns the completion.
	Service *goaexpr.ServiceExpr
	// Return is the result the model produces; required.
	Return *goaexpr.AttributeExpr
	// Location is where the Completion is declared.
	Location Location
}

// EvalName implements eval.Expression.
func (c *CompletionExpr) EvalName() string {
	if c.Service == nil {
		return fmt.Sprintf("completion %q", c.Name)
	}
	return fmt.Sprintf("completion %q of service %q", c.Name, c.Service.Name)
}

// SetDescription lets Goa's Description describe the completion.
func (c *CompletionExpr) SetDescription(d string) { c.Description = d }

// ValidCompletionName reports whether name is a completion name: 1 to 64
// ASCII letters, digits, '_' and '-', starting with a letter or a digit.
// It is [model.ValidStructuredOutputName]: the design refuses the names
// the model request would.
func ValidCompletionName(name string) bool { return model.ValidStructuredOutputName(name) }

// Validate reports an invalid or repeated name and a missing Return.
func (c *CompletionExpr) Validate() error {
	verr := new(eval.ValidationErrors)
	at := c.Location.Of(c)
	if !ValidCompletionName(c.Name) {
		verr.Add(at, "Completion: invalid name %q: completion names are 1 to %d ASCII letters, digits, _ and -, starting with a letter or a digit", c.Name, MaxCompletionName)
	}
	for _, other := range Root.Completions {
		if other == c {
			break
		}
		if other.Service == c.Service && other.Name == c.Name {
			verr.Add(at, "Completion: %q is declared twice in service %q", c.Name, c.Service.Name)
			break
		}
	}
	if c.Return == nil {
		verr.Add(at, "Completion: %q declares no Return: the completion's result type is its contract", c.Name)
	}
	return result(verr)
}

// Completion returns the completion of that name in the service, or nil.
func (r *RootExpr) Completion(service, name string) *CompletionExpr {
	for _, c := range r.Completions {
		if c.Service != nil && c.Service.Name == service && c.Name == name {
			return c
		}
	}
	return nil
}

// walkAdditions hands the engine the expressions declared by RunPolicy,
// Export, AgentToolset and Completion, after the agents and their uses:
// run policies, exports, the tools of inline exports, agent-toolset
// references, completions.
func (r *RootExpr) walkAdditions(walk eval.SetWalker) {
	var policies []*RunPolicyExpr
	for _, a := range r.Agents {
		if a.RunPolicy != nil {
			policies = append(policies, a.RunPolicy)
		}
	}
	walk(eval.ToExpressionSet(policies))
	walk(eval.ToExpressionSet(r.Exports))
	var tools []*ToolExpr
	for _, e := range r.Exports {
		if e.Inline != nil {
			tools = append(tools, e.Inline.Tools...)
		}
	}
	walk(eval.ToExpressionSet(tools))
	var refs []*AgentToolsetExpr
	for _, a := range r.Agents {
		for _, u := range a.Uses {
			if u.AgentToolset != nil {
				refs = append(refs, u.AgentToolset)
			}
		}
	}
	walk(eval.ToExpressionSet(refs))
	walk(eval.ToExpressionSet(r.Completions))
}
