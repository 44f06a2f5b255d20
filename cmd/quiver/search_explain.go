package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/quiver-go/quiver/search"
)

// printExplanations writes, under the hits table, why each hit ranks where
// it does: the name its tier matched, then one line per query term with
// its score split by field.
//
//  1. fetch_webpage  fuzzy-name  "fetch_webpage", 1 edit
//     fetch → fetch              2.104  name 1.511 (1×)  description 0.593 (1×)
//     pag → page (1 edit, ×0.5)  …
func printExplanations(w io.Writer, explained []search.Explanation) error {
	fmt.Fprintln(w, "\nwhy")
	for i, e := range explained {
		fmt.Fprintf(w, "%d. %s  %s", i+1, e.Hit.Name, e.Tier)
		if e.Name != "" {
			fmt.Fprintf(w, "  matched %q", e.Name)
			if e.Tier == search.TierFuzzyName {
				fmt.Fprintf(w, " (%s", count(e.NameDistance, "edit", "edits"))
				if e.NamePart {
					fmt.Fprint(w, ", its part after the namespace")
				}
				fmt.Fprint(w, ")")
			}
		}
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, m := range e.Terms {
			term := m.Word + " → " + m.Term
			if m.Distance > 0 {
				term += fmt.Sprintf(" (%s, ×%g)", count(m.Distance, "edit", "edits"), m.Weight)
			}
			var fields []string
			for _, f := range m.Fields {
				fields = append(fields, fmt.Sprintf("%s %.3f (%d×)", f.Field, f.Score, f.Count))
			}
			fmt.Fprintf(tw, "   %s\t%.3f\t%s\n", term, m.Score, strings.Join(fields, "  "))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// explainedJSON is one explained hit as --json --explain prints it.
func explainedJSON(e search.Explanation) jsonHit {
	h := jsonHit{Name: e.Hit.Name, Score: e.Score, Tier: e.Tier.String()}
	if e.Name != "" {
		h.Match = &jsonNameMatch{Name: e.Name, Distance: e.NameDistance, Part: e.NamePart}
	}
	h.Terms = make([]jsonTermMatch, 0, len(e.Terms))
	for _, m := range e.Terms {
		jm := jsonTermMatch{Word: m.Word, Term: m.Term, Distance: m.Distance, Weight: m.Weight, Score: m.Score, Fields: make([]jsonFieldMatch, 0, len(m.Fields))}
		for _, f := range m.Fields {
			jm.Fields = append(jm.Fields, jsonFieldMatch{Field: f.Field.String(), Count: f.Count, Score: f.Score})
		}
		h.Terms = append(h.Terms, jm)
	}
	return h
}
