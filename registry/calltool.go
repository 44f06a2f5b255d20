package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	goa "goa.design/goa/v3/pkg"

	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/toolcall"
)

// CallTool runs call through the registry client reaches
// (CallResolvedTool) with token, the registration token the tool was
// accepted with, under callID — unique per call and the same on every
// retry, so the registry runs it once ([CallIDFor]). The registry's refusals
// (call_not_admitted, admission_conflict, outcome_unknown, …) become
// failures of their kind, with the advice the model reads; a provider's
// failure keeps the kind its executor gave; a bounded tool's bounds are
// read from its result ([toolcall.BoundsFromResult]). The registry may wait
// for the outcome nine tenths of what is left of ctx's time.
//
// The payload sent is call.Payload, which holds no injected field; the
// values of the tool's injected fields, as the call's pipeline filled
// them ([toolcall.Call.InjectedPayload]), travel beside it in the call's
// injected member, which the registry checks and fills into the payload
// its provider receives (docs/registry.md, "Injected fields").
func CallTool(ctx context.Context, client *Client, token, callID string, call *toolcall.Call) (*toolcall.Result, error) {
	injected, err := injectedValues(call)
	if err != nil {
		return nil, err
	}
	payload := call.Payload
	if len(payload) == 0 {
		payload = json.RawMessage(`{}`)
	}
	p := &gen.CallResolvedToolPayload{
		Toolset:   call.Ident.Toolset(),
		Tool:      call.Ident.Tool(),
		Payload:   payload,
		Token:     token,
		CallID:    callID,
		TimeoutMs: callTimeoutMs(ctx),
	}
	if injected != nil {
		p.Injected = injected
	}
	if runID := call.Meta.RunID; runID != "" {
		p.RunID = &runID
	}
	out, err := client.CallResolvedTool(ctx, p)
	if err != nil {
		if f := CallFailure(call, err); f != nil {
			return &toolcall.Result{Failure: f}, nil
		}
		return nil, err
	}
	switch out.Outcome {
	case "ok":
	case "tool_error":
		return &toolcall.Result{Failure: providerFailure(out)}, nil
	default:
		return nil, fmt.Errorf("registry: outcome %q for call %s", out.Outcome, callID)
	}
	result, err := json.Marshal(out.Result)
	if err != nil {
		return nil, fmt.Errorf("registry: result of %s: %w", call.Ident, err)
	}
	if call.Spec.Bounds == nil {
		return &toolcall.Result{Result: result}, nil
	}
	return toolcall.BoundsFromResult(call.Spec, result), nil
}

// injectedValues is the object of call's injected fields and their values
// as the pipeline filled them, nil when the tool declares none (the
// request then carries no injected member, as before the registry took
// one).
func injectedValues(call *toolcall.Call) (json.RawMessage, error) {
	if len(call.Spec.Inject) == 0 {
		return nil, nil
	}
	full, err := call.InjectedPayload()
	if err != nil {
		return nil, err
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(full, &members); err != nil {
		return nil, fmt.Errorf("registry: %s: the payload with its injected fields is not a JSON object: %w", call.Ident, err)
	}
	values := make(map[string]json.RawMessage, len(call.Spec.Inject))
	for _, f := range call.Spec.Inject {
		v, ok := members[f.Name]
		if !ok {
			return nil, fmt.Errorf("registry: %s: injected field %q was not filled in: run the call through toolcall.Run, which injects it", call.Ident, f.Name)
		}
		values[f.Name] = v
	}
	return json.Marshal(values)
}

// providerFailure is the failure a provider posted: its message, and its
// kind and recovery when the provider's executor gave them.
func providerFailure(out *gen.CallOutcome) *toolcall.Failure {
	f := &toolcall.Failure{Code: toolcall.KindToolError, Recovery: toolcall.RecoveryReplan, Message: "The tool failed."}
	if out.Error != nil {
		f.Message = *out.Error
	}
	if out.ErrorKind != nil && toolcall.ValidKind(toolcall.Kind(*out.ErrorKind)) {
		f.Code = toolcall.Kind(*out.ErrorKind)
	}
	if out.ErrorRecovery != nil && toolcall.Recovery(*out.ErrorRecovery).Valid() {
		f.Recovery = toolcall.Recovery(*out.ErrorRecovery)
	}
	return f
}

// callTimeoutMs is how long the registry may wait for the outcome: nine
// tenths of what is left of the caller's time, within the API's bounds,
// so that the registry's answer (call_not_admitted when no provider took
// the call) arrives before the caller gives up.
func callTimeoutMs(ctx context.Context) int {
	const def, maxMs = 30000, 600000
	dl, ok := ctx.Deadline()
	if !ok {
		return def
	}
	ms := int(time.Until(dl) * 9 / 10 / time.Millisecond)
	return min(max(ms, 1), maxMs)
}

// forbiddenReason is the registry's message of a forbidden answer,
// without its trailing period.
func forbiddenReason(err error) string {
	var se *goa.ServiceError
	if errors.As(err, &se) && se.Message != "" {
		return strings.TrimSuffix(se.Message, ".")
	}
	return "the registry's key may not call it"
}

// CallFailure turns the registry's refusal of call into the failure the
// model acts on (key_limit as [toolcall.KindKeyLimit], forbidden as
// [toolcall.KindNotPermitted] with the registry's reason); nil for errors
// that are not the call's outcome (the registry unreachable, the caller's
// cancellation).
func CallFailure(call *toolcall.Call, err error) *toolcall.Failure {
	ident := call.Ident
	toolset, tool := ident.Toolset(), ident.Tool()
	switch ErrorName(err) {
	case ErrCallNotAdmitted:
		return toolcall.Fail(toolcall.KindCallNotAdmitted, toolcall.RecoveryReplan,
			"Not run: the registry handed this call to no provider of %s (its registration was replaced after the call was accepted, or no provider was healthy in time). Nothing ran. Call %s again: its current definition is in your tools (search for it if it is deferred).", toolset, tool)
	case ErrAdmissionConflict:
		return toolcall.Fail(toolcall.KindAdmissionConflict, toolcall.RecoveryReplan,
			"Not run: toolset %s was replaced by a new revision after this call was accepted, so the registry refused the old admission. Nothing ran. Call %s again: its current definition is in your tools (search for it if it is deferred).", toolset, tool)
	case ErrResultExpired:
		return toolcall.Fail(toolcall.KindResultExpired, toolcall.RecoveryReplan,
			"This call of %s ran, but the registry no longer keeps its result, and it will not run it again. Check its effect before calling %s again.", tool, tool)
	case ErrOutcomeUnknown:
		return toolcall.Fail(toolcall.KindOutcomeUnknown, toolcall.RecoveryReplan,
			"The provider of %s stopped before reporting: this call may or may not have run, and it will not be repeated. Check its effect before calling %s again.", toolset, tool)
	case ErrValidation:
		return &toolcall.Failure{Code: toolcall.KindInvalidPayload, Recovery: toolcall.RecoveryCorrectCall,
			Message: "The registry refused the arguments; fix them and call again:\n" + err.Error()}
	case ErrUnknownToolset, ErrUnknownTool:
		return toolcall.Fail(toolcall.KindUnavailable, toolcall.RecoveryReplan,
			"Tool %s is no longer in the registry; nothing ran. Use another tool.", tool)
	case ErrOverloaded:
		return toolcall.Fail(toolcall.KindOverloaded, toolcall.RecoveryReplan,
			"Not run: the providers of %s are overloaded. Try again later or use another tool.", toolset)
	case ErrKeyLimit:
		return toolcall.KeyLimit()
	case ErrForbidden:
		// The registry's reason names the key and the grant it lacks; the
		// model reads it as is (it holds no secret).
		return toolcall.NotPermitted(fmt.Sprintf("the registry refused this call of %s: %s.", ident, forbiddenReason(err)))
	}
	return nil
}
