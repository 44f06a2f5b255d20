package runtimetest

import (
	"testing"

	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/tools"
)

// cfWriteSpec is ws.write, a tool declaring the seed's confirmation.
func cfWriteSpec(t *testing.T) tools.ToolSpec {
	return newSpec(t, "write",
		withPayload(t, `{"type":"object","properties":{"key":{"type":"string"},"value":{},"note":{"type":"string"}},"required":["key","value"]}`),
		func(s *tools.ToolSpec) {
			s.Confirmation = &tools.ConfirmationSpec{
				Title:                "Confirm change",
				PromptTemplate:       `Approve write: set {{ .key }} to {{ json .value }}{{ with index . "note" }} ({{ . }}){{ end }}`,
				DeniedResultTemplate: `{"summary":"Cancelled","key":{{ json .key }}}`,
			}
		})
}

func testConfirmationSuspendsRunWithPendingItem(t *testing.T, newEngine NewEngine) {
	cases := []struct {
		name, payload, canonical, prompt string
	}{
		{"required fields", `{"key":"plan","value":{"tier":"gold","seats":3}}`, `{"key":"plan","value":{"seats":3,"tier":"gold"}}`, `Approve write: set plan to {"seats":3,"tier":"gold"}`},
		{"optional field via index", `{"key":"plan","value":12.50,"note":"urgent"}`, `{"key":"plan","note":"urgent","value":12.50}`, `Approve write: set plan to 12.50 (urgent)`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, newEngine, runtime.RunPolicy{}, []fixtureTool{{spec: cfWriteSpec(t)}},
				scripted.Call("write", tc.payload),
			)
			out := f.run("change the plan")
			if out.Status != runtime.StatusSuspended || out.Reason != "" || out.Suspension == nil || len(out.Suspension.Pending) == 0 {
				t.Fatalf("out = %+v, want a run ended with a suspension", out)
			}
			p := out.Suspension.Pending[0]
			if p.Kind != runtime.PendingConfirmation || p.Tool != "ws.write" || p.CallID != "call_1" || p.Title != "Confirm change" {
				t.Fatalf("first pending item = %+v", p)
			}
			if p.Prompt != tc.prompt {
				t.Fatalf("prompt = %q, want %q", p.Prompt, tc.prompt)
			}
			if string(p.Payload) != tc.canonical || p.PayloadDigest != tools.PayloadDigest([]byte(tc.canonical)) {
				t.Fatalf("pending payload = %s (%s), want the call's canonical %s", p.Payload, p.PayloadDigest, tc.canonical)
			}
			if out.Suspension.RunID != out.RunID {
				t.Fatalf("suspension run id %q, run %q", out.Suspension.RunID, out.RunID)
			}
			if got := f.executed(); len(got) != 0 {
				t.Fatalf("executed %v before approval", got)
			}
			if n := len(eventsOf[runtime.ToolCallScheduled](f)); n != 0 {
				t.Fatalf("%d calls scheduled before approval", n)
			}
			if aw := eventsOf[runtime.Awaiting](f); len(aw) != 1 || aw[0].Pending[0].Prompt != tc.prompt {
				t.Fatalf("Awaiting events = %+v", aw)
			}
			if n := len(eventsOf[runtime.RunCompleted](f)); n != 0 {
				t.Fatalf("%d RunCompleted events for a suspended run", n)
			}
		})
	}
}

func testConfirmationApprovalRunsSavedCall(t *testing.T, newEngine NewEngine) {
	const payload = `{"key":"plan","value":"gold"}`
	f := newFixture(t, newEngine, runtime.RunPolicy{},
		[]fixtureTool{{spec: cfWriteSpec(t), handler: ok(`{"written":true}`)}},
		scripted.Call("write", payload),
		scripted.Reply("Plan changed."),
	)
	out := f.run("change the plan")
	if out.Status != runtime.StatusSuspended {
		t.Fatalf("status %s", out.Status)
	}
	if n := f.model.Calls(); n != 1 {
		t.Fatalf("%d model requests before Continue", n)
	}
	out = f.cont(out.RunID, out.Suspension.Pending[0].Approve())
	if out.Status != runtime.StatusCompleted || out.Reason != planner.ReasonFinalResponse || out.Final.Text != "Plan changed." {
		t.Fatalf("out = %+v", out)
	}
	f.mu.Lock()
	calls := f.calls
	f.mu.Unlock()
	if len(calls) != 1 || calls[0].Ident != "ws.write" || string(calls[0].Payload) != payload || calls[0].Meta.ToolCallID != "call_1" {
		t.Fatalf("executed calls = %+v, want the saved call once", calls)
	}
	reqs := f.model.Requests()
	res := toolResults(reqs[len(reqs)-1].Messages)
	if len(res) != 1 || res[0].CallID != "call_1" || string(res[0].Content) != `{"written":true}` || res[0].IsError {
		t.Fatalf("the model read %+v", res)
	}
	// The continuation's output covers the whole run, calls included.
	if got := toolResults(out.Messages); len(got) != 1 || got[0].CallID != "call_1" {
		t.Fatalf("run messages' results = %+v", got)
	}
	if started := eventsOf[runtime.RunStarted](f); len(started) != 2 || started[0].Continued || !started[1].Continued {
		t.Fatalf("RunStarted events = %+v, want the run and its continuation", started)
	}
}

func testConfirmationDenialReturnsRenderedDeniedResult(t *testing.T, newEngine NewEngine) {
	f := newFixture(t, newEngine, runtime.RunPolicy{},
		[]fixtureTool{{spec: cfWriteSpec(t), handler: ok(`{"written":true}`)}},
		scripted.Call("write", `{"key":"plan","value":"gold"}`),
		scripted.Reply("Left unchanged."),
	)
	out := f.run("change the plan")
	out = f.cont(out.RunID, out.Suspension.Pending[0].Deny())
	if out.Status != runtime.StatusCompleted || out.Final.Text != "Left unchanged." {
		t.Fatalf("out = %+v", out)
	}
	if got := f.executed(); len(got) != 0 {
		t.Fatalf("a denied call ran: %v", got)
	}
	reqs := f.model.Requests()
	res := toolResults(reqs[len(reqs)-1].Messages)
	if len(res) != 1 || res[0].CallID != "call_1" || string(res[0].Content) != `{"summary":"Cancelled","key":"plan"}` {
		t.Fatalf("the model read %+v, want the rendered denied result", res)
	}
	if ev := eventsOf[runtime.ToolResultReceived](f); len(ev) != 1 || string(ev[0].Result) != `{"summary":"Cancelled","key":"plan"}` {
		t.Fatalf("ToolResultReceived = %+v", ev)
	}
}

func testWithToolConfirmationEnablesAtRuntime(t *testing.T, newEngine NewEngine) {
	plain := func(t *testing.T) tools.ToolSpec {
		return newSpec(t, "write", withPayload(t, `{"type":"object","properties":{"key":{"type":"string"}}}`))
	}
	t.Run("enabled", func(t *testing.T) {
		f := newFixtureWith(t, newEngine, runtime.AgentRegistration{},
			[]runtime.Option{runtime.WithToolConfirmation("ws.write", tools.ConfirmationSpec{PromptTemplate: "Really write {{ .key }}?"})},
			[]fixtureTool{{spec: plain(t)}},
			scripted.Call("write", `{"key":"k1"}`),
			scripted.Reply("written"),
		)
		out := f.run("write k1")
		if out.Status != runtime.StatusSuspended || out.Suspension.Pending[0].Kind != runtime.PendingConfirmation || out.Suspension.Pending[0].Prompt != "Really write k1?" {
			t.Fatalf("out = %+v, want a confirmation", out)
		}
		if got := f.executed(); len(got) != 0 {
			t.Fatalf("executed %v before approval", got)
		}
		out = f.cont(out.RunID, out.Suspension.Pending[0].Approve())
		if out.Status != runtime.StatusCompleted || len(f.executed()) != 1 {
			t.Fatalf("after approval: %+v, executed %v", out, f.executed())
		}
	})
	t.Run("not enabled", func(t *testing.T) {
		f := newFixture(t, newEngine, runtime.RunPolicy{}, []fixtureTool{{spec: plain(t)}},
			scripted.Call("write", `{"key":"k1"}`),
			scripted.Reply("written"),
		)
		if out := f.run("write k1"); out.Status != runtime.StatusCompleted || len(f.executed()) != 1 {
			t.Fatalf("out = %+v, executed %v", out, f.executed())
		}
	})
}

func testConfirmationMidBatch(t *testing.T, newEngine NewEngine) {
	f := newFixture(t, newEngine, runtime.RunPolicy{},
		[]fixtureTool{
			{spec: newSpec(t, "first"), handler: ok(`{"n":1}`)},
			{spec: cfWriteSpec(t), handler: ok(`{"n":2}`)},
			{spec: newSpec(t, "third"), handler: ok(`{"n":3}`)},
		},
		scripted.Calls(
			scripted.ToolCallSpec{Name: "first"},
			scripted.ToolCallSpec{Name: "write", Payload: `{"key":"k","value":2}`},
			scripted.ToolCallSpec{Name: "third"},
		),
		scripted.Reply("all three done"),
	)
	out := f.run("do three things")
	if out.Status != runtime.StatusSuspended || out.Suspension.Pending[0].CallID != "call_2" {
		t.Fatalf("out = %+v, want a suspension on the second call", out)
	}
	if got := f.executed(); len(got) != 1 || got[0] != "ws.first" {
		t.Fatalf("executed %v before approval, want only the first call", got)
	}
	out = f.cont(out.RunID, out.Suspension.Pending[0].Approve())
	if out.Status != runtime.StatusCompleted || out.Final.Text != "all three done" {
		t.Fatalf("out = %+v", out)
	}
	if got := f.executed(); len(got) != 3 || got[0] != "ws.first" || got[1] != "ws.write" || got[2] != "ws.third" {
		t.Fatalf("executed %v", got)
	}
	reqs := f.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2 (no planning while suspended)", len(reqs))
	}
	res := toolResults(reqs[1].Messages)
	if len(res) != 3 {
		t.Fatalf("the model read %+v", res)
	}
	for i, want := range []string{`{"n":1}`, `{"n":2}`, `{"n":3}`} {
		if res[i].CallID != []string{"call_1", "call_2", "call_3"}[i] || string(res[i].Content) != want {
			t.Fatalf("result %d = %+v, want %s", i, res[i], want)
		}
	}
	if out.ToolCalls != 3 {
		t.Fatalf("ToolCalls = %d, want 3 (the batch counted once)", out.ToolCalls)
	}
}
