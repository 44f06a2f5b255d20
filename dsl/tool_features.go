package dsl

import (
	"slices"
	"strings"

	"goa.design/goa/v3/eval"
	goaexpr "goa.design/goa/v3/expr"

	"github.com/quiver-go/quiver/expr"
	"github.com/quiver-go/quiver/tools"
)

// ServerData declares typed output the tool emits for the server only —
// UIs, audit, tool composition — never sent to a model:
// ServerData(kind, schema, description, func() { ... }). kind names the data
// ("metrics.time_series") and is unique per tool; schema is a Goa type, a
// primitive, or a DSL function of Attribute calls, as in Args. The optional
// DSL function sets the audience (AudienceTimeline, the default,
// AudienceInternal or AudienceEvidence), FromMethodResultField and Goa's
// Description.
func ServerData(kind string, schema any, args ...any) {
	tool, ok := eval.Current().(*expr.ToolExpr)
	if !ok {
		eval.ReportError("ServerData: must be used in a Tool")
		return
	}
	if strings.TrimSpace(kind) == "" {
		eval.ReportError("ServerData: the kind is empty: name the data, e.g. \"metrics.time_series\"")
		return
	}
	if tool.ServerDataKind(kind) != nil {
		eval.ReportError("ServerData: kind %q is declared twice in the tool: kinds are unique per tool", kind)
		return
	}
	sd := &expr.ServerDataExpr{Tool: tool, Kind: kind, Audience: tools.AudienceTimeline}
	var fn func()
	for _, a := range args {
		switch v := a.(type) {
		case string:
			sd.Description = v
		case func():
			if fn != nil {
				eval.ReportError("ServerData: %q takes one DSL function", kind)
				return
			}
			fn = v
		default:
			eval.ReportError("ServerData: %q: want a description and a DSL function after the schema, got %T", kind, a)
			return
		}
	}
	if sd.Schema = attribute("ServerData", schema); sd.Schema == nil {
		return
	}
	if obj := goaexpr.AsObject(sd.Schema.Type); sd.Schema.Type == goaexpr.Empty || (obj != nil && len(*obj) == 0) {
		eval.ReportError("ServerData: %q declares an empty schema: describe the data", kind)
		return
	}
	if fn != nil {
		sd.DSLFunc = fn
		eval.Execute(fn, sd)
	}
	tool.ServerData = append(tool.ServerData, sd)
}

// AudienceTimeline marks the current ServerData as persisted and eligible
// for observer-facing projection (UI cards, timelines). It is the default.
func AudienceTimeline() { audience("AudienceTimeline", tools.AudienceTimeline) }

// AudienceInternal marks the current ServerData as a tool-composition
// attachment: neither persisted nor rendered.
func AudienceInternal() { audience("AudienceInternal", tools.AudienceInternal) }

// AudienceEvidence marks the current ServerData as provenance or audit
// references, persisted apart from timeline cards.
func AudienceEvidence() { audience("AudienceEvidence", tools.AudienceEvidence) }

// audience sets the audience of the current ServerData.
func audience(fname string, a tools.Audience) {
	sd, ok := eval.Current().(*expr.ServerDataExpr)
	if !ok {
		eval.ReportError("%s: must be used in a ServerData", fname)
		return
	}
	if prev := sd.Audience; !sd.SetAudience(a) {
		eval.ReportError("%s: the audience of server data %q is already %q: declare one audience", fname, sd.Kind, prev)
	}
}

// FromMethodResultField projects the current ServerData from a field of
// the result of the method the tool is bound to (BindTo).
func FromMethodResultField(name string) {
	sd, ok := eval.Current().(*expr.ServerDataExpr)
	if !ok {
		eval.ReportError("FromMethodResultField: must be used in a ServerData")
		return
	}
	switch {
	case strings.TrimSpace(name) == "":
		eval.ReportError("FromMethodResultField: the field name is empty")
	case sd.FromMethodResultField != "":
		eval.ReportError("FromMethodResultField: server data %q is already projected from %q", sd.Kind, sd.FromMethodResultField)
	default:
		sd.FromMethodResultField = name
	}
}

// BoundedResult declares that the tool's result is a bounded view of a
// larger data set: the tool reports returned, truncated, total and a
// refinement hint, and the runtime projects them into the result the model
// reads, so Return must not declare them. The optional DSL function
// declares paging: Cursor with NextCursor (the model pages with the
// cursor), or ContinueWith (the runtime keeps the cursor).
func BoundedResult(fn ...func()) {
	tool, ok := eval.Current().(*expr.ToolExpr)
	if !ok {
		eval.ReportError("BoundedResult: must be used in a Tool")
		return
	}
	if len(fn) > 1 {
		eval.ReportError("BoundedResult: takes one DSL function")
		return
	}
	if tool.Bounds != nil {
		eval.ReportError("BoundedResult: declared twice in the tool")
		return
	}
	tool.Bounds = &expr.BoundsExpr{Tool: tool}
	if len(fn) == 1 {
		tool.Bounds.DSLFunc = fn[0]
		eval.Execute(fn[0], tool.Bounds)
	}
}

// Cursor names the optional String field of Args that carries the opaque
// cursor of the next page.
func Cursor(field string) {
	pagingField("Cursor", field, func(b *expr.BoundsExpr) *string { return &b.Cursor })
}

// NextCursor names the result field the next page's cursor is projected
// under, for a direct Cursor contract (usually "next_cursor").
func NextCursor(field string) {
	pagingField("NextCursor", field, func(b *expr.BoundsExpr) *string { return &b.NextCursor })
}

// ContinueWith names the tool of the same toolset that continues the
// listing: the runtime keeps the cursor and offers that tool as an action
// without arguments. It excludes NextCursor.
func ContinueWith(tool string) {
	pagingField("ContinueWith", tool, func(b *expr.BoundsExpr) *string { return &b.ContinueWith })
}

// pagingField sets one field of the current BoundedResult, once.
func pagingField(fname, value string, dst func(*expr.BoundsExpr) *string) {
	b, ok := eval.Current().(*expr.BoundsExpr)
	if !ok {
		eval.ReportError("%s: must be used in a BoundedResult", fname)
		return
	}
	p := dst(b)
	switch {
	case strings.TrimSpace(value) == "":
		eval.ReportError("%s: the name is empty", fname)
	case strings.TrimSpace(value) != value:
		eval.ReportError("%s: %q has surrounding spaces", fname, value)
	case *p != "":
		eval.ReportError("%s: declared twice in the BoundedResult (%q, then %q)", fname, *p, value)
	default:
		*p = value
	}
}

// BindTo binds the tool to the Goa service method that implements it:
// BindTo("Method") names a method of the service whose agent declares the
// tool; BindTo("Service", "Method") names a service. Args and Return may
// differ from the method's payload and result: goa gen converts them field
// by field, nested user types, arrays and maps included (the adapters
// package of the toolset, docs/runtime.md), unions (OneOf) of the same
// branches included, and refuses an argument the method payload lacks or a
// required field left unfilled, naming the field's path.
func BindTo(names ...string) {
	tool, ok := eval.Current().(*expr.ToolExpr)
	if !ok {
		eval.ReportError("BindTo: must be used in a Tool")
		return
	}
	if len(names) == 0 || len(names) > 2 {
		eval.ReportError("BindTo: want BindTo(\"Method\") or BindTo(\"Service\", \"Method\"), got %d names", len(names))
		return
	}
	if slices.ContainsFunc(names, func(n string) bool { return strings.TrimSpace(n) == "" }) {
		eval.ReportError("BindTo: a name is empty")
		return
	}
	if tool.Binding != nil {
		eval.ReportError("BindTo: the tool is already bound to %q", tool.Binding.MethodName)
		return
	}
	b := &expr.BindingExpr{MethodName: names[len(names)-1], Location: expr.DesignLocation()}
	if len(names) == 2 {
		b.ServiceName = names[0]
	}
	tool.Binding = b
}

// Inject marks payload fields the runtime fills at execution time, hidden
// from the model. Each must be a required String field of Args. A name
// that reads as a CallMeta field (run_id, session_id, turn_id, tool_call_id,
// parent_tool_call_id, in any casing) is filled from the call's metadata;
// any other name from the run label of that name, which the run must
// supply — and a tool bound with BindTo cannot declare one.
func Inject(fields ...string) {
	tool, ok := eval.Current().(*expr.ToolExpr)
	if !ok {
		eval.ReportError("Inject: must be used in a Tool")
		return
	}
	if len(fields) == 0 {
		eval.ReportError("Inject: name at least one field")
		return
	}
	for _, f := range fields {
		switch {
		case strings.TrimSpace(f) == "":
			eval.ReportError("Inject: a field name is empty")
		case slices.Contains(tool.Inject, f):
			eval.ReportError("Inject: %q is injected twice", f)
		default:
			tool.Inject = append(tool.Inject, f)
		}
	}
}
