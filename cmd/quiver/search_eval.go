package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/search/eval"
	"github.com/quiver-go/quiver/tools/catalogfile"
)

// Ranker names accepted by --ranker.
const (
	rankerDefault  = "default"
	rankerBaseline = "baseline"
)

// evalOptions are the flags of quiver search eval.
type evalOptions struct {
	input      catalogInput
	queries    string
	ranker     string
	compare    bool
	allowSkips bool
	json       bool
}

// newSearchEvalCommand returns quiver search eval.
func newSearchEvalCommand() *cobra.Command {
	var opts evalOptions
	cmd := &cobra.Command{
		Use:   "eval [--catalog FILE --queries FILE] [--ranker default|baseline] [--compare] [--allow-skips] [--json]",
		Short: "Measure a ranker on labelled queries (nDCG@10, Recall@5, Recall@10, MRR@10)",
		Long: `Run every query of a labelled set through a ranker and report the mean
nDCG@10, Recall@5, Recall@10 and MRR@10, the number of queries evaluated and
the number skipped.

The queries file is JSON Lines: {"id": "...", "query": "...", "relevant":
["toolName", ...]}; a label names a tool bare (openTable) or in full
(workspace.openTable). --catalog and --queries go together (--catalog
tools.json --queries queries.jsonl); without them the embedded workspace
catalog and its queries are used. --ranker picks the default ranker or the
plain BM25 baseline; --compare reports both.

A label that names no tool of the catalog is left out of the scores, and a
query left with no label is skipped; either would make the scores
dishonest (a mistyped label dropped from a query can raise its recall to
1), so each is named with its query's id (on stderr, or under "skipped" in
the --json output) and the command exits 1 after printing the scores.
--allow-skips accepts them (say, a query set written for a larger
catalog) and exits 0.`,
		Example: `  quiver search eval
  quiver search eval --compare
  quiver search eval --ranker baseline --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.input.given() != (opts.queries != "") {
				return usagef("--catalog and --queries go together: give both files, or neither for the embedded workspace set")
			}
			if opts.ranker != rankerDefault && opts.ranker != rankerBaseline {
				return usagef("--ranker %q: want %s or %s", opts.ranker, rankerDefault, rankerBaseline)
			}
			if opts.compare && cmd.Flags().Changed("ranker") {
				return usagef("--compare reports every ranker: drop --ranker, or drop --compare to report one")
			}
			return runEval(cmd.OutOrStdout(), cmd.ErrOrStderr(), opts)
		},
	}
	opts.input.addFlags(cmd, "catalog `FILE` (MCP tools/list JSON)")
	cmd.Flags().StringVar(&opts.queries, "queries", "", "labelled queries `FILE` (JSON Lines)")
	cmd.Flags().StringVar(&opts.ranker, "ranker", rankerDefault, "ranker to evaluate: default or baseline")
	cmd.Flags().BoolVar(&opts.compare, "compare", false, "evaluate the default ranker and the baseline")
	cmd.Flags().BoolVar(&opts.allowSkips, "allow-skips", false, "exit 0 even when labels name no tool of the catalog and queries are skipped")
	cmd.Flags().BoolVar(&opts.json, "json", false, `print {"rankers":[{"name":…,"ndcg@10":…,"recall@5":…,"recall@10":…,"mrr@10":…,"queries":N}],"skipped":{"queries":N,"ids":[…],"unknown_labels":[{"query":…,"label":…,"reason":…}]}}`)
	return cmd
}

// evalRow is one ranker's line of the --json output.
type evalRow struct {
	Name     string  `json:"name"`
	NDCG10   float64 `json:"ndcg@10"`
	Recall5  float64 `json:"recall@5"`
	Recall10 float64 `json:"recall@10"`
	MRR10    float64 `json:"mrr@10"`
	Queries  int     `json:"queries"`
}

// jsonEval is the --json output of quiver search eval.
type jsonEval struct {
	Rankers []evalRow   `json:"rankers"`
	Skipped jsonSkipped `json:"skipped"`
}

func runEval(w, stderr io.Writer, opts evalOptions) error {
	c, err := opts.input.load()
	if err != nil {
		return err
	}
	queries, querySource, err := opts.input.loadQueries(opts.queries)
	if err != nil {
		return err
	}
	matched, cov := eval.Match(queries, c.Resolve)
	if len(matched) == 0 {
		return fmt.Errorf("none of the %s of %s has a label naming a tool of %s: are they the queries written for this catalog?",
			count(len(queries), "query", "queries"), querySource, c.Source)
	}
	names := []string{opts.ranker}
	if opts.compare {
		names = []string{rankerDefault, rankerBaseline}
	}
	out := jsonEval{Rankers: make([]evalRow, 0, len(names)), Skipped: skippedOf(cov)}
	for _, name := range names {
		r, err := newRanker(c, name)
		if err != nil {
			return err
		}
		m := eval.Evaluate(r, matched, nil)
		out.Rankers = append(out.Rankers, evalRow{
			Name: name, NDCG10: m.NDCG10, Recall5: m.Recall5, Recall10: m.Recall10,
			MRR10: m.MRR10, Queries: m.Queries,
		})
	}
	if opts.json {
		if err := writeJSON(w, out); err != nil {
			return err
		}
	} else {
		if err := printEval(w, c, querySource, len(queries), out); err != nil {
			return err
		}
		printSkips(stderr, queries, cov)
	}
	return skipsError(cov, opts.allowSkips)
}

// printEval writes the scores as a table.
func printEval(w io.Writer, c *catalogfile.Catalog, querySource string, queries int, out jsonEval) error {
	fmt.Fprintf(w, "catalog  %s: %s\n", c.Source, count(len(c.Tools), "tool", "tools"))
	fmt.Fprintf(w, "queries  %s: %s\n\n", querySource, count(queries, "query", "queries"))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RANKER\tNDCG@10\tRECALL@5\tRECALL@10\tMRR@10\tQUERIES\tSKIPPED")
	for _, r := range out.Rankers {
		fmt.Fprintf(tw, "%s\t%.4f\t%.4f\t%.4f\t%.4f\t%d\t%d\n", r.Name, r.NDCG10, r.Recall5, r.Recall10, r.MRR10, r.Queries, out.Skipped.Queries)
	}
	return tw.Flush()
}

// newRanker builds the named ranker over the catalog.
func newRanker(c *catalogfile.Catalog, name string) (search.Ranker, error) {
	if name == rankerBaseline {
		return c.NewBaseline()
	}
	return c.NewIndex(search.DefaultParams())
}
