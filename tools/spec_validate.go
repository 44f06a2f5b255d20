package tools

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrInvalidSpec is matched ([errors.Is]) by every *SpecError.
var ErrInvalidSpec = errors.New("tools: invalid tool spec")

// SpecError lists every problem of an invalid [ToolSpec]. [errors.Is] also
// reaches the problems (for example [ErrInvalidIdent]).
type SpecError struct {
	// Tool is the spec's name as given.
	Tool Ident
	// Problems lists each problem, each saying how to fix it.
	Problems []error
}

// Error returns a header naming the tool, then one problem per line.
func (e *SpecError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "tools: invalid tool spec %q:", e.Tool)
	for _, p := range e.Problems {
		b.WriteString("\n  - ")
		b.WriteString(p.Error())
	}
	return b.String()
}

// Is reports whether target is [ErrInvalidSpec].
func (e *SpecError) Is(target error) bool { return target == ErrInvalidSpec }

// Unwrap returns the problems.
func (e *SpecError) Unwrap() []error { return e.Problems }

// Validate reports every problem of s in one *SpecError: an invalid ident, an
// empty title, empty or repeated tags and labels, uncompiled schemas, server
// data without kind or with an unknown audience, inconsistent bounds,
// templates that do not parse, injected fields that disagree with
// [ClassifyInjected] or show in the model-facing payload, and a search
// document that is invalid or not keyed by the ident.
func (s ToolSpec) Validate() error {
	var ps problems
	if err := s.Name.Validate(); err != nil {
		ps.add(err)
	}
	if strings.TrimSpace(s.Title) == "" {
		ps.addf(`title is empty: supply a short human title such as "Search documents"`)
	}
	ps.list("tag", s.Tags)
	ps.list("required label", s.RequiredLabels)
	for _, k := range metaKeys(s.Meta) {
		if strings.TrimSpace(k) == "" {
			ps.addf("meta has an empty key: name every annotation")
		}
	}
	ps.typeSpec("payload", s.Payload)
	ps.typeSpec("result", s.Result)
	kinds := make(map[string]bool, len(s.ServerData))
	for i, d := range s.ServerData {
		switch {
		case strings.TrimSpace(d.Kind) == "":
			ps.addf("server data %d: kind is empty: name it, e.g. \"metrics.time_series\"", i)
		case kinds[d.Kind]:
			ps.addf("server data %q is declared twice: kinds must be unique per tool", d.Kind)
		}
		kinds[d.Kind] = true
		if !d.Audience.Valid() {
			ps.addf("server data %q: audience %q is unknown: use %q, %q or %q", d.Kind, d.Audience, AudienceTimeline, AudienceInternal, AudienceEvidence)
		}
		ps.typeSpec(fmt.Sprintf("server data %q", d.Kind), d.Schema)
	}
	if s.Bounds != nil {
		for _, p := range s.Bounds.problems() {
			ps.addf("%s", p)
		}
		s.cursorProblems(&ps)
	}
	if c := s.Confirmation; c != nil {
		ps.template("confirmation prompt template", c.PromptTemplate)
		ps.template("confirmation denied result template", c.DeniedResultTemplate)
	}
	ps.template("call hint template", s.CallHintTemplate)
	ps.template("result hint template", s.ResultHintTemplate)
	s.injectProblems(&ps)
	if err := s.Search.Validate(); err != nil {
		ps.add(err)
	} else if s.Search.Name != string(s.Name) {
		ps.addf("search document is keyed %q, not by the ident %q: rebuild it from SearchSource", s.Search.Name, s.Name)
	}
	if !s.Exposure.Valid() {
		ps.addf("exposure %q is unknown: use %q, %q, %q, %q or leave it empty", s.Exposure, ExposureReadOnly, ExposureStaging, ExposureFull, ExposureExcluded)
	}
	if len(ps) == 0 {
		return nil
	}
	return &SpecError{Tool: s.Name, Problems: ps}
}

// cursorProblems checks the bounds cursor against the payload schema.
func (s ToolSpec) cursorProblems(ps *problems) {
	c := s.Bounds.Cursor
	if c == "" {
		return
	}
	if len(s.Payload.Schema) == 0 {
		ps.addf("bounds: cursor field %q needs a payload schema that declares it", c)
		return
	}
	if !s.Payload.Compiled() {
		return // reported as an uncompiled payload
	}
	p := s.Payload.Property(c)
	switch {
	case !p.Declared:
		ps.addf("bounds: cursor field %q is not a top-level property of the payload schema: declare it as an optional string", c)
	case p.Required:
		ps.addf("bounds: cursor field %q is required by the payload schema: make it optional, the first page is requested without it", c)
	case p.Types != nil && !slices.Contains(p.Types, "string"):
		ps.addf("bounds: cursor field %q must be a string, not %s", c, strings.Join(p.Types, " or "))
	}
}

// injectProblems checks the injected fields.
func (s ToolSpec) injectProblems(ps *problems) {
	seen := make(map[string]bool, len(s.Inject))
	for _, f := range s.Inject {
		if f.Name == "" {
			ps.addf("an injected field has an empty name")
			continue
		}
		if seen[f.Name] {
			ps.addf("injected field %q is declared twice", f.Name)
			continue
		}
		seen[f.Name] = true
		want := ClassifyInjected(f.Name)
		if f.Source != want.Source || f.Meta != want.Meta {
			if want.Source == InjectMeta {
				ps.addf("injected field %q is meta-backed (CallMeta %s), not %s: build it with ClassifyInjected", f.Name, want.Meta, describeSource(f))
			} else {
				ps.addf("injected field %q is label-backed (run label %q), not %s: build it with ClassifyInjected", f.Name, f.Name, describeSource(f))
			}
		}
		if f.Source == InjectLabel && !slices.Contains(s.RequiredLabels, f.Name) {
			ps.addf("injected field %q reads run label %q: add it to RequiredLabels", f.Name, f.Name)
		}
		if p := s.Payload.Property(f.Name); p.Declared || p.Required {
			ps.addf("injected field %q appears in the model-facing payload schema: remove it from \"properties\" and \"required\"", f.Name)
		}
		if s.Bounds != nil && s.Bounds.Cursor == f.Name {
			ps.addf("injected field %q is also the bounds cursor: the model supplies the cursor", f.Name)
		}
		ps.typeSpec(fmt.Sprintf("injected field %q", f.Name), f.Schema)
	}
}

func describeSource(f InjectedField) string {
	if f.Source == InjectMeta {
		return fmt.Sprintf("meta-backed (CallMeta %q)", f.Meta)
	}
	return fmt.Sprintf("source %q", f.Source)
}

// problems accumulates validation problems.
type problems []error

func (ps *problems) add(err error) { *ps = append(*ps, err) }

func (ps *problems) addf(format string, args ...any) { ps.add(fmt.Errorf(format, args...)) }

// list checks that a list has no empty or repeated entries.
func (ps *problems) list(what string, items []string) {
	for i, t := range items {
		switch {
		case strings.TrimSpace(t) == "":
			ps.addf("%s %d is empty", what, i)
		case slices.Contains(items[:i], t):
			ps.addf("%s %q is repeated", what, t)
		}
	}
}

// typeSpec checks that a TypeSpec with a schema was compiled and that its
// example is complete.
func (ps *problems) typeSpec(what string, t TypeSpec) {
	if !t.Compiled() {
		ps.addf("%s: schema has no validator: build it with tools.NewTypeSpec (%w)", what, ErrNotCompiled)
	}
	if e := t.Example; e != nil {
		if len(e.Raw) == 0 {
			ps.addf("%s: example has no raw JSON: build it with TypeSpec.WithExample", what)
		}
		if len(t.Schema) > 0 && len(e.SchemaWithoutExample) == 0 {
			ps.addf("%s: example lacks the schema without example: build it with TypeSpec.WithExample", what)
		}
	}
}

// template checks that a non-empty template parses.
func (ps *problems) template(what, text string) {
	if text == "" {
		return
	}
	if _, err := ParseTemplate(what, text); err != nil {
		ps.addf("%s does not parse: %w", what, errors.Unwrap(err))
	}
}
