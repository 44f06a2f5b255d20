package catalog

import (
	"slices"

	"github.com/quiver-go/quiver/tools"
)

// Filter is an agent's run-policy restriction of its tools. The zero value
// keeps every tool.
type Filter struct {
	// AllowTags keeps only tools with at least one of these tags (when
	// non-empty).
	AllowTags []string
	// DenyTags drops tools with any of these tags.
	DenyTags []string
	// AllowTools keeps only these tools (when non-empty).
	AllowTools []tools.Ident
	// DenyTools drops these tools.
	DenyTools []tools.Ident
	// Allow, when set, decides from the spec and the run labels; it runs
	// after the lists.
	Allow func(spec tools.ToolSpec, labels map[string]string) bool
}

// Keeps reports whether the filter keeps spec for a run with labels. (Seed
// 000 gives the name Allows to the app-scoped registry sources' method,
// runtime.RegistryTools.Allows; this filter does not take it.)
func (f Filter) Keeps(spec tools.ToolSpec, labels map[string]string) bool {
	if len(f.AllowTools) > 0 && !slices.Contains(f.AllowTools, spec.Name) {
		return false
	}
	if slices.Contains(f.DenyTools, spec.Name) {
		return false
	}
	if len(f.AllowTags) > 0 && !slices.ContainsFunc(spec.Tags, func(t string) bool { return slices.Contains(f.AllowTags, t) }) {
		return false
	}
	if slices.ContainsFunc(spec.Tags, func(t string) bool { return slices.Contains(f.DenyTags, t) }) {
		return false
	}
	if f.Allow != nil && !f.Allow(spec, labels) {
		return false
	}
	return true
}
