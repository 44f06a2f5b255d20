package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/tools/catalogfile"
)

// searchOptions are the flags of quiver search.
type searchOptions struct {
	catalog string
	limit   int
	json    bool
}

// newSearchCommand returns quiver search and its eval subcommand.
func newSearchCommand() *cobra.Command {
	var opts searchOptions
	cmd := &cobra.Command{
		Use:   `search "<query>" [--catalog FILE] [--limit N] [--json]`,
		Short: "Rank a catalog's tools for a request",
		Long: `Rank the tools of a catalog for a request with Quiver's default ranker:
exact, case-folded and separator-folded name matches first, then BM25F over
names, titles, descriptions, keywords and arguments.

Several words are joined into one query. The catalog is an MCP tools/list
JSON file ({"tools": [...]}) or a JSON array of tools; without --catalog the
embedded workspace catalog is used.`,
		Example: `  quiver search "export this table to csv"
  quiver search startExport --limit 3 --json
  quiver search "list my servers" --catalog tools.json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(strings.Join(args, " ")) == "" {
				return usagef(`missing query: quiver search "<query>" (or quiver search eval to evaluate the rankers)`)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.limit < 1 {
				return usagef("--limit %d: want at least 1", opts.limit)
			}
			return runSearch(cmd.OutOrStdout(), strings.Join(args, " "), opts)
		},
	}
	cmd.Flags().StringVar(&opts.catalog, "catalog", "", "catalog `FILE` (MCP tools/list JSON); the embedded workspace catalog when omitted")
	cmd.Flags().IntVar(&opts.limit, "limit", search.DefaultLimit, "maximum number of hits")
	cmd.Flags().BoolVar(&opts.json, "json", false, `print {"hits":[{"name":…,"score":…}]}`)
	cmd.AddCommand(newSearchEvalCommand())
	return cmd
}

// jsonHits is the --json output of quiver search.
type jsonHits struct {
	Hits []jsonHit `json:"hits"`
}

type jsonHit struct {
	Name  string  `json:"name"`
	Score float64 `json:"score"`
}

func runSearch(w io.Writer, query string, opts searchOptions) error {
	c, err := loadCatalog(opts.catalog)
	if err != nil {
		return err
	}
	ix, err := c.NewIndex(search.DefaultParams())
	if err != nil {
		return err
	}
	hits := ix.Search(query, opts.limit)
	if opts.json {
		out := jsonHits{Hits: make([]jsonHit, 0, len(hits))}
		for _, h := range hits {
			out.Hits = append(out.Hits, jsonHit{Name: h.Name, Score: h.Score})
		}
		return writeJSON(w, out)
	}
	return printHits(w, c, query, hits)
}

// printHits writes hits as a ranked table.
func printHits(w io.Writer, c *catalogfile.Catalog, query string, hits []search.Hit) error {
	if len(hits) == 0 {
		_, err := fmt.Fprintf(w, "No tool of %s (%d tools) matches %q.\n", c.Source, len(c.Tools), query)
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RANK\tNAME\tSCORE\tTIER\tTITLE")
	for i, h := range hits {
		t, _ := c.Lookup(h.Name)
		fmt.Fprintf(tw, "%d\t%s\t%.3f\t%s\t%s\n", i+1, h.Name, h.Score, h.Tier, oneLine(t.Title))
	}
	return tw.Flush()
}

// oneLine collapses white space so that a value fits in one table cell.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
