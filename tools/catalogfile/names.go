package catalogfile

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/tools"
)

// Reasons a [NameError] unwraps to.
var (
	// ErrNoSuchTool: the name designates no tool of the catalog.
	ErrNoSuchTool = errors.New("no such tool")
	// ErrAmbiguousName: the bare name belongs to several tools.
	ErrAmbiguousName = errors.New("ambiguous tool name")
)

// maxSuggestions bounds the near spellings a NameError offers.
const maxSuggestions = 3

// NameError reports a name that designates no tool of a catalog, or
// several. Its message teaches the fix, e.g.
//
//	tools.json has no tool named "get_forcast" (did you mean get_forecast?)
//	"openTable" names 2 tools of tools.json: crm.openTable, workspace.openTable; give the full name
type NameError struct {
	// Source is the catalog's Source.
	Source string
	// Name is the name as given.
	Name string
	// Candidates are, when the name is ambiguous, the tools it could mean,
	// in file order; otherwise the tools whose names are near spellings of
	// it, closest first (possibly none).
	Candidates []string
	// Err is [ErrNoSuchTool] or [ErrAmbiguousName].
	Err error
}

func (e *NameError) Error() string {
	if errors.Is(e.Err, ErrAmbiguousName) {
		return fmt.Sprintf("%q names %d tools of %s: %s; give the full name", e.Name, len(e.Candidates), e.Source, strings.Join(e.Candidates, ", "))
	}
	msg := fmt.Sprintf("%s has no tool named %q", e.Source, e.Name)
	if len(e.Candidates) > 0 {
		msg += " (did you mean " + strings.Join(e.Candidates, " or ") + "?)"
	}
	return msg
}

// Unwrap returns [ErrNoSuchTool] or [ErrAmbiguousName].
func (e *NameError) Unwrap() error { return e.Err }

// Resolve returns the name of the tool that name designates: the tool of
// that exact name, or else the one tool whose bare name it is — the part
// of an ident after its last dot, so "openTable" designates
// "workspace.openTable" when no other toolset has an openTable. It fails
// with a *NameError when no tool, or several, match.
func (c *Catalog) Resolve(name string) (string, error) {
	if _, ok := c.Lookup(name); ok {
		return name, nil
	}
	var matches []string
	if !strings.Contains(name, ".") {
		for _, t := range c.Tools {
			if tools.Ident(t.Name).Tool() == name {
				matches = append(matches, t.Name)
			}
		}
	}
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		return "", &NameError{Source: c.Source, Name: name, Candidates: c.nearNames(name), Err: ErrNoSuchTool}
	}
	return "", &NameError{Source: c.Source, Name: name, Candidates: matches, Err: ErrAmbiguousName}
}

// nearNames returns up to maxSuggestions tool names whose full or bare name
// is within a few edits of name, ignoring case, closest first and then in
// file order.
func (c *Catalog) nearNames(name string) []string {
	type near struct {
		name string
		dist int
	}
	want := strings.ToLower(name)
	limit := max(1, len([]rune(want))/4)
	var found []near
	for _, t := range c.Tools {
		d := min(search.EditDistance(want, strings.ToLower(t.Name)), search.EditDistance(want, strings.ToLower(tools.Ident(t.Name).Tool())))
		if d <= limit {
			found = append(found, near{t.Name, d})
		}
	}
	slices.SortStableFunc(found, func(a, b near) int { return a.dist - b.dist })
	var out []string
	for _, f := range found[:min(len(found), maxSuggestions)] {
		out = append(out, f.name)
	}
	return out
}
