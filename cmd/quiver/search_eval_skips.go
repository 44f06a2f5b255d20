package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/quiver-go/quiver/search/eval"
)

// jsonSkipped is the "skipped" object of the --json output of quiver search
// eval: what the scores leave out. It is always present, with zero counts
// and empty lists when nothing was left out.
type jsonSkipped struct {
	// Queries is the number of queries skipped: no label of theirs names a
	// tool.
	Queries int `json:"queries"`
	// IDs are the skipped queries' ids, in file order.
	IDs []string `json:"ids"`
	// UnknownLabels are the labels that name no tool, in file order.
	UnknownLabels []jsonLabel `json:"unknown_labels"`
}

// jsonLabel is one label that names no tool.
type jsonLabel struct {
	Query  string `json:"query"`
	Label  string `json:"label"`
	Reason string `json:"reason"`
}

// skippedOf converts a coverage to its --json form.
func skippedOf(cov eval.Coverage) jsonSkipped {
	out := jsonSkipped{Queries: len(cov.Skipped), IDs: cov.Skipped, UnknownLabels: make([]jsonLabel, 0, len(cov.Unknown))}
	if out.IDs == nil {
		out.IDs = []string{}
	}
	for _, l := range cov.Unknown {
		out.UnknownLabels = append(out.UnknownLabels, jsonLabel{Query: l.Query, Label: l.Name, Reason: l.Err.Error()})
	}
	return out
}

// printSkips names on w every label that names no tool and every skipped
// query, one per line, each with its query's id:
//
//	quiver: query t3: tools.json has no tool named "translate_text"
//	quiver: query t3 skipped: none of its labels names a tool ("translate this sentence")
func printSkips(w io.Writer, queries []eval.Query, cov eval.Coverage) {
	for _, l := range cov.Unknown {
		fmt.Fprintf(w, "quiver: query %s: %v\n", l.Query, l.Err)
	}
	text := make(map[string]string, len(queries))
	for _, q := range queries {
		text[q.ID] = q.Query
	}
	for _, id := range cov.Skipped {
		fmt.Fprintf(w, "quiver: query %s skipped: none of its labels names a tool (%s)\n", id, echo(text[id]))
	}
}

// skipsError is the failure of an evaluation whose scores leave labels or
// queries out, nil when nothing was left out or allow says to accept it.
func skipsError(cov eval.Coverage, allow bool) error {
	if cov.Complete() || allow {
		return nil
	}
	var parts []string
	if n := len(cov.Unknown); n > 0 {
		parts = append(parts, count(n, "label that names no tool", "labels that name no tool"))
	}
	if n := len(cov.Skipped); n > 0 {
		parts = append(parts, count(n, "skipped query", "skipped queries"))
	}
	return fmt.Errorf("the scores leave out %s: fix the labels or the catalog, or pass --allow-skips to accept them", strings.Join(parts, " and "))
}
