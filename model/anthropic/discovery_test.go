package anthropic_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/discovery"
	"github.com/quiver-go/quiver/internal/providerfake"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/anthropic"
	"github.com/quiver-go/quiver/tools"
)

// searchResults returns the blocks the last user message of a
// request body holds.
func searchResults(t *testing.T, body []byte) []map[string]any {
	t.Helper()
	var msgs []struct {
		Role    string           `json:"role"`
		Content []map[string]any `json:"content"`
	}
	if err := json.Unmarshal(field(t, body, "messages"), &msgs); err != nil {
		t.Fatal(err)
	}
	last := msgs[len(msgs)-1]
	if last.Role != "user" {
		t.Fatalf("last message is %s", last.Role)
	}
	return last.Content
}

func TestClientSearchNoMatchAndInvalidQueryAreTheCoreAnswers(t *testing.T) {
	p := newProvider(t,
		ok(message("msg_71", "tool_use", 10,
			searchCall("toolu_s1", "zebra giraffe"),
			`{"type":"tool_use","id":"toolu_s2","name":"tool_search","input":{"q":"export"},"caller":{"type":"direct"}}`)),
		ok(message("msg_72", "end_turn", 10, `{"type":"text","text":"Nothing fits."}`)),
	)
	resp, err := clientSearch(p).Complete(context.Background(), request("Find something."))
	if err != nil {
		t.Fatal(err)
	}
	providerfake.AssertJSON(t, "search results", []byte(mustJSON(t, searchResults(t, p.Request(1).Body))), `[
	  {"type":"tool_result","tool_use_id":"toolu_s1","content":[{"type":"text","text":"{\"message\":\"No tool matched this query. Try other words, or use one of: records_lookup\",\"query\":\"zebra giraffe\",\"tools\":[]}"}]},
	  {"type":"tool_result","tool_use_id":"toolu_s2","is_error":true,"content":[{"type":"text","text":"{\"error\":\"invalid-query\",\"message\":\"tool_search takes {\\\"query\\\": \\\"<what you want to do, or a tool's name>\\\"}\"}"}]}]`)
	d, _ := resp.Messages[0].Discovery()
	if !reflect.DeepEqual(d, model.Discovery{Searches: 1}) {
		t.Fatalf("discovery = %+v: the no-match search counts, the invalid one does not", d)
	}
}

func TestForcedToolReferencedByTheHistoryKeepsDeferLoading(t *testing.T) {
	// A client-side search referenced records_export; the next invocation
	// forces it. The reference loaded it, and a referenced tool must stay
	// deferred.
	p := newProvider(t,
		ok(message("msg_81", "tool_use", 10, searchCall("toolu_s1", "export records csv"))),
		ok(message("msg_82", "end_turn", 10, `{"type":"text","text":"Found it."}`)),
	)
	req := request("Export.")
	first, err := clientSearch(p).Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	p2 := newProvider(t, ok(message("msg_83", "tool_use", 10, exportUse)))
	next := request("Export.")
	next.Messages = append(next.Messages, first.Messages...)
	next.Messages = append(next.Messages, model.UserMessage("Now."))
	next.ToolChoice = model.ToolChoice{Mode: model.ToolChoiceTool, Name: "records_export"}
	if _, err := clientSearch(p2).Complete(context.Background(), next); err != nil {
		t.Fatal(err)
	}
	sent := sentTools(t, p2.Request(0).Body)
	if sent["records_export"]["defer_loading"] != true {
		t.Fatalf("forced referenced tool sent as %v, want defer_loading", sent["records_export"])
	}

	// Without a reference in the history the forced tool stays eager.
	p3 := newProvider(t, ok(message("msg_84", "tool_use", 10, exportUse)))
	fresh := request("Export.")
	fresh.ToolChoice = next.ToolChoice
	if _, err := clientSearch(p3).Complete(context.Background(), fresh); err != nil {
		t.Fatal(err)
	}
	if _, deferred := sentTools(t, p3.Request(0).Body)["records_export"]["defer_loading"]; deferred {
		t.Fatal("a forced tool no reference loaded was sent with defer_loading")
	}
}

func TestClientSearchTakesItsStateFromTheRequest(t *testing.T) {
	// The runtime's state: records_analyze was discovered (through another
	// adapter: no tool_reference loads it) and one search is spent.
	p := newProvider(t,
		ok(message("msg_91", "tool_use", 10, searchCall("toolu_s1", "analyze"))),
		ok(message("msg_92", "tool_use", 10, searchCall("toolu_s2", "export"))),
		ok(message("msg_93", "end_turn", 10, `{"type":"text","text":"Done."}`)),
	)
	req := request("Analyze.")
	req.Search.Cap = 2
	req.Discovery = &model.DiscoveryState{Tools: []tools.Ident{"records.analyze"}, Searches: 1}
	resp, err := clientSearch(p).Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if _, deferred := sentTools(t, p.Request(0).Body)["records_analyze"]["defer_loading"]; deferred {
		t.Fatal("a discovered tool no reference loads was sent with defer_loading: the model could not call it")
	}
	// The search for it finds nothing new; the next one is refused.
	results := searchResults(t, p.Request(1).Body)
	if text := mustJSON(t, results); !strings.Contains(text, `No tool matched this query`) {
		t.Fatalf("first search: %s", text)
	}
	if text := mustJSON(t, searchResults(t, p.Request(2).Body)); !strings.Contains(text, `{\"error\":\"search-budget-exhausted\",\"budgetCap\":2}`) {
		t.Fatalf("second search: %s", text)
	}
	d0, _ := resp.Messages[0].Discovery()
	d1, _ := resp.Messages[1].Discovery()
	if !reflect.DeepEqual(d0, model.Discovery{Searches: 1}) || !reflect.DeepEqual(d1, model.Discovery{Exhausted: true}) {
		t.Fatalf("discovery records %+v, %+v", d0, d1)
	}
}

func TestSearchToolNameComesFromTheRequestAndIsValidated(t *testing.T) {
	p := newProvider(t, ok(message("msg_a1", "end_turn", 10, `{"type":"text","text":"Hi."}`)))
	c := clientSearch(p)
	req := request("Hi.")
	req.Search.ToolName = "find_tools"
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if _, ok := sentTools(t, p.Request(0).Body)["find_tools"]; !ok {
		t.Fatal("the client-side search tool is not named by SearchSettings.ToolName")
	}
	if got := c.SearchInstruction(req.Search); got != "Call find_tools(query='%s') to discover it" {
		t.Fatalf("instruction %q", got)
	}

	bad := request("Hi.")
	bad.Search.ToolName = "find tools"
	if _, err := c.Complete(context.Background(), bad); err == nil || !strings.Contains(err.Error(), "must match ^[a-zA-Z0-9_-]{1,64}$") {
		t.Fatalf("err = %v, want the name pattern", err)
	}
	if n := len(p.Requests()); n != 1 {
		t.Fatalf("%d requests: an invalid name must fail before any request", n)
	}
	if _, err := anthropic.New(anthropic.WithDiscovery(discovery.Settings{MinRelativeScore: 2})); err == nil {
		t.Fatal("a min relative score above 1 was accepted")
	}
}

// sentTools returns the tools of a request body by name.
func sentTools(t *testing.T, body []byte) map[string]map[string]any {
	t.Helper()
	var sent []map[string]any
	if err := json.Unmarshal(field(t, body, "tools"), &sent); err != nil {
		t.Fatal(err)
	}
	out := make(map[string]map[string]any, len(sent))
	for _, s := range sent {
		out[s["name"].(string)] = s
	}
	return out
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
