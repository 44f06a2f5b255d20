package search

import "testing"

func TestWithAliasesEqualsBuildingWithThem(t *testing.T) {
	src := Source{Name: "records.search", Aliases: []string{"search"}, Description: "Search records"}
	got := NewDocument(src).WithAliases("records_search", "search", "", "records.search")
	src.Aliases = append(src.Aliases, "records_search")
	want := NewDocument(src)
	if !got.Equal(want) {
		t.Fatalf("WithAliases = %#v\nwant %#v", got, want)
	}
	if err := got.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestWithAliasesLeavesTheOriginalAlone(t *testing.T) {
	d := NewDocument(Source{Name: "ws.startExport"})
	before := d.Clone()
	_ = d.WithAliases("start_export_v2")
	if !d.Equal(before) {
		t.Fatal("WithAliases changed its receiver")
	}
}

func TestWithAliasesJoinTheNameTiers(t *testing.T) {
	ix := newTestIndex(t)
	if err := ix.Add(NewDocument(Source{Name: "ws.startExport", Aliases: []string{"startExport"}}).WithAliases("ws_startExport")); err != nil {
		t.Fatal(err)
	}
	if hits := ix.Search("ws_startExport", 1); len(hits) != 1 || hits[0].Tier != TierExact {
		t.Fatalf("hits = %v, want an exact match on the added alias", hits)
	}
}
