package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime/render"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
)

// executeInput is the execute activity's input.
type executeInput struct {
	Ident   tools.Ident       `json:"ident"`
	CallID  string            `json:"call_id"`
	Payload json.RawMessage   `json:"payload"`
	Meta    tools.CallMeta    `json:"meta"`
	Labels  map[string]string `json:"labels,omitempty"`
	// ResumeMissing runs the tool despite missing required fields
	// (OnMissingFields("resume")).
	ResumeMissing bool `json:"resume_missing,omitempty"`
	// Agent is the agent running the call.
	Agent string `json:"agent,omitempty"`
	// Contract is a registry call's saved contract.
	Contract *savedContract `json:"contract,omitempty"`
	// Events is the header of the call's live events (tool progress), and
	// EventSeq the last event the workflow recorded before the call.
	Events   EventHeader `json:"events"`
	EventSeq int64       `json:"event_seq"`
}

// executeOutput is the execute activity's output: what the model sees and
// what the runtime keeps.
type executeOutput struct {
	// Result is the JSON the model sees (bounds projected).
	Result     json.RawMessage      `json:"result,omitempty"`
	Failure    *planner.ToolFailure `json:"failure,omitempty"`
	Bounds     *planner.Bounds      `json:"bounds,omitempty"`
	ServerData []planner.ServerData `json:"server_data,omitempty"`
	ResultHint string               `json:"result_hint,omitempty"`
	// Missing lists required fields the payload lacks.
	Missing []string `json:"missing,omitempty"`
	// LastSeq is the sequence number of the last progress event of the
	// call (0: none): the workflow numbers its next events after it.
	LastSeq int64 `json:"last_seq,omitempty"`
}

// failedOutput is the output of a call that failed with f.
func failedOutput(f *toolcall.Failure) executeOutput { return executeOutput{Failure: f} }

// answer is the JSON the model reads for the call.
func (o executeOutput) answer() json.RawMessage {
	if o.Failure != nil {
		return o.Failure.JSON()
	}
	return o.Result
}

// executeActivity runs one call through the tool-call pipeline
// (toolcall.Run) and renders its result hint.
func (rt *Runtime) executeActivity(ctx context.Context, in executeInput) (executeOutput, error) {
	t, ok := rt.target(in.Ident, in.Contract)
	if !ok || t.toolset.reg.Executor == nil {
		// No tool, or an agent toolset now where the call was admitted for
		// an executor (a continuation in a process registered otherwise).
		return failedOutput(toolcall.Unavailable(string(in.Ident))), nil
	}
	if f := rt.checkSourceAllowed(ctx, in); f != nil {
		return failedOutput(f), nil
	}
	call := &toolcall.Call{Ident: in.Ident, Spec: t.spec.Clone(), Payload: in.Payload, Meta: in.Meta, Labels: in.Labels}
	events := rt.newActivityEvents(ctx, in.Events, in.EventSeq)
	ctx = tools.WithProgressReporter(ctx, progressReporter(events, in.CallID, in.Ident))
	out, err := toolcall.Run(ctx, t.toolset.reg.Executor, call, toolcall.Options{RunMissing: in.ResumeMissing, PartnerCursorHeld: t.continued})
	lastSeq, logErr := events.close()
	if err != nil || logErr != nil {
		return executeOutput{}, errors.Join(err, logErr)
	}
	o := rt.output(t, out)
	if lastSeq > in.EventSeq {
		o.LastSeq = lastSeq
	}
	return o, nil
}

// progressReporter emits a call's progress reports as [ToolProgress]
// events, the first [MaxProgressEvents] of them.
func progressReporter(events *activityEvents, callID string, tool tools.Ident) func(tools.Progress) {
	var (
		mu   sync.Mutex
		sent int
	)
	return func(p tools.Progress) {
		mu.Lock()
		defer mu.Unlock()
		if sent >= MaxProgressEvents {
			return
		}
		sent++
		events.emitCall(callID, ToolProgress{Tool: tool, Progress: p})
	}
}

// output is the activity's output of a pipeline outcome, the result hint
// rendered.
func (rt *Runtime) output(t *toolEntry, o toolcall.Outcome) executeOutput {
	out := executeOutput{Result: o.Result, Failure: o.Failure, Bounds: o.Bounds, ServerData: o.ServerData, Missing: o.Missing, ResultHint: o.DisplayHint}
	spec := t.spec
	if o.Failure == nil && out.ResultHint == "" && spec.ResultHintTemplate != "" {
		var typed any
		if dec := t.toolset.reg.DecodeResult; dec != nil {
			typed, _ = dec(spec.Name, o.Raw)
		} else {
			_ = json.Unmarshal(o.Raw, &typed)
		}
		out.ResultHint = render.ResultHint(spec, typed, o.Bounds, o.DisplayHint)
	}
	return out
}
