package benchdata

import "github.com/quiver-go/quiver/search/eval"

// EveryNth returns queries[0], queries[n], queries[2n], …: a fixed subset
// spread over the whole set (the MetaTool queries are grouped by tool, so
// a prefix would leave most tools out). n below 1 is read as 1. The
// queries are shared with the input, not copied.
func EveryNth(queries []eval.Query, n int) []eval.Query {
	n = max(n, 1)
	out := make([]eval.Query, 0, (len(queries)+n-1)/n)
	for i := 0; i < len(queries); i += n {
		out = append(out, queries[i])
	}
	return out
}
