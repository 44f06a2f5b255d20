package discovery

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/tools"
)

// def is a deferred definition of ws.<name> described by text.
func def(name, text string) model.ToolDefinition {
	id := tools.Ident("ws." + name)
	doc := search.NewDocument(search.Source{Name: string(id), Title: text, Description: text}).WithAliases(name)
	return model.ToolDefinition{Name: name, Ident: id, Description: text, Deferred: true, Search: &doc}
}

func catalogRequest(extra ...model.ToolDefinition) *model.Request {
	tools := []model.ToolDefinition{
		{Name: "openTable", Ident: "ws.openTable", Description: "Open a table."},
		def("startExport", "Export a table to a CSV file"),
		def("cancelExport", "Cancel a running export"),
		def("indexStats", "Show index statistics of a table"),
	}
	return &model.Request{Tools: append(tools, extra...), Search: model.SearchSettings{Mode: model.SearchPortable}}
}

func TestSearchDiscoversAndRecords(t *testing.T) {
	turn, err := newEngine(t).Begin(catalogRequest(), "search_tools")
	if err != nil {
		t.Fatal(err)
	}
	a := turn.SearchQuery("export a table to csv")
	if a.Kind != Found || len(a.Tools) == 0 || a.Tools[0].Name != "startExport" {
		t.Fatalf("answer %+v", a)
	}
	if !strings.Contains(string(a.JSON), `"name":"startExport"`) || !turn.Loaded("startExport") {
		t.Fatalf("answer %s, loaded %v", a.JSON, turn.Loaded("startExport"))
	}
	// A second search does not return what is loaded already.
	again := turn.SearchQuery("startExport")
	for _, d := range again.Tools {
		if d.Name == "startExport" {
			t.Fatalf("a loaded tool was found again: %s", again.JSON)
		}
	}
	rec, ok := turn.Record()
	if !ok || rec.Searches != 2 || rec.Tools[0] != "ws.startExport" || rec.Exhausted {
		t.Fatalf("record %+v", rec)
	}
}

// With nothing callable (every tool deferred, none found yet), a search
// that finds nothing says to try other words, and names no empty list.
func TestNoMatchWithNothingCallableEndsWithTheAdvice(t *testing.T) {
	req := &model.Request{Tools: []model.ToolDefinition{def("startExport", "Export a table to a CSV file")}, Search: model.SearchSettings{Mode: model.SearchPortable}}
	turn, err := newEngine(t).Begin(req, "search_tools")
	if err != nil {
		t.Fatal(err)
	}
	a := turn.SearchQuery("zebra giraffe")
	var body struct {
		Message string `json:"message"`
	}
	if err := json.Unmarshal(a.JSON, &body); err != nil || a.Kind != NoMatch {
		t.Fatalf("answer %+v", a)
	}
	if body.Message != "No tool matched this query. Try other words." {
		t.Fatalf("message %q", body.Message)
	}
}

func TestNoMatchNamesTheCallableTools(t *testing.T) {
	req := catalogRequest()
	req.Discovery = &model.DiscoveryState{Tools: []tools.Ident{"ws.indexStats"}}
	turn, err := newEngine(t).Begin(req, "search_tools")
	if err != nil {
		t.Fatal(err)
	}
	a := turn.SearchQuery("zebra giraffe")
	if a.Kind != NoMatch || a.IsError() {
		t.Fatalf("answer %+v", a)
	}
	var body struct {
		Tools   []any  `json:"tools"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(a.JSON, &body); err != nil || body.Tools == nil || len(body.Tools) != 0 {
		t.Fatalf("no-match JSON %s", a.JSON)
	}
	if !strings.HasSuffix(body.Message, "use one of: indexStats, openTable") {
		t.Fatalf("message %q", body.Message)
	}
	if rec, _ := turn.Record(); rec.Searches != 1 {
		t.Fatalf("a search that found nothing still counts: %+v", rec)
	}
}

func TestBudgetAndInvalidQueries(t *testing.T) {
	req := catalogRequest()
	req.Search.Cap = 2
	req.Discovery = &model.DiscoveryState{Searches: 1}
	turn, err := newEngine(t).Begin(req, "search_tools")
	if err != nil {
		t.Fatal(err)
	}
	if a := turn.Search(json.RawMessage(`{"q":"x"}`)); a.Kind != InvalidQuery || !a.IsError() || !strings.Contains(string(a.JSON), "search_tools takes") {
		t.Fatalf("invalid query: %+v", a)
	}
	if a := turn.Search(json.RawMessage(`{"query":"cancel export"}`)); a.Kind != Found {
		t.Fatalf("second search of the turn: %+v", a)
	}
	a := turn.SearchQuery("index statistics")
	if a.Kind != BudgetExhausted || string(a.JSON) != `{"error":"search-budget-exhausted","budgetCap":2}` || !turn.Exhausted() {
		t.Fatalf("third search: %+v", a)
	}
	if rec, _ := turn.Record(); rec.Searches != 1 || !rec.Exhausted {
		t.Fatalf("record %+v", rec)
	}
}

func TestWeakHitsAreCut(t *testing.T) {
	// A query that matches one tool strongly and another by one common
	// word only.
	req := catalogRequest(def("exportChart", "Render a chart as an image"))
	turn, err := newEngine(t, Settings{MinRelativeScore: 0.9}).Begin(req, "search_tools")
	if err != nil {
		t.Fatal(err)
	}
	a := turn.SearchQuery("cancel a running export")
	if a.Kind != Found || len(a.Tools) != 1 || a.Tools[0].Name != "cancelExport" {
		t.Fatalf("tools %v", names(a.Tools))
	}
	all, _ := newEngine(t, Settings{MinRelativeScore: NoScoreCut}).Begin(req, "search_tools")
	if b := all.SearchQuery("cancel a running export"); len(b.Tools) < 2 {
		t.Fatalf("without the cut: %v", names(b.Tools))
	}
}

func TestIndexIsCachedByFingerprint(t *testing.T) {
	e := newEngine(t)
	req := catalogRequest()
	t1, _ := e.Begin(req, "s")
	reordered := catalogRequest()
	reordered.Tools[1], reordered.Tools[3] = reordered.Tools[3], reordered.Tools[1]
	t2, _ := e.Begin(reordered, "s")
	if t1.index != t2.index {
		t.Fatal("the same catalog in another order was indexed twice")
	}
	changed := catalogRequest(def("newTool", "Something new"))
	t3, _ := e.Begin(changed, "s")
	if t3.index == t1.index || Fingerprint(changed.Tools) == Fingerprint(req.Tools) {
		t.Fatal("a changed catalog reused the old index")
	}
}

func TestSearchLoopIsBounded(t *testing.T) {
	req := catalogRequest()
	req.Search.Cap = 1
	turn, _ := newEngine(t).Begin(req, "search_tools")
	for i := 0; i < 3; i++ {
		if err := turn.NextRound(); err != nil {
			t.Fatalf("round %d: %v", i+1, err)
		}
	}
	if err := turn.NextRound(); !errors.Is(err, ErrSearchLoop) {
		t.Fatalf("round 4 with a budget of 1: %v", err)
	}
}

func TestBeginRefusesUnsearchableDefinitions(t *testing.T) {
	bad := def("x", "x")
	bad.Search = nil
	if _, err := newEngine(t).Begin(catalogRequest(bad), "s"); err == nil || !strings.Contains(err.Error(), `"x" has no search document`) {
		t.Fatalf("err = %v", err)
	}
	wrong := def("y", "y")
	wrong.Ident = "ws.other"
	if _, err := newEngine(t).Begin(catalogRequest(wrong), "s"); err == nil || !strings.Contains(err.Error(), "not by its ident") {
		t.Fatalf("err = %v", err)
	}
}

func TestStateComesFromTheRequestOrItsMessages(t *testing.T) {
	msg := model.AssistantMessage("found")
	msg.SetDiscovery(model.Discovery{Tools: []tools.Ident{"ws.cancelExport"}, Searches: 1})
	req := catalogRequest()
	req.Messages = []model.Message{model.UserMessage("go"), msg}
	turn, _ := newEngine(t).Begin(req, "s")
	if !turn.Loaded("cancelExport") || turn.used != 1 {
		t.Fatalf("derived state: loaded %v, used %d", turn.Loaded("cancelExport"), turn.used)
	}
	req.Discovery = &model.DiscoveryState{}
	turn, _ = newEngine(t).Begin(req, "s")
	if turn.Loaded("cancelExport") || turn.used != 0 {
		t.Fatal("the request's own state was not used")
	}
}

func names(defs []model.ToolDefinition) []string {
	var out []string
	for _, d := range defs {
		out = append(out, d.Name)
	}
	return out
}

func TestSearchingAgainForALoadedToolLoadsNoWeakNeighbour(t *testing.T) {
	req := catalogRequest()
	req.Discovery = &model.DiscoveryState{Tools: []tools.Ident{"ws.cancelExport"}}
	turn, err := newEngine(t).Begin(req, "search_tools")
	if err != nil {
		t.Fatal(err)
	}
	// cancelExport matches best; startExport only shares "export".
	a := turn.SearchQuery("cancel running export")
	if a.Kind != NoMatch || !strings.Contains(string(a.JSON), "cancelExport") {
		t.Fatalf("answer %s: a weak neighbour of the loaded tool was loaded", a.JSON)
	}
}

// newEngine returns an engine with the settings given (the defaults with
// none), failing the test on invalid settings.
func newEngine(t testing.TB, settings ...Settings) *Engine {
	t.Helper()
	var s Settings
	if len(settings) > 0 {
		s = settings[0]
	}
	e, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestSettingsOutOfRangeAreRefused(t *testing.T) {
	_, err := New(Settings{Limit: -1, MinRelativeScore: 1.5})
	if err == nil {
		t.Fatal("New accepted a negative search limit and a min relative score of 1.5")
	}
	for _, want := range []string{
		"search limit -1 must be positive, or 0 for the default (5)",
		"min relative score 1.5 must be between 0 and 1, 0 for the default (0.5), or discovery.NoScoreCut",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if strings.Count(err.Error(), "discovery:") != 1 {
		t.Errorf("the prefix repeats: %v", err)
	}
	for _, bad := range []float64{-0.5, math.NaN(), math.Inf(1)} {
		if err := (Settings{MinRelativeScore: bad}).Validate(); err == nil {
			t.Errorf("MinRelativeScore %v was accepted", bad)
		}
	}
}

func TestZeroSettingsAreTheDefaults(t *testing.T) {
	for _, s := range [][]Settings{nil, {{}}} {
		e := newEngine(t, s...)
		if e.limit != DefaultSearchLimit || e.minRelative != DefaultMinRelativeScore {
			t.Errorf("New(%v): limit %d, min relative score %v; want the defaults %d and %v", s, e.limit, e.minRelative, DefaultSearchLimit, DefaultMinRelativeScore)
		}
	}
	e := newEngine(t, Settings{Limit: 7, MinRelativeScore: NoScoreCut})
	if e.limit != 7 || e.minRelative != 0 {
		t.Errorf("limit %d, min relative score %v; want 7 and no cut (0)", e.limit, e.minRelative)
	}
}

// A search that finds nothing names the deferred tools whose names are
// nearest the query before anything else — not the ones callable already,
// which the answer lists anyway — and still counts against the budget.
func TestNoMatchNamesTheClosestTools(t *testing.T) {
	req := &model.Request{Tools: []model.ToolDefinition{
		def("startExport", "Export a table to a CSV file"),
		def("cancelExport", "Cancel a running export"),
	}, Search: model.SearchSettings{Mode: model.SearchPortable, Cap: 2}}
	turn, err := newEngine(t).Begin(req, "search_tools")
	if err != nil {
		t.Fatal(err)
	}
	// Three edits from startExport: past the fuzzy name tier.
	a := turn.SearchQuery("strtxporrt")
	var body struct {
		Closest []string `json:"closest"`
		Message string   `json:"message"`
	}
	if err := json.Unmarshal(a.JSON, &body); err != nil || a.Kind != NoMatch {
		t.Fatalf("answer %+v", a)
	}
	if !slices.Equal(body.Closest, []string{"startExport"}) ||
		body.Message != "No tool matched this query. Closest tool names: startExport (search for one by its exact name). Otherwise try other words." {
		t.Fatalf("answer %s", a.JSON)
	}
	// Once startExport is loaded it is callable, named as such, not as a
	// closest name.
	if !turn.Load("startExport") {
		t.Fatal("startExport not deferred")
	}
	a = turn.SearchQuery("strtxporrt")
	if strings.Contains(string(a.JSON), "Closest") || !strings.Contains(string(a.JSON), "use one of: startExport") {
		t.Fatalf("answer %s", a.JSON)
	}
	if b := turn.SearchQuery("strtxporrt"); b.Kind != BudgetExhausted {
		t.Fatalf("third search of a budget of 2: %+v", b)
	}
}
