package runtime

import (
	"context"
	"fmt"

	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/registry"
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

func (sc *savedContract) ident() tools.Ident { return tools.JoinIdent(sc.Toolset, sc.Tool.Name) }

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
	return registry.CallTool(ctx, conn.client, sc.Token, registryCallID(call.Meta), call)
}
