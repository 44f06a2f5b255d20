package catalog

import (
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/tools"
)

// Admission asks "was THIS tool discovered?", not "was anything
// discovered?": with two deferred tools and one discovered, only the
// discovered one is admitted.
func TestAdmitRefusesUndiscoveredDeferredToolWhenAnotherWasDiscovered(t *testing.T) {
	t.Parallel()
	cat, err := New([]Entry{
		{Spec: spec(t, "data.openTable")},
		{Spec: spec(t, "data.startExport"), Deferred: true},
		{Spec: spec(t, "data.indexStats"), Deferred: true},
	}, Filter{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	snap := cat.Snapshot(model.DiscoveryState{Tools: []tools.Ident{"data.startExport"}}, Search{Settings: model.SearchSettings{Mode: model.SearchPortable}})

	// The discovered tool is admitted, by wire name and by ident.
	if a := snap.Admit("startExport", ""); a.Verdict != Admitted || a.Ident != "data.startExport" {
		t.Errorf("discovered deferred tool by wire name: %+v, want admitted", a)
	}
	if a := snap.Admit("", "data.startExport"); a.Verdict != Admitted || a.Ident != "data.startExport" {
		t.Errorf("discovered deferred tool by ident: %+v, want admitted", a)
	}

	// The other deferred tool is refused, although something was discovered.
	// The discovered tool now counts among the callable ones.
	want := "Tool 'indexStats' not in active set. Call search_tools(query='indexStats') to discover it, or use one of: openTable, startExport"
	for _, c := range []struct{ name, wire string }{{"by wire name", "indexStats"}, {"by ident", ""}} {
		ident := tools.Ident("")
		if c.wire == "" {
			ident = "data.indexStats"
		}
		a := snap.Admit(c.wire, ident)
		if a.Verdict != Refused || a.Ident != "data.indexStats" || a.Message != want {
			t.Errorf("undiscovered deferred tool %s: %+v\nwant refused with message %q", c.name, a, want)
		}
	}

	// Discovering the second tool admits it too; the first stays admitted.
	snap.Discovered = []tools.Ident{"data.indexStats", "data.startExport"}
	for _, wire := range []string{"indexStats", "startExport"} {
		if a := snap.Admit(wire, ""); a.Verdict != Admitted {
			t.Errorf("%s after both were discovered: %+v, want admitted", wire, a)
		}
	}
}

// A discovery of a tool outside the catalog (a stale record, a tool the
// policy filters out) admits nothing.
func TestAdmitIgnoresDiscoveriesOfToolsOutsideTheCatalog(t *testing.T) {
	t.Parallel()
	cat, err := New([]Entry{
		{Spec: spec(t, "data.openTable")},
		{Spec: spec(t, "data.startExport"), Deferred: true},
	}, Filter{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	snap := cat.Snapshot(model.DiscoveryState{Tools: []tools.Ident{"data.dropTable"}}, Search{})
	if a := snap.Admit("startExport", ""); a.Verdict != Refused {
		t.Errorf("deferred tool with only a foreign discovery recorded: %+v, want refused", a)
	}
}
