package scripted_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/model/tokencount"
)

// request returns a small request with one user message.
func request(text string) *model.Request {
	return &model.Request{System: "You are terse.", Messages: []model.Message{model.UserMessage(text)}}
}

// complete plays one request and fails the test on error.
func complete(t *testing.T, c *scripted.Client, req *model.Request) *model.Response {
	t.Helper()
	resp, err := c.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// wantUsage returns the usage the client should report for answering req
// with resp's messages.
func wantUsage(t *testing.T, req *model.Request, resp *model.Response) model.Usage {
	t.Helper()
	counter, err := tokencount.NewCounter()
	if err != nil {
		t.Fatal(err)
	}
	in, err := counter.CountRequest(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	out, err := counter.CountContent(resp.Messages)
	if err != nil {
		t.Fatal(err)
	}
	return model.Usage{InputTokens: in, OutputTokens: out}
}

func TestReply(t *testing.T) {
	req := request("hi")
	resp := complete(t, scripted.New(scripted.Reply("hello world")), req)
	want := &model.Response{
		Messages:   []model.Message{model.AssistantMessage("hello world")},
		StopReason: model.StopEndTurn,
		Usage:      wantUsage(t, req, &model.Response{Messages: []model.Message{model.AssistantMessage("hello world")}}),
	}
	if !reflect.DeepEqual(resp, want) {
		t.Errorf("response = %+v\nwant %+v", resp, want)
	}
	// Hand check: system (4+4) + user "hi" (4+1) + priming 3; "hello world" is 2.
	if resp.Usage != (model.Usage{InputTokens: 16, OutputTokens: 2}) {
		t.Errorf("usage = %+v, want 16 in, 2 out", resp.Usage)
	}
}

func TestCallAndCallIDs(t *testing.T) {
	c := scripted.New(
		scripted.Call("search_tools", `{"query":"open a table"}`),
		scripted.Calls(
			scripted.ToolCallSpec{Name: "openTable", Payload: `{"table":"sales"}`},
			scripted.ToolCallSpec{ID: "mine", Name: "sortTable"},
		),
		scripted.Call("ping", ""),
	)
	first := complete(t, c, request("open sales"))
	call := model.ToolCall{ID: "call_1", Name: "search_tools", Payload: json.RawMessage(`{"query":"open a table"}`)}
	if first.StopReason != model.StopToolUse || !reflect.DeepEqual(first.ToolCalls, []model.ToolCall{call}) {
		t.Errorf("first = %+v", first)
	}
	wantMsg := model.Message{Role: model.RoleAssistant, Parts: []model.Part{{Kind: model.PartToolCall, ToolCall: &call}}}
	if !reflect.DeepEqual(first.Messages, []model.Message{wantMsg}) {
		t.Errorf("first messages = %+v", first.Messages)
	}
	if first.Usage.InputTokens == 0 || first.Usage.OutputTokens == 0 {
		t.Errorf("usage not filled: %+v", first.Usage)
	}
	second := complete(t, c, request("go on"))
	if ids := callIDs(second.ToolCalls); ids != "call_2 mine" {
		t.Errorf("second ids = %s", ids)
	}
	if got := second.Messages[0].ToolCalls(); !reflect.DeepEqual(got, second.ToolCalls) {
		t.Errorf("message calls %+v differ from ToolCalls %+v", got, second.ToolCalls)
	}
	if p := string(second.ToolCalls[1].Payload); p != "{}" {
		t.Errorf("empty payload became %q, want {}", p)
	}
	third := complete(t, c, request("ping"))
	if ids := callIDs(third.ToolCalls); ids != "call_4" {
		t.Errorf("third ids = %s, want call_4 (ids count every call emitted)", ids)
	}
}

func callIDs(calls []model.ToolCall) string {
	ids := make([]string, len(calls))
	for i, c := range calls {
		ids[i] = c.ID
	}
	return strings.Join(ids, " ")
}

func TestAssistantTextThenCalls(t *testing.T) {
	resp := complete(t, scripted.New(scripted.Assistant("Let me look.", scripted.ToolCallSpec{Name: "search_tools", Payload: `{"query":"x"}`})), request("hi"))
	parts := resp.Messages[0].Parts
	if len(parts) != 2 || parts[0].Kind != model.PartText || parts[0].Text != "Let me look." || parts[1].Kind != model.PartToolCall {
		t.Errorf("parts = %+v", parts)
	}
	if resp.StopReason != model.StopToolUse || len(resp.ToolCalls) != 1 {
		t.Errorf("response = %+v", resp)
	}
	if resp.Usage != wantUsage(t, request("hi"), resp) {
		t.Errorf("usage = %+v", resp.Usage)
	}
}

func TestConstructionErrors(t *testing.T) {
	tests := []struct {
		step scripted.Step
		want string
	}{
		{scripted.Call("openTable", `{"table":`), `Call("openTable"): payload of "openTable" is not valid JSON`},
		{scripted.Call("", `{}`), "has no name"},
		{scripted.Calls(), "no tool calls"},
		{scripted.Respond(nil), "nil response"},
		{scripted.Fail(nil), "nil error"},
		{scripted.Func(nil), "nil function"},
		{scripted.Choose(nil), "nil function"},
	}
	for _, tt := range tests {
		t.Run(tt.step.String(), func(t *testing.T) {
			if err := tt.step.Err(); err == nil || !strings.HasPrefix(err.Error(), "scripted: ") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Err() = %v, want it to contain %q", err, tt.want)
			}
			c := scripted.New(scripted.Reply("first"), tt.step)
			complete(t, c, request("a"))
			_, err := c.Complete(context.Background(), request("b"))
			if err == nil || !strings.HasPrefix(err.Error(), "scripted: step 2: ") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Complete error = %v", err)
			}
			if c.Remaining() != 0 {
				t.Errorf("Remaining = %d: a broken step is still consumed", c.Remaining())
			}
		})
	}
	if err := scripted.Reply("ok").Err(); err != nil {
		t.Errorf("Reply Err = %v", err)
	}
	if _, err := scripted.New(scripted.Step{}).Complete(context.Background(), request("a")); err == nil || !strings.Contains(err.Error(), "zero Step") {
		t.Errorf("zero Step error = %v", err)
	}
}

func TestRespondVerbatim(t *testing.T) {
	orig := &model.Response{
		Messages:   []model.Message{{Role: model.RoleAssistant, Parts: []model.Part{{Kind: model.PartToolCall, ToolCall: &model.ToolCall{ID: "x1", Name: "a", Payload: json.RawMessage(`{"n":1}`)}}}, Meta: map[string]json.RawMessage{"openai": json.RawMessage(`{"round":1}`)}}},
		ToolCalls:  []model.ToolCall{{ID: "x1", Name: "a", Payload: json.RawMessage(`{"n":1}`)}},
		Usage:      model.Usage{InputTokens: 7, CacheReadTokens: 3},
		StopReason: model.StopToolUse,
	}
	wantJSON, _ := json.Marshal(orig)
	step := scripted.Respond(orig)
	orig.ToolCalls[0].Payload[2] = 'X' // the script keeps its own copy
	c := scripted.New(step, step, scripted.Call("b", `{}`))
	first := complete(t, c, request("a"))
	if got, _ := json.Marshal(first); string(got) != string(wantJSON) {
		t.Errorf("first = %s\nwant %s", got, wantJSON)
	}
	first.Messages[0].Meta["openai"][2] = 'X'
	first.ToolCalls[0].Name = "changed"
	if got, _ := json.Marshal(complete(t, c, request("b"))); string(got) != string(wantJSON) {
		t.Errorf("second play changed by mutating the first: %s", got)
	}
	if id := complete(t, c, request("c")).ToolCalls[0].ID; id != "call_3" {
		t.Errorf("id after two Respond calls = %s, want call_3", id)
	}
}

func TestFail(t *testing.T) {
	boom := errors.New("provider: 529 overloaded")
	c := scripted.New(scripted.Fail(boom), scripted.Reply("ok"))
	if _, err := c.Complete(context.Background(), request("a")); err != boom {
		t.Errorf("err = %v, want the scripted error as given", err)
	}
	if resp := complete(t, c, request("again")); resp.Text() != "ok" {
		t.Errorf("after a failure: %+v", resp)
	}
}

func TestFunc(t *testing.T) {
	echo := scripted.Func(func(req *model.Request) (*model.Response, error) {
		last := req.Messages[len(req.Messages)-1].TextContent()
		req.Messages = nil // the function has its own copy
		return &model.Response{Messages: []model.Message{model.AssistantMessage("you said: " + last)}, StopReason: model.StopEndTurn}, nil
	})
	fixed := scripted.Func(func(*model.Request) (*model.Response, error) {
		return &model.Response{Messages: []model.Message{model.AssistantMessage("x")}, Usage: model.Usage{OutputTokens: 99}}, nil
	})
	boom := errors.New("boom")
	c := scripted.New(echo, fixed,
		scripted.Func(func(*model.Request) (*model.Response, error) { return nil, boom }),
		scripted.Func(func(*model.Request) (*model.Response, error) { return nil, nil }),
	)
	req := request("open sales")
	resp := complete(t, c, req)
	if resp.Text() != "you said: open sales" {
		t.Errorf("text = %q", resp.Text())
	}
	if resp.Usage != wantUsage(t, req, resp) {
		t.Errorf("zero usage not filled: %+v", resp.Usage)
	}
	if len(c.Requests()[0].Messages) != 1 {
		t.Error("the function's mutation reached the record")
	}
	if resp := complete(t, c, req); resp.Usage != (model.Usage{OutputTokens: 99}) {
		t.Errorf("usage given by the function replaced: %+v", resp.Usage)
	}
	if _, err := c.Complete(context.Background(), req); err != boom {
		t.Errorf("err = %v, want the function's error as given", err)
	}
	if _, err := c.Complete(context.Background(), req); err == nil || !strings.Contains(err.Error(), "scripted: step 4 Func: returned neither") {
		t.Errorf("nil, nil error = %v", err)
	}
}

func TestChooseDiscoveredTool(t *testing.T) {
	callLastTool := scripted.Choose(func(req *model.Request) scripted.Step {
		return scripted.Call(req.Tools[len(req.Tools)-1].Name, `{}`)
	})
	c := scripted.New(callLastTool, scripted.Choose(func(*model.Request) scripted.Step { return scripted.Call("x", "{") }))
	req := request("export")
	req.Tools = []model.ToolDefinition{{Name: "search_tools"}, {Name: "startExport"}}
	resp := complete(t, c, req)
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != "startExport" || resp.ToolCalls[0].ID != "call_1" {
		t.Errorf("calls = %+v", resp.ToolCalls)
	}
	if resp.Usage != wantUsage(t, req, resp) {
		t.Errorf("usage = %+v", resp.Usage)
	}
	if _, err := c.Complete(context.Background(), req); err == nil || !strings.Contains(err.Error(), `Choose: chose Call("x"): payload`) {
		t.Errorf("broken chosen step error = %v", err)
	}
}
