package search_test

import (
	"fmt"

	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/tools/catalogfile"
)

// A catalog file (an MCP tools/list result) indexed and searched: the
// ranker weighs names, titles, descriptions, keywords and argument names,
// and a query naming a tool puts it first (then the tools sharing its
// words: "rows").
func ExampleIndex_Search() {
	c, err := catalogfile.Load("testdata/tables.json")
	if err != nil {
		panic(err)
	}
	ix, err := c.NewIndex(search.DefaultParams())
	if err != nil {
		panic(err)
	}
	for _, q := range []string{"download this table as csv", "importRows"} {
		fmt.Printf("%q:", q)
		for _, h := range ix.Search(q, 3) {
			fmt.Printf(" %s", h.Name)
		}
		fmt.Println()
	}
	// Output:
	// "download this table as csv": exportTable importRows deleteTable
	// "importRows": importRows deleteTable
}
