package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/registry/store"
	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/contract"
)

// compiled is a registration with its tools compiled: what validates a
// call's payload and a provider's result.
type compiled struct {
	reg  store.Registration
	decl contract.ToolsetDeclaration
	// specs are the tools by bare name.
	specs map[string]tools.ToolSpec
}

// compileRegistration decodes and compiles a stored registration.
func compileRegistration(reg store.Registration) (*compiled, error) {
	decl, err := decodeDeclaration(reg.Declaration)
	if err != nil {
		return nil, err
	}
	specs, err := contract.CompileToolset(decl)
	if err != nil {
		return nil, err
	}
	c := &compiled{reg: reg, decl: decl, specs: make(map[string]tools.ToolSpec, len(specs))}
	for _, s := range specs {
		c.specs[s.Name.Tool()] = s
	}
	return c, nil
}

// decodeDeclaration decodes a toolset declaration exactly: an unknown
// field is an error, not silently dropped (it would change nothing the
// fingerprint covers, and hide a provider's mistake).
func decodeDeclaration(raw []byte) (contract.ToolsetDeclaration, error) {
	var decl contract.ToolsetDeclaration
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(&decl); err != nil {
		return decl, fmt.Errorf("the toolset is not a toolset declaration (contract.ToolsetDeclaration, as generated Toolset() returns it): %w", err)
	}
	if dec.More() {
		return decl, fmt.Errorf("the toolset declaration is followed by more data")
	}
	return decl, nil
}

// view is one catalog read with its registrations compiled. Views are
// immutable: a change builds a new one.
type view struct {
	revision uint64
	// active are the active registrations by toolset.
	active map[string]*compiled
	// names are the active toolsets, sorted.
	names []string
	// leases are the live leases by ID.
	leases map[string]store.Lease
	// defs are every active tool as a search definition.
	defs []model.ToolDefinition
}

// newView compiles a catalog read, reusing what known holds compiled for
// the same tokens (and dropping from it the registrations no longer
// active).
func newView(cat store.Catalog, prev *view, known map[string]*compiled) (*view, error) {
	v := &view{revision: cat.Revision, active: map[string]*compiled{}, leases: map[string]store.Lease{}}
	active := make(map[string]bool, len(cat.Registrations))
	for _, reg := range cat.Registrations {
		active[reg.Token] = true
		c, ok := known[reg.Token]
		if !ok {
			var err error
			if c, err = compileRegistration(reg); err != nil {
				return nil, fmt.Errorf("registry: stored registration of %q (revision %s) does not compile: %w", reg.Toolset, reg.Revision, err)
			}
			known[reg.Token] = c
		}
		v.active[reg.Toolset] = c
		v.names = append(v.names, reg.Toolset)
	}
	slices.Sort(v.names)
	// Only active registrations are called through: forget the others.
	for token := range known {
		if _, ok := active[token]; !ok {
			delete(known, token)
		}
	}
	for _, l := range cat.Leases {
		v.leases[l.ID] = l
	}
	if prev != nil && prev.revision == v.revision && len(prev.defs) > 0 {
		v.defs = prev.defs
		return v, nil
	}
	for _, name := range v.names {
		c := v.active[name]
		for _, tool := range c.reg.Tools {
			s := c.specs[tool]
			doc := s.Search.Clone()
			v.defs = append(v.defs, model.ToolDefinition{
				Name: string(s.Name), Ident: s.Name, Title: s.Title, Description: s.Description,
				Deferred: true, Search: &doc,
			})
		}
	}
	return v, nil
}

// healthy counts a token's live, active leases.
func (v *view) healthy(token string) int {
	n := 0
	for _, l := range v.leases {
		if l.Token == token && l.State == store.LeaseActive {
			n++
		}
	}
	return n
}
