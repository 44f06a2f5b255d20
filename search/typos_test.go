package search_test

import (
	"fmt"
	"path"
	"strings"
	"testing"
	"unicode"

	"github.com/quiver-go/quiver/internal/benchdata"
	"github.com/quiver-go/quiver/internal/typos"
	"github.com/quiver-go/quiver/search"
)

// minTypoFirst is the least share of one-edit name typos that must rank
// their tool first (issue "forgiving search").
const minTypoFirst = 0.95

// nameTypo is one misspelled tool name of the committed typo set.
type nameTypo struct {
	tool, typo string
	kind       typos.Kind
	// near names the other tools within one edit of the typo: when there
	// are some, ranking any of them first is as right as the tool.
	near []string
}

// nameTypos draws one one-edit typo of every tool name, from the seeded
// source in catalog order, and marks the typos within one edit of
// another tool's name, both folded as the name tiers fold them (case and
// the separators _ - . / and spaces ignored): create-tenant and
// create_tenant are one name to a reader, and to the index.
func nameTypos(tools []benchdata.Tool) []nameTypo {
	r := typos.New()
	out := make([]nameTypo, 0, len(tools))
	for _, tool := range tools {
		typo, kind, ok := typos.OneEdit(r, tool.Name)
		if !ok {
			continue
		}
		out = append(out, nameTypo{tool: tool.Name, typo: typo, kind: kind})
	}
	// The ambiguity check compares each typo with every name: quadratic,
	// but a linear one-edit check keeps 6,344² pairs to a second or two.
	folded := make([]string, len(tools))
	for i, tool := range tools {
		folded[i] = foldName(tool.Name)
	}
	for i := range out {
		typo := foldName(out[i].typo)
		for j, tool := range tools {
			if tool.Name != out[i].tool && withinOneEdit(typo, folded[j]) {
				out[i].near = append(out[i].near, tool.Name)
			}
		}
	}
	return out
}

// foldName lower-cases name and drops the separators _ - . / and spaces.
func foldName(name string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '_', '-', '.', '/', ' ':
			return -1
		}
		return unicode.ToLower(r)
	}, name)
}

// withinOneEdit reports whether a and b are at most one insertion,
// deletion, substitution or adjacent swap apart, in bytes: the test's own
// check, independent of the index's.
func withinOneEdit(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(b)-len(a) > 1 {
		return false
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	if i == len(a) {
		return true // equal, or b has one more byte at the end
	}
	if len(a) == len(b) {
		if a[i+1:] == b[i+1:] {
			return true // substitution
		}
		return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:] // swap
	}
	return a[i:] == b[i+1:] // b has one more byte at i
}

// TestNameTyposRankTheToolFirst: a one-edit typo of any tool name in the
// LiveMCP and ToolSDK catalogs ranks that tool first in at least 95% of
// cases; typos within one edit of another tool's name are counted apart
// (either tool first is right).
func TestNameTyposRankTheToolFirst(t *testing.T) {
	for _, file := range []string{benchdata.LiveMCPCatalogFile, benchdata.ToolSDKCatalogFile} {
		t.Run(path.Base(file), func(t *testing.T) {
			tools := benchdata.Tools(t, file)
			ix := benchdata.NewIndex(t, tools)
			var first, total, ambiguous, ambiguousFirst int
			byKind := map[typos.Kind][2]int{}
			var misses []string
			for _, ty := range nameTypos(tools) {
				hits := ix.Search(ty.typo, search.DefaultLimit)
				top := ""
				if len(hits) > 0 {
					top = hits[0].Name
				}
				if len(ty.near) > 0 {
					ambiguous++
					if top == ty.tool || containsName(ty.near, top) {
						ambiguousFirst++
					}
					continue
				}
				total++
				k := byKind[ty.kind]
				k[1]++
				if top == ty.tool {
					first++
					k[0]++
				} else if len(misses) < 15 {
					misses = append(misses, fmt.Sprintf("%q (typo of %q, %s): first %q", ty.typo, ty.tool, ty.kind, top))
				}
				byKind[ty.kind] = k
			}
			share := float64(first) / float64(total)
			t.Logf("%d typos: %d (%.2f%%) rank their tool first; by edit: %v; %d within one edit of another tool, of which %d rank one of them first",
				total, first, 100*share, byKind, ambiguous, ambiguousFirst)
			if share < minTypoFirst {
				t.Errorf("%.2f%% of one-edit name typos rank their tool first, want >= %.0f%%; first misses:\n%s",
					100*share, 100*minTypoFirst, strings.Join(misses, "\n"))
			}
		})
	}
}

func containsName(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}
