package runtime

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/toolcall"
)

// RegistryTools chooses registry sources per run: the application's scope
// of a catalog (which tenant, which plan, which region sees what). Attach
// it with [WithRegistryTools]; it applies to every agent of the runtime, on
// top of the sources the agent declares. Namespaces and authorization stay
// the application's: the runtime only reads what [RegistryTools.Resolve]
// includes.
type RegistryTools interface {
	// Resolve includes the sources of one planning step, from what c says
	// about the run (c.RunLabels, c.Agent). It runs in the planning
	// activity of every step that can start work, concurrently for
	// concurrent runs: keep it fast and free of shared mutable state. An
	// error fails the step.
	Resolve(ctx context.Context, c *RegistryCatalog) error
	// Allows reports whether a call accepted from source in an earlier
	// step — one suspended for confirmation, say — may still run now. A
	// refused call fails with source_not_allowed and nothing executes.
	// Only calls to sources [RegistryTools.Resolve] included are asked about.
	Allows(ctx context.Context, c *RegistryCatalog, source RegistrySource) bool
}

// WithRegistryTools attaches app-scoped registry sources ([RegistryTools])
// to every agent of the runtime.
func WithRegistryTools(t RegistryTools) Option {
	return func(rt *Runtime) error {
		if t == nil {
			return errors.New("WithRegistryTools: nil")
		}
		rt.registryTools = t
		return nil
	}
}

// RegistryCatalog is what [RegistryTools] sees of one planning step: the
// agent and the run's labels, and the sources it includes.
type RegistryCatalog struct {
	agent    string
	labels   map[string]string
	included []RegistryUse
	errs     []error
}

// Agent returns the name of the agent planning.
func (c *RegistryCatalog) Agent() string { return c.agent }

// RunLabels returns a copy of the run's labels.
func (c *RegistryCatalog) RunLabels() map[string]string { return maps.Clone(c.labels) }

// SourceOption refines a source [RegistryTools] includes.
type SourceOption func(*RegistryUse)

// PinVersion fails the step unless the toolset's published version is v
// (named toolsets only).
func PinVersion(v string) SourceOption { return func(u *RegistryUse) { u.Version = v } }

// LoadDeferred loads the source's tools by search instead of advertising
// them.
func LoadDeferred() SourceOption { return func(u *RegistryUse) { u.DeferAll = true } }

// IncludeToolset adds one toolset of a registry to the step's catalog.
func (c *RegistryCatalog) IncludeToolset(registry, toolset string, opts ...SourceOption) {
	if toolset == "" {
		c.errs = append(c.errs, fmt.Errorf("IncludeToolset(%q, \"\"): name the toolset, or use IncludeRegistry", registry))
		return
	}
	c.include(RegistryUse{Registry: registry, Toolset: toolset}, opts)
}

// IncludeRegistry adds every toolset a registry lists to the step's
// catalog.
func (c *RegistryCatalog) IncludeRegistry(registry string, opts ...SourceOption) {
	c.include(RegistryUse{Registry: registry}, opts)
}

func (c *RegistryCatalog) include(u RegistryUse, opts []SourceOption) {
	for _, o := range opts {
		o(&u)
	}
	c.included = append(c.included, u)
}

// checkSourceAllowed asks RegistryTools whether a call saved from one of
// its sources may still run; a refusal is the call's failure.
func (rt *Runtime) checkSourceAllowed(ctx context.Context, in executeInput) *planner.ToolFailure {
	if in.Contract == nil || !in.Contract.Scoped {
		return nil
	}
	rt.mu.RLock()
	scope := rt.registryTools
	rt.mu.RUnlock()
	if scope == nil {
		return nil
	}
	c := &RegistryCatalog{agent: in.Agent, labels: in.Labels}
	if scope.Allows(ctx, c, in.Contract.source()) {
		return nil
	}
	return &planner.ToolFailure{Code: toolcall.KindSourceNotAllowed, Recovery: planner.RecoveryReplan,
		Message: fmt.Sprintf("Not run: toolset %s of registry %s is no longer available to this run. Nothing ran; use the tools you have now.", in.Contract.Toolset, in.Contract.Registry)}
}
