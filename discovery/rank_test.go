package discovery_test

import (
	"testing"

	"github.com/quiver-go/quiver/discovery"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/tools"
)

func rankDef(t *testing.T, ident, desc string) model.ToolDefinition {
	t.Helper()
	doc := search.NewDocument(search.Source{Name: ident, Title: ident, Description: desc})
	return model.ToolDefinition{Name: ident, Ident: tools.Ident(ident), Description: desc, Deferred: true, Search: &doc}
}

func TestRankRanksAWholeCatalogWithoutATurn(t *testing.T) {
	e, err := discovery.New(discovery.Settings{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	defs := []model.ToolDefinition{
		rankDef(t, "billing.refund", "Refund a customer's payment."),
		rankDef(t, "billing.invoice", "Create an invoice for a customer."),
		rankDef(t, "maps.route", "Plan a driving route."),
	}
	got, err := e.Rank(defs, "refund the payment")
	if err != nil || len(got) == 0 || got[0].Ident != "billing.refund" {
		t.Fatalf("%v %v", got, err)
	}
	// The same query again finds the same tools: nothing is "discovered".
	again, _ := e.Rank(defs, "refund the payment")
	if len(again) != len(got) {
		t.Fatalf("second ranking %v", again)
	}
	if exact, _ := e.Rank(defs, "maps.route"); len(exact) == 0 || exact[0].Ident != "maps.route" {
		t.Fatalf("exact name: %v", exact)
	}
	if none, _ := e.Rank(defs, "   "); none != nil {
		t.Fatalf("empty query found %v", none)
	}
	defs[0].Search = nil
	if _, err := e.Rank(defs, "refund"); err == nil {
		t.Fatal("a definition without a search document was accepted")
	}
}
