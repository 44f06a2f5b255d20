package benchdata

import (
	"slices"

	"github.com/quiver-go/quiver/internal/typos"
	"github.com/quiver-go/quiver/search/eval"
)

// TypoQueries returns a copy of queries whose texts are misspelled by
// typos.Query, every query drawing in turn, in the order given, from one
// source made by typos.New. Given the same queries (Queries reads them in
// file order) it returns the same misspellings on every run and Go release.
// IDs and labels are kept; queries is not modified. A query with no word
// typos.Query may misspell (none of typos.MinWordLen letters or more) is
// copied unchanged.
func TypoQueries(queries []eval.Query) []eval.Query {
	r := typos.New()
	out := make([]eval.Query, len(queries))
	for i, q := range queries {
		q.Query, _ = typos.Query(r, q.Query)
		q.Relevant = slices.Clone(q.Relevant)
		out[i] = q
	}
	return out
}
