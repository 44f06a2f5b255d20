package dsl

import (
	"fmt"
	"strings"

	"goa.design/goa/v3/eval"
	goaexpr "goa.design/goa/v3/expr"

	"github.com/quiver-go/quiver/expr"
	"github.com/quiver-go/quiver/tools"
)

// Toolset declares a provider-owned toolset at the top level of a design.
// Agents consume it with Use; its tags are inherited by its tools. Its
// arguments are a name, a provider option and a DSL function, each
// optional in that order: Toolset("docs", func() { Tool(...) }),
// Toolset(FromMCP("assistant", "assistant-mcp")), Toolset("remote-search",
// FromExternalMCP("remote", "search"), func() { Tool(...) }),
// Toolset(FromRegistry(Corp, "data-tools"), func() { Version("1.2.3") }).
// A toolset with a provider option is named after the provider's toolset
// unless a name comes first.
func Toolset(args ...any) *expr.ToolsetExpr {
	ts, ok := toolsetArgs(args)
	if !ok {
		return nil
	}
	if _, top := eval.Current().(eval.TopExpr); !top {
		eval.ReportError("Toolset: %q must be declared at the top level of the design; declare an agent-local toolset with Use(%q, func() { ... })", ts.Name, ts.Name)
		return nil
	}
	expr.Root.Toolsets = append(expr.Root.Toolsets, ts)
	return ts
}

// Tool declares a tool of the current toolset: Tool(name, description,
// func() { ... }). Inside a Use of a top-level toolset, Tool(name) alone
// selects that tool of the toolset instead. Inside a Method of a service
// that declares MCP, Tool(name, description) exposes the method as an MCP
// tool whose schemas are the method's payload and result.
func Tool(name string, args ...any) {
	var (
		desc string
		fn   func()
	)
	for _, a := range args {
		switch v := a.(type) {
		case string:
			desc = v
		case func():
			fn = v
		default:
			eval.ReportError("Tool: %q: want a description and a DSL function, got %T", name, a)
			return
		}
	}
	var ts *expr.ToolsetExpr
	switch cur := eval.Current().(type) {
	case *expr.ToolsetExpr:
		ts = cur
	case *goaexpr.MethodExpr:
		methodTool(cur, name, desc, fn)
		return
	case *expr.UseExpr:
		if reg := cur.SourceRegistry(); reg != nil && (desc != "" || fn != nil) {
			eval.ReportError("Tool: %q: registry %q resolves its tools at run time and its provider owns their definitions: a registry reference declares no tools inline", name, reg.Name)
			return
		}
		if cur.Inline == nil {
			if desc != "" || fn != nil {
				eval.ReportError("Tool: %q: a Use of toolset %q selects its tools by name only; declare tools in the toolset", name, cur.ToolsetName())
				return
			}
			cur.Subset = append(cur.Subset, name)
			return
		}
		ts = cur.Inline
	case *expr.ExportExpr:
		if cur.Inline == nil {
			eval.ReportError("Tool: %q: an Export of toolset %q exports its tools as declared; declare tools in the toolset, or export an inline toolset with Export(\"name\", func() { ... })", name, cur.Name())
			return
		}
		ts = cur.Inline
	default:
		eval.ReportError("Tool: %q must be declared in a Toolset, an inline Use or an inline Export", name)
		return
	}
	tool := &expr.ToolExpr{Toolset: ts, Name: name, Description: desc}
	if fn != nil {
		tool.DSLFunc = fn
	}
	ts.Tools = append(ts.Tools, tool)
}

// Args defines the payload the model sends: a DSL function of Attribute
// calls, a Goa type, or a primitive; as Goa's Payload does.
func Args(val any, args ...any) {
	tool, ok := eval.Current().(*expr.ToolExpr)
	if !ok {
		eval.ReportError("Args: must be used in a Tool")
		return
	}
	tool.Args = attribute("Args", val, args...)
}

// Return defines the result the model reads, like Args: a tool's result,
// or a Completion's.
func Return(val any, args ...any) {
	switch cur := eval.Current().(type) {
	case *expr.ToolExpr:
		cur.Return = attribute("Return", val, args...)
	case *expr.CompletionExpr:
		cur.Return = attribute("Return", val, args...)
	default:
		eval.ReportError("Return: must be used in a Tool or a Completion")
	}
}

// attribute builds an attribute from a DSL function, a type, or a type and
// a DSL function, like Goa's method payloads.
func attribute(fname string, val any, args ...any) *goaexpr.AttributeExpr {
	var att *goaexpr.AttributeExpr
	var fn func()
	switch v := val.(type) {
	case func():
		att, fn = &goaexpr.AttributeExpr{Type: &goaexpr.Object{}}, v
	case goaexpr.UserType:
		att = &goaexpr.AttributeExpr{Type: v}
		if len(args) > 0 {
			att.Type = goaexpr.Dup(v)
		}
	case goaexpr.DataType:
		att = &goaexpr.AttributeExpr{Type: v}
	default:
		eval.ReportError("%s: want a type or a DSL function, got %T", fname, val)
		return nil
	}
	for _, a := range args {
		switch v := a.(type) {
		case string:
			att.Description = v
		case func():
			if fn != nil {
				eval.ReportError("%s: give one DSL function", fname)
				return nil
			}
			fn = v
		default:
			eval.ReportError("%s: unexpected argument %T", fname, a)
			return nil
		}
	}
	if fn != nil {
		eval.Execute(fn, att)
	}
	return att
}

// Tags attaches flat labels to a tool or a toolset (a toolset's tags are
// inherited by its tools) for policy filtering.
func Tags(values ...string) {
	switch cur := eval.Current().(type) {
	case *expr.ToolExpr:
		cur.Tags = append(cur.Tags, values...)
	case *expr.ToolsetExpr:
		cur.Tags = append(cur.Tags, values...)
	case *expr.ExportExpr:
		cur.AddTags(values...)
	default:
		eval.ReportError("Tags: must be used in a Tool, a Toolset or an Export")
	}
}

// Keywords adds search terms a user would say that the tool's description
// lacks.
func Keywords(values ...string) {
	tool, ok := eval.Current().(*expr.ToolExpr)
	if !ok {
		eval.ReportError("Keywords: must be used in a Tool")
		return
	}
	tool.Keywords = append(tool.Keywords, values...)
}

// Exposure sets a tool's MCP scope tier, spelled as package tools spells
// it (and as the keys file of quiver serve does): "read_only" (
// tools.ExposureReadOnly), "staging", "full" or "excluded". Any other
// value is a design error; the short spellings of earlier releases
// ("read", "stage") are refused with the canonical one they meant.
func Exposure(tier string) {
	tool, ok := eval.Current().(*expr.ToolExpr)
	if !ok {
		eval.ReportError("Exposure: must be used in a Tool")
		return
	}
	e := tools.Exposure(tier)
	if e == "" || !e.Valid() {
		eval.ReportError("Exposure: %q is not a tier:%s want %q, %q, %q or %q", tier, exposureHint(tier),
			tools.ExposureReadOnly, tools.ExposureStaging, tools.ExposureFull, tools.ExposureExcluded)
		return
	}
	tool.Exposure = e
}

// exposureHint returns " did you mean …?" for a spelling of a tier that
// is not the canonical one (another case, a hyphen, an abbreviation), and
// "" when tier resembles none.
func exposureHint(tier string) string {
	var want tools.Exposure
	switch strings.NewReplacer("-", "_", " ", "_").Replace(strings.ToLower(strings.TrimSpace(tier))) {
	case "read", "readonly", "read_only":
		want = tools.ExposureReadOnly
	case "stage", "staged", "staging":
		want = tools.ExposureStaging
	case "full":
		want = tools.ExposureFull
	case "exclude", "excluded":
		want = tools.ExposureExcluded
	default:
		return ""
	}
	return fmt.Sprintf(" did you mean %q?", want)
}

// TerminalRun marks a tool whose success ends the run without another
// planner turn; terminal tools are bookkeeping.
func TerminalRun() {
	tool, ok := eval.Current().(*expr.ToolExpr)
	if !ok {
		eval.ReportError("TerminalRun: must be used in a Tool")
		return
	}
	tool.TerminalRun = true
}

// Bookkeeping marks a control record whose calls cost no tool-call budget.
func Bookkeeping() {
	tool, ok := eval.Current().(*expr.ToolExpr)
	if !ok {
		eval.ReportError("Bookkeeping: must be used in a Tool")
		return
	}
	tool.Bookkeeping = true
}
