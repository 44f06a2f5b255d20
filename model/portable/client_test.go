package portable

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/discovery"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/tools"
)

// def builds a tool definition; deferred ones carry their search document.
func def(ident, desc string, deferred bool) model.ToolDefinition {
	id := tools.Ident(ident)
	d := model.ToolDefinition{Name: id.Tool(), Ident: id, Description: desc, InputSchema: json.RawMessage(`{"type":"object"}`), Deferred: deferred}
	if deferred {
		doc := search.NewDocument(search.Source{Name: ident, Aliases: []string{id.Tool()}, Description: desc})
		d.Search = &doc
	}
	return d
}

func workspaceRequest(msgs ...model.Message) *model.Request {
	if len(msgs) == 0 {
		msgs = []model.Message{model.UserMessage("Export this table to CSV")}
	}
	return &model.Request{
		Messages: msgs,
		Tools: []model.ToolDefinition{
			def("ws.openTable", "Open a table.", false),
			def("ws.applyFilter", "Filter the rows of a table.", false),
			def("ws.startExport", "Export a table to a CSV or Excel file.", true),
			def("ws.indexStats", "Show index statistics of a table.", true),
		},
		Search: model.SearchSettings{Mode: model.SearchPortable},
	}
}

func toolNames(defs []model.ToolDefinition) []string {
	var out []string
	for _, d := range defs {
		out = append(out, d.Name)
	}
	slices.Sort(out)
	return out
}

func TestMatchesJoinTheActiveSetBeforeTheNextRequest(t *testing.T) {
	inner := scripted.New(
		scripted.Call("search_tools", `{"query":"export csv"}`),
		scripted.Call("startExport", `{"table":"orders"}`),
	)
	resp, err := Wrap(inner).Complete(context.Background(), workspaceRequest())
	if err != nil {
		t.Fatal(err)
	}
	reqs := inner.Requests()
	if got := toolNames(reqs[0].Tools); !slices.Equal(got, []string{"applyFilter", "openTable", "search_tools"}) {
		t.Fatalf("first request tools = %v: deferred tools must stay out", got)
	}
	if got := toolNames(reqs[1].Tools); !slices.Contains(got, "startExport") {
		t.Fatalf("the very next request lacks the discovered tool: %v", got)
	}
	for _, r := range reqs {
		if model.HasDeferred(r.Tools) || r.Search.Mode != "" {
			t.Fatal("the inner client saw deferred tools or search settings")
		}
	}
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != "startExport" {
		t.Fatalf("planner-facing calls = %+v, want only the business call", resp.ToolCalls)
	}
	if got := model.DiscoveredTools(resp.Messages); !slices.Equal(got, []tools.Ident{"ws.startExport"}) {
		t.Fatalf("discovery record = %v", got)
	}
	if n := model.SearchesThisTurn(append(workspaceRequest().Messages, resp.Messages...)); n != 1 {
		t.Fatalf("searches recorded = %d, want 1", n)
	}
}

func TestBudgetExhaustedAnswerIsExact(t *testing.T) {
	var steps []scripted.Step
	for range 4 {
		steps = append(steps, scripted.Call("search_tools", `{"query":"something missing"}`))
	}
	steps = append(steps, scripted.Reply("I could not find it."))
	inner := scripted.New(steps...)
	resp, err := Wrap(inner).Complete(context.Background(), workspaceRequest())
	if err != nil {
		t.Fatal(err)
	}
	reqs := inner.Requests()
	last := reqs[4].Messages[len(reqs[4].Messages)-1]
	if got := string(last.Parts[0].ToolResult.Content); got != `{"error":"search-budget-exhausted","budgetCap":3}` {
		t.Fatalf("4th search answered %s", got)
	}
	if !model.SearchExhaustedThisTurn(resp.Messages) {
		t.Fatal("exhaustion not recorded")
	}
}

func TestBudgetCountsEarlierInvocationsOfTheTurn(t *testing.T) {
	// Two searches happened in earlier planning steps of this turn.
	earlier := model.Message{Role: model.RoleTool}
	earlier.SetDiscovery(model.Discovery{Searches: 2})
	older := model.Message{Role: model.RoleTool}
	older.SetDiscovery(model.Discovery{Searches: 3}) // a previous turn: not counted
	msgs := []model.Message{model.UserMessage("old question"), older, model.UserMessage("Export this"), earlier}
	inner := scripted.New(
		scripted.Call("search_tools", `{"query":"export"}`),
		scripted.Call("search_tools", `{"query":"export again"}`),
		scripted.Reply("done"),
	)
	req := workspaceRequest(msgs...)
	req.Search.Cap = 3
	if _, err := Wrap(inner).Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	reqs := inner.Requests()
	second := reqs[1].Messages[len(reqs[1].Messages)-1]
	third := reqs[2].Messages[len(reqs[2].Messages)-1]
	if strings.Contains(string(second.Parts[0].ToolResult.Content), "exhausted") {
		t.Fatalf("the 3rd search of the turn was refused: %s", second.Parts[0].ToolResult.Content)
	}
	if got := string(third.Parts[0].ToolResult.Content); got != `{"error":"search-budget-exhausted","budgetCap":3}` {
		t.Fatalf("the 4th search of the turn was answered %s", got)
	}
}

func TestEarlierDiscoveriesStayCallable(t *testing.T) {
	found := model.Message{Role: model.RoleTool}
	found.SetDiscovery(model.Discovery{Tools: []tools.Ident{"ws.indexStats"}, Searches: 1})
	inner := scripted.New(scripted.Reply("ok"))
	if _, err := Wrap(inner).Complete(context.Background(), workspaceRequest(model.UserMessage("stats?"), found)); err != nil {
		t.Fatal(err)
	}
	if got := toolNames(inner.Requests()[0].Tools); !slices.Contains(got, "indexStats") || slices.Contains(got, "startExport") {
		t.Fatalf("tools = %v: want the discovered indexStats and not the undiscovered startExport", got)
	}
}

func TestSearchAlongsideOrdinaryCallsReturnsTheCalls(t *testing.T) {
	inner := scripted.New(scripted.Calls(
		scripted.ToolCallSpec{Name: "openTable", Payload: `{"table":"orders"}`},
		scripted.ToolCallSpec{Name: "search_tools", Payload: `{"query":"export"}`},
	))
	resp, err := Wrap(inner).Complete(context.Background(), workspaceRequest())
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != "openTable" {
		t.Fatalf("calls = %+v", resp.ToolCalls)
	}
	if len(resp.Messages) != 2 || resp.Messages[1].Role != model.RoleTool {
		t.Fatalf("messages = %+v: want the assistant message then the search result", resp.Messages)
	}
}

func TestRequestsWithoutPortableSearchPassThrough(t *testing.T) {
	inner := scripted.New(scripted.Reply("a"), scripted.Reply("b"))
	c := Wrap(inner)
	native := workspaceRequest()
	native.Search.Mode = model.SearchNative
	if _, err := c.Complete(context.Background(), native); err != nil {
		t.Fatal(err)
	}
	if !model.HasDeferred(inner.Requests()[0].Tools) {
		t.Fatal("a native-mode request was rewritten")
	}
	plain := &model.Request{Messages: []model.Message{model.UserMessage("hi")}, Search: model.SearchSettings{Mode: model.SearchPortable}}
	if _, err := c.Complete(context.Background(), plain); err != nil {
		t.Fatal(err)
	}
	if len(inner.Requests()[1].Tools) != 0 {
		t.Fatal("a request without deferred tools got a search tool")
	}
}

func TestInvalidDefinitionsAreClearErrors(t *testing.T) {
	req := workspaceRequest()
	req.Tools[2].Search = nil
	if _, err := Wrap(scripted.New()).Complete(context.Background(), req); err == nil || !strings.Contains(err.Error(), "no search document") {
		t.Fatalf("err = %v", err)
	}
	req = workspaceRequest()
	req.Tools = append(req.Tools, model.ToolDefinition{Name: "search_tools"})
	if _, err := Wrap(scripted.New()).Complete(context.Background(), req); err == nil || !strings.Contains(err.Error(), "search tool's name") {
		t.Fatalf("err = %v", err)
	}
}

func TestAModelThatKeepsSearchingEndsInAnError(t *testing.T) {
	var steps []scripted.Step
	for range 10 {
		steps = append(steps, scripted.Call("search_tools", `{"query":"x"}`))
	}
	_, err := Wrap(scripted.New(steps...)).Complete(context.Background(), workspaceRequest())
	if !errors.Is(err, discovery.ErrSearchLoop) || !strings.Contains(err.Error(), "kept calling search_tools") {
		t.Fatalf("err = %v", err)
	}
}

func TestInnerErrorsPassThrough(t *testing.T) {
	boom := errors.New("rate limited")
	if _, err := Wrap(scripted.New(scripted.Fail(boom))).Complete(context.Background(), workspaceRequest()); !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
}

func TestWeakMatchesStayUndiscovered(t *testing.T) {
	run := func(c *Client) []tools.Ident {
		inner := scripted.New(scripted.Call("search_tools", `{"query":"export a table to csv"}`), scripted.Reply("ok"))
		c.inner = inner
		resp, err := c.Complete(context.Background(), workspaceRequest())
		if err != nil {
			t.Fatal(err)
		}
		return model.DiscoveredTools(resp.Messages)
	}
	if got := run(Wrap(nil)); !slices.Equal(got, []tools.Ident{"ws.startExport"}) {
		t.Errorf("default threshold discovered %v, want only startExport", got)
	}
	if got := run(Wrap(nil, WithDiscovery(discovery.Settings{MinRelativeScore: discovery.NoScoreCut}))); len(got) != 2 {
		t.Errorf("no score cut discovered %v, want both tools sharing a term", got)
	}
}

func TestSearchToolLeavesTheTurnOnceTheBudgetIsSpent(t *testing.T) {
	var steps []scripted.Step
	for range 4 {
		steps = append(steps, scripted.Call("search_tools", `{"query":"nothing here"}`))
	}
	steps = append(steps, scripted.Reply("I will answer without it."))
	inner := scripted.New(steps...)
	resp, err := Wrap(inner).Complete(context.Background(), workspaceRequest())
	if err != nil {
		t.Fatal(err)
	}
	reqs := inner.Requests()
	if !slices.Contains(toolNames(reqs[3].Tools), "search_tools") || slices.Contains(toolNames(reqs[4].Tools), "search_tools") {
		t.Fatalf("search tool offered %v then %v: want it dropped after the refused 4th search", toolNames(reqs[3].Tools), toolNames(reqs[4].Tools))
	}
	// A later invocation of the same turn does not offer it either.
	next := scripted.New(scripted.Reply("ok"))
	c := Wrap(next)
	if _, err := c.Complete(context.Background(), workspaceRequest(append([]model.Message{model.UserMessage("Export this")}, resp.Messages...)...)); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(toolNames(next.Requests()[0].Tools), "search_tools") {
		t.Fatal("a later invocation of the spent turn offered the search tool again")
	}
}

func TestSearchRoundsShareTheOutputBudget(t *testing.T) {
	round := &model.Response{
		Messages:   []model.Message{{Role: model.RoleAssistant, Parts: []model.Part{{Kind: model.PartToolCall, ToolCall: &model.ToolCall{ID: "s1", Name: "search_tools", Payload: json.RawMessage(`{"query":"export"}`)}}}}},
		ToolCalls:  []model.ToolCall{{ID: "s1", Name: "search_tools", Payload: json.RawMessage(`{"query":"export"}`)}},
		Usage:      model.Usage{OutputTokens: 30},
		StopReason: model.StopToolUse,
	}
	inner := scripted.New(scripted.Respond(round), scripted.Reply("done"))
	req := workspaceRequest()
	req.MaxTokens = 100
	if _, err := Wrap(inner).Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if got := []int{inner.Requests()[0].MaxTokens, inner.Requests()[1].MaxTokens}; !slices.Equal(got, []int{100, 70}) {
		t.Fatalf("MaxTokens per round = %v, want [100 70]", got)
	}
}

func TestAForcedDeferredToolIsSentAndRecorded(t *testing.T) {
	inner := scripted.New(scripted.Call("startExport", `{"table":"orders"}`))
	req := workspaceRequest()
	req.ToolChoice = model.ToolChoice{Mode: model.ToolChoiceTool, Name: "startExport"}
	resp, err := Wrap(inner).Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(toolNames(inner.Requests()[0].Tools), "startExport") {
		t.Fatal("the forced tool was not sent")
	}
	if got := model.DiscoveredTools(resp.Messages); !slices.Equal(got, []tools.Ident{"ws.startExport"}) {
		t.Fatalf("discovered %v: the runtime would refuse the forced call", got)
	}
}

func TestNilRequestIsAnError(t *testing.T) {
	c := Wrap(scripted.New())
	if _, err := c.Complete(context.Background(), nil); err == nil {
		t.Error("Complete(nil) succeeded")
	}
	if _, err := c.Stream(context.Background(), nil); err == nil {
		t.Error("Stream(nil) succeeded")
	}
}

func TestSupportsSearchAnswersPortableAndForwardsNative(t *testing.T) {
	portableMode := model.SearchSettings{Mode: model.SearchPortable}
	if err := Wrap(scripted.New()).SupportsSearch(portableMode); err != nil {
		t.Fatalf("portable: %v", err)
	}
	// A script opted into native search plays such a provider: native
	// mode goes to it; a plain script refuses it, naming the opt-in.
	if err := Wrap(scripted.New().WithNativeSearch()).SupportsSearch(model.SearchSettings{}); err != nil {
		t.Fatalf("native over a native client: %v", err)
	}
	if err := Wrap(scripted.New()).SupportsSearch(model.SearchSettings{}); !errors.Is(err, model.ErrToolSearchUnsupported) || !strings.Contains(err.Error(), "WithNativeSearch") {
		t.Fatalf("native over a plain script: err = %v, want ErrToolSearchUnsupported naming WithNativeSearch", err)
	}
	// A client that declares nothing has no native search: the wrapper
	// says to opt into portable mode.
	err := Wrap(silent{}).SupportsSearch(model.SearchSettings{})
	if !errors.Is(err, model.ErrToolSearchUnsupported) || !strings.Contains(err.Error(), "set Search.Mode to model.SearchPortable") {
		t.Fatalf("native over a silent client: err = %v", err)
	}
}

func TestDiscoverySettingsOutOfRangeFailBeforeAnyRequest(t *testing.T) {
	inner := scripted.New(scripted.Reply("never"))
	c := Wrap(inner, WithDiscovery(discovery.Settings{Limit: -1, MinRelativeScore: 2}))
	err := c.SupportsSearch(model.SearchSettings{Mode: model.SearchPortable})
	for _, want := range []string{"search limit -1 must be positive", "min relative score 2 must be between 0 and 1"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("SupportsSearch: err = %v, want %q", err, want)
		}
	}
	if _, err := c.Complete(context.Background(), workspaceRequest()); err == nil {
		t.Fatal("a portable request succeeded with invalid options")
	}
	if n := inner.Calls(); n != 0 {
		t.Fatalf("%d inner requests, want none", n)
	}
}

func TestSearchLimitCapsTheToolsOneSearchReturns(t *testing.T) {
	inner := scripted.New(scripted.Call("search_tools", `{"query":"table"}`), scripted.Reply("ok"))
	resp, err := Wrap(inner, WithDiscovery(discovery.Settings{Limit: 1, MinRelativeScore: discovery.NoScoreCut})).Complete(context.Background(), workspaceRequest())
	if err != nil {
		t.Fatal(err)
	}
	if got := model.DiscoveredTools(resp.Messages); len(got) != 1 {
		t.Fatalf("discovered %v, want one tool", got)
	}
}

// silent is a client that declares nothing about search.
type silent struct{}

func (silent) Complete(context.Context, *model.Request) (*model.Response, error) {
	return nil, errors.New("silent: not called")
}

func (silent) Stream(context.Context, *model.Request) (model.Streamer, error) {
	return nil, errors.New("silent: not called")
}
