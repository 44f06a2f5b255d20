package expr

import (
	"fmt"
	"slices"

	"goa.design/goa/v3/eval"

	"github.com/quiver-go/quiver/tools"
)

// ToolsetExpr is a toolset: a top-level Toolset, or one declared inline by
// Use("name", func(){...}).
type ToolsetExpr struct {
	eval.DSLFunc
	// Name is the toolset name (may contain dots: "docs.search").
	Name string
	// Description says what the toolset offers.
	Description string
	// Tags are inherited by every tool of the toolset.
	Tags []string
	// Tools are the toolset's tools, in declaration order.
	Tools []*ToolExpr
	// Inline is set for a toolset declared inside a Use.
	Inline bool
	// Provider is set for a toolset declared with FromMCP, FromExternalMCP
	// or FromRegistry (nil: its tools are declared locally).
	Provider *ProviderExpr
	// Version pins the published version of a FromRegistry toolset
	// (Goa's Version).
	Version string
}

// EvalName implements eval.Expression.
func (t *ToolsetExpr) EvalName() string { return fmt.Sprintf("toolset %q", t.Name) }

// SetDescription lets Goa's Description set the toolset description.
func (t *ToolsetExpr) SetDescription(d string) { t.Description = d }

// Tool returns the tool of that local name.
func (t *ToolsetExpr) Tool(name string) *ToolExpr {
	for _, tool := range t.Tools {
		if tool.Name == name {
			return tool
		}
	}
	return nil
}

// ToolNames returns the local tool names, in declaration order.
func (t *ToolsetExpr) ToolNames() []string {
	names := make([]string, len(t.Tools))
	for i, tool := range t.Tools {
		names[i] = tool.Name
	}
	return names
}

// Validate reports an invalid toolset name and repeated tool names.
func (t *ToolsetExpr) Validate() error {
	verr := new(eval.ValidationErrors)
	if _, err := tools.NewIdent(t.Name, "x"); err != nil {
		verr.Add(t, "Toolset: invalid name %q: use letters, digits, _ and -, with dots only between parts (\"docs.search\")", t.Name)
	}
	var seen []string
	for _, tool := range t.Tools {
		if slices.Contains(seen, tool.Name) {
			verr.Add(t, "Tool: %q is declared twice in the toolset", tool.Name)
		}
		seen = append(seen, tool.Name)
	}
	t.validateProvider(verr)
	return result(verr)
}
