package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/registry/store"
)

// ListToolsets lists the catalog; unchanged → 304 with the caller's ETag.
func (s *Service) ListToolsets(ctx context.Context, p *gen.ListToolsetsPayload) (*gen.ListToolsetsResult, error) {
	if err := mayConsume(ctx); err != nil {
		return nil, err
	}
	v := s.current()
	etag := etagOf(v.revision)
	if p.IfNoneMatch != nil && *p.IfNoneMatch == etag {
		unchanged := "true"
		return &gen.ListToolsetsResult{Revision: int64(v.revision), Etag: etag, Unchanged: &unchanged}, nil
	}
	res := &gen.ListToolsetsResult{Revision: int64(v.revision), Etag: etag, Toolsets: []*gen.ToolsetSummary{}}
	for _, name := range v.names {
		c := v.active[name]
		if hasAll(c.reg.Tags, p.Tags) {
			res.Toolsets = append(res.Toolsets, summary(v, c))
		}
	}
	return res, nil
}

// etagOf renders a catalog revision as an ETag.
func etagOf(rev uint64) string { return `"` + strconv.FormatUint(rev, 10) + `"` }

func hasAll(have, want []string) bool {
	for _, t := range want {
		if !slices.Contains(have, t) {
			return false
		}
	}
	return true
}

func summary(v *view, c *compiled) *gen.ToolsetSummary {
	out := &gen.ToolsetSummary{
		Name: c.reg.Toolset, Tags: slices.Clone(c.reg.Tags), Fingerprint: c.reg.Fingerprint,
		Revision: c.reg.Revision, Tools: slices.Clone(c.reg.Tools), Providers: v.healthy(c.reg.Token),
	}
	if c.reg.Description != "" {
		d := c.reg.Description
		out.Description = &d
	}
	if c.reg.Version != "" {
		ver := c.reg.Version
		out.Version = &ver
	}
	return out
}

// GetToolset returns one toolset with its declaration.
func (s *Service) GetToolset(ctx context.Context, p *gen.GetToolsetPayload) (*gen.GetToolsetResult, error) {
	if err := mayConsume(ctx); err != nil {
		return nil, err
	}
	v := s.current()
	c, ok := v.active[p.Name]
	if !ok {
		return nil, gen.MakeUnknownToolset(fmt.Errorf("no toolset %q is registered", p.Name))
	}
	return &gen.GetToolsetResult{CatalogRevision: int64(v.revision), Summary: summary(v, c), Declaration: json.RawMessage(c.reg.Declaration)}, nil
}

// Search ranks the whole catalog's tools with the discovery core.
func (s *Service) Search(ctx context.Context, p *gen.SearchPayload) (*gen.SearchResult, error) {
	if err := mayConsume(ctx); err != nil {
		return nil, err
	}
	v := s.current()
	found, err := s.search.Rank(v.defs, p.Q)
	if err != nil {
		return nil, gen.MakeUnavailable(err)
	}
	res := &gen.SearchResult{Revision: int64(v.revision), Hits: []*gen.SearchHit{}}
	for _, d := range found {
		if len(res.Hits) == p.Limit {
			break
		}
		desc := d.Description
		res.Hits = append(res.Hits, &gen.SearchHit{Ident: string(d.Ident), Toolset: d.Ident.Toolset(), Tool: d.Ident.Tool(), Title: d.Title, Description: &desc})
	}
	return res, nil
}

// ResolveToolset returns a toolset's definitions and token from one read.
func (s *Service) ResolveToolset(ctx context.Context, p *gen.ResolveToolsetPayload) (*gen.ResolveToolsetResult, error) {
	if err := mayConsume(ctx); err != nil {
		return nil, err
	}
	if p.AtRevision != nil && *p.AtRevision < 0 {
		return nil, gen.MakeBadRequest(fmt.Errorf("at_revision is negative (%d): send the catalog revision a listing returned", *p.AtRevision))
	}
	v := s.current()
	c, ok := v.active[p.Name]
	if !ok {
		if p.AtRevision != nil && *p.AtRevision < int64(v.revision) {
			if removed, err := s.removedSince(ctx, p.Name, uint64(*p.AtRevision)); err != nil {
				return nil, unavailable(err)
			} else if removed {
				return nil, gen.MakeToolsetRemoved(fmt.Errorf("toolset %q was removed after catalog revision %d: resolve again from a fresh listing", p.Name, *p.AtRevision))
			}
		}
		return nil, gen.MakeUnknownToolset(fmt.Errorf("no toolset %q is registered", p.Name))
	}
	if p.Version != nil && *p.Version != c.reg.Version {
		return nil, gen.MakeVersionMismatch(fmt.Errorf("toolset %q is at version %q, the consumer pins %q: the pin checks the published version, it does not select an older one", p.Name, c.reg.Version, *p.Version))
	}
	return &gen.ResolveToolsetResult{CatalogRevision: int64(v.revision), Toolset: resolved(c)}, nil
}

// removedSince reports whether the change log removed name after rev.
func (s *Service) removedSince(ctx context.Context, name string, rev uint64) (bool, error) {
	changes, _, reset, err := s.store.Changes(ctx, rev)
	if err != nil {
		return false, err
	}
	if reset {
		return true, nil
	}
	for _, c := range changes {
		if c.Toolset == name && c.Kind == store.ChangeRemoved {
			return true, nil
		}
	}
	return false, nil
}

func resolved(c *compiled) *gen.ResolvedToolset {
	r := &gen.ResolvedToolset{Name: c.reg.Toolset, Fingerprint: c.reg.Fingerprint, Revision: c.reg.Revision, Token: c.reg.Token, Declaration: json.RawMessage(c.reg.Declaration)}
	if c.reg.Version != "" {
		ver := c.reg.Version
		r.Version = &ver
	}
	return r
}

// ResolveRegistry returns the definitions and tokens of the named toolsets,
// or of every toolset when none is named, from one read. A caller holding
// the current catalog revision (If-None-Match) is answered 304 before the
// names are looked up: they resolved at that revision, which has not
// changed.
func (s *Service) ResolveRegistry(ctx context.Context, p *gen.ResolveRegistryPayload) (*gen.ResolveRegistryResult, error) {
	if err := mayConsume(ctx); err != nil {
		return nil, err
	}
	names, err := toolsetNames(p.Toolsets)
	if err != nil {
		return nil, err
	}
	v := s.current()
	etag := etagOf(v.revision)
	if p.IfNoneMatch != nil && *p.IfNoneMatch == etag {
		unchanged := "true"
		return &gen.ResolveRegistryResult{CatalogRevision: int64(v.revision), Etag: etag, Unchanged: &unchanged}, nil
	}
	if len(names) == 0 {
		names = v.names
	}
	var missing []string
	for _, name := range names {
		if _, ok := v.active[name]; !ok {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return nil, s.missingToolset(ctx, v, missing, p.AtRevision)
	}
	res := &gen.ResolveRegistryResult{CatalogRevision: int64(v.revision), Etag: etag, Toolsets: make([]*gen.ResolvedToolset, 0, len(names))}
	for _, name := range names {
		res.Toolsets = append(res.Toolsets, resolved(v.active[name]))
	}
	return res, nil
}

// toolsetNames returns the toolsets a resolution names, sorted, refusing
// an empty name and a name given twice.
func toolsetNames(names []string) ([]string, error) {
	sorted := slices.Clone(names)
	slices.Sort(sorted)
	for i, name := range sorted {
		if name == "" {
			return nil, gen.MakeBadRequest(errors.New("toolset: an empty name: name each toolset to resolve, or none to resolve the whole registry"))
		}
		if i > 0 && sorted[i-1] == name {
			return nil, gen.MakeBadRequest(fmt.Errorf("toolset: %q is named twice: name each toolset once", name))
		}
	}
	return sorted, nil
}

// missingToolset is the error of a resolution whose named toolsets
// (missing, sorted) are not registered: it is about the first one,
// toolset_removed when the change log removed it after atRevision,
// unknown_toolset otherwise; the message lists the others.
func (s *Service) missingToolset(ctx context.Context, v *view, missing []string, atRevision *int64) error {
	name := missing[0]
	others := ""
	if len(missing) > 1 {
		others = fmt.Sprintf(" (not registered either: %s)", strings.Join(quoteAll(missing[1:]), ", "))
	}
	if atRevision != nil && *atRevision < int64(v.revision) {
		removed, err := s.removedSince(ctx, name, uint64(*atRevision))
		if err != nil {
			return unavailable(err)
		}
		if removed {
			return gen.MakeToolsetRemoved(fmt.Errorf("toolset %q was removed after catalog revision %d%s: resolve again from a fresh listing", name, *atRevision, others))
		}
	}
	return gen.MakeUnknownToolset(fmt.Errorf("no toolset %q is registered%s: list the catalog and resolve toolsets it lists", name, others))
}

func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strconv.Quote(n)
	}
	return out
}

// Changes is the catalog's change feed, as a long poll.
func (s *Service) Changes(ctx context.Context, p *gen.ChangesPayload) (*gen.ChangesResult, error) {
	if err := mayConsume(ctx); err != nil {
		return nil, err
	}
	if p.After < 0 {
		return nil, gen.MakeBadRequest(fmt.Errorf("after is negative (%d)", p.After))
	}
	wait := time.NewTimer(time.Duration(p.WaitMs) * time.Millisecond)
	defer wait.Stop()
	for {
		changed := s.changes()
		if s.current().revision > uint64(p.After) || p.WaitMs == 0 {
			break
		}
		select {
		case <-changed:
			continue
		case <-wait.C:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-s.closing:
		}
		break
	}
	changes, rev, reset, err := s.store.Changes(ctx, uint64(p.After))
	if err != nil {
		return nil, unavailable(err)
	}
	res := &gen.ChangesResult{Revision: int64(rev), Reset: reset, Changes: []*gen.Change{}}
	for _, c := range changes {
		res.Changes = append(res.Changes, &gen.Change{Revision: int64(c.Revision), Toolset: c.Toolset, Kind: string(c.Kind)})
	}
	return res, nil
}
