package workspacedemo

import (
	"cmp"
	"errors"
	"slices"
	"strings"
)

// searchWorkspace (design: tables.go) looks for words in the names and
// descriptions of tables, saved views, charts and workbooks.

type searchWorkspaceArgs struct {
	Text  string   `json:"text"`
	Kinds []string `json:"kinds"`
}

type workspaceMatch struct {
	Kind    string `json:"kind"`
	ID      string `json:"id"`
	Name    string `json:"name"`
	Snippet string `json:"snippet,omitempty"`
	score   int
}

type searchWorkspaceResult struct {
	Matches []workspaceMatch `json:"matches"`
}

// searchable is one object searchWorkspace can find.
type searchable struct {
	kind, id, name, text string
}

// searchables lists the objects of the given kinds (all when none).
func (w *Workspace) searchables(kinds []string) []searchable {
	want := func(k string) bool { return len(kinds) == 0 || slices.Contains(kinds, k) }
	var out []searchable
	if want("table") {
		for _, n := range w.tableNames() {
			out = append(out, searchable{"table", n, n, w.tables[n].description})
		}
	}
	if want("view") {
		for _, v := range w.views {
			if v.visible() {
				out = append(out, searchable{"view", v.id, v.name, strings.TrimSpace("Saved view of " + v.table + ". " + v.description)})
			}
		}
	}
	if want("chart") {
		for _, c := range w.charts {
			out = append(out, searchable{"chart", c.id, c.title, c.typ + " chart of " + c.source + " by " + c.x})
		}
	}
	if want("workbook") {
		for _, b := range w.workbooks {
			text := "Workbook"
			if b.folder != "" {
				text += " in folder " + b.folder
			}
			for _, c := range b.cells {
				if c.Kind == "markdown" {
					text += ". " + strings.TrimLeft(c.Source, "# ")
				}
			}
			out = append(out, searchable{"workbook", b.id, b.title, text})
		}
	}
	return out
}

// searchWorkspace ranks objects by the words of the text they hold: two
// points a word in the name, one in the description; best first, then
// by kind and name.
func (w *Workspace) searchWorkspace(a searchWorkspaceArgs) (any, error) {
	words := strings.Fields(strings.ToLower(a.Text))
	if len(words) == 0 {
		return nil, errors.New("give words to look for")
	}
	res := searchWorkspaceResult{Matches: []workspaceMatch{}}
	for _, s := range w.searchables(a.Kinds) {
		name := strings.ToLower(strings.NewReplacer("_", " ", ".", " ").Replace(s.name))
		text := strings.ToLower(s.text)
		score := 0
		for _, wd := range words {
			switch {
			case strings.Contains(name, wd):
				score += 2
			case strings.Contains(text, wd):
				score++
			}
		}
		if score > 0 {
			res.Matches = append(res.Matches, workspaceMatch{Kind: s.kind, ID: s.id, Name: s.name, Snippet: snippet(s.text, 120), score: score})
		}
	}
	slices.SortStableFunc(res.Matches, func(a, b workspaceMatch) int {
		return cmp.Or(b.score-a.score, cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Name, b.Name))
	})
	return res, nil
}

// snippet cuts s to at most n runes.
func snippet(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
