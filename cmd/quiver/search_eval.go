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
	catalog, queries string
	ranker           string
	compare          bool
	json             bool
}

// newSearchEvalCommand returns quiver search eval.
func newSearchEvalCommand() *cobra.Command {
	var opts evalOptions
	cmd := &cobra.Command{
		Use:   "eval [--catalog FILE --queries FILE] [--ranker default|baseline] [--compare] [--json]",
		Short: "Measure a ranker on labelled queries (nDCG@10, Recall@5, Recall@10, MRR@10)",
		Long: `Run every query of a labelled set through a ranker and report the mean
nDCG@10, Recall@5, Recall@10 and MRR@10, the number of queries evaluated and
the number skipped (none of their relevant tools is in the catalog).

The queries file is JSON Lines: {"id": "...", "query": "...", "relevant":
["toolName", ...]}. --catalog and --queries go together; without them the
embedded workspace catalog and its queries are used. --ranker picks the
default ranker or the plain BM25 baseline; --compare reports both.`,
		Example: `  quiver search eval --compare
  quiver search eval --catalog tools.json --queries queries.jsonl --ranker baseline --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if (opts.catalog == "") != (opts.queries == "") {
				return usagef("--catalog and --queries go together: give both files, or neither for the embedded workspace set")
			}
			if opts.ranker != rankerDefault && opts.ranker != rankerBaseline {
				return usagef("--ranker %q: want %s or %s", opts.ranker, rankerDefault, rankerBaseline)
			}
			if opts.compare && cmd.Flags().Changed("ranker") {
				return usagef("--compare reports every ranker: drop --ranker, or drop --compare to report one")
			}
			return runEval(cmd.OutOrStdout(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.catalog, "catalog", "", "catalog `FILE` (MCP tools/list JSON)")
	cmd.Flags().StringVar(&opts.queries, "queries", "", "labelled queries `FILE` (JSON Lines)")
	cmd.Flags().StringVar(&opts.ranker, "ranker", rankerDefault, "ranker to evaluate: default or baseline")
	cmd.Flags().BoolVar(&opts.compare, "compare", false, "evaluate the default ranker and the baseline")
	cmd.Flags().BoolVar(&opts.json, "json", false, `print {"rankers":[{"name":…,"ndcg@10":…,"recall@5":…,"recall@10":…,"mrr@10":…,"queries":N}]}`)
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
	skipped  int
}

// jsonEval is the --json output of quiver search eval.
type jsonEval struct {
	Rankers []evalRow `json:"rankers"`
}

func runEval(w io.Writer, opts evalOptions) error {
	c, err := loadCatalog(opts.catalog)
	if err != nil {
		return err
	}
	queries, querySource, err := loadQueries(opts.queries)
	if err != nil {
		return err
	}
	names := []string{opts.ranker}
	if opts.compare {
		names = []string{rankerDefault, rankerBaseline}
	}
	known := c.Names()
	out := jsonEval{Rankers: make([]evalRow, 0, len(names))}
	for _, name := range names {
		r, err := newRanker(c, name)
		if err != nil {
			return err
		}
		m := eval.Evaluate(r, queries, func(n string) bool { return known[n] })
		out.Rankers = append(out.Rankers, evalRow{
			Name: name, NDCG10: m.NDCG10, Recall5: m.Recall5, Recall10: m.Recall10,
			MRR10: m.MRR10, Queries: m.Queries, skipped: m.Skipped,
		})
	}
	if opts.json {
		return writeJSON(w, out)
	}
	fmt.Fprintf(w, "catalog  %s: %d tools\n", c.Source, len(c.Tools))
	fmt.Fprintf(w, "queries  %s: %d queries\n\n", querySource, len(queries))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RANKER\tNDCG@10\tRECALL@5\tRECALL@10\tMRR@10\tQUERIES\tSKIPPED")
	for _, r := range out.Rankers {
		fmt.Fprintf(tw, "%s\t%.4f\t%.4f\t%.4f\t%.4f\t%d\t%d\n", r.Name, r.NDCG10, r.Recall5, r.Recall10, r.MRR10, r.Queries, r.skipped)
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
