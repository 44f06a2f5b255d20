package catalog

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/tools"
)

// Entry is one tool offered to a catalog.
type Entry struct {
	Spec tools.ToolSpec
	// Deferred tools are loaded by search rather than advertised up front.
	Deferred bool
}

// Catalog is one planning activity's tool surface. It is immutable.
type Catalog struct {
	entries []Entry // sorted by ident
	byIdent map[tools.Ident]int
	wire    *tools.WireNames
}

// New builds a catalog from the entries the filter keeps. Entries must have
// distinct idents and valid specs.
func New(entries []Entry, filter Filter, labels map[string]string) (*Catalog, error) {
	c := &Catalog{byIdent: make(map[tools.Ident]int, len(entries))}
	// kept indexes the entries the filter keeps; they are sorted by ident
	// before anything is copied (sorting the entries themselves would
	// move whole specs).
	kept := make([]int, 0, len(entries))
	for i := range entries {
		e := &entries[i]
		if _, dup := c.byIdent[e.Spec.Name]; dup {
			return nil, fmt.Errorf("catalog: tool %s is offered twice; each tool may come from one source only", e.Spec.Name)
		}
		c.byIdent[e.Spec.Name] = -1
		if e.Deferred && e.Spec.Search.Name != string(e.Spec.Name) {
			return nil, fmt.Errorf("catalog: deferred tool %s has no search document keyed by its ident: a deferred tool is only reachable by search", e.Spec.Name)
		}
		if !filter.Keeps(e.Spec, labels) {
			continue
		}
		kept = append(kept, i)
	}
	slices.SortFunc(kept, func(a, b int) int { return cmp.Compare(entries[a].Spec.Name, entries[b].Spec.Name) })
	clear(c.byIdent)
	c.entries = make([]Entry, len(kept))
	idents := make([]tools.Ident, len(kept))
	for i, k := range kept {
		c.entries[i] = Entry{Spec: entries[k].Spec.Clone(), Deferred: entries[k].Deferred}
		c.byIdent[entries[k].Spec.Name] = i
		idents[i] = entries[k].Spec.Name
	}
	wire, err := tools.NewWireNames(idents)
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	c.wire = wire
	return c, nil
}

// Len returns the number of tools in the catalog.
func (c *Catalog) Len() int { return len(c.entries) }

// Spec returns a copy of the spec of ident.
func (c *Catalog) Spec(ident tools.Ident) (tools.ToolSpec, bool) {
	i, ok := c.byIdent[ident]
	if !ok {
		return tools.ToolSpec{}, false
	}
	return c.entries[i].Spec.Clone(), true
}

// Wire returns the wire name of ident.
func (c *Catalog) Wire(ident tools.Ident) (string, bool) { return c.wire.Wire(ident) }

// Ident returns the tool a wire name stands for.
func (c *Catalog) Ident(wire string) (tools.Ident, bool) { return c.wire.Ident(wire) }

// AdvertisedToolDefinitions returns fresh definitions of every tool, in
// ident order: inline tools in full, deferred ones flagged with their search
// documents.
func (c *Catalog) AdvertisedToolDefinitions() []model.ToolDefinition {
	defs := make([]model.ToolDefinition, 0, len(c.entries))
	for _, e := range c.entries {
		wire, _ := c.wire.Wire(e.Spec.Name)
		d := model.ToolDefinition{
			Name:        wire,
			Ident:       e.Spec.Name,
			Title:       e.Spec.Title,
			Description: e.Spec.Description,
			InputSchema: slices.Clone(e.Spec.Payload.Schema),
			Deferred:    e.Deferred,
		}
		if len(d.InputSchema) == 0 {
			d.InputSchema = []byte(`{"type":"object"}`)
		}
		if ex := e.Spec.Payload.Example; ex != nil && len(ex.Raw) > 0 {
			d.Examples = append(d.Examples, slices.Clone(ex.Raw))
		}
		if e.Deferred {
			// The document also answers to the wire name, which only this
			// catalog knows.
			doc := e.Spec.Search.WithAliases(wire)
			d.Search = &doc
		}
		defs = append(defs, d)
	}
	return defs
}

// Snapshot returns the catalog's admission data for one planning step:
// its tools, what the conversation has discovered (state, the records of
// the step's own messages applied) and how the model searches. It is
// assembled here, once per step; nothing patches it afterwards.
func (c *Catalog) Snapshot(state model.DiscoveryState, search Search) Snapshot {
	s := Snapshot{
		Tools:             make([]SnapshotTool, len(c.entries)),
		Discovered:        slices.Clone(state.Tools),
		Search:            search.Settings,
		SearchInstruction: search.Instruction,
	}
	for i, e := range c.entries {
		wire, _ := c.wire.Wire(e.Spec.Name)
		s.Tools[i] = SnapshotTool{Ident: e.Spec.Name, Wire: wire, Deferred: e.Deferred}
	}
	return s
}
