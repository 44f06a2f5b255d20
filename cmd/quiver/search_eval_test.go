package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// evalRows decodes the --json output of quiver search eval, checking its
// keys exactly.
func evalRows(t *testing.T, stdout string) []evalRow {
	t.Helper()
	wantKeys(t, []byte(stdout), "rankers")
	var raw struct{ Rankers []json.RawMessage }
	if err := json.Unmarshal([]byte(stdout), &raw); err != nil {
		t.Fatal(err)
	}
	rows := make([]evalRow, len(raw.Rankers))
	for i, r := range raw.Rankers {
		wantKeys(t, r, "name", "ndcg@10", "recall@5", "recall@10", "mrr@10", "queries")
		if err := json.Unmarshal(r, &rows[i]); err != nil {
			t.Fatal(err)
		}
	}
	return rows
}

func TestEvalEmbeddedCompareJSON(t *testing.T) {
	r := quiver(t, "search", "eval", "--compare", "--json").mustSucceed(t)
	rows := evalRows(t, r.stdout)
	if len(rows) != 2 || rows[0].Name != "default" || rows[1].Name != "baseline" {
		t.Fatalf("rankers = %+v", rows)
	}
	for _, row := range rows {
		if row.Queries < 25 {
			t.Errorf("%s evaluated %d queries", row.Name, row.Queries)
		}
		for _, v := range []float64{row.NDCG10, row.Recall5, row.Recall10, row.MRR10} {
			if v <= 0 || v > 1 {
				t.Errorf("%s: metric %v out of (0, 1]", row.Name, v)
			}
		}
	}
}

func TestEvalOneRankerOnFiles(t *testing.T) {
	r := quiver(t, "search", "eval", "--catalog", "testdata/tiny.json", "--queries", "testdata/tiny_queries.jsonl", "--ranker", "baseline", "--json").mustSucceed(t)
	rows := evalRows(t, r.stdout)
	if len(rows) != 1 || rows[0].Name != "baseline" || rows[0].Queries != 2 {
		t.Fatalf("rankers = %+v, want baseline over 2 queries (t3 names no catalog tool)", rows)
	}
}

func TestEvalTable(t *testing.T) {
	r := quiver(t, "search", "eval", "--catalog", "testdata/tiny.json", "--queries", "testdata/tiny_queries.jsonl", "--compare").mustSucceed(t)
	for _, want := range []string{
		"catalog  testdata/tiny.json: 3 tools",
		"queries  testdata/tiny_queries.jsonl: 3 queries",
		"RANKER", "NDCG@10", "RECALL@5", "RECALL@10", "MRR@10", "QUERIES", "SKIPPED",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	for _, name := range []string{"default", "baseline"} {
		var row string
		for line := range strings.Lines(r.stdout) {
			if strings.HasPrefix(line, name+" ") {
				row = line
			}
		}
		if f := strings.Fields(row); len(f) != 7 || f[5] != "2" || f[6] != "1" {
			t.Errorf("%s row = %q, want 2 queries evaluated and 1 skipped", name, row)
		}
	}
}

func TestEvalBadQueriesFile(t *testing.T) {
	r := quiver(t, "search", "eval", "--catalog", "testdata/tiny.json", "--queries", "testdata/bad_queries.jsonl")
	want := "quiver: eval: testdata/bad_queries.jsonl:2: \"relevant\" must be a non-empty array of tool names\n"
	if r.code != exitError || r.stderr != want {
		t.Errorf("exit %d, stderr\n got: %q\nwant: %q", r.code, r.stderr, want)
	}
}
