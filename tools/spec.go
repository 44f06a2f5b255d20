package tools

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/quiver-go/quiver/internal/jsonobj"
	"github.com/quiver-go/quiver/search"
)

// ToolSpec is one tool's complete contract, as generated from a design or
// compiled from a runtime declaration by contract.Compile. Generated and
// compiled functions return fresh copies; use [ToolSpec.Clone] to hand one on.
type ToolSpec struct {
	// Name is the tool's ident.
	Name Ident
	// Title is the human title; never empty in a valid spec (generated code
	// derives a missing one from the tool name). The runtime shows it when
	// no hint renders.
	Title string
	// Description tells the model what the tool does.
	Description string
	// Tags are flat labels for policy filtering, the toolset's tags first
	// (see [InheritTags]).
	Tags []string
	// Meta holds inert, named design annotations; whoever reads a key owns
	// its meaning.
	Meta map[string][]string
	// Payload describes the arguments as the model sends them.
	Payload TypeSpec
	// Result describes the result the tool returns.
	Result TypeSpec
	// ServerData declares server-only outputs, never sent to models.
	ServerData []ServerDataSpec
	// Bounds declares a bounded result, or nil.
	Bounds *BoundsSpec
	// Confirmation requires out-of-band approval before execution, or nil.
	Confirmation *ConfirmationSpec
	// CallHintTemplate renders a display hint from the typed payload (Go
	// field names), or "".
	CallHintTemplate string
	// ResultHintTemplate renders a display hint from {Result, Bounds}, or "".
	ResultHintTemplate string
	// ResultReminder is a static system reminder queued after each result,
	// or "".
	ResultReminder string
	// TerminalRun ends the run after the tool succeeds, without a follow-up
	// planner turn. A terminal tool is also bookkeeping.
	TerminalRun bool
	// Bookkeeping exempts the tool's calls from MaxToolCalls and from the
	// recovery and consecutive-failure budgets. Read it with
	// [ToolSpec.IsBookkeeping].
	Bookkeeping bool
	// Inject lists the payload fields the runtime fills, hidden from the
	// model.
	Inject []InjectedField
	// RequiredLabels lists the run labels the tool needs, including the keys
	// of its label-backed injected fields.
	RequiredLabels []string
	// Search is the tool's search document, keyed by its ident.
	Search search.Document
	// Exposure is the tool's MCP exposure tier; "" when not declared.
	Exposure Exposure
}

// IsBookkeeping reports whether calls to the tool are bookkeeping: declared
// so, or terminal.
func (s ToolSpec) IsBookkeeping() bool { return s.Bookkeeping || s.TerminalRun }

// Clone returns a deep copy of s. Only compiled schemas, which are
// immutable, are shared.
func (s ToolSpec) Clone() ToolSpec {
	c := s
	c.Tags = slices.Clone(s.Tags)
	if s.Meta != nil {
		c.Meta = make(map[string][]string, len(s.Meta))
		for k, v := range s.Meta {
			c.Meta[k] = slices.Clone(v)
		}
	}
	c.Payload = s.Payload.Clone()
	c.Result = s.Result.Clone()
	if s.ServerData != nil {
		c.ServerData = make([]ServerDataSpec, len(s.ServerData))
		for i, d := range s.ServerData {
			c.ServerData[i] = d.Clone()
		}
	}
	if s.Bounds != nil {
		b := *s.Bounds
		c.Bounds = &b
	}
	if s.Confirmation != nil {
		cf := *s.Confirmation
		c.Confirmation = &cf
	}
	if s.Inject != nil {
		c.Inject = make([]InjectedField, len(s.Inject))
		for i, f := range s.Inject {
			c.Inject[i] = f.Clone()
		}
	}
	c.RequiredLabels = slices.Clone(s.RequiredLabels)
	c.Search = s.Search.Clone()
	return c
}

// InheritTags returns a toolset's tags followed by a tool's own, without
// repeats, in first-seen order, in a fresh slice.
func InheritTags(toolsetTags, toolTags []string) []string {
	var out []string
	for _, t := range slices.Concat(toolsetTags, toolTags) {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// SearchSource returns the text search indexes for the tool: its ident as
// name, its bare tool name as alias, title, description, keywords followed by
// tags (without repeats), and the top-level arguments of the model-facing
// payload schema with their descriptions, in schema order. Generated code and
// contract.Compile build [ToolSpec.Search] with
// search.NewDocument(spec.SearchSource(kw...)).
func (s ToolSpec) SearchSource(keywords ...string) search.Source {
	return search.Source{
		Name:        string(s.Name),
		Aliases:     []string{s.Name.Tool()},
		Title:       s.Title,
		Description: s.Description,
		Keywords:    InheritTags(keywords, s.Tags),
		Args:        schemaArgs(s.Payload.Schema),
	}
}

// schemaArgs lists the top-level properties of an object schema with their
// descriptions; it returns nil for anything else.
func schemaArgs(schema json.RawMessage) []search.Arg {
	root, err := jsonobj.Members(schema)
	if err != nil {
		return nil
	}
	raw, ok := jsonobj.Get(root, "properties")
	if !ok {
		return nil
	}
	props, err := jsonobj.Members(raw)
	if err != nil {
		return nil
	}
	seen := make(map[string]bool, len(props))
	var args []search.Arg
	for _, p := range props {
		if seen[p.Key] {
			continue
		}
		seen[p.Key] = true
		arg := search.Arg{Name: p.Key}
		var d struct {
			Description string `json:"description"`
		}
		if json.Unmarshal(p.Value, &d) == nil {
			arg.Description = d.Description
		}
		args = append(args, arg)
	}
	return args
}

// metaKeys returns the sorted keys of a meta map.
func metaKeys(m map[string][]string) []string {
	return slices.Sorted(maps.Keys(m))
}
