package runtime

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/quiver-go/quiver/catalog"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/registry"
	"github.com/quiver-go/quiver/tools"
)

// RegistrySourceError is a planning step's failure to resolve one of its
// registry sources (seed 000: a missing named source, a version mismatch,
// duplicate identities, a read error, a removal during resolution). The
// step, and so the run, fails: the agent's declared catalog cannot be
// built.
type RegistrySourceError struct {
	// Agent is the agent planning.
	Agent string
	// Source is the source that failed.
	Source RegistryUse
	// Reason names the failure: one of the Source* constants.
	Reason string
	// Err is the underlying error, when there is one.
	Err error
}

// The reasons of a [RegistrySourceError].
const (
	// SourceNotRegistered: no registry is connected under the source's name.
	SourceNotRegistered = "registry_not_registered"
	// SourceUnknown: the registry lists no toolset of that name.
	SourceUnknown = registry.ErrUnknownToolset
	// SourceRemoved: the toolset was listed by this consumer's last read
	// and removed since.
	SourceRemoved = registry.ErrToolsetRemoved
	// SourceVersionMismatch: the published version is not the pinned one.
	SourceVersionMismatch = registry.ErrVersionMismatch
	// SourceDuplicate: a tool of the source has the identity of another
	// tool of the step (compiled or from another source).
	SourceDuplicate = "duplicate_identity"
	// SourceUnreachable: the registry could not be read, and no cached
	// read within the client's CacheTTL could stand in.
	SourceUnreachable = "read_error"
	// SourceInvalid: the source itself is wrong (overlapping sources, an
	// IncludeToolset without a toolset) or RegistryTools.Resolve failed.
	SourceInvalid = "invalid_source"
)

func (e *RegistrySourceError) Error() string {
	msg := fmt.Sprintf("agent %q: %s: %s", e.Agent, e.Source, e.Reason)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the underlying error.
func (e *RegistrySourceError) Unwrap() error { return e.Err }

// registryTool is a registry tool a step's catalog offers.
type registryTool struct {
	registry string
	scoped   bool
	toolset  *registry.CompiledToolset
	name     string
}

// contract is what a call accepted to this tool keeps (see savedContract).
func (t registryTool) contract() *savedContract {
	decl := t.toolset.Declarations[t.name]
	sc := &savedContract{
		Registry:    t.registry,
		Toolset:     t.toolset.Resolved.Name,
		Token:       t.toolset.Resolved.Token,
		Fingerprint: t.toolset.Resolved.Fingerprint,
		Revision:    t.toolset.Resolved.Revision,
		Tool:        decl,
		Scoped:      t.scoped,
	}
	if decl.Bounds != nil && decl.Bounds.ContinueWith != "" {
		if p, ok := t.toolset.Declarations[decl.Bounds.ContinueWith]; ok {
			sc.Partner = &p
		}
	}
	for _, d := range t.toolset.Declarations {
		if d.Bounds != nil && d.Bounds.ContinueWith == t.name {
			sc.Continued = true
		}
	}
	return sc
}

// stepSources is what one planning step resolved from registries: the
// toolsets each source contributes, shared with the connection's cache
// (immutable), so an unchanged catalog costs no copy.
type stepSources struct {
	parts   []sourcePart
	reports []readReport
}

// sourcePart is one toolset a source contributes to the step.
type sourcePart struct {
	registry string
	use      RegistryUse
	scoped   bool
	toolset  *registry.CompiledToolset
}

// count returns the number of tools the sources contribute.
func (s *stepSources) count() int {
	n := 0
	for _, p := range s.parts {
		n += len(p.toolset.Specs)
	}
	return n
}

// appendEntries appends the sources' tools to entries.
func (s *stepSources) appendEntries(entries []catalog.Entry) []catalog.Entry {
	for _, p := range s.parts {
		for _, spec := range p.toolset.Specs {
			entries = append(entries, catalog.Entry{Spec: spec, Deferred: p.use.DeferAll})
		}
	}
	return entries
}

// lookup returns the registry tool id stands for in the step.
func (s *stepSources) lookup(id tools.Ident) (registryTool, bool) {
	for _, p := range s.parts {
		if p.toolset.Resolved.Name != id.Toolset() {
			continue
		}
		if _, ok := p.toolset.Declarations[id.Tool()]; ok {
			return registryTool{registry: p.registry, scoped: p.scoped, toolset: p.toolset, name: id.Tool()}, true
		}
	}
	return registryTool{}, false
}

// resolveRegistries reads an agent's registry sources once for a
// planning step: its declared sources and those RegistryTools includes
// for the run, one conditional read per registry.
func (rt *Runtime) resolveRegistries(ctx context.Context, a *agentEntry, labels map[string]string) (*stepSources, error) {
	uses := a.reg.Registries
	declared := len(uses)
	rt.mu.RLock()
	scope := rt.registryTools
	rt.mu.RUnlock()
	if scope != nil {
		rc := &RegistryCatalog{agent: a.reg.Name, labels: labels}
		err := scope.Resolve(ctx, rc)
		if err = errors.Join(append(rc.errs, err)...); err != nil {
			return nil, &RegistrySourceError{Agent: a.reg.Name, Reason: SourceInvalid, Err: fmt.Errorf("RegistryTools.Resolve: %w", err)}
		}
		if len(rc.included) > 0 {
			uses = append(slices.Clone(uses), rc.included...)
			if errs := checkRegistryUses(uses); len(errs) > 0 {
				return nil, &RegistrySourceError{Agent: a.reg.Name, Source: rc.included[0], Reason: SourceInvalid, Err: errors.Join(errs...)}
			}
		}
	}
	out := &stepSources{}
	if len(uses) == 0 {
		return out, nil
	}
	// offered maps each toolset name of the step to who offers it; a
	// toolset name decides its tools' idents, so two offers of one name
	// are duplicate identities.
	offered := make(map[string]string, len(a.toolsets)+8)
	for _, name := range a.toolsets {
		offered[name] = fmt.Sprintf("compiled toolset %q", name)
	}
	for _, name := range registryOrder(uses) {
		var group []RegistryUse
		var named []string
		for _, u := range uses {
			if u.Registry == name {
				group = append(group, u)
				if u.Toolset != "" {
					named = append(named, u.Toolset)
				}
			}
		}
		slices.Sort(named)
		rt.mu.RLock()
		conn := rt.registries[name]
		rt.mu.RUnlock()
		if conn == nil {
			return nil, &RegistrySourceError{Agent: a.reg.Name, Source: group[0], Reason: SourceNotRegistered,
				Err: fmt.Errorf("connect it with rt.RegisterRegistry(%q, client) before running the agent", name)}
		}
		read, report, err := conn.resolve(ctx, named, rt.closing)
		if err != nil {
			return nil, sourceReadError(a.reg.Name, group, err)
		}
		out.reports = append(out.reports, report)
		for _, u := range group {
			scoped := slices.Index(uses, u) >= declared
			for _, ts := range read.Toolsets {
				if u.Toolset != "" && ts.Resolved.Name != u.Toolset {
					continue
				}
				if u.Version != "" && ts.Resolved.Version != u.Version {
					return nil, &RegistrySourceError{Agent: a.reg.Name, Source: u, Reason: SourceVersionMismatch,
						Err: fmt.Errorf("the registry publishes version %q, the agent pins %q: the pin checks the published version, it does not select an older one", ts.Resolved.Version, u.Version)}
				}
				here := fmt.Sprintf("toolset %q of registry %q", ts.Resolved.Name, name)
				if other, dup := offered[ts.Resolved.Name]; dup {
					return nil, &RegistrySourceError{Agent: a.reg.Name, Source: u, Reason: SourceDuplicate,
						Err: fmt.Errorf("the tools of %s have the identities of %s's (%s.*): each tool may come from one source only", here, other, ts.Resolved.Name)}
				}
				offered[ts.Resolved.Name] = here
				out.parts = append(out.parts, sourcePart{registry: name, use: u, scoped: scoped, toolset: ts})
			}
		}
	}
	return out, nil
}

// registryOrder returns the registries of uses in order of first use.
func registryOrder(uses []RegistryUse) []string {
	var names []string
	for _, u := range uses {
		if !slices.Contains(names, u.Registry) {
			names = append(names, u.Registry)
		}
	}
	return names
}

// sourceReadError turns a failed read of a registry's sources into the
// step's error, naming the source it concerns.
func sourceReadError(agent string, group []RegistryUse, err error) error {
	src := group[0]
	reason := SourceUnreachable
	switch name := registry.ErrorName(err); name {
	case registry.ErrUnknownToolset, registry.ErrToolsetRemoved, registry.ErrVersionMismatch:
		reason = name
		for _, u := range group {
			if u.Toolset != "" && strings.Contains(err.Error(), strconv.Quote(u.Toolset)) {
				src = u
				break
			}
		}
	default:
		if errors.Is(err, registry.ErrExcludedByFederation) {
			reason = SourceInvalid
		}
	}
	return &RegistrySourceError{Agent: agent, Source: src, Reason: reason, Err: err}
}

// contracts returns the saved contract of each call of calls that goes to
// one of the step's registry tools, by call id.
func (s *stepSources) contracts(cat *catalog.Catalog, calls []planner.ToolRequest) map[string]*savedContract {
	if len(s.parts) == 0 {
		return nil
	}
	out := make(map[string]*savedContract)
	for _, c := range calls {
		id := c.Ident
		if id == "" {
			id, _ = cat.Ident(c.Name)
		}
		if t, ok := s.lookup(id); ok {
			out[c.CallID] = t.contract()
		}
	}
	return out
}
