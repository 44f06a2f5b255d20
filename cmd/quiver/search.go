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
	input catalogInput
	limit int
	json  bool
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
JSON file ({"tools": [...]}), a JSON array of tools or a saved JSON-RPC
tools/list response, given as --catalog tools.json (--catalog - reads
stdin); without --catalog the embedded workspace catalog is used. It is
checked as the runtime would compile it; --lenient lets tool names a
provider would refuse through, with a warning each.`,
		Example: `  quiver search "export this table to csv"
  quiver search startExport --limit 3 --json
  quiver search workspace.openTable --limit 1`,
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
	opts.input.addFlags(cmd, "catalog `FILE` (MCP tools/list JSON); the embedded workspace catalog when omitted")
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
	c, err := opts.input.load()
	if err != nil {
		return err
	}
	// The command needs no schema once the catalog is indexed.
	ix, err := c.TakeIndex(search.DefaultParams())
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

// printHits writes hits as a ranked table, under a line naming the
// catalog searched.
func printHits(w io.Writer, c *catalogfile.Catalog, query string, hits []search.Hit) error {
	if len(hits) == 0 {
		_, err := fmt.Fprintf(w, "No tool of %s (%s) matches %s.\n", c.Source, count(len(c.Tools), "tool", "tools"), echo(query))
		return err
	}
	fmt.Fprintf(w, "catalog  %s: %s\n\n", c.Source, count(len(c.Tools), "tool", "tools"))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RANK\tNAME\tSCORE\tTIER\tTITLE")
	for i, h := range hits {
		t, _ := c.Lookup(h.Name)
		fmt.Fprintf(tw, "%d\t%s\t%.3f\t%s\t%s\n", i+1, h.Name, h.Score, h.Tier, oneLine(t.Title))
	}
	return tw.Flush()
}
