package catalogfile_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/quiver-go/quiver/tools/catalogfile"
)

// namesCatalog has two toolsets sharing the bare name openTable, one bare
// name of its own (startExport) and one tool named without a toolset.
func namesCatalog() *catalogfile.Catalog {
	c := &catalogfile.Catalog{Source: "tools.json"}
	for _, n := range []string{"workspace.openTable", "crm.openTable", "workspace.startExport", "get_forecast", "docs.search.find"} {
		c.Tools = append(c.Tools, catalogfile.Tool{Name: n})
	}
	return c
}

func TestResolve(t *testing.T) {
	c := namesCatalog()
	for name, want := range map[string]string{
		"workspace.openTable":   "workspace.openTable", // full
		"crm.openTable":         "crm.openTable",
		"startExport":           "workspace.startExport", // bare, unambiguous
		"workspace.startExport": "workspace.startExport",
		"get_forecast":          "get_forecast",     // no toolset: bare is full
		"find":                  "docs.search.find", // splits at the last dot
	} {
		got, err := c.Resolve(name)
		if err != nil || got != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", name, got, err, want)
		}
	}
}

func TestResolveErrors(t *testing.T) {
	c := namesCatalog()
	for _, tt := range []struct {
		name       string
		reason     error
		candidates []string
		msg        string
	}{
		{"openTable", catalogfile.ErrAmbiguousName, []string{"workspace.openTable", "crm.openTable"},
			`"openTable" names 2 tools of tools.json: workspace.openTable, crm.openTable; give the full name`},
		{"get_forcast", catalogfile.ErrNoSuchTool, []string{"get_forecast"},
			`tools.json has no tool named "get_forcast" (did you mean get_forecast?)`},
		{"StartExport", catalogfile.ErrNoSuchTool, []string{"workspace.startExport"},
			`tools.json has no tool named "StartExport" (did you mean workspace.startExport?)`},
		{"translate_text", catalogfile.ErrNoSuchTool, nil,
			`tools.json has no tool named "translate_text"`},
		// A qualified name is never shortened: only bare names resolve by
		// their tool part.
		{"other.startExport", catalogfile.ErrNoSuchTool, nil,
			`tools.json has no tool named "other.startExport"`},
	} {
		_, err := c.Resolve(tt.name)
		var ne *catalogfile.NameError
		if !errors.As(err, &ne) || !errors.Is(err, tt.reason) {
			t.Errorf("Resolve(%q) = %v; want a NameError for %v", tt.name, err, tt.reason)
			continue
		}
		if !reflect.DeepEqual(ne.Candidates, tt.candidates) {
			t.Errorf("Resolve(%q) candidates = %q, want %q", tt.name, ne.Candidates, tt.candidates)
		}
		if err.Error() != tt.msg {
			t.Errorf("Resolve(%q) error\n got: %s\nwant: %s", tt.name, err, tt.msg)
		}
	}
}
