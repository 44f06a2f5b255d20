package expr

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"text/template"
	"text/template/parse"

	"goa.design/goa/v3/eval"
	goaexpr "goa.design/goa/v3/expr"

	"github.com/quiver-go/quiver/tools"
)

// projectedBoundsFields are the fields the runtime projects into a bounded
// result; the tool's Return must not declare them.
var projectedBoundsFields = [...]string{
	tools.BoundsFieldReturned,
	tools.BoundsFieldTruncated,
	tools.BoundsFieldTotal,
	tools.BoundsFieldRefinementHint,
	tools.BoundsFieldNextCursor,
}

// validateFeatures checks BindTo, ServerData, BoundedResult, Inject,
// OpenArgs, the hint templates and Confirmation once every DSL of the
// design has run, so the toolset's tools and Goa's services are all known.
// BindTo is resolved first: the other checks read the bound method.
func (t *ToolExpr) validateFeatures(verr *eval.ValidationErrors) {
	t.resolveBinding(verr)
	t.validateServerData(verr)
	t.validateBounds(verr)
	t.validateInject(verr)
	t.validateOpenArgs(verr)
	t.validateTemplates(verr)
}

// locateFeature returns e when its DSL function is known (errors then
// point at it), and the tool otherwise.
func (t *ToolExpr) locateFeature(fn eval.DSLFunc, e eval.Expression) eval.Expression {
	if fn != nil {
		return e
	}
	return t
}

// BoundMethod returns the Goa method the tool is bound to, once
// validation has resolved it, or nil.
func (t *ToolExpr) BoundMethod() *goaexpr.MethodExpr {
	if t.Binding == nil {
		return nil
	}
	return t.Binding.Method
}

// resolveBinding finds the service and method named by BindTo: the named
// service, or the service declaring the tool's inline toolset.
func (t *ToolExpr) resolveBinding(verr *eval.ValidationErrors) {
	b := t.Binding
	if b == nil {
		return
	}
	var svc *goaexpr.ServiceExpr
	if b.ServiceName != "" {
		if svc = goaexpr.Root.Service(b.ServiceName); svc == nil {
			verr.Add(t, "BindTo: service %q is not declared in the design (%s)", b.ServiceName, designServiceNames())
			return
		}
	} else {
		if svc = inlineToolsetService(t.Toolset); svc == nil {
			verr.Add(t, "BindTo: %q: toolset %q is declared outside any service: name the service, BindTo(\"<service>\", %q)", b.MethodName, t.Toolset.Name, b.MethodName)
			return
		}
	}
	m := svc.Method(b.MethodName)
	if m == nil {
		names := make([]string, len(svc.Methods))
		for i, m := range svc.Methods {
			names[i] = m.Name
		}
		verr.Add(t, "BindTo: service %q has no method %q (its methods: %s)", svc.Name, b.MethodName, strings.Join(names, ", "))
		return
	}
	b.Service, b.Method = svc, m
}

// inlineToolsetService returns the service declaring ts inline — in an
// agent's Use or in an Export — or nil for a top-level toolset.
func inlineToolsetService(ts *ToolsetExpr) *goaexpr.ServiceExpr {
	if ts == nil || !ts.Inline {
		return nil
	}
	for _, a := range Root.Agents {
		for _, u := range a.Uses {
			if u.Inline == ts {
				return a.Service
			}
		}
	}
	for _, e := range Root.Exports {
		if e.Inline == ts {
			return e.Service
		}
	}
	return nil
}

// designServiceNames lists the design's services for error messages.
func designServiceNames() string {
	if len(goaexpr.Root.Services) == 0 {
		return "the design declares no service"
	}
	names := make([]string, len(goaexpr.Root.Services))
	for i, s := range goaexpr.Root.Services {
		names[i] = s.Name
	}
	return "services: " + strings.Join(names, ", ")
}

// validateServerData checks that FromMethodResultField names a field of the
// bound method's result.
func (t *ToolExpr) validateServerData(verr *eval.ValidationErrors) {
	for _, sd := range t.ServerData {
		f := sd.FromMethodResultField
		if f == "" {
			continue
		}
		at := t.locateFeature(sd.DSLFunc, sd)
		if t.Binding == nil {
			verr.Add(at, "FromMethodResultField: %q: server data %q is projected from a method result, but the tool is not bound to a method: add BindTo", f, sd.Kind)
			continue
		}
		m := t.BoundMethod()
		if m == nil {
			continue // reported by BindTo
		}
		if m.Result == nil || m.Result.Find(f) == nil {
			verr.Add(at, "FromMethodResultField: the result of method %q of service %q has no field %q", m.Name, m.Service.Name, f)
		}
	}
}

// validateBounds enforces the BoundedResult rules: Return leaves the bounds
// fields to the runtime, Cursor names an optional String field of Args,
// NextCursor needs Cursor, ContinueWith excludes NextCursor and names a
// tool of the same toolset that takes the cursor.
func (t *ToolExpr) validateBounds(verr *eval.ValidationErrors) {
	b := t.Bounds
	if b == nil {
		return
	}
	at := t.locateFeature(b.DSLFunc, b)
	fields := projectedBoundsFields[:]
	if b.NextCursor != "" && !slices.Contains(fields, b.NextCursor) {
		fields = append(slices.Clone(fields), b.NextCursor)
	}
	for _, f := range fields {
		if t.Return != nil && t.Return.Find(f) != nil {
			verr.Add(t, "BoundedResult: Return declares %q, a bounds field: the runtime projects it from the bounds the tool reports; remove it from Return", f)
		}
	}
	if m := t.BoundMethod(); m != nil && m.Result != nil {
		for _, f := range fields {
			if f != tools.BoundsFieldReturned && f != tools.BoundsFieldTruncated && m.Result.IsRequired(f) {
				verr.Add(t, "BoundedResult: the result of method %q requires %q: only returned and truncated may be required, the other bounds fields are optional", m.Name, f)
			}
		}
	}
	if b.Cursor != "" {
		checkOptionalStringField(verr, at, "Cursor", b.Cursor, t.Args, "Args", "the first page is requested without a cursor")
	}
	if b.NextCursor != "" {
		if b.Cursor == "" {
			verr.Add(at, "NextCursor: %q needs Cursor: declare the Args field the model sends the cursor back in", b.NextCursor)
		}
		if b.NextCursor != tools.BoundsFieldNextCursor && slices.Contains(projectedBoundsFields[:], b.NextCursor) {
			verr.Add(at, "NextCursor: %q is already a bounds field: use %q", b.NextCursor, tools.BoundsFieldNextCursor)
		}
	}
	if c := b.ContinueWith; c != "" {
		if b.NextCursor != "" {
			verr.Add(at, "ContinueWith: %q cannot be combined with NextCursor: NextCursor gives the cursor to the model, ContinueWith keeps it in the runtime", c)
		}
		t.validatePartner(verr, at, c)
	}
}

// validatePartner checks the ContinueWith tool: a tool of the same toolset
// declaring the optional String field the runtime binds the cursor to
// (its own Cursor, or "cursor").
func (t *ToolExpr) validatePartner(verr *eval.ValidationErrors, at eval.Expression, name string) {
	ts := t.Toolset
	partner := ts.Tool(name)
	if partner == nil {
		if i := strings.LastIndex(name, "."); i >= 0 && ts.Tool(name[i+1:]) != nil {
			verr.Add(at, "ContinueWith: %q: use the tool's local name %q, not a qualified one", name, name[i+1:])
			return
		}
		verr.Add(at, "ContinueWith: toolset %q has no tool %q (its tools: %s)", ts.Name, name, strings.Join(ts.ToolNames(), ", "))
		return
	}
	field := "cursor"
	if partner.Bounds != nil && partner.Bounds.Cursor != "" {
		field = partner.Bounds.Cursor
	}
	what := fmt.Sprintf("Args of %q", name)
	checkOptionalStringField(verr, at, "ContinueWith", field, partner.Args, what, "the model continues without arguments and the runtime binds the cursor")
}

// checkOptionalStringField reports unless att declares name as an optional
// String field; why says why it must be optional.
func checkOptionalStringField(verr *eval.ValidationErrors, at eval.Expression, fn, name string, att *goaexpr.AttributeExpr, what, why string) {
	f := payloadField(att, name)
	switch {
	case f == nil:
		verr.Add(at, "%s: %q is not a field of %s: declare it as an optional String", fn, name, what)
	case !isStringType(f.Type):
		verr.Add(at, "%s: %q must be a String field of %s, not %s", fn, name, what, attrTypeName(f.Type))
	case att.IsRequired(name):
		verr.Add(at, "%s: %q is required in %s: make it optional, %s", fn, name, what, why)
	}
}

// payloadField returns the top-level field name of an object attribute, or nil.
func payloadField(att *goaexpr.AttributeExpr, name string) *goaexpr.AttributeExpr {
	if att == nil || att.Type == nil {
		return nil
	}
	f := att.Find(name)
	if f == nil || f.Type == nil || f.Type == goaexpr.Empty {
		return nil
	}
	return f
}

// isStringType reports whether dt is String or a user type of String.
func isStringType(dt goaexpr.DataType) bool {
	dt = underlying(dt)
	return dt != nil && dt.Kind() == goaexpr.StringKind
}

// underlying returns the type dt stands for once its user types (a chain
// of them) are unwrapped; dt itself when it is no user type.
func underlying(dt goaexpr.DataType) goaexpr.DataType {
	for {
		ut, ok := dt.(goaexpr.UserType)
		if !ok || ut.Attribute() == nil {
			return dt
		}
		dt = ut.Attribute().Type
	}
}

// attrTypeName names a type in error messages.
func attrTypeName(dt goaexpr.DataType) string {
	if dt == nil {
		return "no type"
	}
	return dt.Name()
}

// validateTemplates parses the hint and confirmation templates as the
// runtime will, and checks that a denied result without actions is JSON.
func (t *ToolExpr) validateTemplates(verr *eval.ValidationErrors) {
	parseDesignTemplate(verr, t, t.CallHintTemplate)
	parseDesignTemplate(verr, t, t.ResultHintTemplate)
	c := t.Confirmation
	if c == nil {
		return
	}
	at := t.locateFeature(c.DSLFunc, c)
	parseDesignTemplate(verr, at, c.PromptTemplate)
	if tpl := parseDesignTemplate(verr, at, c.DeniedResultTemplate); tpl != nil {
		if text, static := templateStaticText(tpl); static && !json.Valid([]byte(text)) {
			verr.Add(at, "%s%s: %q is not JSON: the model receives the rendered template as the tool result", c.DeniedResultTemplate.Func, templateWhere(c.DeniedResultTemplate), text)
		}
	}
}

// parseDesignTemplate parses tpl, reporting a parse error with the function that
// declared it and where; it returns the parsed template, or nil.
func parseDesignTemplate(verr *eval.ValidationErrors, at eval.Expression, tpl *TemplateExpr) *template.Template {
	if tpl == nil {
		return nil
	}
	parsed, err := tpl.Parse()
	if err != nil {
		if inner := errors.Unwrap(err); inner != nil {
			err = inner
		}
		verr.Add(at, "%s%s: the template does not parse: %v", tpl.Func, templateWhere(tpl), err)
		return nil
	}
	return parsed
}

// templateWhere returns " at file:line" for a template with a known location.
func templateWhere(tpl *TemplateExpr) string {
	if tpl.Location.File != "" {
		return " at " + tpl.Location.String()
	}
	return ""
}

// templateStaticText returns the text of a template without actions.
func templateStaticText(tpl *template.Template) (string, bool) {
	if tpl.Tree == nil || tpl.Tree.Root == nil {
		return "", true
	}
	var b strings.Builder
	for _, n := range tpl.Tree.Root.Nodes {
		text, ok := n.(*parse.TextNode)
		if !ok {
			return "", false
		}
		b.Write(text.Text)
	}
	return b.String(), true
}

// validateInject enforces the Inject rules: each field is a required String
// of the effective payload (Args, and the bound method's payload when it
// differs), a bound tool injects only CallMeta fields, and the cursor is
// never injected.
func (t *ToolExpr) validateInject(verr *eval.ValidationErrors) {
	if len(t.Inject) == 0 {
		return
	}
	for _, f := range t.InjectedFields() {
		if t.Binding != nil && f.Source == tools.InjectLabel {
			verr.Add(t, "Inject: %q is label-backed (run label %q) and the tool is bound with BindTo: bound tools are served over the registry protocol, which carries no run labels; inject only CallMeta fields (run_id, session_id, turn_id, tool_call_id, parent_tool_call_id)", f.Name, f.Name)
		}
		if t.Bounds != nil && t.Bounds.Cursor == f.Name {
			verr.Add(t, "Inject: %q is also the BoundedResult cursor: the model supplies the cursor", f.Name)
		}
	}
	type shape struct {
		what string
		att  *goaexpr.AttributeExpr
	}
	var shapes []shape
	if t.Args != nil {
		shapes = append(shapes, shape{"Args", t.Args})
	}
	if m := t.BoundMethod(); m != nil && m.Payload != nil && m.Payload.Type != goaexpr.Empty {
		if t.Args == nil || t.Args.Type != m.Payload.Type {
			shapes = append(shapes, shape{fmt.Sprintf("the payload of method %q", m.Name), m.Payload})
		}
	}
	if len(shapes) == 0 {
		if t.Binding != nil && t.Binding.Method == nil {
			return // reported by BindTo
		}
		verr.Add(t, "Inject: %s: the tool has no payload to inject into: declare the fields in Args as required Strings", strings.Join(t.Inject, ", "))
		return
	}
	for _, name := range t.Inject {
		for _, s := range shapes {
			f := payloadField(s.att, name)
			switch {
			case f == nil:
				verr.Add(t, "Inject: %q is not a field of %s: declare it as a required String", name, s.what)
			case !isStringType(f.Type):
				verr.Add(t, "Inject: %q must be a String field of %s, not %s", name, s.what, attrTypeName(f.Type))
			case !s.att.IsRequired(name):
				verr.Add(t, "Inject: %q must be required in %s: the runtime always fills an injected field", name, s.what)
			}
		}
	}
}
