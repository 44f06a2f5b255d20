package contract

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/tools"
)

// ErrInvalidDeclaration is matched ([errors.Is]) by every *DeclarationError.
var ErrInvalidDeclaration = errors.New("contract: invalid tool declaration")

// ErrDuplicateTool is wrapped when a toolset declares a tool name twice.
var ErrDuplicateTool = errors.New("contract: duplicate tool")

// DeclarationError lists every problem of a [ToolDeclaration]. [errors.Is] also
// reaches the problems (for example [tools.ErrInvalidIdent] or
// [tools.ErrInvalidSchema]).
type DeclarationError struct {
	// Tool is "<toolset>.<name>" as declared.
	Tool string
	// Problems lists each problem, each saying how to fix it, in a fixed
	// order: the order [Compile] checks the declaration in (ident, input
	// schema and injected fields, example, output schema, keywords, server
	// data, then the spec's own checks). Each problem's message is the same
	// from one call to the next (see [tools.NewTypeSpec] and
	// [tools.ValidationError]).
	Problems []error
}

// Error returns a header naming the tool, then one problem per line.
func (e *DeclarationError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "contract: invalid tool declaration %q:", e.Tool)
	for _, p := range e.Problems {
		b.WriteString("\n  - ")
		b.WriteString(strings.ReplaceAll(p.Error(), "\n", "\n    "))
	}
	return b.String()
}

// Is reports whether target is [ErrInvalidDeclaration].
func (e *DeclarationError) Is(target error) bool { return target == ErrInvalidDeclaration }

// Unwrap returns the problems.
func (e *DeclarationError) Unwrap() []error { return e.Problems }

// Compile validates decl and returns an independent [tools.ToolSpec]: the
// model-facing payload schema (injected fields removed; its root closed to
// undeclared properties unless decl.InputSchema says additionalProperties
// or unevaluatedProperties itself), validating codecs, injected fields
// classified by [tools.ClassifyInjected], the declared metadata, and a search
// document over the ident, bare tool name, title, description, keywords,
// tags and top-level arguments. Every problem is reported in one
// *DeclarationError.
func Compile(decl ToolDeclaration) (tools.ToolSpec, error) {
	return compile(decl, true)
}

// Check reports what [Compile] reports for decl, the same *DeclarationError
// or nil, without keeping the spec or indexing its text: it is Compile for
// validating many declarations at once, such as a catalog file's. The
// search document a spec gets is valid whatever the text it indexes, so
// Check builds one over the ident alone.
func Check(decl ToolDeclaration) error {
	_, err := compile(decl, false)
	return err
}

// compile is Compile; without index, the search document holds the ident
// only.
func compile(decl ToolDeclaration, index bool) (tools.ToolSpec, error) {
	var ps problems
	id, err := tools.NewIdent(decl.Toolset, decl.Name)
	if err != nil {
		ps.add(err)
		id = tools.JoinIdent(decl.Toolset, decl.Name)
	}
	spec := tools.ToolSpec{
		Name:        id,
		Title:       decl.Title,
		Description: decl.Description,
		Tags:        slices.Clone(decl.Tags),
		Meta:        cloneMeta(decl.Meta),
		Exposure:    decl.Exposure,
	}
	payloadOK := compileIO(decl, &spec, &ps)
	for i, k := range decl.Keywords {
		if strings.TrimSpace(k) == "" {
			ps.addf("keyword %d is empty", i)
		}
	}
	for _, d := range decl.ServerData {
		sd := tools.ServerDataSpec{Kind: d.Kind, Audience: d.Audience}
		if sd.Audience == "" {
			sd.Audience = tools.AudienceTimeline
		}
		if len(d.Schema) > 0 {
			if sd.Schema, err = tools.NewTypeSpec("", d.Schema); err != nil {
				ps.addf("server data %q: %w", d.Kind, err)
			}
		}
		spec.ServerData = append(spec.ServerData, sd)
	}
	if decl.Bounds != nil {
		b := *decl.Bounds
		spec.Bounds = &b
	}
	if decl.Confirmation != nil {
		c := *decl.Confirmation
		spec.Confirmation = &c
	}
	spec.RequiredLabels = requiredLabels(decl.RequiredLabels, spec.Inject)
	if index {
		spec.Search = search.NewDocument(spec.SearchSource(decl.Keywords...))
	} else {
		spec.Search = search.NewDocument(search.Source{Name: string(spec.Name), Aliases: []string{spec.Name.Tool()}})
	}
	if err := spec.Validate(); err != nil {
		var se *tools.SpecError
		if !errors.As(err, &se) {
			return tools.ToolSpec{}, fmt.Errorf("contract: tool %q: %w", id, err)
		}
		for _, p := range se.Problems {
			// The ident was checked above with the stricter NewIdent, and
			// an uncompiled payload is the schema error already reported.
			if errors.Is(p, tools.ErrInvalidIdent) || (errors.Is(p, tools.ErrNotCompiled) && !payloadOK) {
				continue
			}
			ps.add(p)
		}
	}
	if len(ps) > 0 {
		return tools.ToolSpec{}, &DeclarationError{Tool: string(id), Problems: ps}
	}
	return spec, nil
}

// compileIO fills the spec's payload, example, injected fields and result.
// It reports whether the payload schema compiled.
func compileIO(decl ToolDeclaration, spec *tools.ToolSpec, ps *problems) bool {
	split, ok := splitPayload(decl.InputSchema, decl.Inject, ps)
	if !ok {
		return false
	}
	spec.Inject = injectedFields(decl.Inject, split.injected, ps)
	payload, err := tools.NewTypeSpec("", split.modelFacing)
	if err != nil {
		ps.addf("input_schema: %w", err)
		// Keep the schema, uncompiled, so the spec checks that need a
		// compiled payload stay silent instead of misreporting.
		spec.Payload = tools.TypeSpec{Schema: split.modelFacing}
		return false
	}
	if len(decl.InputExample) > 0 {
		if payload, err = payload.WithExample(decl.InputExample); err != nil {
			ps.addf("input_example: %w", err)
		}
	}
	spec.Payload = payload
	if len(decl.OutputSchema) > 0 {
		if spec.Result, err = tools.NewTypeSpec("", decl.OutputSchema); err != nil {
			ps.addf("output_schema: %w", err)
		}
	}
	return true
}

// CompileToolset compiles every tool of ts (see [Compile]). Each tool inherits
// the toolset's tags ([tools.InheritTags]) and belongs to ts.Name when its own
// Toolset is empty. It reports, in one error, every invalid tool, tool names
// declared twice ([ErrDuplicateTool]), tools declaring another toolset, and
// bounds that continue with a tool the set lacks.
func CompileToolset(ts ToolsetDeclaration) ([]tools.ToolSpec, error) {
	var errs []error
	if strings.TrimSpace(ts.Name) == "" {
		errs = append(errs, errors.New("the toolset name is empty"))
	}
	names := make(map[string]bool, len(ts.Tools))
	for _, d := range ts.Tools {
		names[d.Name] = true
	}
	specs := make([]tools.ToolSpec, 0, len(ts.Tools))
	seen := make(map[string]bool, len(ts.Tools))
	for _, d := range ts.Tools {
		if seen[d.Name] {
			errs = append(errs, fmt.Errorf("%w %q: each tool name must appear once in a toolset", ErrDuplicateTool, d.Name))
			continue
		}
		seen[d.Name] = true
		switch d.Toolset {
		case "":
			d.Toolset = ts.Name
		case ts.Name:
		default:
			errs = append(errs, fmt.Errorf("tool %q declares toolset %q but is listed in toolset %q: leave its toolset empty or make them match", d.Name, d.Toolset, ts.Name))
			continue
		}
		if d.Bounds != nil && d.Bounds.ContinueWith != "" && !names[d.Bounds.ContinueWith] {
			errs = append(errs, fmt.Errorf("tool %q continues with %q, which the toolset does not declare", d.Name, d.Bounds.ContinueWith))
		}
		d.Tags = tools.InheritTags(ts.Tags, d.Tags)
		spec, err := Compile(d)
		if err != nil {
			errs = append(errs, inToolset{err})
			continue
		}
		specs = append(specs, spec)
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("contract: toolset %q: %w", ts.Name, errors.Join(errs...))
	}
	return specs, nil
}

// cloneMeta deep-copies a meta map.
func cloneMeta(m map[string][]string) map[string][]string {
	if m == nil {
		return nil
	}
	out := make(map[string][]string, len(m))
	for k, v := range m {
		out[k] = slices.Clone(v)
	}
	return out
}

// inToolset is a tool's error within its toolset's: the toolset's message
// names the package once.
type inToolset struct{ err error }

func (e inToolset) Error() string { return strings.TrimPrefix(e.err.Error(), "contract: ") }
func (e inToolset) Unwrap() error { return e.err }
