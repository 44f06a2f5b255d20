package mcp

import (
	"context"
	"errors"
	"fmt"

	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
)

// Tool is one tool a [Source] offers.
type Tool struct {
	// Spec is the tool's contract.
	Spec tools.ToolSpec
	// Deferred tools are found by search; the others are listed at once.
	Deferred bool
	// Executor runs the calls, through the same pipeline as in the
	// runtime ([toolcall.Run]): call.Payload is canonical and validated and
	// holds no injected field (call.Decode and call.InjectedPayload add
	// them).
	Executor toolcall.Executor
}

// Source is what a [Server] serves. [Source.Tools] returns the current tools
// and a channel closed when they change (nil when they never do); the
// server asks again then.
type Source interface {
	Tools(ctx context.Context) ([]Tool, <-chan struct{}, error)
}

// Toolsets serves fixed toolsets — compiled (generated specs) or
// runtime-defined (contract.CompileToolset) — with their executors.
// deferred names the tools found by search (nil: all of them are).
// A registered runtime toolset passes as reg.Toolset()
// (runtime.ToolsetRegistration.Toolset).
func Toolsets(regs []toolcall.Toolset, deferred func(tools.Ident) bool) (Source, error) {
	var out []Tool
	seen := map[tools.Ident]bool{}
	var errs []error
	for _, reg := range regs {
		if reg.Executor == nil {
			errs = append(errs, fmt.Errorf("toolset %q has no executor", reg.Name))
			continue
		}
		exec := reg.Executor
		for _, s := range reg.Specs {
			if err := s.Validate(); err != nil {
				errs = append(errs, err)
				continue
			}
			if seen[s.Name] {
				errs = append(errs, fmt.Errorf("tool %s is offered twice", s.Name))
				continue
			}
			seen[s.Name] = true
			out = append(out, Tool{Spec: s.Clone(), Deferred: deferred == nil || deferred(s.Name), Executor: exec})
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("mcp: toolsets: %w", err)
	}
	return staticSource(out), nil
}

type staticSource []Tool

func (s staticSource) Tools(context.Context) ([]Tool, <-chan struct{}, error) { return s, nil, nil }
