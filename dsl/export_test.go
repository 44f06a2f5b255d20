package dsl_test

import (
	"slices"
	"strings"
	"testing"

	. "goa.design/goa/v3/dsl"

	. "github.com/quiver-go/quiver/dsl"
)

// planner declares the seed's planning service: agent "planner" (no
// description) exports "planning.tools".
func planner() {
	Service("planning", func() {
		Agent("planner", func() {
			Export("planning.tools", func() {
				Tool("create_plan", "Create a plan", func() {
					Args(func() {
						Attribute("goal", String, "Goal to plan for")
						Required("goal")
					})
					Return(func() {
						Attribute("plan", String, "Generated plan")
						Required("plan")
					})
				})
				Tool("revise_plan", "Revise a plan")
			})
		})
	})
}

// consumer declares service "orchestrator" whose agent uses ref.
func consumer(use func()) {
	Service("orchestrator", func() {
		Agent("orchestrator", "Delegates planning", func() { use() })
	})
}

func TestExportEvaluates(t *testing.T) {
	root := mustRun(t, func() {
		local := Toolset("utils", func() { Tool("summarize", "Summarize text") })
		Service("orchestrator", func() {
			Agent("chat", "Conversational runner", func() {
				Use(local)
				Export("chat.tools", func() {
					Description("Chat tools for other agents.")
					Tags("chat")
					Tool("summarize_status", "Produce operator-ready summaries", func() {
						Args(func() { Attribute("prompt", String, "User instructions"); Required("prompt") })
						Return(func() { Attribute("summary", String, "Assistant response"); Required("summary") })
					})
				})
				Export(local, func() {
					Description("Utilities, as published.")
					Tags("data", "etl")
				})
			})
			Export(local)
		})
	})
	chat := root.Agents[0]
	if got := chat.Exports(); len(got) != 2 || len(root.Exports) != 3 {
		t.Fatalf("agent exports %d, design exports %d", len(got), len(root.Exports))
	}
	inline := chat.Export("chat.tools")
	if inline == nil || inline.Inline == nil || inline.Toolset != nil || inline.Agent != chat || inline.Service.Name != "orchestrator" {
		t.Fatalf("inline export = %+v", inline)
	}
	ts := inline.Exported()
	if ts.Description != "Chat tools for other agents." || !slices.Equal(ts.Tags, []string{"chat"}) || ts.Tool("summarize_status") == nil {
		t.Fatalf("exported toolset = %+v", ts)
	}
	if tool := ts.Tool("summarize_status"); tool.Args == nil || tool.Return == nil || tool.Title != "Summarize status" {
		t.Fatalf("exported tools are evaluated and finalized: %+v", tool)
	}
	byRef := chat.Export("utils")
	if byRef.Toolset != root.Toolset("utils") || byRef.Description != "Utilities, as published." || !slices.Equal(byRef.Tags, []string{"data", "etl"}) {
		t.Fatalf("export of a toolset = %+v", byRef)
	}
	// The service's DSL runs before its agents': its export comes first.
	if svc := root.Exports[0]; svc.Agent != nil || svc.Service.Name != "orchestrator" || svc.Name() != "utils" {
		t.Fatalf("service export = %+v", svc)
	}
}

func TestAgentToolsetResolves(t *testing.T) {
	// The consumer comes first: references resolve after evaluation.
	root := mustRun(t, func() {
		consumer(func() {
			Use(AgentToolset("planning", "planner", "planning.tools"), func() { Deferred("revise_plan") })
		})
		planner()
	})
	orch, plan := root.Agents[0], root.Agents[1]
	if plan.Description != "" || plan.Name != "planner" {
		t.Fatalf("an agent without a description: %+v", plan)
	}
	u := orch.Uses[0]
	if u.AgentToolset == nil || u.AgentToolset.Export != plan.Export("planning.tools") {
		t.Fatalf("reference not resolved: %+v", u.AgentToolset)
	}
	if u.Consumed() != plan.Export("planning.tools").Inline || u.ToolsetName() != "planning.tools" {
		t.Fatalf("the use consumes %+v", u.Consumed())
	}
	if got := u.DeferredTools(); !slices.Equal(got, []string{"revise_plan"}) {
		t.Fatalf("deferred %v", got)
	}
}

func TestAgentToolsetRules(t *testing.T) {
	ref := func(service, agent, toolset string) func() {
		return func() {
			planner()
			consumer(func() { Use(AgentToolset(service, agent, toolset)) })
		}
	}
	t.Run("the service exists", func(t *testing.T) {
		wantError(t, ref("plans", "planner", "planning.tools"), `AgentToolset: no service "plans" in the design`, "export_test.go:")
	})
	t.Run("the agent exists", func(t *testing.T) {
		wantError(t, ref("planning", "plan", "planning.tools"), `AgentToolset: service "planning" declares no agent "plan" (its agents: planner)`)
	})
	t.Run("the export exists", func(t *testing.T) {
		wantError(t, ref("planning", "planner", "tools"), `AgentToolset: agent "planner" of service "planning" exports no toolset "tools" (its exports: planning.tools)`)
	})
	t.Run("an agent does not use its own export", func(t *testing.T) {
		wantError(t, func() {
			Service("planning", func() {
				Agent("planner", func() {
					Export("planning.tools", func() { Tool("create_plan", "Create a plan") })
					Use(AgentToolset("planning", "planner", "planning.tools"))
				})
			})
		}, `AgentToolset: agent "planner" uses a toolset it exports itself`)
	})
	t.Run("subsetting checks the exported tools", func(t *testing.T) {
		wantError(t, func() {
			planner()
			consumer(func() { Use(AgentToolset("planning", "planner", "planning.tools"), func() { Tool("delete_plan") }) })
		}, `toolset "planning.tools" has no tool "delete_plan" to select`)
	})
	t.Run("names are given", func(t *testing.T) {
		wantError(t, ref("planning", "", "planning.tools"), `AgentToolset: want a service, an agent and a toolset name, got ("planning", "", "planning.tools")`)
	})
	t.Run("only as an argument of Use", func(t *testing.T) {
		wantError(t, func() { AgentToolset("planning", "planner", "planning.tools") }, "AgentToolset: must be given to Use in an Agent")
	})
	t.Run("an exported toolset is not also used directly", func(t *testing.T) {
		wantError(t, func() {
			local := Toolset("utils", func() { Tool("summarize", "Summarize text") })
			Service("data", func() {
				Agent("worker", func() {
					Use(local)
					Export(local)
				})
				Agent("front", func() { Use(AgentToolset("data", "worker", "utils")) })
			})
		}, `AgentToolset: toolset "utils", which this use runs as agent "worker"'s tool, is also used directly by agent "worker"`)
	})
}

func TestExportRules(t *testing.T) {
	t.Run("in an Agent or a Service", func(t *testing.T) {
		wantError(t, func() { Export("x", func() { Tool("a", "A") }) }, "Export: must be used in an Agent or a Service")
	})
	t.Run("an inline export declares tools", func(t *testing.T) {
		wantError(t, func() {
			Service("s", func() { Export("empty.tools", func() { Description("Nothing") }) })
		}, `Export: "empty.tools" declares no tool`)
		wantError(t, func() { Service("s", func() { Export("x") }) }, `Export: "x": an inline toolset needs a DSL function`)
	})
	t.Run("export names are toolset names", func(t *testing.T) {
		wantError(t, func() {
			Service("s", func() { Export("bad name", func() { Tool("a", "A") }) })
		}, `Export: invalid name "bad name"`)
	})
	t.Run("a toolset is exported once per agent", func(t *testing.T) {
		wantError(t, func() {
			r := records()
			Service("s", func() {
				Agent("a", func() { Export(r); Export(r) })
			})
		}, `Export: toolset "records" is exported twice by agent "a" of service "s"`)
	})
	t.Run("tools are unique in an export", func(t *testing.T) {
		wantError(t, func() {
			Service("s", func() { Export("t", func() { Tool("a", "A"); Tool("a", "B") }) })
		}, `Tool: "a" is declared twice in export "t"`)
	})
	t.Run("an exported toolset keeps its tools", func(t *testing.T) {
		wantError(t, func() {
			r := records()
			Service("s", func() { Export(r, func() { Tool("search", "Search") }) })
		}, `Tool: "search": an Export of toolset "records" exports its tools as declared`)
	})
	t.Run("no Deferred in an Export", func(t *testing.T) {
		wantError(t, func() {
			Service("s", func() { Export("t", func() { Tool("a", "A"); Deferred() }) })
		}, "Deferred: must be used in a consumer's Use, never in a shared Toolset or an Export")
	})
}

// logging declares the seed's LoggingService with its LogMessage method.
func logging() {
	Service("LoggingService", func() {
		Method("LogMessage", func() {
			Payload(func() { Attribute("message", String); Required("message") })
			Result(Boolean)
		})
	})
}

func TestPassthrough(t *testing.T) {
	exportWith := func(pass func()) func() {
		return func() {
			logging()
			Service("ops", func() {
				Export("logging-tools", func() {
					Tool("log_message", "Log a message", func() {
						Args(func() { Attribute("message", String, "Message to log"); Required("message") })
						Return(func() { Attribute("logged", Boolean, "Whether the message was logged") })
						pass()
					})
				})
			})
		}
	}
	root := mustRun(t, exportWith(func() { Passthrough("log_message", "LoggingService", "LogMessage") }))
	p := root.Exports[0].Passthrough("log_message")
	if p == nil || p.Method == nil || p.Method.Name != "LogMessage" || p.Method.Service.Name != "LoggingService" || p.Tool.Name != "log_message" {
		t.Fatalf("passthrough = %+v", p)
	}
	// Forwarding is generated (package codegen): goa gen warns of nothing.
	if len(root.Warnings) != 0 {
		t.Errorf("want no warning:\n%s", strings.Join(root.Warnings, "\n"))
	}
	if p.Location.File == "" {
		t.Error("the passthrough has no design location")
	}

	t.Run("the service exists", func(t *testing.T) {
		wantError(t, exportWith(func() { Passthrough("log_message", "Logging", "LogMessage") }), `Passthrough: no service "Logging" in the design`, "export_test.go:")
	})
	t.Run("the method exists", func(t *testing.T) {
		wantError(t, exportWith(func() { Passthrough("log_message", "LoggingService", "Log") }), `Passthrough: service "LoggingService" has no method "Log" (its methods: LogMessage)`)
	})
	t.Run("it names the enclosing tool", func(t *testing.T) {
		wantError(t, exportWith(func() { Passthrough("log", "LoggingService", "LogMessage") }), `Passthrough: names tool "log" inside tool "log_message"`)
	})
	t.Run("once per tool", func(t *testing.T) {
		wantError(t, exportWith(func() {
			Passthrough("log_message", "LoggingService", "LogMessage")
			Passthrough("log_message", "LoggingService", "LogMessage")
		}), `Passthrough: tool "log_message" already forwards to LoggingService.LogMessage`)
	})
	t.Run("only in an exported tool", func(t *testing.T) {
		wantError(t, func() {
			logging()
			Toolset("ops", func() {
				Tool("log_message", "Log", func() { Passthrough("log_message", "LoggingService", "LogMessage") })
			})
		}, `Passthrough: tool "log_message" is not declared in an Export`)
		wantError(t, func() {
			logging()
			Service("ops", func() { Export("t", func() { Passthrough("x", "LoggingService", "LogMessage") }) })
		}, "Passthrough: must be used in a Tool declared in an Export")
	})
}
