package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSearchEmbeddedTable(t *testing.T) {
	r := quiver(t, "search", "export this table to csv").mustSucceed(t)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 13 {
		t.Fatalf("want the catalog, a blank line, a header and 10 hits, got:\n%s", r.stdout)
	}
	if !strings.HasPrefix(lines[0], "catalog  internal/catalogs/workspace.json (embedded): ") || lines[1] != "" {
		t.Errorf("first line = %q, want the catalog searched", lines[0])
	}
	lines = lines[2:]
	if f := strings.Fields(lines[0]); strings.Join(f, " ") != "RANK NAME SCORE TIER TITLE" {
		t.Errorf("header = %q", lines[0])
	}
	if f := strings.Fields(lines[1]); f[0] != "1" || f[1] != "workspace.startExport" || f[3] != "scored" || strings.Join(f[4:], " ") != "Start export" {
		t.Errorf("first row = %q, want workspace.startExport ranked first with its title", lines[1])
	}
}

func TestSearchJSONShape(t *testing.T) {
	r := quiver(t, "search", "startExport", "--limit", "3", "--json").mustSucceed(t)
	var out map[string]json.RawMessage
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, r.stdout)
	}
	wantKeys(t, []byte(r.stdout), "hits")
	var hits []json.RawMessage
	if err := json.Unmarshal(out["hits"], &hits); err != nil {
		t.Fatal(err)
	}
	if len(hits) != 3 {
		t.Fatalf("%d hits, want 3 (--limit)", len(hits))
	}
	for _, h := range hits {
		wantKeys(t, h, "name", "score")
	}
	var first struct {
		Name  string
		Score float64
	}
	if err := json.Unmarshal(hits[0], &first); err != nil {
		t.Fatal(err)
	}
	if first.Name != "workspace.startExport" {
		t.Errorf("exact name query ranked %q first", first.Name)
	}
}

func TestSearchJoinsWordsAndUsesCatalogFile(t *testing.T) {
	r := quiver(t, "search", "--catalog", "testdata/tiny.json", "send", "an", "email", "--json").mustSucceed(t)
	var out struct {
		Hits []struct{ Name string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Hits) == 0 || out.Hits[0].Name != "send_email" {
		t.Errorf("hits = %+v, want send_email first", out.Hits)
	}
}

func TestSearchNoHits(t *testing.T) {
	r := quiver(t, "search", "--catalog", "testdata/tiny.json", "zzzz qqqq", "--json").mustSucceed(t)
	if strings.TrimSpace(r.stdout) != `{
  "hits": []
}` {
		t.Errorf("stdout = %s, want an empty hits array", r.stdout)
	}
	r = quiver(t, "search", "--catalog", "testdata/tiny.json", "zzzz qqqq").mustSucceed(t)
	if !strings.Contains(r.stdout, `matches "zzzz qqqq"`) {
		t.Errorf("stdout = %q", r.stdout)
	}
}

func TestSearchBadCatalogFile(t *testing.T) {
	tests := []struct {
		file, want string
	}{
		{"testdata/bad_schema.json", "quiver: catalogfile: testdata/bad_schema.json:4:39: tools[1].inputSchema: expected a JSON Schema object, got array\n"},
		{"testdata/missing.json", "quiver: catalogfile: open testdata/missing.json: no such file or directory\n"},
	}
	for _, tt := range tests {
		r := quiver(t, "search", "weather", "--catalog", tt.file)
		if r.code != exitError {
			t.Errorf("%s: exit %d, want %d", tt.file, r.code, exitError)
		}
		if r.stderr != tt.want {
			t.Errorf("%s: stderr\n got: %q\nwant: %q", tt.file, r.stderr, tt.want)
		}
	}
}

func TestSearchExplainSaysWhy(t *testing.T) {
	r := quiver(t, "search", "startExprot", "--limit", "2", "--explain").mustSucceed(t)
	for _, want := range []string{
		"\nwhy\n",
		`1. workspace.startExport  fuzzy-name  matched "workspace.startExport" (1 edit, its part after the namespace)`,
		"exprot → export (1 edit, ×0.5)",
		"start → start",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	r = quiver(t, "search", "send an emial", "--catalog", "testdata/tiny.json", "--limit", "1", "--json", "--explain").mustSucceed(t)
	var out struct {
		Hits []struct {
			Name  string
			Score float64
			Tier  string
			Terms []struct {
				Word, Term    string
				Distance      int
				Weight, Score float64
				Fields        []struct {
					Field string
					Count int
					Score float64
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, r.stdout)
	}
	if len(out.Hits) != 1 || out.Hits[0].Name != "send_email" || out.Hits[0].Tier != "scored" {
		t.Fatalf("hits = %+v", out.Hits)
	}
	var sum float64
	corrected := false
	for _, m := range out.Hits[0].Terms {
		sum += m.Score
		if m.Word == "emial" {
			corrected = m.Term == "email" && m.Distance == 1 && m.Weight == 0.5 && len(m.Fields) > 0
		}
	}
	if !corrected || sum < out.Hits[0].Score-1e-9 || sum > out.Hits[0].Score+1e-9 {
		t.Errorf("terms %+v add to %v (score %v); want emial read as email", out.Hits[0].Terms, sum, out.Hits[0].Score)
	}
}

func TestSearchNoHitsSuggestsTheClosestNames(t *testing.T) {
	r := quiver(t, "search", "strtxporrt").mustSucceed(t)
	if !strings.Contains(r.stdout, "Closest tool names: workspace.startExport\n") {
		t.Errorf("stdout = %q, want the closest name suggested", r.stdout)
	}
	r = quiver(t, "search", "strtxporrt", "--json").mustSucceed(t)
	wantKeys(t, []byte(r.stdout), "hits", "closest")
}
