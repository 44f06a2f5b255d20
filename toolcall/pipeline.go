package toolcall

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/quiver-go/quiver/tools"
)

// Options are what legitimately differs between the callers of the
// pipeline: named here, so that nothing else may differ.
type Options struct {
	// RunMissing runs a call whose payload lacks only required fields (the
	// runtime's OnMissingFields("resume")). Otherwise such a call is
	// answered with [MissingFields] and [Outcome.Missing] lists the fields, so
	// the runtime can ask a person for them.
	RunMissing bool
	// PartnerCursorHeld is set when the tool is another tool's
	// ContinueWith partner and the caller keeps that chain's cursor (the
	// runtime does, and continues a page when the model calls the partner
	// without one): the cursor the partner declares is not shown to the
	// model. No MCP client holds a chain, so over MCP it is never set and
	// the cursor stays in the result.
	PartnerCursorHeld bool
}

// Outcome is what one call produced: the model's answer and what the
// caller keeps beside it.
type Outcome struct {
	// Result is the JSON the model sees on success (bounds projected).
	Result json.RawMessage `json:"result,omitempty"`
	// Failure is set when the call failed; the model reads Failure.JSON().
	Failure *Failure `json:"failure,omitempty"`
	// Raw is the result as the executor returned it, validated, before
	// projection: what typed result hints decode.
	Raw json.RawMessage `json:"-"`
	// Bounds are a bounded result's bounds as the executor reported them.
	Bounds *Bounds `json:"bounds,omitempty"`
	// ServerData are the server-only outputs, audiences resolved
	// ([RouteServerData]): never part of the answer.
	ServerData []ServerData `json:"server_data,omitempty"`
	// DisplayHint is the executor's own display hint, if any.
	DisplayHint string `json:"display_hint,omitempty"`
	// Missing lists the required fields a payload lacks ([KindMissingFields]).
	Missing []string `json:"missing,omitempty"`
	// Ran reports whether the executor was invoked.
	Ran bool `json:"ran,omitempty"`
}

// Answer is the JSON the model reads: the result, or the failure's JSON.
func (o Outcome) Answer() json.RawMessage {
	if o.Failure != nil {
		return o.Failure.JSON()
	}
	return o.Result
}

// Failed returns the outcome of a call that failed with f before or
// without running.
func Failed(f *Failure) Outcome { return Outcome{Failure: f} }

// Run runs one call through the pipeline: validate the payload, inject
// the fields the caller fills, run the executor, validate the result,
// project its bounds, keep server data out of the answer. call.Payload is
// the canonical payload ([Canonicalize]). The error is ctx's when the
// caller's context ended while the executor ran; every other problem is
// the outcome's [Failure].
func Run(ctx context.Context, exec Executor, call *Call, opts Options) (Outcome, error) {
	payload, missing, f := CheckPayload(call.Spec, call.Payload, opts.RunMissing)
	if f != nil {
		return Outcome{Failure: f, Missing: missing}, nil
	}
	call.Payload = payload
	if f := Inject(call); f != nil {
		return Failed(f), nil
	}
	res, err := exec.Execute(ctx, call)
	if err != nil {
		if ctx.Err() != nil {
			return Outcome{Ran: true}, ctx.Err()
		}
		if f := AsFailure(err); f != nil {
			res = &Result{Failure: f}
		} else {
			res = &Result{Failure: ToolFailed(err)}
		}
	}
	out := Shape(call.Spec, res, opts)
	out.Ran = true
	return out, nil
}

// Canonicalize parses the model's arguments once into the canonical
// payload ([tools.CanonicalPayload]) within limits (zero fields: defaults);
// refused arguments get the failure the model reads.
func Canonicalize(spec tools.ToolSpec, arguments json.RawMessage, limits tools.PayloadLimits) (json.RawMessage, *Failure) {
	payload, err := tools.CanonicalPayload(spec, arguments, limits)
	if err != nil {
		return nil, RefusedPayload(err)
	}
	return payload, nil
}

// CheckPayload validates a canonical payload against the tool's schema
// (an empty payload is {}). A payload lacking only required fields is
// answered with [MissingFields] and the fields' paths unless runMissing;
// any other violation with [InvalidPayload].
func CheckPayload(spec tools.ToolSpec, payload json.RawMessage, runMissing bool) (json.RawMessage, []string, *Failure) {
	if len(payload) == 0 {
		payload = json.RawMessage(`{}`)
	}
	err := spec.Payload.Validate(payload)
	if err == nil {
		return payload, nil, nil
	}
	var ve *tools.ValidationError
	if errors.As(err, &ve) {
		if missing, only := ve.MissingOnly(); only {
			if runMissing {
				return payload, nil, nil
			}
			return nil, missing, MissingFields(ve)
		}
	}
	return nil, nil, InvalidPayload(err)
}

// Inject fills call's injected fields from its Meta and Labels once, so
// [Call.InjectedPayload] and [Call.Decode] hand the executor the same
// bytes.
func Inject(call *Call) *Failure {
	if call.injected != nil {
		return nil
	}
	injected, err := tools.InjectFields(call.Spec, call.Payload, call.Meta, call.Labels)
	if err != nil {
		return InjectionFailed(err)
	}
	call.injected = injected
	return nil
}

// Shape turns an executor's result into the outcome: a failure keeps its
// kind ([RecoveryReplan] when it gave none); a result is validated against
// the tool's contract, a bounded one must carry bounds — in
// [Result.Bounds], or in the result's canonical fields ([BoundsFromResult]) —
// which are projected into what the model sees; server data is routed and kept out
// of the answer. It runs nothing, so a caller can apply it to any answer
// that must meet a tool's contract (a child run's, for instance).
func Shape(spec tools.ToolSpec, res *Result, opts Options) Outcome {
	if res == nil {
		return Failed(NoResult())
	}
	out := Outcome{ServerData: RouteServerData(spec, res.ServerData), DisplayHint: res.DisplayHint}
	if res.Failure != nil {
		out.Failure = res.Failure.withRecovery()
		return out
	}
	result, bounds := res.Result, res.Bounds
	if len(result) == 0 {
		result = json.RawMessage(`{}`)
	}
	if spec.Bounds != nil && bounds == nil {
		// A provider writes the bounds in the result's canonical fields
		// (a registry carries the result only): read them from there.
		if read := BoundsFromResult(spec, result); read.Failure == nil {
			result, bounds = read.Result, read.Bounds
		}
	}
	if err := spec.Result.Validate(result); err != nil {
		out.Failure = InvalidResult(err)
		return out
	}
	out.Raw = result
	if spec.Bounds != nil {
		if bounds == nil {
			out.Failure = MissingBounds(spec.Name)
			return out
		}
		projected, err := ProjectBounds(result, *bounds, ModelBounds(spec.Bounds, opts.PartnerCursorHeld))
		if err != nil {
			out.Failure = InvalidResult(err)
			return out
		}
		b := *bounds
		out.Bounds = &b
		result = projected
	}
	out.Result = result
	return out
}

// ModelBounds is the bounds contract projected for the model. The pages of
// a ContinueWith partner whose chain the caller holds keep their cursor
// with the caller, so a cursor the partner declares is not shown either.
func ModelBounds(b *tools.BoundsSpec, partnerCursorHeld bool) *tools.BoundsSpec {
	if b != nil && partnerCursorHeld {
		hidden := *b
		hidden.Cursor, hidden.NextCursor = "", ""
		return &hidden
	}
	return b
}

// RouteServerData sets each entry's audience: the one the spec declares for
// its kind wins over what the executor returned (a hand-written executor
// must not turn internal data into stored data); an undeclared kind keeps
// its own audience, timeline when empty. Internal server data serves tool
// composition inside the executor only: it is dropped here, so it never
// leaves the call (a durable engine would otherwise persist it).
func RouteServerData(spec tools.ToolSpec, sds []ServerData) []ServerData {
	var out []ServerData
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
