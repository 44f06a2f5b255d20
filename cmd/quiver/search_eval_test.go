package main

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// evalOutput decodes the --json output of quiver search eval, checking its
// keys exactly.
func evalOutput(t *testing.T, stdout string) ([]evalRow, jsonSkipped) {
	t.Helper()
	wantKeys(t, []byte(stdout), "rankers", "skipped")
	var raw struct {
		Rankers []json.RawMessage
		Skipped json.RawMessage
	}
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
	wantKeys(t, raw.Skipped, "queries", "ids", "unknown_labels")
	var skipped jsonSkipped
	if err := json.Unmarshal(raw.Skipped, &skipped); err != nil {
		t.Fatal(err)
	}
	return rows, skipped
}

// evalRows decodes the --json output of an evaluation that left nothing out.
func evalRows(t *testing.T, stdout string) []evalRow {
	t.Helper()
	rows, skipped := evalOutput(t, stdout)
	if skipped.Queries != 0 || len(skipped.IDs) != 0 || len(skipped.UnknownLabels) != 0 {
		t.Errorf("skipped = %+v, want nothing", skipped)
	}
	if !strings.Contains(stdout, `"ids": []`) || !strings.Contains(stdout, `"unknown_labels": []`) {
		t.Errorf("empty skip lists are not written as []:\n%s", stdout)
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
	r := quiver(t, "search", "eval", "--catalog", "testdata/tiny.json", "--queries", "testdata/typo_queries.jsonl", "--ranker", "baseline", "--json", "--allow-skips").mustSucceed(t)
	rows, _ := evalOutput(t, r.stdout)
	if len(rows) != 1 || rows[0].Name != "baseline" || rows[0].Queries != 2 {
		t.Fatalf("rankers = %+v, want baseline over 2 queries", rows)
	}
}

// TestEvalTypoLabelIsNamedAndFails is the new user's case: a mistyped
// label silently dropped raised the score. The label is named with its
// query and a suggestion, the scores are still printed, and the exit status
// is 1.
func TestEvalTypoLabelIsNamedAndFails(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			args := []string{"search", "eval", "--catalog", "testdata/tiny.json", "--queries", "testdata/typo_queries.jsonl"}
			if format == "json" {
				args = append(args, "--json")
			}
			r := quiver(t, args...)
			if r.code != exitError {
				t.Errorf("exit %d, want %d", r.code, exitError)
			}
			named := `quiver: query rain: testdata/tiny.json has no tool named "get_wether" (did you mean get_weather?)` + "\n"
			failure := "quiver: the scores leave out 1 label that names no tool: fix the labels or the catalog, or pass --allow-skips to accept them\n"
			want := failure
			if format == "text" {
				want = named + failure
				if !strings.Contains(r.stdout, "RANKER") {
					t.Errorf("the scores are not printed:\n%s", r.stdout)
				}
			} else {
				rows, skipped := evalOutput(t, r.stdout)
				if len(rows) != 1 || rows[0].Queries != 2 || skipped.Queries != 0 || len(skipped.UnknownLabels) != 1 ||
					skipped.UnknownLabels[0] != (jsonLabel{Query: "rain", Label: "get_wether", Reason: `testdata/tiny.json has no tool named "get_wether" (did you mean get_weather?)`}) {
					t.Errorf("rows %+v, skipped %+v", rows, skipped)
				}
			}
			if r.stderr != want {
				t.Errorf("stderr\n got: %q\nwant: %q", r.stderr, want)
			}
		})
	}
}

// TestEvalSkippedQueryFails: a query none of whose labels names a tool is
// named with its id and text, and the evaluation fails.
func TestEvalSkippedQueryFails(t *testing.T) {
	r := quiver(t, "search", "eval", "--catalog", "testdata/tiny.json", "--queries", "testdata/tiny_queries.jsonl")
	want := `quiver: query t3: testdata/tiny.json has no tool named "translate_text"` + "\n" +
		`quiver: query t3 skipped: none of its labels names a tool ("translate this sentence")` + "\n" +
		"quiver: the scores leave out 1 label that names no tool and 1 skipped query: fix the labels or the catalog, or pass --allow-skips to accept them\n"
	if r.code != exitError || r.stderr != want {
		t.Errorf("exit %d, stderr\n got: %q\nwant: %q", r.code, r.stderr, want)
	}
}

// TestEvalAllowSkips: --allow-skips accepts the skips, exits 0 and reports
// their counts.
func TestEvalAllowSkips(t *testing.T) {
	r := quiver(t, "search", "eval", "--catalog", "testdata/tiny.json", "--queries", "testdata/tiny_queries.jsonl", "--allow-skips", "--json").mustSucceed(t)
	rows, skipped := evalOutput(t, r.stdout)
	if len(rows) != 1 || rows[0].Queries != 2 {
		t.Errorf("rankers = %+v, want 2 queries evaluated", rows)
	}
	want := jsonSkipped{Queries: 1, IDs: []string{"t3"}, UnknownLabels: []jsonLabel{{Query: "t3", Label: "translate_text", Reason: `testdata/tiny.json has no tool named "translate_text"`}}}
	if !reflect.DeepEqual(skipped, want) {
		t.Errorf("skipped = %+v, want %+v", skipped, want)
	}
	// In text mode the skips are still named on stderr, but do not fail.
	text := quiver(t, "search", "eval", "--catalog", "testdata/tiny.json", "--queries", "testdata/tiny_queries.jsonl", "--allow-skips")
	if text.code != exitOK || !strings.Contains(text.stderr, "query t3 skipped") || strings.Contains(text.stderr, "--allow-skips") {
		t.Errorf("exit %d, stderr %q", text.code, text.stderr)
	}
}

// TestEvalLabelsBareOrFull: labels resolve like names on the command line,
// bare when unambiguous; an ambiguous one is named with its candidates.
func TestEvalLabelsBareOrFull(t *testing.T) {
	args := []string{"search", "eval", "--catalog", "testdata/two_toolsets.json", "--queries", "testdata/two_toolsets_queries.jsonl"}
	r := quiver(t, args...)
	want := `quiver: query open: "openTable" names 2 tools of testdata/two_toolsets.json: crm.openTable, workspace.openTable; give the full name` + "\n"
	if r.code != exitError || !strings.HasPrefix(r.stderr, want) {
		t.Errorf("exit %d, stderr %q, want prefix %q", r.code, r.stderr, want)
	}
	rows, skipped := evalOutput(t, quiver(t, append(args, "--json", "--allow-skips")...).mustSucceed(t).stdout)
	if rows[0].Queries != 2 || skipped.Queries != 0 || len(skipped.UnknownLabels) != 1 || rows[0].Recall10 != 1 {
		t.Errorf("rows %+v, skipped %+v: want both queries evaluated, startExport resolved and found", rows, skipped)
	}
}

// TestEvalNothingLeft: when no query has a label naming a tool there is no
// score to report, even with --allow-skips.
func TestEvalNothingLeft(t *testing.T) {
	r := quiver(t, "search", "eval", "--catalog", "testdata/one.json", "--queries", "testdata/two_toolsets_queries.jsonl", "--allow-skips")
	want := "quiver: none of the 2 queries of testdata/two_toolsets_queries.jsonl has a label naming a tool of testdata/one.json: are they the queries written for this catalog?\n"
	if r.code != exitError || r.stderr != want || r.stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr\n got: %q\nwant: %q", r.code, r.stdout, r.stderr, want)
	}
}

func TestEvalBadQueriesFile(t *testing.T) {
	r := quiver(t, "search", "eval", "--catalog", "testdata/tiny.json", "--queries", "testdata/bad_queries.jsonl")
	want := "quiver: eval: testdata/bad_queries.jsonl:2: \"relevant\" must be a non-empty array of tool names\n"
	if r.code != exitError || r.stderr != want {
		t.Errorf("exit %d, stderr\n got: %q\nwant: %q", r.code, r.stderr, want)
	}
}
