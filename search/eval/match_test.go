package eval

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// resolveBare accepts the full names ws.A and ws.B and, unambiguously, their
// bare names A and B; "C" is ambiguous.
func resolveBare(label string) (string, error) {
	switch label {
	case "ws.A", "A":
		return "ws.A", nil
	case "ws.B", "B":
		return "ws.B", nil
	case "C":
		return "", errors.New(`"C" names 2 tools`)
	}
	return "", fmt.Errorf("no tool named %q", label)
}

func TestMatchNamesEveryUnknownLabelAndSkippedQuery(t *testing.T) {
	queries := []Query{
		{ID: "1", Query: "q1", Relevant: []string{"A", "ws.A", "ws.B"}}, // A and ws.A are one tool
		{ID: "2", Query: "q2", Relevant: []string{"ws.A", "ws.Typo"}},   // the typo is named, the query kept
		{ID: "3", Query: "q3", Relevant: []string{"Nope", "C"}},         // nothing left: skipped
	}
	before := fmt.Sprint(queries)
	matched, cov := Match(queries, resolveBare)
	want := []Query{
		{ID: "1", Query: "q1", Relevant: []string{"ws.A", "ws.B"}},
		{ID: "2", Query: "q2", Relevant: []string{"ws.A"}},
	}
	if !reflect.DeepEqual(matched, want) {
		t.Errorf("matched = %v, want %v", matched, want)
	}
	if fmt.Sprint(queries) != before {
		t.Errorf("Match modified its input: %v", queries)
	}
	var unknown []string
	for _, l := range cov.Unknown {
		unknown = append(unknown, l.Query+":"+l.Name+": "+l.Err.Error())
	}
	wantUnknown := []string{`2:ws.Typo: no tool named "ws.Typo"`, `3:Nope: no tool named "Nope"`, `3:C: "C" names 2 tools`}
	if !reflect.DeepEqual(unknown, wantUnknown) {
		t.Errorf("unknown = %q, want %q", unknown, wantUnknown)
	}
	if !reflect.DeepEqual(cov.Skipped, []string{"3"}) {
		t.Errorf("skipped = %v, want [3]", cov.Skipped)
	}
	if cov.Complete() {
		t.Error("Complete() = true with unknown labels")
	}
}

func TestMatchComplete(t *testing.T) {
	queries := []Query{{ID: "1", Query: "q", Relevant: []string{"B"}}}
	matched, cov := Match(queries, resolveBare)
	if !cov.Complete() || len(matched) != 1 || matched[0].Relevant[0] != "ws.B" {
		t.Errorf("Match = %v, %+v", matched, cov)
	}
	// A nil resolve keeps every label as written.
	if matched, cov := Match(queries, nil); !cov.Complete() || !reflect.DeepEqual(matched, queries) {
		t.Errorf("Match with nil resolve = %v, %+v", matched, cov)
	}
	// A query with no label at all is skipped without an unknown label.
	_, cov = Match([]Query{{ID: "e", Query: "q"}}, nil)
	if cov.Complete() || len(cov.Unknown) != 0 || !reflect.DeepEqual(cov.Skipped, []string{"e"}) {
		t.Errorf("coverage of a query with no label = %+v", cov)
	}
}

// TestEvaluateAgreesWithMatch checks that Evaluate skips exactly the queries
// Match names, so the two never disagree on a count.
func TestEvaluateAgreesWithMatch(t *testing.T) {
	r := &fixedRanker{results: map[string][]string{"q1": {"A"}, "q2": {"A"}}}
	queries := []Query{
		{ID: "1", Query: "q1", Relevant: []string{"A", "Typo"}},
		{ID: "2", Query: "q2", Relevant: []string{"Typo"}},
	}
	known := func(name string) bool { return name == "A" }
	m := Evaluate(r, queries, known)
	_, cov := Match(queries, knownResolver(known))
	if m.Skipped != len(cov.Skipped) || m.Queries != 1 || len(cov.Unknown) != 2 {
		t.Errorf("Evaluate = %+v, Match coverage = %+v", m, cov)
	}
	if !strings.Contains(cov.Unknown[0].Err.Error(), "names no tool") {
		t.Errorf("reason = %v", cov.Unknown[0].Err)
	}
}
