package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/planner"
)

// hostileModel answers with raw tool calls no well-behaved adapter would
// produce (arguments of any size or depth), then with a final text. It
// keeps the requests it received.
type hostileModel struct {
	mu       sync.Mutex
	calls    [][]model.ToolCall
	requests []model.Request
}

func (h *hostileModel) Complete(_ context.Context, req *model.Request) (*model.Response, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.requests = append(h.requests, *req)
	if len(h.calls) == 0 {
		return &model.Response{Messages: []model.Message{model.AssistantMessage("I will stop here.")}, StopReason: model.StopEndTurn}, nil
	}
	calls := h.calls[0]
	h.calls = h.calls[1:]
	msg := model.Message{Role: model.RoleAssistant}
	for _, c := range calls {
		c := c
		msg.Parts = append(msg.Parts, model.Part{Kind: model.PartToolCall, ToolCall: &c})
	}
	return &model.Response{Messages: []model.Message{msg}, ToolCalls: calls, StopReason: model.StopToolUse}, nil
}

func (h *hostileModel) Stream(ctx context.Context, req *model.Request) (model.Streamer, error) {
	resp, err := h.Complete(ctx, req)
	if err != nil {
		return nil, err
	}
	return model.ResponseStream(ctx, resp), nil
}

// limitsFixture runs one agent with policy on a hostile model playing
// calls, one response each, to ws.echo.
func limitsFixture(t *testing.T, policy RunPolicy, responses ...[]model.ToolCall) (*fixture, *hostileModel) {
	t.Helper()
	return hostileFixture(t, policy, []fixtureTool{{spec: newSpec(t, "echo", withPayload(t, `{"type":"object","properties":{"q":{}}}`))}}, responses...)
}

// hostileFixture runs one agent with policy and toolset on a hostile model
// playing responses.
func hostileFixture(t *testing.T, policy RunPolicy, toolset []fixtureTool, responses ...[]model.ToolCall) (*fixture, *hostileModel) {
	t.Helper()
	h := &hostileModel{calls: responses}
	f := newFixtureWith(t, AgentRegistration{Policy: policy}, []Option{WithModel(model.ModelClassDefault, h)}, toolset)
	return f, h
}

// limitFailures returns the failures the model read in its second request.
func limitFailures(t *testing.T, h *hostileModel) []string {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.requests) < 2 {
		t.Fatalf("the model was asked %d times; the run did not go on after the refusal", len(h.requests))
	}
	var out []string
	for _, r := range toolResults(h.requests[1].Messages) {
		var f struct {
			Error   string `json:"error"`
			Message string `json:"message"`
		}
		if err := json.Unmarshal(r.Content, &f); err != nil {
			t.Fatal(err)
		}
		out = append(out, f.Error+": "+f.Message)
	}
	return out
}

func echoCall(id, payload string) model.ToolCall {
	return model.ToolCall{ID: id, Name: "echo", Payload: json.RawMessage(payload)}
}

func TestOversizedArgumentsAreACorrectableFailure(t *testing.T) {
	huge := `{"q":"` + strings.Repeat("x", 50<<20) + `"}`
	f, h := limitsFixture(t, RunPolicy{}, []model.ToolCall{echoCall("c1", huge)})
	out := f.run("go")
	if out.Status != StatusCompleted || out.Reason != planner.ReasonFinalResponse {
		t.Fatalf("run %s/%s, want it to go on and answer", out.Status, out.Reason)
	}
	if len(f.executed()) != 0 {
		t.Fatal("the oversized call ran")
	}
	got := limitFailures(t, h)
	if len(got) != 1 || !strings.HasPrefix(got[0], "invalid_payload: ") || !strings.Contains(got[0], "the limit is 1048576 bytes") {
		t.Fatalf("failures %q", got)
	}
	// Nothing of the 50 MB stays: not in the transcript the model reads
	// next, not in the run's messages.
	for _, m := range h.requests[1].Messages {
		for _, c := range m.ToolCalls() {
			if len(c.Payload) > 16 {
				t.Fatalf("the next request carries %d bytes of arguments", len(c.Payload))
			}
		}
	}
	raw, _ := json.Marshal(out)
	if len(raw) > 1<<20 {
		t.Fatalf("run output is %d bytes", len(raw))
	}
}

func TestDeeplyNestedArgumentsAreACorrectableFailure(t *testing.T) {
	deep := `{"q":` + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + `}`
	f, h := limitsFixture(t, RunPolicy{}, []model.ToolCall{echoCall("c1", deep)})
	out := f.run("go")
	if out.Status != StatusCompleted || len(f.executed()) != 0 {
		t.Fatalf("run %s/%s, executed %v", out.Status, out.Reason, f.executed())
	}
	got := limitFailures(t, h)
	if len(got) != 1 || !strings.Contains(got[0], "nest more than 64 levels") {
		t.Fatalf("failures %q", got)
	}
}

func TestOutputLimitsArePerAgent(t *testing.T) {
	policy := RunPolicy{ModelOutput: OutputLimits{MaxArgumentBytes: 32, MaxArgumentDepth: 3, MaxCallsPerResponse: 2}}
	f, h := limitsFixture(t, policy,
		[]model.ToolCall{echoCall("big", `{"q":"`+strings.Repeat("y", 40)+`"}`), echoCall("deep", `{"q":[[[1]]]}`)},
		[]model.ToolCall{echoCall("a", `{}`), echoCall("b", `{}`), echoCall("c", `{}`)},
		[]model.ToolCall{echoCall("fine", `{"q":[[1]]}`)},
	)
	out := f.run("go")
	if out.Status != StatusCompleted {
		t.Fatalf("run %+v", out)
	}
	got := limitFailures(t, h)
	if len(got) != 2 || !strings.Contains(got[0], "the limit is 32 bytes") || !strings.Contains(got[1], "nest more than 3 levels") {
		t.Fatalf("first response's failures %q", got)
	}
	var third []string
	for _, r := range toolResults(h.requests[2].Messages[len(h.requests[1].Messages):]) {
		third = append(third, string(r.Content))
	}
	if len(third) != 3 || !strings.Contains(third[0], "at most 2 may be asked at once") {
		t.Fatalf("second response's results %q", third)
	}
	if fmt.Sprint(f.executed()) != "[ws.echo]" || out.ToolCalls != 1 {
		t.Fatalf("executed %v (%d budgeted), want only the call within the limits", f.executed(), out.ToolCalls)
	}
	if err := (RunPolicy{ModelOutput: OutputLimits{MaxCallsPerResponse: -1}}).validate(false, false); err == nil {
		t.Fatal("a negative limit passed validation")
	}
}

// TestOversizedArgumentMemory measures what a 50 MB argument costs the
// runtime beyond the bytes the model client already holds. Run it by hand:
//
//	QUIVER_MEASURE=1 go test -run TestOversizedArgumentMemory -v ./runtime/
func TestOversizedArgumentMemory(t *testing.T) {
	if testing.Short() || !measuring() {
		t.Skip("a measurement: set QUIVER_MEASURE=1")
	}
	huge := `{"q":"` + strings.Repeat("x", 50<<20) + `"}`
	deep := `{"q":` + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + `}`
	for name, payload := range map[string]string{"50 MB": huge, "depth 100,000": deep} {
		f, _ := limitsFixture(t, RunPolicy{}, []model.ToolCall{echoCall("c1", payload)})
		before := heapAlloc()
		start := time.Now()
		f.run("go")
		t.Logf("%s argument: run took %v, %.1f MB allocated by the runtime", name, time.Since(start), float64(heapAlloc()-before)/(1<<20))
	}
}
