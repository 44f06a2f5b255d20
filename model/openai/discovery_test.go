package openai

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/discovery"
	"github.com/quiver-go/quiver/internal/providerfake"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/tools"
)

func TestNoMatchAndInvalidQueryAreTold(t *testing.T) {
	// A search that finds nothing counts and loads nothing; a call without
	// a query does not count. The model reads both answers.
	p, c := newProvider(t,
		exchange{body: response("resp_1", "completed", 10, providerfake.OpenAIToolSearchCall("tsc_1", "call_search_1", "zebra giraffe"))},
		exchange{body: response("resp_2", "completed", 10,
			`{"type":"tool_search_call","id":"tsc_2","call_id":"call_search_2","execution":"client","status":"completed","arguments":{}}`)},
		exchange{body: response("resp_3", "completed", 10, providerfake.OpenAIMessage("msg_1", "Nothing fits."))},
	)
	resp, err := c.Complete(context.Background(), baseRequest())
	if err != nil {
		t.Fatal(err)
	}
	if outs := searchOutputs(p.Body(2)); len(outs) != 2 || len(outs[0]) != 0 || len(outs[1]) != 0 {
		t.Errorf("search outputs = %v, want two empty lists", outs)
	}
	equal(t, "answers told", answersTold(p.Body(2)), []string{
		`{"message":"No tool matched this query. Try other words, or use one of: lookup","query":"zebra giraffe","tools":[]}`,
		`{"error":"invalid-query","message":"tool_search takes {\"query\": \"<what you want to do, or a tool's name>\"}"}`,
	})
	d, _ := resp.Messages[0].Discovery()
	equal(t, "discovery", d, model.Discovery{Searches: 1})
}

func TestDiscoveryStateComesFromTheRequest(t *testing.T) {
	// The runtime's state says analyze was discovered and one search of
	// the turn is spent; the transcript says otherwise and is not read.
	other := model.AssistantMessage("Earlier.")
	other.SetDiscovery(model.Discovery{Searches: 5, Exhausted: true})
	p, c := newProvider(t,
		exchange{body: response("resp_1", "completed", 10, providerfake.OpenAIToolSearchCall("tsc_1", "call_search_1", "trends statistics"))},
		exchange{body: response("resp_2", "completed", 10, providerfake.OpenAIToolSearchCall("tsc_2", "call_search_2", "invoice"))},
		exchange{body: response("resp_3", "completed", 10, providerfake.OpenAIMessage("msg_1", "OK."))},
	)
	req := baseRequest()
	req.Search.Cap = 2
	req.Messages = append(req.Messages, other, model.UserMessage("Go on."))
	req.Discovery = &model.DiscoveryState{Tools: []tools.Ident{"records.analyze"}, Searches: 1}
	resp, err := c.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	// analyze was discovered through another adapter (no replayed output
	// loads it): it is a function tool from the first request on.
	equal(t, "function tools", functionTools(p.Body(0)), []string{"lookup", "analyze"})
	if !hasSearchTool(p.Body(0)) {
		t.Error("tool_search missing: the request's state has budget left")
	}
	// The first search is the turn's second (answered, analyze not found
	// again), the next one is refused.
	equal(t, "answers told", answersTold(p.Body(2)), []string{
		`{"message":"No tool matched this query. Try other words, or use one of: analyze, lookup","query":"trends statistics","tools":[]}`,
		`{"error":"search-budget-exhausted","budgetCap":2}`,
	})
	d, _ := resp.Messages[0].Discovery()
	equal(t, "discovery", d, model.Discovery{Searches: 1, Exhausted: true})
}

func TestSearchLoopIsTheDiscoveryError(t *testing.T) {
	var exchanges []exchange
	for _, id := range []string{"1", "2", "3"} {
		exchanges = append(exchanges, exchange{body: response("resp_"+id, "completed", 10, providerfake.OpenAIToolSearchCall("tsc_"+id, "call_search_"+id, "export csv"))})
	}
	p, c := newProvider(t, exchanges...)
	req := baseRequest()
	req.Search.Cap = 1
	_, err := c.Complete(context.Background(), req)
	if !errors.Is(err, discovery.ErrSearchLoop) {
		t.Fatalf("err = %v, want discovery.ErrSearchLoop", err)
	}
	equal(t, "requests", len(p.Requests()), 3)
}

func TestToolNamesAreValidatedBeforeAnyRequest(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*model.Request)
	}{
		{"portable search tool name", func(r *model.Request) { r.Search.ToolName = "find tools" }},
		{"tool name", func(r *model.Request) { r.Tools[0].Name = "records.lookup" }},
		{"long name", func(r *model.Request) { r.Tools[0].Name = strings.Repeat("x", 65) }},
	} {
		_, c := newProvider(t)
		req := baseRequest()
		tc.edit(req)
		_, err := c.Complete(context.Background(), req)
		if err == nil || !strings.Contains(err.Error(), "must match ^[a-zA-Z0-9_-]{1,64}$") {
			t.Errorf("%s: err = %v, want the name pattern", tc.name, err)
		}
	}
}

func TestMinRelativeScoreIsValidated(t *testing.T) {
	if _, err := New(WithDiscovery(discovery.Settings{MinRelativeScore: 1.5})); err == nil {
		t.Error("a min relative score above 1 was accepted")
	}
	for _, f := range []float64{0, discovery.NoScoreCut, 1} {
		if _, err := New(WithDiscovery(discovery.Settings{MinRelativeScore: f})); err != nil {
			t.Errorf("min relative score %v: %v", f, err)
		}
	}
}
