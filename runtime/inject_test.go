package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/contract"
)

// injAllFields are the injected fields of injLookupSpec: the five
// metadata-backed ones and the label-backed household_id.
var injAllFields = []string{"run_id", "session_id", "turn_id", "tool_call_id", "parent_tool_call_id", "household_id"}

// injPayload is the Go payload a hand-written executor decodes.
type injPayload struct {
	Query            string `json:"query"`
	RunID            string `json:"run_id"`
	SessionID        string `json:"session_id"`
	TurnID           string `json:"turn_id"`
	ToolCallID       string `json:"tool_call_id"`
	ParentToolCallID string `json:"parent_tool_call_id"`
	HouseholdID      string `json:"household_id"`
}

// injLookupSpec compiles ws.<name> with every kind of injected field;
// household_id is label-backed and must match ^[a-z0-9-]+$.
func injLookupSpec(t *testing.T, name string) tools.ToolSpec {
	t.Helper()
	spec, err := contract.Compile(contract.ToolDeclaration{
		Toolset:     "ws",
		Name:        name,
		Title:       "Lookup " + name,
		Description: "Looks things up for the current household.",
		InputSchema: json.RawMessage(`{
			"type": "object",
			"properties": {
				"query": {"type": "string", "description": "What to look up."},
				"run_id": {"type": "string"},
				"session_id": {"type": "string"},
				"turn_id": {"type": "string"},
				"tool_call_id": {"type": "string"},
				"parent_tool_call_id": {"type": "string"},
				"household_id": {"type": "string", "pattern": "^[a-z0-9-]+$"}
			},
			"required": ["query", "run_id", "session_id", "turn_id", "tool_call_id", "parent_tool_call_id", "household_id"]
		}`),
		Inject: injAllFields,
	})
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// injLabelSpec compiles ws.<name> with one label-backed injected field.
func injLabelSpec(t *testing.T, name, label string, requiredLabels ...string) tools.ToolSpec {
	t.Helper()
	spec, err := contract.Compile(contract.ToolDeclaration{
		Toolset:        "ws",
		Name:           name,
		Title:          "Tool " + name,
		InputSchema:    json.RawMessage(`{"type":"object","properties":{"` + label + `":{"type":"string"}},"required":["` + label + `"]}`),
		Inject:         []string{label},
		RequiredLabels: requiredLabels,
	})
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// injDecoding is a handler that decodes each call through ToolCall.Decode,
// as hand-written executors do, and keeps what it saw.
func injDecoding(seen *[]injPayload) handler {
	return func(_ context.Context, call *ToolCall) (*planner.ToolResult, error) {
		var p injPayload
		if err := call.Decode(&p); err != nil {
			return nil, err
		}
		*seen = append(*seen, p)
		return &planner.ToolResult{Result: json.RawMessage(`{"ok":true}`)}, nil
	}
}

func TestInjectMetadataAndLabelFields(t *testing.T) {
	var seen []injPayload
	f := newFixture(t, RunPolicy{},
		[]fixtureTool{{spec: injLookupSpec(t, "lookup"), handler: injDecoding(&seen)}},
		scripted.Call("lookup", `{"query":"groceries"}`),
		scripted.Reply("done"),
	)
	out := f.run("look up groceries", WithLabels(map[string]string{"household_id": "hh-42"}))
	if out.Reason != planner.ReasonFinalResponse {
		t.Fatalf("reason %q, messages %+v", out.Reason, toolResults(out.Messages))
	}
	if len(seen) != 1 {
		t.Fatalf("executor saw %d calls", len(seen))
	}
	want := injPayload{
		Query:            "groceries",
		RunID:            out.RunID,
		SessionID:        out.SessionID,
		TurnID:           out.TurnID,
		ToolCallID:       "call_1",
		ParentToolCallID: "", // a top-level run has no parent call
		HouseholdID:      "hh-42",
	}
	if seen[0] != want {
		t.Fatalf("decoded payload\n got %+v\nwant %+v", seen[0], want)
	}
	if want.RunID == "" || want.SessionID == "" || want.TurnID == "" {
		t.Fatalf("run output lacks ids: %+v", out)
	}
	// The executor's metadata agrees with the injected values.
	f.mu.Lock()
	meta := f.calls[0].Meta
	f.mu.Unlock()
	if meta.RunID != want.RunID || meta.SessionID != want.SessionID || meta.TurnID != want.TurnID || meta.ToolCallID != "call_1" {
		t.Fatalf("call meta = %+v", meta)
	}
}

func TestInjectLabelValidatedWithFieldRules(t *testing.T) {
	var seen []injPayload
	f := newFixture(t, RunPolicy{},
		[]fixtureTool{{spec: injLookupSpec(t, "lookup"), handler: injDecoding(&seen)}},
		scripted.Call("lookup", `{"query":"groceries"}`),
		scripted.Reply("I could not look that up."),
	)
	out := f.run("look up groceries", WithLabels(map[string]string{"household_id": "Not A Slug!"}))
	if len(seen) != 0 {
		t.Fatalf("the executor ran with an invalid label: %+v", seen)
	}
	res := toolResults(f.model.Requests()[1].Messages)
	if len(res) != 1 || !res[0].IsError {
		t.Fatalf("tool results = %+v, want one failure", res)
	}
	msg := string(res[0].Content)
	for _, want := range []string{"household_id", "run label"} {
		if !strings.Contains(msg, want) {
			t.Fatalf("failure %s does not mention %q", msg, want)
		}
	}
	// The label's value is the host's: the model never reads it back.
	if strings.Contains(msg, "Not A Slug") {
		t.Fatalf("failure %s echoes the label's value", msg)
	}
	if out.Status != StatusCompleted {
		t.Fatalf("status %s", out.Status)
	}
}

func TestInjectStartFailsNamingAllMissingLabels(t *testing.T) {
	f := newFixture(t, RunPolicy{},
		[]fixtureTool{
			{spec: injLabelSpec(t, "a", "household_id")},
			{spec: injLabelSpec(t, "b", "tenant_id", "region")},
		},
		scripted.Reply("never played"),
	)
	cases := []struct {
		name    string
		labels  map[string]string
		missing []string
		present []string
	}{
		{"none", nil, []string{"household_id", "region", "tenant_id"}, nil},
		{"some", map[string]string{"tenant_id": "t1"}, []string{"household_id", "region"}, []string{"tenant_id"}},
		{"empty value", map[string]string{"household_id": "", "tenant_id": "t1", "region": "eu"}, []string{"household_id"}, []string{"tenant_id", "region"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			h, err := f.rt.Start(ctx, "assistant", RunInput{Messages: []model.Message{model.UserMessage("hi")}}, WithLabels(tc.labels))
			if err == nil {
				_, _ = h.Wait(ctx)
				t.Fatal("Start succeeded without the required labels")
			}
			if !errors.Is(err, ErrMissingLabels) {
				t.Fatalf("err = %v, want errors.Is ErrMissingLabels", err)
			}
			for _, l := range tc.missing {
				if !strings.Contains(err.Error(), l) {
					t.Fatalf("err = %v, does not name missing label %q", err, l)
				}
			}
			for _, l := range tc.present {
				if strings.Contains(err.Error(), l) {
					t.Fatalf("err = %v names supplied label %q", err, l)
				}
			}
		})
	}
	if n := f.model.Calls(); n != 0 {
		t.Fatalf("%d model requests were made before Start failed", n)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.events) != 0 || len(f.calls) != 0 {
		t.Fatalf("events %v and calls %v before Start failed", f.events, f.calls)
	}
}

func TestInjectFieldsHiddenFromModelSchema(t *testing.T) {
	f := newFixture(t, RunPolicy{},
		[]fixtureTool{{spec: injLookupSpec(t, "lookup")}},
		scripted.Call("lookup", `{"query":"x"}`),
		scripted.Reply("done"),
	)
	f.run("look", WithLabels(map[string]string{"household_id": "hh-1"}))
	reqs := f.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	for i, req := range reqs {
		j := slices.IndexFunc(req.Tools, func(d model.ToolDefinition) bool { return d.Name == "lookup" })
		if j < 0 {
			t.Fatalf("request %d does not advertise lookup: %+v", i, req.Tools)
		}
		def := req.Tools[j]
		var schema struct {
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		if err := json.Unmarshal(def.InputSchema, &schema); err != nil {
			t.Fatal(err)
		}
		if _, ok := schema.Properties["query"]; !ok || !slices.Equal(schema.Required, []string{"query"}) {
			t.Fatalf("model schema lost the model's own field: %s", def.InputSchema)
		}
		raw, err := json.Marshal(def)
		if err != nil {
			t.Fatal(err)
		}
		for _, field := range injAllFields {
			if _, ok := schema.Properties[field]; ok || slices.Contains(schema.Required, field) {
				t.Fatalf("injected field %q is in the model's schema: %s", field, def.InputSchema)
			}
			if strings.Contains(string(raw), field) {
				t.Fatalf("injected field %q appears in the definition the model sees: %s", field, raw)
			}
		}
	}
}

func TestInjectModelSuppliedInjectedFieldsAreRefused(t *testing.T) {
	// The model tries to set injected fields itself, in every spelling
	// encoding/json would have matched: the call is refused as an invalid
	// payload naming the fields, and the executor never runs.
	for _, payload := range []string{
		`{"query":"q","run_id":"forged-run","tool_call_id":"forged-call","household_id":"evil-household"}`,
		`{"query":"q","HOUSEHOLD_ID":"evil-household"}`,
		`{"query":"q","houſehold_id":"evil-household"}`, // U+017F, long s
		`{"query":"q","Run_Id":"forged-run"}`,
	} {
		var seen []injPayload
		f := newFixture(t, RunPolicy{},
			[]fixtureTool{{spec: injLookupSpec(t, "lookup"), handler: injDecoding(&seen)}},
			scripted.Call("lookup", payload),
			scripted.Reply("done"),
		)
		out := f.run("look", WithLabels(map[string]string{"household_id": "hh-7"}))
		if len(seen) != 0 || len(f.executed()) != 0 {
			t.Fatalf("%s: the executor ran with %+v", payload, seen)
		}
		res := toolResults(f.model.Requests()[1].Messages)
		if len(res) != 1 || !res[0].IsError {
			t.Fatalf("%s: results %+v, want one failure", payload, res)
		}
		var failure struct{ Error, Message string }
		if err := json.Unmarshal(res[0].Content, &failure); err != nil {
			t.Fatal(err)
		}
		if failure.Error != "invalid_payload" || !strings.Contains(failure.Message, "filled in by the runtime") {
			t.Fatalf("%s: failure %s, want invalid_payload naming the injected field", payload, res[0].Content)
		}
		if strings.Contains(failure.Message, "forged") || strings.Contains(failure.Message, "evil") {
			t.Fatalf("%s: the failure echoes the forged value: %s", payload, failure.Message)
		}
		if out.ToolCalls != 0 {
			t.Fatalf("%s: a refused call counted as %d tool calls", payload, out.ToolCalls)
		}
	}
}
