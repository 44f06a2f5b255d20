package runtimetest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/tools"
)

// bndListSchema is the payload of the listing tools: a site and the
// optional opaque cursor.
const bndListSchema = `{"type":"object","properties":{"site":{"type":"string"},"cursor":{"type":"string"}}}`

// withBounds declares a bounded result.
func withBounds(b tools.BoundsSpec) specOption {
	return func(s *tools.ToolSpec) { s.Bounds = &b }
}

// bndPayload decodes a recorded call's payload.
func bndPayload(t *testing.T, c *runtime.ToolCall) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(c.Payload, &m); err != nil {
		t.Fatalf("payload of %s: %v", c.Ident, err)
	}
	return m
}

// bndCalls returns the recorded calls of one tool.
func bndCalls(f *fixture, id tools.Ident) []*runtime.ToolCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []*runtime.ToolCall
	for _, c := range f.calls {
		if c.Ident == id {
			out = append(out, c)
		}
	}
	return out
}

// bndLastResult returns the content of the last tool result of a request.
func bndLastResult(t *testing.T, req model.Request) model.ToolResult {
	t.Helper()
	res := toolResults(req.Messages)
	if len(res) == 0 {
		t.Fatalf("request has no tool result: %+v", req.Messages)
	}
	return res[len(res)-1]
}

// bndRequestsJSON renders every recorded request as JSON, to search them for
// values that must never reach a model.
func bndRequestsJSON(t *testing.T, c *scripted.Client) string {
	t.Helper()
	raw, err := json.Marshal(c.Requests())
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

func testBoundedResultMissingBoundsIsFailure(t *testing.T, newEngine NewEngine) {
	list := newSpec(t, "list_devices", withPayload(t, bndListSchema), withBounds(tools.BoundsSpec{Cursor: "cursor"}))
	f := newFixture(t, newEngine, runtime.RunPolicy{}, []fixtureTool{{spec: list, handler: ok(`{"devices":["a","b"]}`)}},
		scripted.Call("list_devices", `{"site":"s1"}`),
		scripted.Reply("done"),
	)
	out := f.run("list")
	if out.Status != runtime.StatusCompleted {
		t.Fatalf("out = %+v", out)
	}
	reqs := f.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	res := bndLastResult(t, reqs[1])
	var got map[string]any
	if err := json.Unmarshal(res.Content, &got); err != nil {
		t.Fatal(err)
	}
	if !res.IsError || got["error"] != "missing_bounds" || strings.Contains(string(res.Content), `"devices"`) {
		t.Fatalf("a bounded tool without bounds must be a failure the model reads, got %s (is_error %v)", res.Content, res.IsError)
	}
	evs := eventsOf[runtime.ToolResultReceived](f)
	if len(evs) != 1 || evs[0].Failure == nil || evs[0].Failure.Code != "missing_bounds" {
		t.Fatalf("result events = %+v", evs)
	}
}

func testBoundedResultProjectsBoundsFields(t *testing.T, newEngine NewEngine) {
	total := 42
	list := newSpec(t, "list_devices", withPayload(t, bndListSchema), withBounds(tools.BoundsSpec{Cursor: "cursor", NextCursor: "next_cursor"}))
	f := newFixture(t, newEngine, runtime.RunPolicy{}, []fixtureTool{{spec: list, handler: func(context.Context, *runtime.ToolCall) (*planner.ToolResult, error) {
		return &planner.ToolResult{
			Result: json.RawMessage(`{"devices":["a","b"]}`),
			Bounds: &planner.Bounds{Returned: 2, Total: &total, Truncated: true, NextCursor: "cur-2", RefinementHint: "filter by site"},
		}, nil
	}}},
		scripted.Call("list_devices", `{"site":"s1"}`),
		scripted.Reply("done"),
	)
	f.run("list")
	reqs := f.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	res := bndLastResult(t, reqs[1])
	var got map[string]any
	if err := json.Unmarshal(res.Content, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"returned": 2.0, "truncated": true, "total": 42.0, "refinement_hint": "filter by site", "next_cursor": "cur-2"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("result JSON the model sees: %s = %v, want %v (content %s)", k, got[k], v, res.Content)
		}
	}
	if devices, _ := got["devices"].([]any); len(devices) != 2 || res.IsError {
		t.Errorf("semantic result lost: %s", res.Content)
	}
	evs := eventsOf[runtime.ToolResultReceived](f)
	if len(evs) != 1 || evs[0].Bounds == nil || evs[0].Bounds.Returned != 2 || string(evs[0].Result) != string(res.Content) {
		t.Errorf("result event = %+v", evs)
	}
}

func testBoundedResultDirectCursor(t *testing.T, newEngine NewEngine) {
	list := newSpec(t, "list_devices", withPayload(t, bndListSchema), withBounds(tools.BoundsSpec{Cursor: "cursor", NextCursor: "next_cursor"}))
	handler := func(_ context.Context, c *runtime.ToolCall) (*planner.ToolResult, error) {
		var p struct {
			Cursor string `json:"cursor"`
		}
		if err := c.Decode(&p); err != nil {
			return nil, err
		}
		if p.Cursor == "" {
			return &planner.ToolResult{Result: json.RawMessage(`{"devices":["a"]}`), Bounds: &planner.Bounds{Returned: 1, Truncated: true, NextCursor: "opaque-page-2"}}, nil
		}
		return &planner.ToolResult{Result: json.RawMessage(`{"devices":["b"]}`), Bounds: &planner.Bounds{Returned: 1}}, nil
	}
	// The second step passes back the cursor it read in the first result.
	var seen guarded[string]
	f := newFixture(t, newEngine, runtime.RunPolicy{}, []fixtureTool{{spec: list, handler: handler}},
		scripted.Call("list_devices", `{"site":"s1"}`),
		scripted.Choose(func(req *model.Request) scripted.Step {
			var r struct {
				NextCursor string `json:"next_cursor"`
			}
			res := toolResults(req.Messages)
			if len(res) > 0 {
				_ = json.Unmarshal(res[len(res)-1].Content, &r)
			}
			seen.set(r.NextCursor)
			return scripted.Call("list_devices", fmt.Sprintf(`{"site":"s1","cursor":%q}`, r.NextCursor))
		}),
		scripted.Reply("done"),
	)
	f.run("list all")
	if got := seen.get(); got != "opaque-page-2" {
		t.Fatalf("next_cursor visible to the model = %q, want opaque-page-2", got)
	}
	calls := bndCalls(f, list.Name)
	if len(calls) != 2 {
		t.Fatalf("%d calls", len(calls))
	}
	if _, has := bndPayload(t, calls[0])["cursor"]; has {
		t.Errorf("first page called with a cursor: %s", calls[0].Payload)
	}
	if got := bndPayload(t, calls[1])["cursor"]; got != "opaque-page-2" {
		t.Errorf("second page cursor = %v, want the one the model passed back", got)
	}
	last := bndLastResult(t, f.model.Requests()[2])
	if strings.Contains(string(last.Content), "next_cursor") {
		t.Errorf("last page shows a cursor: %s", last.Content)
	}
}

// bndPager returns handlers for a ContinueWith pair: the source starts a
// listing of three pages per site, the partner serves the page its cursor
// names. Cursors are opaque values the model must never see.
func bndPager() (source, partner handler, cursors func() []string) {
	var mu sync.Mutex
	var issued []string
	n := 0
	page := func(site string, pageNo int) *planner.ToolResult {
		next := ""
		if pageNo < 3 {
			mu.Lock()
			n++
			next = fmt.Sprintf("secret-%s-%d-%d", site, pageNo+1, n)
			issued = append(issued, next)
			mu.Unlock()
		}
		return &planner.ToolResult{
			Result: json.RawMessage(fmt.Sprintf(`{"site":%q,"page":%d}`, site, pageNo)),
			Bounds: &planner.Bounds{Returned: 1, Truncated: next != "", NextCursor: next},
		}
	}
	source = func(_ context.Context, c *runtime.ToolCall) (*planner.ToolResult, error) {
		var p struct {
			Site string `json:"site"`
		}
		if err := c.Decode(&p); err != nil {
			return nil, err
		}
		return page(p.Site, 1), nil
	}
	partner = func(_ context.Context, c *runtime.ToolCall) (*planner.ToolResult, error) {
		var p struct {
			Cursor string `json:"cursor"`
		}
		if err := c.Decode(&p); err != nil {
			return nil, err
		}
		var site string
		var pageNo, serial int
		if _, err := fmt.Sscanf(strings.ReplaceAll(p.Cursor, "-", " "), "secret %s %d %d", &site, &pageNo, &serial); err != nil {
			return &planner.ToolResult{Failure: &planner.ToolFailure{Code: "bad_cursor", Message: "unknown cursor " + p.Cursor}}, nil
		}
		return page(site, pageNo), nil
	}
	cursors = func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), issued...)
	}
	return source, partner, cursors
}

// bndContinueTools declares list_devices continuing with list_more; the
// partner declares its cursor field when partnerCursor is set.
func bndContinueTools(t *testing.T, partnerCursor bool) (tools.ToolSpec, tools.ToolSpec) {
	src := newSpec(t, "list_devices", withPayload(t, bndListSchema), withBounds(tools.BoundsSpec{ContinueWith: "list_more"}))
	pb := tools.BoundsSpec{}
	if partnerCursor {
		pb.Cursor = "cursor"
	}
	more := newSpec(t, "list_more", withPayload(t, `{"type":"object","properties":{"cursor":{"type":"string"}}}`), withBounds(pb))
	return src, more
}

func testBoundedResultContinueWith(t *testing.T, newEngine NewEngine) {
	for _, partnerCursor := range []bool{false, true} {
		t.Run(fmt.Sprintf("partner declares cursor %v", partnerCursor), func(t *testing.T) {
			src, more := bndContinueTools(t, partnerCursor)
			source, partner, cursors := bndPager()
			f := newFixture(t, newEngine, runtime.RunPolicy{}, []fixtureTool{{spec: src, handler: source}, {spec: more, handler: partner}},
				scripted.Call("list_devices", `{"site":"s1"}`),
				scripted.Call("list_more", `{}`),
				scripted.Call("list_more", `{}`),
				scripted.Call("list_more", `{}`), // the listing ended: nothing to continue
				scripted.Reply("done"),
			)
			out := f.run("list every device")
			if out.Status != runtime.StatusCompleted {
				t.Fatalf("out = %+v", out)
			}
			issued := cursors()
			if len(issued) != 2 {
				t.Fatalf("cursors issued = %v", issued)
			}
			calls := bndCalls(f, more.Name)
			if len(calls) != 2 {
				t.Fatalf("partner ran %d times, want 2 (pages 2 and 3)", len(calls))
			}
			for i, c := range calls {
				if got := bndPayload(t, c)["cursor"]; got != issued[i] {
					t.Errorf("partner call %d bound cursor %v, want %s", i+1, got, issued[i])
				}
			}
			reqs := f.model.Requests()
			if len(reqs) != 5 {
				t.Fatalf("%d requests", len(reqs))
			}
			for i, want := range []string{`"page":1`, `"page":2`, `"page":3`} {
				if c := bndLastResult(t, reqs[i+1]).Content; !strings.Contains(string(c), want) {
					t.Errorf("request %d: result %s, want %s", i+2, c, want)
				}
			}
			if res := bndLastResult(t, reqs[4]); !res.IsError || !strings.Contains(string(res.Content), "no_continuation") {
				t.Errorf("continuing a finished listing: %s", res.Content)
			}
			all := bndRequestsJSON(t, f.model)
			for _, c := range issued {
				if strings.Contains(all, c) {
					t.Errorf("cursor %s reached a model request", c)
				}
			}
			if strings.Contains(all, "next_cursor") {
				t.Errorf("a next_cursor field reached a model request")
			}
		})
	}
}

func testBoundedResultContinueWithParallelHeads(t *testing.T, newEngine NewEngine) {
	src, more := bndContinueTools(t, false)
	source, partner, cursors := bndPager()
	f := newFixture(t, newEngine, runtime.RunPolicy{}, []fixtureTool{{spec: src, handler: source}, {spec: more, handler: partner}},
		scripted.Calls(
			scripted.ToolCallSpec{Name: "list_devices", Payload: `{"site":"s1"}`},
			scripted.ToolCallSpec{Name: "list_devices", Payload: `{"site":"s2"}`},
		),
		scripted.Call("list_more", `{}`), // two heads: ambiguous
		scripted.Call("list_devices", `{"site":"s3"}`),
		scripted.Call("list_more", `{}`), // one head again
		scripted.Reply("done"),
	)
	out := f.run("list devices of two sites")
	if out.Status != runtime.StatusCompleted {
		t.Fatalf("out = %+v", out)
	}
	reqs := f.model.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests", len(reqs))
	}
	if res := toolResults(reqs[1].Messages); len(res) != 2 || res[0].IsError || res[1].IsError {
		t.Fatalf("parallel source calls must stay valid: %+v", res)
	}
	ambiguous := bndLastResult(t, reqs[2])
	if !ambiguous.IsError || !strings.Contains(string(ambiguous.Content), "ambiguous_continuation") {
		t.Errorf("no-argument continuation with two heads: %s", ambiguous.Content)
	}
	calls := bndCalls(f, more.Name)
	if len(calls) != 1 {
		t.Fatalf("partner ran %d times, want once (after the single source call)", len(calls))
	}
	issued := cursors()
	if len(issued) != 4 {
		t.Fatalf("cursors issued = %v", issued)
	}
	// issued[2] is the s3 listing's cursor (s1 and s2 issued the first two).
	if got := bndPayload(t, calls[0])["cursor"]; got != issued[2] || !strings.Contains(issued[2], "s3") {
		t.Errorf("continuation bound %v, want the single head %s", got, issued[2])
	}
	if c := bndLastResult(t, reqs[4]).Content; !strings.Contains(string(c), `"site":"s3","page":2`) {
		t.Errorf("continued page = %s", c)
	}
	all := bndRequestsJSON(t, f.model)
	for _, c := range issued {
		if strings.Contains(all, c) {
			t.Errorf("cursor %s reached a model request", c)
		}
	}
}

func testBoundedResultContinueWithExactCursorAdvancesItsHead(t *testing.T, newEngine NewEngine) {
	src, more := bndContinueTools(t, false)
	source, partner, cursors := bndPager()
	explicit := func(i int) scripted.Step {
		return scripted.Choose(func(*model.Request) scripted.Step {
			return scripted.Call("list_more", fmt.Sprintf(`{"cursor":%q}`, cursors()[i]))
		})
	}
	f := newFixture(t, newEngine, runtime.RunPolicy{}, []fixtureTool{{spec: src, handler: source}, {spec: more, handler: partner}},
		scripted.Calls(
			scripted.ToolCallSpec{Name: "list_devices", Payload: `{"site":"s1"}`},
			scripted.ToolCallSpec{Name: "list_devices", Payload: `{"site":"s2"}`},
		),
		explicit(1),                      // s2 page 2: advances the s2 head only
		explicit(2),                      // s2 page 3, the last: ends the s2 chain only
		scripted.Call("list_more", `{}`), // one head left: s1
		scripted.Reply("done"),
	)
	f.run("list devices of two sites")
	calls := bndCalls(f, more.Name)
	if len(calls) != 3 {
		t.Fatalf("partner ran %d times", len(calls))
	}
	issued := cursors()
	if got := bndPayload(t, calls[2])["cursor"]; got != issued[0] {
		t.Errorf("after the s2 chain ended, the continuation bound %v, want the s1 head %s (issued %v)", got, issued[0], issued)
	}
}
