// What services and agents offer others: exported toolsets (Export), the
// references consumers use (AgentToolset), forwarding of exported tools
// (Passthrough), typed completions (Completion), and the API switch for the
// agent quickstart (DisableAgentDocs).

package dsl

import (
	"goa.design/goa/v3/eval"
	goaexpr "goa.design/goa/v3/expr"

	"github.com/quiver-go/quiver/expr"
	"github.com/quiver-go/quiver/tools"
)

// Export exposes a toolset to other agents (agent-as-tool), in an Agent or
// a Service: a top-level toolset as declared,
//
//	Export(AnalyticsTools, func() { Tags("analytics") })
//
// or a toolset declared in the Export, whose tools may forward to a service
// method with Passthrough:
//
//	Export("planning.tools", func() {
//		Tool("create_plan", "Create a plan", func() { ... })
//	})
//
// Other agents consume an agent's exports with
// Use(AgentToolset(service, agent, toolset)).
func Export(value any, fn ...func()) {
	e := &expr.ExportExpr{Location: expr.DesignLocation()}
	switch cur := eval.Current().(type) {
	case *expr.AgentExpr:
		e.Agent, e.Service = cur, cur.Service
	case *goaexpr.ServiceExpr:
		e.Service = cur
	default:
		eval.ReportError("Export: must be used in an Agent or a Service")
		return
	}
	if len(fn) > 1 {
		eval.ReportError("Export: takes one DSL function")
		return
	}
	switch v := value.(type) {
	case *expr.ToolsetExpr:
		if v == nil {
			eval.ReportError("Export: the toolset is nil (was it declared with Toolset at the top level?)")
			return
		}
		e.Toolset = v
	case string:
		if len(fn) == 0 {
			eval.ReportError("Export: %q: an inline toolset needs a DSL function declaring its tools", v)
			return
		}
		if _, err := tools.NewIdent(v, "x"); err != nil {
			eval.ReportError("Export: invalid name %q: use letters, digits, _ and -, with dots only between parts (\"chat.tools\")", v)
			return
		}
		e.Inline = &expr.ToolsetExpr{Name: v, Inline: true}
	default:
		eval.ReportError("Export: want a Toolset or the name of an inline toolset, got %T", value)
		return
	}
	if len(fn) == 1 {
		e.DSLFunc = fn[0]
	}
	expr.Root.Exports = append(expr.Root.Exports, e)
}

// AgentToolset refers to a toolset another agent exports, for Use:
//
//	Use(AgentToolset("planning", "planner", "planning.tools"))
//
// The reference is resolved once the whole design is evaluated: the
// service, its agent and the agent's Export of that toolset must exist.
func AgentToolset(service, agent, toolset string) *expr.AgentToolsetExpr {
	if _, ok := eval.Current().(*expr.AgentExpr); !ok {
		eval.ReportError("AgentToolset: must be given to Use in an Agent")
		return nil
	}
	if service == "" || agent == "" || toolset == "" {
		eval.ReportError("AgentToolset: want a service, an agent and a toolset name, got (%q, %q, %q)", service, agent, toolset)
		return nil
	}
	return &expr.AgentToolsetExpr{
		ServiceName: service,
		AgentName:   agent,
		ToolsetName: toolset,
		Location:    expr.DesignLocation(),
	}
}

// Passthrough forwards the current exported tool to a Goa service method,
// bypassing the planner: Passthrough("log_message", "LoggingService",
// "LogMessage"). toolName is the enclosing tool's name; service is a
// service name or the Service expression. It is used in a Tool declared in
// an Export; the service and method must exist in the design.
//
// goa gen generates the forwarding in the adapters package of the exported
// toolset (gen/.../<toolset>/adapters): New<Toolset>Executor takes the Goa
// service implementation and runs the tool by calling the method, the
// payload and the result converted as for BindTo (no planner, no child
// run). An agent's export whose tools all forward is registered as a plain
// executor toolset, not as an agent toolset; an agent's export mixing
// forwarded and agent-run tools is refused.
func Passthrough(toolName string, service any, method string) {
	tool, ok := eval.Current().(*expr.ToolExpr)
	if !ok {
		eval.ReportError("Passthrough: must be used in a Tool declared in an Export")
		return
	}
	e := expr.Root.ExportDeclaring(tool.Toolset)
	if e == nil {
		eval.ReportError("Passthrough: tool %q is not declared in an Export: only exported tools forward to a service method", tool.Name)
		return
	}
	if toolName != tool.Name {
		eval.ReportError("Passthrough: names tool %q inside tool %q: give the enclosing tool's name", toolName, tool.Name)
		return
	}
	var svc string
	switch v := service.(type) {
	case string:
		svc = v
	case *goaexpr.ServiceExpr:
		if v != nil {
			svc = v.Name
		}
	default:
		eval.ReportError("Passthrough: want a service name or a Service, got %T", service)
		return
	}
	if svc == "" || method == "" {
		eval.ReportError("Passthrough: want a service and a method name, got (%q, %q)", svc, method)
		return
	}
	if p := e.Passthrough(tool.Name); p != nil {
		eval.ReportError("Passthrough: tool %q already forwards to %s.%s", tool.Name, p.ServiceName, p.MethodName)
		return
	}
	e.Passthroughs = append(e.Passthroughs, &expr.PassthroughExpr{Tool: tool, ServiceName: svc, MethodName: method, Location: expr.DesignLocation()})
}

// Completion declares a typed direct-output contract the current service
// owns: instead of calling a tool, the assistant answers with the
// completion's Return type. goa gen generates the package
// gen/<service>/completions: the result's Go types and, per completion, a
// value whose Complete and StreamComplete decode the model's answer once it
// has met the result's schema (package completion).
//
//	var _ = Service("tasks", func() {
//		Completion("draft_from_transcript", "Produce a task draft directly", func() {
//			Return(Draft)
//		})
//	})
//
// Completion(name, description, func() { ... }) or Completion(name,
// func() { ... }). Names are 1 to 64 ASCII letters, digits, _ and -,
// starting with a letter or a digit; Return is required.
func Completion(name string, args ...any) *expr.CompletionExpr {
	svc, ok := eval.Current().(*goaexpr.ServiceExpr)
	if !ok {
		eval.ReportError("Completion: %q must be declared in a Service", name)
		return nil
	}
	c := &expr.CompletionExpr{Name: name, Service: svc, Location: expr.DesignLocation()}
	for _, arg := range args {
		switch v := arg.(type) {
		case string:
			c.Description = v
		case func():
			if c.DSLFunc != nil {
				eval.ReportError("Completion: %q takes one DSL function", name)
				return nil
			}
			c.DSLFunc = v
		default:
			eval.ReportError("Completion: %q: want a description and a DSL function, got %T", name, arg)
			return nil
		}
	}
	expr.Root.Completions = append(expr.Root.Completions, c)
	return c
}

// DisableAgentDocs turns off the generation of AGENTS_QUICKSTART.md at the
// root of the output directory. It is used in Goa's API:
//
//	var _ = API("orchestrator", func() { DisableAgentDocs() })
func DisableAgentDocs() {
	if _, ok := eval.Current().(*goaexpr.APIExpr); !ok {
		eval.ReportError("DisableAgentDocs: must be used in the API")
		return
	}
	expr.Root.DisableAgentDocs = true
}
