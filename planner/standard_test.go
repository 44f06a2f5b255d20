package planner_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/tools"
)

// stepContext is a planner.Context over fixed messages and definitions.
type stepContext struct {
	client model.Client
	msgs   []model.Message
	defs   []model.ToolDefinition
	opts   planner.RequestOptions
	// chunks are the pieces of the stream the planner handed on.
	chunks []model.Chunk
}

func (c *stepContext) AdvertisedToolDefinitions() []model.ToolDefinition { return c.defs }
func (c *stepContext) PrepareMessages(context.Context) ([]model.Message, error) {
	return model.CloneMessages(c.msgs), nil
}
func (c *stepContext) SystemPrompt() string                         { return "You help." }
func (c *stepContext) Model(model.ModelClass) (model.Client, error) { return c.client, nil }
func (c *stepContext) SearchSettings() model.SearchSettings         { return model.SearchSettings{} }
func (c *stepContext) AddReminder(planner.Reminder)                 {}
func (c *stepContext) RemoveReminder(string)                        {}
func (c *stepContext) RequestOptions() planner.RequestOptions       { return c.opts }
func (c *stepContext) StreamChunk(ch model.Chunk)                   { c.chunks = append(c.chunks, ch) }

func TestStandardTurnsToolCallsIntoRequests(t *testing.T) {
	client := scripted.New(scripted.Call("openTable", `{"table":"orders"}`))
	ctx := &stepContext{
		client: client,
		msgs:   []model.Message{model.UserMessage("open orders")},
		defs:   []model.ToolDefinition{{Name: "openTable", Description: "Open a table.", InputSchema: json.RawMessage(`{"type":"object"}`)}},
		opts:   planner.RequestOptions{MaxTokens: 512, Cache: model.CacheCheckpoints{AfterTools: true}},
	}
	res, err := planner.NewStandard().PlanStart(context.Background(), &planner.PlanInput{Agent: ctx})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ToolCalls) != 1 || res.ToolCalls[0].Name != "openTable" || string(res.ToolCalls[0].Payload) != `{"table":"orders"}` || res.FinalResponse != nil {
		t.Fatalf("plan = %+v", res)
	}
	if len(res.Messages) != 1 || len(res.Messages[0].ToolCalls()) != 1 {
		t.Fatalf("the assistant message to append is missing: %+v", res.Messages)
	}
	req := client.Requests()[0]
	if req.System != "You help." || req.MaxTokens != 512 || !req.Cache.AfterTools || len(req.Tools) != 1 {
		t.Fatalf("request = %+v", req)
	}
}

func TestStandardFinalizeSendsNoToolsAndAnswers(t *testing.T) {
	client := scripted.New(scripted.Reply("Here is what I found."))
	ctx := &stepContext{client: client, msgs: []model.Message{model.UserMessage("hi")}, opts: planner.RequestOptions{Finalize: true}}
	res, err := planner.NewStandard().PlanResume(context.Background(), &planner.PlanResumeInput{PlanInput: planner.PlanInput{Agent: ctx}, Finalize: &planner.Finalize{Reason: planner.ReasonToolCap}})
	if err != nil {
		t.Fatal(err)
	}
	if res.FinalResponse == nil || res.FinalResponse.Text != "Here is what I found." {
		t.Fatalf("plan = %+v", res)
	}
	if req := client.Requests()[0]; req.ToolChoice.Mode != model.ToolChoiceNone || len(req.Tools) != 0 {
		t.Fatalf("finalizing request = %+v", req)
	}
}

func TestStandardReportsModelErrors(t *testing.T) {
	boom := errors.New("provider unavailable")
	ctx := &stepContext{client: scripted.New(scripted.Fail(boom))}
	_, err := planner.NewStandard().PlanStart(context.Background(), &planner.PlanInput{Agent: ctx})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
}

type exportPayload struct {
	Table  string `json:"table"`
	Format string `json:"format"`
}

func TestNewToolRequestEncodesWithTheToolCodec(t *testing.T) {
	ts, err := tools.NewTypeSpec("ExportPayload", json.RawMessage(`{"type":"object","properties":{"table":{"type":"string"},"format":{"enum":["csv","xlsx"]}},"required":["table"]}`))
	if err != nil {
		t.Fatal(err)
	}
	tool := tools.TypedTool[exportPayload, struct{}]{
		Spec:    tools.ToolSpec{Name: "ws.startExport", Title: "Start export", Payload: ts},
		Payload: tools.NewJSONCodec[exportPayload](ts),
	}
	req, err := planner.NewToolRequest(tool, exportPayload{Table: "orders", Format: "csv"})
	if err != nil {
		t.Fatal(err)
	}
	if req.Ident != "ws.startExport" || string(req.Payload) != `{"table":"orders","format":"csv"}` {
		t.Fatalf("request = %+v", req)
	}
	if _, err := planner.NewToolRequest(tool, exportPayload{Table: "orders", Format: "pdf"}); !errors.Is(err, tools.ErrSchemaViolation) {
		t.Fatalf("a payload breaking the schema: err = %v", err)
	}
}

// streamingClient streams a fixed list of chunks, then ends the stream
// with resp (or with err when resp is nil).
type streamingClient struct {
	chunks []model.Chunk
	resp   *model.Response
	err    error
}

func (c *streamingClient) Complete(context.Context, *model.Request) (*model.Response, error) {
	return nil, errors.New("the standard planner must stream")
}

func (c *streamingClient) Stream(ctx context.Context, _ *model.Request) (model.Streamer, error) {
	return model.NewStream(ctx, func(ctx context.Context, emit func(model.Chunk) error) (*model.Response, error) {
		for _, ch := range c.chunks {
			if err := emit(ch); err != nil {
				return nil, err
			}
		}
		return c.resp, c.err
	}), nil
}

func TestStandardStreamsTheStepAndPlansFromTheWholeResponse(t *testing.T) {
	call := model.ToolCall{ID: "c1", Name: "openTable", Payload: json.RawMessage(`{"table":"orders"}`)}
	client := &streamingClient{
		chunks: []model.Chunk{
			{Kind: model.ChunkText, Text: "Opening "},
			{Kind: model.ChunkText, Text: "it."},
			{Kind: model.ChunkToolCallDelta, ToolCallDelta: &model.ToolCallDelta{ID: "c1", Name: "openTable", Arguments: `{"table":`}},
			{Kind: model.ChunkToolCallDelta, ToolCallDelta: &model.ToolCallDelta{ID: "c1", Name: "openTable", Arguments: `"orders"}`}},
			{Kind: model.ChunkToolCall, ToolCall: &call},
		},
		resp: &model.Response{
			Messages:  []model.Message{{Role: model.RoleAssistant, Parts: []model.Part{model.Text("Opening it."), {Kind: model.PartToolCall, ToolCall: &call}}}},
			ToolCalls: []model.ToolCall{call},
		},
	}
	ctx := &stepContext{client: client, msgs: []model.Message{model.UserMessage("open orders")}}
	res, err := planner.NewStandard().PlanStart(context.Background(), &planner.PlanInput{Agent: ctx})
	if err != nil {
		t.Fatal(err)
	}
	if len(ctx.chunks) != len(client.chunks) {
		t.Fatalf("the planner handed on %d chunks, want the %d streamed", len(ctx.chunks), len(client.chunks))
	}
	if len(res.ToolCalls) != 1 || string(res.ToolCalls[0].Payload) != `{"table":"orders"}` {
		t.Fatalf("plan = %+v", res)
	}
}

func TestStandardPlansNothingFromAStreamThatBreaksOff(t *testing.T) {
	call := model.ToolCall{ID: "c1", Name: "openTable", Payload: json.RawMessage(`{}`)}
	client := &streamingClient{
		chunks: []model.Chunk{{Kind: model.ChunkToolCall, ToolCall: &call}},
		err:    fmt.Errorf("connection reset: %w", model.ErrStreamInterrupted),
	}
	ctx := &stepContext{client: client}
	res, err := planner.NewStandard().PlanStart(context.Background(), &planner.PlanInput{Agent: ctx})
	if !errors.Is(err, model.ErrStreamInterrupted) || res != nil {
		t.Fatalf("plan = %+v, err = %v: want no plan and the interruption", res, err)
	}
}
