package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime/render"
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
}

// executeActivity decodes, validates and injects the payload, runs the
// executor, then validates and projects the result.
func (rt *Runtime) executeActivity(ctx context.Context, in executeInput) (executeOutput, error) {
	t, ok := rt.target(in.Ident, in.Contract)
	if !ok {
		return executeOutput{Failure: &planner.ToolFailure{Code: "tool_unavailable", Message: fmt.Sprintf("Tool %s is not registered.", in.Ident), Recovery: planner.RecoveryReplan}}, nil
	}
	if f := rt.checkSourceAllowed(ctx, in); f != nil {
		return executeOutput{Failure: f}, nil
	}
	spec := t.spec
	payload, out, ok := validatePayload(spec, in)
	if !ok {
		return out, nil
	}
	injected, err := tools.InjectFields(spec, payload, in.Meta, in.Labels)
	if err != nil {
		return executeOutput{Failure: &planner.ToolFailure{Code: "injection_failed", Message: err.Error(), Recovery: planner.RecoveryFinish}}, nil
	}
	call := &ToolCall{Ident: in.Ident, Spec: spec.Clone(), Payload: payload, Meta: in.Meta, Labels: in.Labels, injected: injected}
	res, err := t.toolset.reg.Executor.Execute(ctx, call)
	if err != nil {
		if ctx.Err() != nil {
			return executeOutput{}, err
		}
		return executeOutput{Failure: &planner.ToolFailure{Code: "error", Message: err.Error(), Recovery: planner.RecoveryReplan}}, nil
	}
	if res == nil {
		return executeOutput{Failure: &planner.ToolFailure{Code: "error", Message: "The tool returned no result.", Recovery: planner.RecoveryReplan}}, nil
	}
	return rt.shapeResult(t, res), nil
}

// validatePayload checks the model's payload against the tool's schema. A
// payload lacking only required fields is routed to the missing-fields
// policy; any other violation returns the teaching error as a correctable
// failure.
func validatePayload(spec tools.ToolSpec, in executeInput) (json.RawMessage, executeOutput, bool) {
	payload := in.Payload
	if len(payload) == 0 {
		payload = json.RawMessage(`{}`)
	}
	err := spec.Payload.Validate(payload)
	if err == nil {
		return payload, executeOutput{}, true
	}
	var ve *tools.ValidationError
	if errors.As(err, &ve) {
		if missing, only := ve.MissingOnly(); only {
			if in.ResumeMissing {
				return payload, executeOutput{}, true
			}
			return nil, executeOutput{
				Missing: missing,
				Failure: &planner.ToolFailure{Code: "missing_fields", Message: "The call lacks required fields:\n" + ve.Error(), Recovery: planner.RecoveryCorrectCall},
			}, false
		}
	}
	return nil, executeOutput{Failure: &planner.ToolFailure{Code: "invalid_payload", Message: "The arguments do not match the tool's schema; fix them and call again:\n" + err.Error(), Recovery: planner.RecoveryCorrectCall}}, false
}

// shapeResult validates a result and turns it into what the model sees.
func (rt *Runtime) shapeResult(t *toolEntry, res *planner.ToolResult) executeOutput {
	spec := t.spec
	out := executeOutput{ServerData: routeServerData(spec, res.ServerData)}
	if res.Failure != nil {
		f := *res.Failure
		if f.Recovery == "" {
			f.Recovery = planner.RecoveryReplan
		}
		out.Failure = &f
		return out
	}
	result := res.Result
	if len(result) == 0 {
		result = json.RawMessage(`{}`)
	}
	if err := spec.Result.Validate(result); err != nil {
		out.Failure = &planner.ToolFailure{Code: "invalid_result", Message: "The tool returned a result that breaks its own contract: " + err.Error(), Recovery: planner.RecoveryReplan}
		return out
	}
	if spec.Bounds != nil {
		if res.Bounds == nil {
			out.Failure = &planner.ToolFailure{Code: "missing_bounds", Message: fmt.Sprintf("Bounded tool %s returned no bounds.", spec.Name), Recovery: planner.RecoveryReplan}
			return out
		}
		projected, err := render.ProjectBounds(result, *res.Bounds, modelBounds(t))
		if err != nil {
			out.Failure = &planner.ToolFailure{Code: "invalid_result", Message: err.Error(), Recovery: planner.RecoveryReplan}
			return out
		}
		b := *res.Bounds
		out.Bounds = &b
		result = projected
	}
	out.Result = result
	out.ResultHint = res.DisplayHint
	if out.ResultHint == "" && spec.ResultHintTemplate != "" {
		var typed any
		if dec := t.toolset.reg.DecodeResult; dec != nil {
			typed, _ = dec(spec.Name, res.Result)
		} else {
			_ = json.Unmarshal(res.Result, &typed)
		}
		out.ResultHint = render.ResultHint(spec, typed, res.Bounds, res.DisplayHint)
	}
	return out
}

// routeServerData sets each entry's audience: the one the spec declares for
// its kind wins over what the executor returned (a hand-written executor
// must not turn internal data into stored data); an undeclared kind keeps
// its own audience, timeline when empty. Internal server data serves tool
// composition inside the executor only: it is dropped here, so it never
// leaves the activity (a durable engine would otherwise persist it).
func routeServerData(spec tools.ToolSpec, sds []planner.ServerData) []planner.ServerData {
	var out []planner.ServerData
	for _, sd := range sds {
		for _, d := range spec.ServerData {
			if d.Kind == sd.Kind && d.Audience != "" {
				sd.Audience = d.Audience
				break
			}
		}
		switch sd.Audience {
		case tools.AudienceInternal:
			continue
		case "":
			sd.Audience = tools.AudienceTimeline
		}
		out = append(out, sd)
	}
	return out
}

// modelBounds is the bounds contract projected for the model. The pages of
// a ContinueWith partner belong to a chain whose cursor stays in the
// runtime, so a cursor the partner declares is not shown either.
func modelBounds(t *toolEntry) *tools.BoundsSpec {
	b := t.spec.Bounds
	if t.continued {
		hidden := *b
		hidden.Cursor, hidden.NextCursor = "", ""
		return &hidden
	}
	return b
}
