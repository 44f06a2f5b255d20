package codegen

import (
	"fmt"
	"strings"

	"github.com/quiver-go/quiver/expr"
)

// A Passthrough forwards an exported tool to a Goa service method with no
// planner and no child run. Its code is the BindTo adapter's (adapterFile):
// the adapters package of the exported toolset holds New<Toolset>Executor,
// taking the Goa service implementations, whose Execute converts the
// tool's payload to the method payload, calls the method and converts its
// result to the tool's (validated by the tool's result contract).
//
// An agent's export whose tools all forward is not an agent toolset (a
// passthrough never runs the agent): buildAgentTools generates no
// agenttools package for it, and an agent consuming it with
// Use(AgentToolset(...)) registers it as a plain toolset, whose executor
// the application gives in the agent's config (the adapters executor). An
// agent's export mixing forwarded and agent-run tools is refused: one
// registration cannot hold both an executor and an agent.

// checkPassthroughs refuses the agents' exports that mix forwarded and
// agent-run tools.
func checkPassthroughs(root *expr.RootExpr) error {
	for _, e := range root.Exports {
		if e.Agent == nil || len(e.Passthroughs) == 0 || e.PassthroughOnly() {
			continue
		}
		var fwd, run []string
		for _, t := range e.Exported().Tools {
			if e.Passthrough(t.Name) != nil {
				fwd = append(fwd, t.Name)
			} else {
				run = append(run, t.Name)
			}
		}
		return fmt.Errorf("quiver codegen: %s%s mixes tools forwarded to service methods (Passthrough: %s) and tools that run the agent (%s): "+
			"a passthrough never runs the agent, so the toolset cannot be one agent toolset; export the forwarded tools in a toolset of their own",
			designAt(e.Location), e.EvalName(), strings.Join(fwd, ", "), strings.Join(run, ", "))
	}
	return nil
}
