package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/registry"
	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/contract"
)

// savedContract is what a call accepted to a registry tool keeps from the
// planning step that accepted it (seed 000): the tool's definition, its
// fixed pagination partner and the registration token. Confirmation,
// decoding, result validation and restore after a suspension use it and
// never read the registry's current catalog; the registry call carries its
// token, so a replaced registration answers call_not_admitted or
// admission_conflict instead of running another contract.
type savedContract struct {
	Registry    string `json:"registry"`
	Toolset     string `json:"toolset"`
	Token       string `json:"token"`
	Fingerprint string `json:"fingerprint"`
	Revision    string `json:"revision"`
	// Tool is the tool's declaration as compiled (toolset and tags
	// inherited): contract.Compile of it is the call's spec.
	Tool contract.ToolDeclaration `json:"tool"`
	// Partner is the declaration of the tool the call's listing continues
	// with (BoundsSpec.ContinueWith), when it has one.
	Partner *contract.ToolDeclaration `json:"partner,omitempty"`
	// Continued is set when another tool of the toolset continues with
	// this one: its pages keep their cursor in the runtime.
	Continued bool `json:"continued,omitempty"`
	// Scoped is set for a source RegistryTools included: RegistryTools.Allows
	// decides whether the call may still run.
	Scoped bool `json:"scoped,omitempty"`
}

func (sc *savedContract) ident() tools.Ident { return tools.Ident(sc.Toolset + "." + sc.Tool.Name) }

func (sc *savedContract) source() RegistrySource {
	return RegistrySource{Registry: sc.Registry, Toolset: sc.Toolset}
}

// partnerContract is the contract a continuation of this call's listing
// runs with: the partner's declaration under the same registration.
func (sc *savedContract) partnerContract() *savedContract {
	if sc == nil || sc.Partner == nil {
		return nil
	}
	p := *sc
	p.Tool, p.Partner, p.Continued = *sc.Partner, nil, true
	return &p
}

// target returns the tool a call runs: the registered toolset's tool, or
// for a registry call the tool its saved contract describes, executed
// through the registry.
func (rt *Runtime) target(id tools.Ident, sc *savedContract) (*toolEntry, bool) {
	if sc == nil {
		return rt.tool(id)
	}
	spec, err := rt.contractSpec(sc)
	if err != nil {
		return nil, false
	}
	ts := &toolsetEntry{reg: ToolsetRegistration{Name: sc.Toolset, Specs: []tools.ToolSpec{spec}, Executor: &registryExecutor{rt: rt, contract: sc}}}
	return &toolEntry{spec: spec, toolset: ts, continued: sc.Continued}, true
}

// contractSpec compiles a saved contract's tool, once per registration.
// Compilation is deterministic: the spec is the one the step offered.
func (rt *Runtime) contractSpec(sc *savedContract) (tools.ToolSpec, error) {
	key := sc.Fingerprint + "\x00" + sc.Revision + "\x00" + string(sc.ident())
	if v, ok := rt.contractSpecs.Load(key); ok {
		return v.(tools.ToolSpec).Clone(), nil
	}
	spec, err := contract.Compile(sc.Tool)
	if err != nil {
		return tools.ToolSpec{}, fmt.Errorf("saved contract of %s: %w", sc.ident(), err)
	}
	rt.contractSpecs.Store(key, spec)
	return spec.Clone(), nil
}

// registryExecutor runs a call through the registry with its saved token.
type registryExecutor struct {
	rt       *Runtime
	contract *savedContract
}

// registryCallID is the registry call id of a tool call: unique per call
// and the same on every retry of its activity, so the registry runs it
// once. Run and tool-call ids outside the registry's alphabet (a run id
// with a '/') are hashed (registry.CallIDFor); ids inside it are kept as
// earlier releases sent them.
func registryCallID(meta tools.CallMeta) string {
	return registry.CallIDFor(meta.RunID, meta.ToolCallID)
}

// Execute implements ToolExecutor.
func (e *registryExecutor) Execute(ctx context.Context, call *ToolCall) (*planner.ToolResult, error) {
	sc := e.contract
	e.rt.mu.RLock()
	conn := e.rt.registries[sc.Registry]
	e.rt.mu.RUnlock()
	if conn == nil {
		return nil, fmt.Errorf("registry %q is no longer connected to the runtime", sc.Registry)
	}
	return CallRegistry(ctx, conn.client, sc.Token, registryCallID(call.Meta), call)
}

// CallRegistry runs call through the registry client reaches
// (CallResolvedTool) with token, the registration token the tool was
// accepted with, under callID — unique per call and the same on every
// retry, so the registry runs it once. The registry's refusals
// (call_not_admitted, admission_conflict, outcome_unknown, …) become
// failures the model can act on; a bounded tool's bounds are read from its
// result (BoundedResult). The registry may wait for the outcome nine tenths
// of what is left of ctx's time.
func CallRegistry(ctx context.Context, client *registry.Client, token, callID string, call *ToolCall) (*planner.ToolResult, error) {
	payload, err := call.InjectedPayload()
	if err != nil {
		return nil, err
	}
	toolset := call.Ident.Toolset()
	p := &gen.CallResolvedToolPayload{
		Toolset:   toolset,
		Tool:      call.Ident.Tool(),
		Payload:   json.RawMessage(payload),
		Token:     token,
		CallID:    callID,
		TimeoutMs: callTimeoutMs(ctx),
	}
	if runID := call.Meta.RunID; runID != "" {
		p.RunID = &runID
	}
	out, err := client.CallResolvedTool(ctx, p)
	if err != nil {
		if f := registryFailure(call.Ident, err); f != nil {
			return &planner.ToolResult{Failure: f}, nil
		}
		return nil, err
	}
	switch out.Outcome {
	case "ok":
	case "tool_error":
		msg := "The tool failed."
		if out.Error != nil {
			msg = *out.Error
		}
		return &planner.ToolResult{Failure: &planner.ToolFailure{Code: "tool_error", Message: msg, Recovery: planner.RecoveryReplan}}, nil
	default:
		return nil, fmt.Errorf("registry: outcome %q for call %s", out.Outcome, callID)
	}
	result, err := json.Marshal(out.Result)
	if err != nil {
		return nil, fmt.Errorf("registry: result of %s: %w", call.Ident, err)
	}
	if call.Spec.Bounds == nil {
		return &planner.ToolResult{Result: result}, nil
	}
	return BoundedResult(call.Spec, result), nil
}

// callTimeoutMs is how long the registry may wait for the outcome: nine
// tenths of what is left of the activity's time, within the API's bounds,
// so that the registry's answer (call_not_admitted when no provider took
// the call) arrives before the activity times out.
func callTimeoutMs(ctx context.Context) int {
	const def, maxMs = 30000, 600000
	dl, ok := ctx.Deadline()
	if !ok {
		return def
	}
	ms := int(time.Until(dl) * 9 / 10 / time.Millisecond)
	return min(max(ms, 1), maxMs)
}

// registryFailure turns the registry's refusals into failures the model
// can act on; nil for errors that are not the call's outcome.
func registryFailure(ident tools.Ident, err error) *planner.ToolFailure {
	toolset := ident.Toolset()
	switch registry.ErrorName(err) {
	case registry.ErrCallNotAdmitted:
		return &planner.ToolFailure{Code: registry.ErrCallNotAdmitted, Recovery: planner.RecoveryReplan,
			Message: fmt.Sprintf("Not run: the registry handed this call to no provider of %s (its registration was replaced after the call was accepted, or no provider was healthy in time). Nothing ran. Call %s again: its current definition is in your tools (search for it if it is deferred).", toolset, ident.Tool())}
	case registry.ErrAdmissionConflict:
		return &planner.ToolFailure{Code: registry.ErrAdmissionConflict, Recovery: planner.RecoveryReplan,
			Message: fmt.Sprintf("Not run: toolset %s was replaced by a new revision after this call was accepted, so the registry refused the old admission. Nothing ran. Call %s again: its current definition is in your tools (search for it if it is deferred).", toolset, ident.Tool())}
	case registry.ErrResultExpired:
		return &planner.ToolFailure{Code: registry.ErrResultExpired, Recovery: planner.RecoveryReplan,
			Message: fmt.Sprintf("This call of %s ran, but the registry no longer keeps its result, and it will not run it again. Check its effect before calling %s again.", ident.Tool(), ident.Tool())}
	case registry.ErrOutcomeUnknown:
		return &planner.ToolFailure{Code: registry.ErrOutcomeUnknown, Recovery: planner.RecoveryReplan,
			Message: fmt.Sprintf("The provider of %s stopped before reporting: this call may or may not have run, and it will not be repeated. Check its effect before calling %s again.", toolset, ident.Tool())}
	case registry.ErrValidation:
		return &planner.ToolFailure{Code: "invalid_payload", Recovery: planner.RecoveryCorrectCall,
			Message: "The registry refused the arguments; fix them and call again:\n" + err.Error()}
	case registry.ErrUnknownToolset, registry.ErrUnknownTool:
		return &planner.ToolFailure{Code: "tool_unavailable", Recovery: planner.RecoveryReplan,
			Message: fmt.Sprintf("Tool %s is no longer in the registry; nothing ran. Use another tool.", ident.Tool())}
	case registry.ErrOverloaded:
		return &planner.ToolFailure{Code: registry.ErrOverloaded, Recovery: planner.RecoveryReplan,
			Message: fmt.Sprintf("Not run: the providers of %s are overloaded. Try again later or use another tool.", toolset)}
	}
	return nil
}

// BoundedResult reads a bounded tool's bounds from the canonical fields
// its provider wrote in the result — a registry carries the result only —
// and returns the result without them: "returned" (required), "truncated",
// "total", "refinement_hint", and the cursor in "next_cursor" or the field
// the spec's NextCursor names. A result without them is a missing_bounds
// failure.
func BoundedResult(spec tools.ToolSpec, result json.RawMessage) *planner.ToolResult {
	var fields map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(result))
	dec.UseNumber()
	if err := dec.Decode(&fields); err != nil || fields == nil {
		return &planner.ToolResult{Failure: &planner.ToolFailure{Code: "missing_bounds", Recovery: planner.RecoveryReplan,
			Message: fmt.Sprintf("Bounded tool %s returned a result that is not an object with its bounds fields.", spec.Name)}}
	}
	var b planner.Bounds
	cursorField := tools.BoundsFieldNextCursor
	if spec.Bounds.NextCursor != "" {
		cursorField = spec.Bounds.NextCursor
	}
	if err := json.Unmarshal(fields[tools.BoundsFieldReturned], &b.Returned); err != nil {
		return &planner.ToolResult{Failure: &planner.ToolFailure{Code: "missing_bounds", Recovery: planner.RecoveryReplan,
			Message: fmt.Sprintf("Bounded tool %s returned no %q count in its result.", spec.Name, tools.BoundsFieldReturned)}}
	}
	_ = json.Unmarshal(fields[tools.BoundsFieldTruncated], &b.Truncated)
	if raw, ok := fields[tools.BoundsFieldTotal]; ok {
		var total int
		if json.Unmarshal(raw, &total) == nil {
			b.Total = &total
		}
	}
	_ = json.Unmarshal(fields[tools.BoundsFieldRefinementHint], &b.RefinementHint)
	_ = json.Unmarshal(fields[cursorField], &b.NextCursor)
	for _, k := range []string{tools.BoundsFieldReturned, tools.BoundsFieldTruncated, tools.BoundsFieldTotal, tools.BoundsFieldRefinementHint, cursorField} {
		delete(fields, k)
	}
	rest, _ := json.Marshal(fields) // raw values re-encode as they were
	return &planner.ToolResult{Result: rest, Bounds: &b}
}
