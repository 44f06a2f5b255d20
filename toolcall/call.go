package toolcall

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/quiver-go/quiver/tools"
)

// Call is one admitted call handed to an executor.
type Call struct {
	// Ident is the tool.
	Ident tools.Ident
	// Spec is the contract the call was admitted with.
	Spec tools.ToolSpec
	// Payload is the call's canonical payload ([Canonicalize]), validated
	// against the tool's schema: exactly what a confirmation prompt
	// showed. It holds no injected field; [Call.Decode], generated Decode
	// functions and [Call.InjectedPayload] add them.
	Payload json.RawMessage
	// Meta identifies the run and call.
	Meta tools.CallMeta
	// Labels are the run labels (a copy).
	Labels map[string]string

	// injected is Payload with the injected fields filled in, when the
	// pipeline or the caller computed it already.
	injected json.RawMessage
}

// Forwarded returns a call whose payload arrived with its injected fields
// filled in already — a registry provider receives what the consumer's
// pipeline injected — so [Call.InjectedPayload] and [Call.Decode] return
// it as is instead of injecting again from Meta and Labels the provider
// does not have.
func Forwarded(ident tools.Ident, spec tools.ToolSpec, payload json.RawMessage, meta tools.CallMeta) *Call {
	return &Call{Ident: ident, Spec: spec, Payload: payload, Meta: meta, injected: payload}
}

// InjectedPayload returns [Call.Payload] with the injected fields filled in
// from [Call.Meta] and [Call.Labels]: the JSON to forward when the executor
// hands the call on as is.
func (c *Call) InjectedPayload() (json.RawMessage, error) {
	if c.injected != nil {
		return slices.Clone(c.injected), nil
	}
	full, err := tools.InjectFields(c.Spec, c.Payload, c.Meta, c.Labels)
	if err != nil {
		return nil, fmt.Errorf("toolcall: %s: %w", c.Ident, err)
	}
	return full, nil
}

// Decode unmarshals the payload, injected fields included, into v,
// matching keys exactly ([tools.Unmarshal]): a struct field matches only its
// json tag's name, or its exact Go name when untagged (Cursor does not
// match "cursor": tag fields with their JSON names). The payload was
// canonicalized and validated before the executor ran and injection
// happens here, so no decode path can skip it or let a model-written key
// override it.
func (c *Call) Decode(v any) error {
	full, err := c.InjectedPayload()
	if err != nil {
		return err
	}
	if err := tools.Unmarshal(full, v); err != nil {
		return fmt.Errorf("toolcall: %s: decode payload: %w", c.Ident, err)
	}
	return nil
}

// Executor runs the calls of one toolset: in process, behind an MCP
// server and behind a registry provider (registry.Serve) alike.
//
// A failure the model should read with a particular kind is returned
// either as [Result.Failure] or as an error wrapping a *Failure ([Fail]); any
// other error is a [KindToolError] failure whose message quotes it. An
// error while ctx is done is the caller's cancellation, not the tool's
// failure.
type Executor interface {
	Execute(ctx context.Context, call *Call) (*Result, error)
}

// ExecutorFunc adapts a function to [Executor].
type ExecutorFunc func(ctx context.Context, call *Call) (*Result, error)

// Execute calls f.
func (f ExecutorFunc) Execute(ctx context.Context, call *Call) (*Result, error) {
	return f(ctx, call)
}

// Toolset is the tools one executor serves: what an MCP server
// (mcp.Toolsets) takes, and what runtime.ToolsetRegistration.Toolset
// returns for a registered toolset.
type Toolset struct {
	// Name is the toolset name: the part of each spec's ident before the
	// last dot.
	Name string
	// Specs are the tools' contracts.
	Specs []tools.ToolSpec
	// Executor runs the calls.
	Executor Executor
}
