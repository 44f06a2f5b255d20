package tokencount_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/tokencount"
)

func newCounter(t *testing.T) *tokencount.Counter {
	t.Helper()
	c, err := tokencount.NewCounter()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func callPart(name, payload string) model.Part {
	return model.Part{Kind: model.PartToolCall, ToolCall: &model.ToolCall{ID: "call_1", Name: name, Payload: json.RawMessage(payload)}}
}

func resultPart(content string) model.Part {
	return model.Part{Kind: model.PartToolResult, ToolResult: &model.ToolResult{CallID: "call_1", Name: "search", Content: json.RawMessage(content)}}
}

// TestCounterHandChecked pins small cases worked out by hand: "hello world"
// is 2 tokens, "hi", "search" and "{}" 1 each, {"q":"x"} and {"ok":true} 5
// each ({" q ":" x "} and {" ok ": true }); every message adds 4 and a
// non-empty conversation 3.
func TestCounterHandChecked(t *testing.T) {
	c := newCounter(t)
	ctx := context.Background()
	tests := []struct {
		name   string
		system string
		msgs   []model.Message
		want   int
	}{
		{"empty", "", nil, 0},
		{"system only", "hello world", nil, 3 + 4 + 2},
		{"one user message", "", []model.Message{model.UserMessage("hello world")}, 3 + 4 + 2},
		{"message without parts", "", []model.Message{{Role: model.RoleUser}}, 3 + 4},
		{"system and user", "hi", []model.Message{model.UserMessage("hello world")}, 3 + (4 + 1) + (4 + 2)},
		{"tool call", "", []model.Message{{Role: model.RoleAssistant, Parts: []model.Part{callPart("search", `{"q":"x"}`)}}}, 3 + 4 + 1 + 5},
		{"text and call", "", []model.Message{{Role: model.RoleAssistant, Parts: []model.Part{model.Text("hi"), callPart("search", `{}`)}}}, 3 + 4 + 1 + 1 + 1},
		{"tool result", "", []model.Message{{Role: model.RoleTool, Parts: []model.Part{resultPart(`{"ok":true}`)}}}, 3 + 4 + 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.CountTokens(ctx, tt.system, tt.msgs)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("CountTokens = %d, want %d", got, tt.want)
			}
		})
	}
}

// TestCounterRolesAreOneToken backs MessageOverhead: each role's name is one
// o200k_base token.
func TestCounterRolesAreOneToken(t *testing.T) {
	c := newCounter(t)
	for _, r := range []model.Role{model.RoleSystem, model.RoleUser, model.RoleAssistant, model.RoleTool} {
		if n, err := c.CountText(string(r)); err != nil || n != 1 {
			t.Errorf("CountText(%q) = %d, %v; want 1", r, n, err)
		}
	}
}

func TestCounterAgreesWithCount(t *testing.T) {
	c := newCounter(t)
	text := "Search the tools that are not loaded yet, then call the best match."
	want, err := tokencount.Count([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := c.CountText(text); err != nil || got != want {
		t.Errorf("CountText = %d, %v; Count = %d", got, err, want)
	}
}

func TestCounterMonotonic(t *testing.T) {
	c := newCounter(t)
	ctx := context.Background()
	msgs := []model.Message{model.UserMessage("open the sales table")}
	prev, err := c.CountTokens(ctx, "", msgs)
	if err != nil {
		t.Fatal(err)
	}
	grow := []func(){
		func() { msgs[0].Parts = append(msgs[0].Parts, model.Text(" and sort it by date")) },
		func() {
			msgs = append(msgs, model.Message{Role: model.RoleAssistant, Parts: []model.Part{callPart("openTable", `{"table":"sales"}`)}})
		},
		func() {
			msgs = append(msgs, model.Message{Role: model.RoleTool, Parts: []model.Part{resultPart(`{"rows":120}`)}})
		},
		func() { msgs = append(msgs, model.AssistantMessage("The table is open.")) },
	}
	for i, g := range grow {
		g()
		n, err := c.CountTokens(ctx, "", msgs)
		if err != nil {
			t.Fatal(err)
		}
		if n <= prev {
			t.Errorf("step %d: %d tokens after adding content, %d before", i, n, prev)
		}
		prev = n
	}
	withSystem, err := c.CountTokens(ctx, "You are terse.", msgs)
	if err != nil || withSystem <= prev {
		t.Errorf("with a system prompt: %d, %v; without: %d", withSystem, err, prev)
	}
}

func TestCounterContent(t *testing.T) {
	c := newCounter(t)
	msgs := []model.Message{{Role: model.RoleAssistant, Parts: []model.Part{model.Text("hello world"), callPart("search", `{"q":"x"}`)}}}
	if n, err := c.CountContent(msgs); err != nil || n != 2+1+5 {
		t.Errorf("CountContent = %d, %v; want 8", n, err)
	}
	if n, err := c.CountContent(nil); err != nil || n != 0 {
		t.Errorf("CountContent(nil) = %d, %v", n, err)
	}
}

func TestCounterTools(t *testing.T) {
	c := newCounter(t)
	if n, err := c.CountTools(nil); err != nil || n != 0 {
		t.Errorf("CountTools(nil) = %d, %v", n, err)
	}
	schema := json.RawMessage(`{"type":"object","properties":{"table":{"type":"string"}}}`)
	defs := []model.ToolDefinition{
		{Name: "openTable", Description: "Open a table.", InputSchema: schema},
		{Name: "dropTable", Description: "Drop a table.", InputSchema: schema, Deferred: true},
	}
	got, err := c.CountTools(defs)
	if err != nil {
		t.Fatal(err)
	}
	// Only the eager definition: its name, description and schema as text.
	want := 0
	for _, text := range []string{"openTable", "Open a table.", string(schema)} {
		n, err := tokencount.Count([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		want += n
	}
	if got != want {
		t.Errorf("CountTools = %d, want %d (the eager definition's name, description and schema)", got, want)
	}
	empty, err := c.CountTools([]model.ToolDefinition{{Name: "ping", InputSchema: json.RawMessage(`{"type":"object"}`)}})
	if err != nil {
		t.Fatal(err)
	}
	noSchema, err := c.CountTools([]model.ToolDefinition{{Name: "ping", Description: "Ping."}})
	if err != nil || noSchema <= empty {
		t.Errorf("CountTools without a schema = %d, %v", noSchema, err)
	}
	if _, err := c.CountTools([]model.ToolDefinition{{Name: "bad", InputSchema: json.RawMessage(`{`)}}); err == nil {
		t.Error("no error for an invalid schema")
	}
}

func TestCounterRequest(t *testing.T) {
	c := newCounter(t)
	ctx := context.Background()
	req := &model.Request{
		System:   "hi",
		Messages: []model.Message{model.UserMessage("hello world")},
		Tools:    []model.ToolDefinition{{Name: "ping", Description: "Ping.", InputSchema: json.RawMessage(`{"type":"object"}`)}},
	}
	conv, _ := c.CountTokens(ctx, req.System, req.Messages)
	tools, _ := c.CountTools(req.Tools)
	got, err := c.CountRequest(ctx, req)
	if err != nil || got != conv+tools || tools == 0 {
		t.Errorf("CountRequest = %d, %v; want %d + %d", got, err, conv, tools)
	}
	if _, err := c.CountRequest(ctx, nil); err == nil {
		t.Error("no error for a nil request")
	}
}

func TestCounterHonoursContext(t *testing.T) {
	c := newCounter(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.CountTokens(ctx, "", []model.Message{model.UserMessage("hi")})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestCounterConcurrent(t *testing.T) {
	c := newCounter(t)
	msgs := []model.Message{model.UserMessage("open the sales table and sort it by date")}
	want, err := c.CountTokens(context.Background(), "You are terse.", msgs)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				n, err := c.CountTokens(context.Background(), "You are terse.", msgs)
				if err != nil || n != want {
					t.Errorf("concurrent CountTokens = %d, %v; want %d", n, err, want)
					return
				}
			}
		})
	}
	wg.Wait()
}
