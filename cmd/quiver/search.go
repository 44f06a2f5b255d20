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
	input   catalogInput
	limit   int
	json    bool
	explain bool
}

// newSearchCommand returns quiver search and its eval subcommand.
func newSearchCommand() *cobra.Command {
	var opts searchOptions
	cmd := &cobra.Command{
		Use:   `search "<query>" [--catalog FILE] [--limit N] [--json] [--explain]`,
		Short: "Rank a catalog's tools for a request",
		Long: `Rank the tools of a catalog for a request with Quiver's default ranker:
exact, case-folded and separator-folded name matches first, then names a
few edits from the query (fuzzy-name), then BM25F over names, titles,
descriptions, keywords and arguments, reading a misspelled word as the
indexed word one edit away, at half weight.

--explain says, per hit, which name its tier matched (and how many edits
away) and each query term's score by field, with any correction applied.
When nothing matches, the closest tool names are suggested.

Several words are joined into one query. The catalog is an MCP tools/list
JSON file ({"tools": [...]}), a JSON array of tools or a saved JSON-RPC
tools/list response, given as --catalog tools.json (--catalog - reads
stdin); without --catalog the embedded workspace catalog is used. It is
checked as the runtime would compile it; --lenient lets tool names a
provider would refuse through, with a warning each.`,
		Example: `  quiver search "export this table to csv"
  quiver search "exprot a tabel" --explain
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
	cmd.Flags().BoolVar(&opts.json, "json", false, `print {"hits":[{"name":…,"score":…}]} ({"hits":[…],"closest":[…]} when nothing matches)`)
	cmd.Flags().BoolVar(&opts.explain, "explain", false, `explain each hit: its tier, the name matched, each term's score by field; with --json, hits carry "tier", "match" and "terms"`)
	cmd.AddCommand(newSearchEvalCommand())
	return cmd
}

// jsonHits is the --json output of quiver search.
type jsonHits struct {
	Hits []jsonHit `json:"hits"`
	// Closest are the suggested names when nothing matched.
	Closest []string `json:"closest,omitempty"`
}

type jsonHit struct {
	Name  string  `json:"name"`
	Score float64 `json:"score"`
	// With --explain:
	Tier  string          `json:"tier,omitempty"`
	Match *jsonNameMatch  `json:"match,omitempty"`
	Terms []jsonTermMatch `json:"terms,omitempty"`
}

type jsonNameMatch struct {
	Name     string `json:"name"`
	Distance int    `json:"distance"`
	Part     bool   `json:"part,omitempty"`
}

type jsonTermMatch struct {
	Word     string           `json:"word"`
	Term     string           `json:"term"`
	Distance int              `json:"distance,omitempty"`
	Weight   float64          `json:"weight"`
	Score    float64          `json:"score"`
	Fields   []jsonFieldMatch `json:"fields"`
}

type jsonFieldMatch struct {
	Field string  `json:"field"`
	Count int     `json:"count"`
	Score float64 `json:"score"`
}

// maxSuggestions is how many close names quiver search suggests when
// nothing matches.
const maxSuggestions = 3

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
	var explained []search.Explanation
	var hits []search.Hit
	if opts.explain {
		explained = ix.Explain(query, opts.limit)
		for _, e := range explained {
			hits = append(hits, e.Hit)
		}
	} else {
		hits = ix.Search(query, opts.limit)
	}
	var closest []string
	if len(hits) == 0 {
		for _, s := range ix.Suggest(query, maxSuggestions) {
			closest = append(closest, s.Name)
		}
	}
	if opts.json {
		out := jsonHits{Hits: make([]jsonHit, 0, len(hits)), Closest: closest}
		for i, h := range hits {
			jh := jsonHit{Name: h.Name, Score: h.Score}
			if explained != nil {
				jh = explainedJSON(explained[i])
			}
			out.Hits = append(out.Hits, jh)
		}
		return writeJSON(w, out)
	}
	if err := printHits(w, c, query, hits, closest); err != nil {
		return err
	}
	if explained != nil {
		return printExplanations(w, explained)
	}
	return nil
}

// printHits writes hits as a ranked table, under a line naming the
// catalog searched; with no hits, it names the closest tool names.
func printHits(w io.Writer, c *catalogfile.Catalog, query string, hits []search.Hit, closest []string) error {
	if len(hits) == 0 {
		_, err := fmt.Fprintf(w, "No tool of %s (%s) matches %s.\n", c.Source, count(len(c.Tools), "tool", "tools"), echo(query))
		if err == nil && len(closest) > 0 {
			_, err = fmt.Fprintf(w, "Closest tool names: %s\n", strings.Join(closest, ", "))
		}
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
