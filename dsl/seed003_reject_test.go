package dsl_test

// Seed 003: one subtest per form the seed rejects, asserting the error
// text and that it carries the design's [file:line].

import (
	"strings"
	"testing"

	. "goa.design/goa/v3/dsl"

	. "github.com/quiver-go/quiver/dsl"
)

func TestSeed003RejectedForms(t *testing.T) {
	t.Run("003/FromMCP/service without MCP", func(t *testing.T) {
		seedReject(t, func() {
			Service("assistant", func() { Method("search", func() {}) })
			suite := Toolset(FromMCP("assistant", "assistant-mcp"))
			Service("orchestrator", func() { Agent("chat", func() { Use(suite) }) })
		}, `FromMCP: service "assistant" does not declare MCP(name, version)`)
	})
	t.Run("003/FromMCP/no such service", func(t *testing.T) {
		seedReject(t, func() {
			suite := Toolset(FromMCP("assistant", "assistant-mcp"))
			Service("orchestrator", func() { Agent("chat", func() { Use(suite) }) })
		}, `FromMCP: the design has no service "assistant"`)
	})
	t.Run("003/FromMCP/other server name", func(t *testing.T) {
		seedReject(t, func() {
			seedAssistantMCP()
			Toolset(FromMCP("assistant", "other-mcp"))
		}, `FromMCP: service "assistant" declares MCP server "assistant-mcp", not "other-mcp"`)
	})
	t.Run("003/FromExternalMCP/without inline tools", func(t *testing.T) {
		seedReject(t, func() {
			Toolset("remote-search", FromExternalMCP("remote", "search"))
		}, `FromExternalMCP: toolset "remote-search" declares no tools`)
		seedReject(t, func() {
			Toolset("remote-search", FromExternalMCP("remote", "search"), func() { Description("no tools") })
		}, `FromExternalMCP: toolset "remote-search" declares no tools`)
	})
	t.Run("003/Tool (méthode)/service without MCP", func(t *testing.T) {
		seedReject(t, func() {
			Service("docs", func() {
				Method("search", func() { Tool("search", "Search documents by query") })
			})
		}, `Tool: "search": service "docs" does not declare MCP(name, version)`)
	})
	t.Run("003/History/two policies", func(t *testing.T) {
		seedReject(t, seedPolicy(func() {
			History(func() { KeepRecentTurns(20); CompressAtTurns(30); KeepMaxTurns(10) })
		}), "History: at most one history policy per agent")
	})
	t.Run("003/History/History twice", func(t *testing.T) {
		seedReject(t, seedPolicy(func() {
			History(func() { KeepRecentTurns(20) })
			History(func() { KeepRecentTurns(10) })
		}), "History: at most one History per RunPolicy")
	})
	t.Run("003/History/compression without trigger", func(t *testing.T) {
		seedReject(t, seedPolicy(func() { History(func() { KeepMaxTurns(12) }) }),
			"History: compression needs a trigger")
	})
	t.Run("003/History/compression without retention", func(t *testing.T) {
		seedReject(t, seedPolicy(func() { History(func() { CompressAtMaxInputTokens(120_000) }) }),
			"History: compression needs a retention")
	})
	t.Run("003/History/n > 0", func(t *testing.T) {
		for name, fn := range map[string]func(int){
			"KeepRecentTurns":          KeepRecentTurns,
			"CompressAtTurns":          CompressAtTurns,
			"CompressAtMaxInputTokens": CompressAtMaxInputTokens,
			"KeepMaxTurns":             KeepMaxTurns,
			"KeepMaxInputTokens":       KeepMaxInputTokens,
		} {
			for _, n := range []int{0, -1} {
				seedReject(t, seedPolicy(func() { History(func() { fn(n) }) }), name+": n must be > 0")
			}
		}
	})
	t.Run("003/History/empty", func(t *testing.T) {
		seedReject(t, seedPolicy(func() { History(func() {}) }), "History: declares no policy")
	})
	t.Run("003/TimeBudget with Timing", func(t *testing.T) {
		seedReject(t, seedPolicy(func() {
			TimeBudget("2m")
			Timing(func() { Budget("10m"); Plan("45s"); Tools("2m") })
		}), "TimeBudget: TimeBudget and Timing are both set")
	})
	t.Run("003/OnMissingFields/unknown value", func(t *testing.T) {
		for _, v := range []string{"ask", "Finalize", "await-clarification"} {
			seedReject(t, seedPolicy(func() { OnMissingFields(v) }),
				`OnMissingFields: "`+v+`" is not an action`)
		}
	})
	t.Run("003/OnMissingFields/await_clarification without interrupts", func(t *testing.T) {
		seedReject(t, seedPolicy(func() { OnMissingFields("await_clarification") }),
			`OnMissingFields("await_clarification") needs InterruptsAllowed(true)`)
		seedReject(t, seedPolicy(func() { InterruptsAllowed(false); OnMissingFields("await_clarification") }),
			`needs InterruptsAllowed(true)`)
	})
	t.Run("003/Inject/not a String", func(t *testing.T) {
		seedReject(t, seedTool(func() {
			Tool("lookup", "Lookup", func() {
				Args(func() { Attribute("household_id", Int); Required("household_id") })
				Inject("household_id")
			})
		}), `Inject: "household_id" must be a String field of Args, not`)
	})
	t.Run("003/Inject/not required", func(t *testing.T) {
		seedReject(t, seedTool(func() {
			Tool("lookup", "Lookup", func() {
				Args(func() { Attribute("household_id", String) })
				Inject("household_id")
			})
		}), `Inject: "household_id" must be required in Args`)
	})
	t.Run("003/Inject/not a field", func(t *testing.T) {
		seedReject(t, seedTool(func() {
			Tool("lookup", "Lookup", func() {
				Args(func() { Attribute("query", String); Required("query") })
				Inject("session_id")
			})
		}), `Inject: "session_id" is not a field of Args`)
	})
	t.Run("003/Inject/label-backed on BindTo", func(t *testing.T) {
		seedReject(t, func() {
			Service("data_service", func() {
				Method("get", func() {
					Payload(func() {
						Attribute("household_id", String)
						Attribute("query", String)
						Required("household_id", "query")
					})
				})
			})
			seedTool(func() {
				Tool("get_data", "Get data", func() {
					Args(func() {
						Attribute("household_id", String)
						Attribute("query", String)
						Required("household_id", "query")
					})
					BindTo("data_service", "get")
					Inject("household_id")
				})
			})()
		}, `Inject: "household_id" is label-backed (run label "household_id") and the tool is bound with BindTo`)
	})
	t.Run("003/Inject/metadata-backed on BindTo is accepted", func(t *testing.T) {
		// The counterpart of the rule above: every CallMeta field, in both
		// casings, may be injected into a bound tool.
		for _, f := range []string{"run_id", "sessionId", "turn_id", "toolCallId", "parent_tool_call_id"} {
			mustRun(t, func() {
				Service("data_service", func() {
					Method("get", func() {
						Payload(func() { Attribute(f, String); Required(f) })
					})
				})
				seedTool(func() {
					Tool("get_data", "Get data", func() {
						Args(func() { Attribute(f, String); Required(f) })
						BindTo("data_service", "get")
						Inject(f)
					})
				})()
			})
		}
	})
	t.Run("003/BoundedResult/Return declares a bounds field", func(t *testing.T) {
		for _, f := range []string{"returned", "truncated", "total", "refinement_hint", "next_cursor"} {
			seedReject(t, seedTool(func() {
				Tool("list_devices", "List devices", func() {
					Args(func() { Attribute("cursor", String) })
					Return(func() {
						Attribute("devices", ArrayOf(String))
						Attribute(f, String)
					})
					BoundedResult(func() { Cursor("cursor"); NextCursor("next_cursor") })
				})
			}), `BoundedResult: Return declares "`+f+`", a bounds field`)
		}
	})
	t.Run("003/BoundedResult/bound method requires an optional bounds field", func(t *testing.T) {
		seedReject(t, func() {
			Service("devices", func() {
				Method("list", func() {
					Result(func() {
						Attribute("devices", ArrayOf(String))
						Attribute("returned", Int)
						Attribute("truncated", Boolean)
						Attribute("total", Int)
						Required("devices", "returned", "truncated", "total")
					})
				})
			})
			seedTool(func() {
				Tool("list_devices", "List devices", func() {
					Return(func() { Attribute("devices", ArrayOf(String)) })
					BindTo("devices", "list")
					BoundedResult()
				})
			})()
		}, `BoundedResult: the result of method "list" requires "total": only returned and truncated may be required`)
	})
	t.Run("003/Completion/names", func(t *testing.T) {
		for _, name := range []string{"", "_draft", "-draft", "draft.v1", "brouillon_é", "draft from", strings.Repeat("a", 65)} {
			seedReject(t, func() {
				Service("tasks", func() {
					Completion(name, "Produce a task draft directly", func() { Return(String) })
				})
			}, "Completion: invalid name", "1 to 64 ASCII letters, digits, _ and -, starting with a letter or a digit")
		}
		for _, name := range []string{"draft_from_transcript", "9lives", "a", "D-1_x", strings.Repeat("a", 64)} {
			mustRun(t, func() {
				Service("tasks", func() {
					Completion(name, "Produce a task draft directly", func() { Return(String) })
				})
			})
		}
	})
}
