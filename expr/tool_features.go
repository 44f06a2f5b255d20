package expr

import (
	"fmt"
	"slices"
	"text/template"

	"goa.design/goa/v3/eval"
	goaexpr "goa.design/goa/v3/expr"

	"github.com/quiver-go/quiver/tools"
)

// TemplateExpr is a Go text/template declared in the design: a hint
// template of a tool or a template of its Confirmation.
type TemplateExpr struct {
	// Func is the DSL function that declared it ("CallHintTemplate").
	Func string
	// Text is the template source.
	Text string
	// Location is where Func was called in the design.
	Location Location
}

// Source returns the template text, or "" for a nil template.
func (t *TemplateExpr) Source() string {
	if t == nil {
		return ""
	}
	return t.Text
}

// Parse parses the template as the runtime does (tools.ParseTemplate).
func (t *TemplateExpr) Parse() (*template.Template, error) {
	return tools.ParseTemplate(t.Func, t.Text)
}

// ServerDataExpr is one ServerData declaration of a tool: typed output
// kept on the server, never sent to a model.
type ServerDataExpr struct {
	// DSLFunc is the optional DSL of the declaration (audience, source).
	eval.DSLFunc
	// Tool is the declaring tool.
	Tool *ToolExpr
	// Kind identifies the data, e.g. "metrics.time_series"; unique per
	// tool.
	Kind string
	// Description says what the data is for.
	Description string
	// Audience routes the data downstream; AudienceTimeline by default.
	Audience tools.Audience
	// Schema describes the data.
	Schema *goaexpr.AttributeExpr
	// FromMethodResultField names the field of the bound method's result
	// the data is projected from, or "".
	FromMethodResultField string
	// audienceSet records an explicit Audience call, to reject a second.
	audienceSet bool
}

// EvalName implements eval.Expression.
func (s *ServerDataExpr) EvalName() string {
	return fmt.Sprintf("server data %q of %s", s.Kind, s.Tool.EvalName())
}

// SetDescription lets Goa's Description describe the server data.
func (s *ServerDataExpr) SetDescription(d string) { s.Description = d }

// SetAudience sets the audience once; it reports false when an explicit
// audience was already set to another value.
func (s *ServerDataExpr) SetAudience(a tools.Audience) bool {
	if s.audienceSet && s.Audience != a {
		return false
	}
	s.Audience, s.audienceSet = a, true
	return true
}

// BoundsExpr is a tool's BoundedResult contract: its result is a bounded
// view of a larger data set, with optional paging.
type BoundsExpr struct {
	// DSLFunc is the optional DSL declaring the paging fields.
	eval.DSLFunc
	// Tool is the bounded tool.
	Tool *ToolExpr
	// Cursor is the optional String field of Args carrying the opaque
	// next-page cursor, or "".
	Cursor string
	// NextCursor is the result field the next page's cursor is projected
	// under (a direct Cursor contract), or "".
	NextCursor string
	// ContinueWith is the local name of the tool of the same toolset that
	// continues the listing with a cursor the runtime keeps, or "".
	ContinueWith string
}

// EvalName implements eval.Expression.
func (b *BoundsExpr) EvalName() string {
	return fmt.Sprintf("bounded result of %s", b.Tool.EvalName())
}

// Spec returns the runtime contract of the bounds.
func (b *BoundsExpr) Spec() *tools.BoundsSpec {
	return &tools.BoundsSpec{Cursor: b.Cursor, NextCursor: b.NextCursor, ContinueWith: b.ContinueWith}
}

// BindingExpr is a tool's BindTo: the Goa service method that implements
// it.
type BindingExpr struct {
	// ServiceName is the service as given, "" for BindTo("Method").
	ServiceName string
	// MethodName is the method as given.
	MethodName string
	// Service is the resolved service, set by validation.
	Service *goaexpr.ServiceExpr
	// Method is the resolved method, set by validation.
	Method *goaexpr.MethodExpr
	// Location is where BindTo is called in the design, for the errors of
	// code generation.
	Location Location
}

// ConfirmationExpr requires out-of-band approval before the tool runs.
// Goa's Title sets its title.
type ConfirmationExpr struct {
	// DSLFunc is the DSL declaring the title and templates.
	eval.DSLFunc
	// Tool is the tool needing confirmation.
	Tool *ToolExpr
	// Title is the approval request's title.
	Title string
	// PromptTemplate renders the question shown to the approver, or nil
	// (the runtime then names the tool and its arguments).
	PromptTemplate *TemplateExpr
	// DeniedResultTemplate renders the JSON result the model receives on a
	// denial, or nil (the runtime's default denial).
	DeniedResultTemplate *TemplateExpr
}

// EvalName implements eval.Expression.
func (c *ConfirmationExpr) EvalName() string {
	return fmt.Sprintf("confirmation of %s", c.Tool.EvalName())
}

// SetTitle lets Goa's Title set the confirmation title.
func (c *ConfirmationExpr) SetTitle(s string) { c.Title = s }

// Spec returns the runtime contract of the confirmation.
func (c *ConfirmationExpr) Spec() *tools.ConfirmationSpec {
	return &tools.ConfirmationSpec{
		Title:                c.Title,
		PromptTemplate:       c.PromptTemplate.Source(),
		DeniedResultTemplate: c.DeniedResultTemplate.Source(),
	}
}

// ServerDataKind returns the tool's server data of that kind, or nil.
func (t *ToolExpr) ServerDataKind(kind string) *ServerDataExpr {
	for _, sd := range t.ServerData {
		if sd.Kind == kind {
			return sd
		}
	}
	return nil
}

// InjectedFields returns the tool's injected fields, classified by
// tools.ClassifyInjected, in declaration order. It is derived from Inject:
// nothing else records where a field's value comes from.
func (t *ToolExpr) InjectedFields() []tools.InjectedField {
	if len(t.Inject) == 0 {
		return nil
	}
	out := make([]tools.InjectedField, len(t.Inject))
	for i, name := range t.Inject {
		out[i] = tools.ClassifyInjected(name)
	}
	return out
}

// RequiredLabels returns the run labels the tool needs — the keys of its
// label-backed injected fields — sorted, without repeats. It is derived
// from Inject, never kept by hand.
func (t *ToolExpr) RequiredLabels() []string {
	var out []string
	for _, f := range t.InjectedFields() {
		if f.Source == tools.InjectLabel && !slices.Contains(out, f.Name) {
			out = append(out, f.Name)
		}
	}
	slices.Sort(out)
	return out
}

// RequiredLabels returns the run labels any tool of the toolset needs,
// sorted, without repeats.
func (t *ToolsetExpr) RequiredLabels() []string {
	var out []string
	for _, tool := range t.Tools {
		for _, l := range tool.RequiredLabels() {
			if !slices.Contains(out, l) {
				out = append(out, l)
			}
		}
	}
	slices.Sort(out)
	return out
}
