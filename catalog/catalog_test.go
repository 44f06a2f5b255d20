package catalog

import (
	"slices"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/tools"
)

func spec(t *testing.T, ident string, tags ...string) tools.ToolSpec {
	t.Helper()
	id, err := tools.ParseIdent(ident)
	if err != nil {
		t.Fatal(err)
	}
	payload, err := tools.NewTypeSpec("P", []byte(`{"type":"object","properties":{"q":{"type":"string"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	s := tools.ToolSpec{Name: id, Title: id.Tool(), Description: "Does " + id.Tool(), Tags: tags, Payload: payload}
	s.Search = search.NewDocument(s.SearchSource())
	return s
}

func TestFilterKeepsAndDropsByTagsNamesAndPredicate(t *testing.T) {
	entries := []Entry{
		{Spec: spec(t, "data.openTable", "read")},
		{Spec: spec(t, "data.dropTable", "write", "destructive")},
		{Spec: spec(t, "data.startExport", "write")},
	}
	cases := []struct {
		name   string
		filter Filter
		want   []string
	}{
		{"zero keeps all", Filter{}, []string{"dropTable", "openTable", "startExport"}},
		{"allow tags", Filter{AllowTags: []string{"read"}}, []string{"openTable"}},
		{"deny tags", Filter{DenyTags: []string{"destructive"}}, []string{"openTable", "startExport"}},
		{"deny tools", Filter{DenyTools: []tools.Ident{"data.startExport"}}, []string{"dropTable", "openTable"}},
		{"allow tools", Filter{AllowTools: []tools.Ident{"data.dropTable"}}, []string{"dropTable"}},
		{"predicate reads labels", Filter{Allow: func(s tools.ToolSpec, labels map[string]string) bool {
			return labels["role"] == "admin" || !slices.Contains(s.Tags, "write")
		}}, []string{"openTable"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cat, err := New(entries, c.filter, map[string]string{"role": "viewer"})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range cat.AdvertisedToolDefinitions() {
				got = append(got, d.Name)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("advertised %v, want %v", got, c.want)
			}
		})
	}
}

func TestDefinitionsUseWireNamesAndAreFreshCopies(t *testing.T) {
	cat, err := New([]Entry{{Spec: spec(t, "a.search")}, {Spec: spec(t, "b.search")}, {Spec: spec(t, "docs.v2.lookup")}}, Filter{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defs := cat.AdvertisedToolDefinitions()
	for _, d := range defs {
		if !tools.ValidWireName(d.Name) {
			t.Errorf("wire name %q is not provider-safe", d.Name)
		}
		id, ok := cat.Ident(d.Name)
		if w, _ := cat.Wire(id); !ok || w != d.Name {
			t.Errorf("wire name %q does not round-trip (ident %q)", d.Name, id)
		}
	}
	defs[0].InputSchema[0] = 'X'
	defs[0].Description = "changed"
	again := cat.AdvertisedToolDefinitions()
	if again[0].InputSchema[0] == 'X' || again[0].Description == "changed" {
		t.Error("mutating returned definitions changed the catalog")
	}
}

func TestNewRejectsATwiceOfferedTool(t *testing.T) {
	_, err := New([]Entry{{Spec: spec(t, "a.x")}, {Spec: spec(t, "a.x")}}, Filter{}, nil)
	if err == nil || !strings.Contains(err.Error(), "offered twice") {
		t.Fatalf("err = %v", err)
	}
}

func TestAdmitResolvesRefusesAndRejectsUnknown(t *testing.T) {
	cat, err := New([]Entry{
		{Spec: spec(t, "data.openTable")},
		{Spec: spec(t, "data.applyFilter")},
		{Spec: spec(t, "data.startExport"), Deferred: true},
	}, Filter{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	snap := cat.Snapshot(model.DiscoveryState{}, Search{})
	if a := snap.Admit("openTable", ""); a.Verdict != Admitted || a.Ident != "data.openTable" {
		t.Errorf("inline tool: %+v", a)
	}
	a := snap.Admit("startExport", "")
	want := "Tool 'startExport' not in active set. Call tool_search(query='startExport') to discover it, or use one of: applyFilter, openTable"
	if a.Verdict != Refused || a.Message != want {
		t.Errorf("deferred tool: %+v\nwant message %q", a, want)
	}
	snap.Search = model.SearchSettings{Mode: model.SearchPortable}
	want = "Tool 'startExport' not in active set. Call search_tools(query='startExport') to discover it, or use one of: applyFilter, openTable"
	if a := snap.Admit("startExport", ""); a.Message != want {
		t.Errorf("portable refusal = %q\nwant %q", a.Message, want)
	}
	snap.Discovered = []tools.Ident{"data.startExport"}
	if a := snap.Admit("startExport", ""); a.Verdict != Admitted {
		t.Errorf("discovered tool: %+v", a)
	}
	if a := snap.Admit("dropTable", ""); a.Verdict != Unknown || !strings.Contains(a.Message, "not available") {
		t.Errorf("unknown tool: %+v", a)
	}
	if a := snap.Admit("", "data.openTable"); a.Verdict != Admitted {
		t.Errorf("by ident: %+v", a)
	}
}

func TestDeferredToolWithoutSearchDocumentIsRejected(t *testing.T) {
	s := spec(t, "data.startExport")
	s.Search = search.Document{}
	if _, err := New([]Entry{{Spec: s, Deferred: true}}, Filter{}, nil); err == nil || !strings.Contains(err.Error(), "no search document") {
		t.Fatalf("err = %v", err)
	}
	if _, err := New([]Entry{{Spec: s}}, Filter{}, nil); err != nil {
		t.Fatalf("an inline tool needs no document here: %v", err)
	}
}

func TestDeferredDefinitionsAnswerToTheirWireName(t *testing.T) {
	cat, err := New([]Entry{{Spec: spec(t, "a.search"), Deferred: true}, {Spec: spec(t, "b.search"), Deferred: true}}, Filter{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range cat.AdvertisedToolDefinitions() {
		if d.Ident == "" || d.Search == nil || !slices.Contains(d.Search.Aliases, d.Name) {
			t.Errorf("definition %q (ident %q) lacks its wire name among its search aliases: %+v", d.Name, d.Ident, d.Search)
		}
	}
}

func TestRefusalNamesTheProvidersSearch(t *testing.T) {
	cat, err := New([]Entry{{Spec: spec(t, "data.openTable")}, {Spec: spec(t, "data.startExport"), Deferred: true}}, Filter{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	snap := cat.Snapshot(model.DiscoveryState{}, Search{Instruction: "Search for '%s' with the tool search tool"})
	want := "Tool 'startExport' not in active set. Search for 'startExport' with the tool search tool, or use one of: openTable"
	if got := snap.Admit("startExport", "").Message; got != want {
		t.Fatalf("refusal = %q\nwant %q", got, want)
	}
}
