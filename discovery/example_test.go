package discovery_test

import (
	"fmt"

	"github.com/quiver-go/quiver/discovery"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/tools"
)

// An adapter answers a model's searches through one Engine per client: a
// Turn per invocation, an Answer per search, rendered in the provider's
// shape (here, printed), and the invocation's discovery record.
func ExampleEngine_Begin() {
	deferred := func(name, text string) model.ToolDefinition {
		id := tools.Ident("ws." + name)
		doc := search.NewDocument(search.Source{Name: string(id), Title: text, Description: text}).WithAliases(name)
		return model.ToolDefinition{Name: name, Ident: id, Description: text, Deferred: true, Search: &doc}
	}
	req := &model.Request{
		Tools: []model.ToolDefinition{
			{Name: "openTable", Ident: "ws.openTable", Description: "Open a table."},
			deferred("startExport", "Export a table to a CSV file"),
			deferred("indexStats", "Show the index statistics of a table"),
		},
		Search:    model.SearchSettings{Mode: model.SearchPortable, Cap: 2},
		Discovery: &model.DiscoveryState{}, // the runtime's state for this turn
	}
	engine, err := discovery.New(discovery.Settings{})
	if err != nil {
		panic(err)
	}
	turn, err := engine.Begin(req, "search_tools")
	if err != nil {
		panic(err)
	}
	for _, q := range []string{"export csv", "weather forecast", "index statistics"} {
		a := turn.SearchQuery(q)
		fmt.Println(a.Kind, string(a.JSON))
	}
	rec, _ := turn.Record()
	fmt.Println(rec.Tools, rec.Searches, rec.Exhausted)
	// Output:
	// found {"query":"export csv","tools":[{"name":"startExport","description":"Export a table to a CSV file"}]}
	// no_match {"message":"No tool matched this query. Try other words, or use one of: openTable, startExport","query":"weather forecast","tools":[]}
	// budget_exhausted {"error":"search-budget-exhausted","budgetCap":2}
	// [ws.startExport] 2 true
}
