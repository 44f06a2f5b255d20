package dsl_test

// Seed 003, "Fonctions de politique": one subtest per snippet.

import (
	"testing"
	"time"

	. "goa.design/goa/v3/dsl"

	. "github.com/quiver-go/quiver/dsl"
	"github.com/quiver-go/quiver/expr"
)

// seedPolicy declares agent "chat" of service "orchestrator" whose
// RunPolicy's DSL is the snippet.
func seedPolicy(policy func()) func() {
	return seedAgent(func() {
		Agent("chat", "Conversational runner", func() { RunPolicy(policy) })
	})
}

// seedPolicyOf returns the run policy of the first agent.
func seedPolicyOf(root *expr.RootExpr) *expr.RunPolicyExpr { return root.Agents[0].RunPolicy }

func TestSeed003PolicySnippets(t *testing.T) {
	t.Run("003/RunPolicy", func(t *testing.T) {
		root := mustRun(t, seedAgent(func() {
			Agent("chat", "Conversational runner", func() {
				RunPolicy(func() {
					DefaultCaps(
						MaxToolCalls(8),
						MaxRecoveryTurns(3),
					)
					TimeBudget("2m")
					InterruptsAllowed(true)
					OnMissingFields("await_clarification")
					History(func() {
						KeepRecentTurns(20)
					})
				})
			})
		}))
		p := seedPolicyOf(root)
		if *p.MaxToolCalls != 8 || *p.MaxRecoveryTurns != 3 || p.TimeBudget != 2*time.Minute || !p.InterruptsAllowed || p.History.KeepRecentTurns != 20 {
			t.Fatalf("policy = %+v", p)
		}
	})
	t.Run("003/DefaultCaps", func(t *testing.T) {
		mustRun(t, seedPolicy(func() {
			DefaultCaps(
				MaxToolCalls(8),
				MaxRecoveryTurns(3),
			)
		}))
	})
	t.Run("003/TimeBudget", func(t *testing.T) {
		mustRun(t, seedPolicy(func() {
			TimeBudget("2m") // 2 minutes
		}))
	})
	t.Run("003/Timing", func(t *testing.T) {
		root := mustRun(t, seedPolicy(func() {
			Timing(func() {
				Budget("10m") // overall wall-clock budget for the entire run
				Plan("45s")   // timeout for Plan/Resume activities (LLM inference)
				Tools("2m")   // default timeout for ExecuteTool activities
			})
		}))
		if tm := seedPolicyOf(root).Timing; tm.Budget != 10*time.Minute || tm.Plan != 45*time.Second || tm.Tools != 2*time.Minute {
			t.Fatalf("timing = %+v", tm)
		}
	})
	t.Run("003/Timing/Exemple complet", func(t *testing.T) {
		mustRun(t, func() {
			DataToolset := seedDataToolset()
			Service("orchestrator", func() {
				Agent("data-processor", "Processes large datasets", func() {
					Use(DataToolset)
					RunPolicy(func() {
						DefaultCaps(MaxToolCalls(20))
						Timing(func() {
							Budget("30m") // long-running data jobs
							Plan("1m")    // LLM decisions should be quick
							Tools("5m")   // data operations may take time
						})
					})
				})
			})
		})
	})
	t.Run("003/Cache", func(t *testing.T) {
		root := mustRun(t, seedPolicy(func() {
			Cache(func() {
				AfterSystem() // checkpoint after system messages
				AfterTools()  // checkpoint after tool definitions
			})
		}))
		if c := seedPolicyOf(root).Cache; !c.AfterSystem || !c.AfterTools {
			t.Fatalf("cache = %+v", c)
		}
	})
	t.Run("003/Cache/Exemple complet", func(t *testing.T) {
		mustRun(t, func() {
			DocsToolset := seedDocsToolset()
			SearchToolset := Toolset("web", func() { Tool("web_search", "Search the web") })
			Service("orchestrator", func() {
				Agent("assistant", "Conversational assistant", func() {
					Use(DocsToolset)
					Use(SearchToolset)
					RunPolicy(func() {
						DefaultCaps(MaxToolCalls(10))
						TimeBudget("5m")
						Cache(func() {
							AfterSystem() // cache the system prompt
							AfterTools()  // cache tool definitions (Claude only)
						})
					})
				})
			})
		})
	})
	t.Run("003/History/KeepRecentTurns", func(t *testing.T) {
		mustRun(t, seedPolicy(func() {
			History(func() {
				KeepRecentTurns(20) // Keep the last 20 user/assistant turns
			})
		}))
	})
	t.Run("003/History/Compression", func(t *testing.T) {
		root := mustRun(t, seedPolicy(func() {
			History(func() {
				CompressAtMaxInputTokens(120_000)
				KeepMaxInputTokens(40_000)
				KeepMaxTurns(12)
			})
		}))
		if h := seedPolicyOf(root).History; h.CompressAtMaxInputTokens != 120_000 || h.KeepMaxInputTokens != 40_000 || h.KeepMaxTurns != 12 {
			t.Fatalf("history = %+v", h)
		}
	})
	t.Run("003/History/CompressAtTurns", func(t *testing.T) {
		// Listed in the function table and the prose, without a snippet.
		mustRun(t, seedPolicy(func() { History(func() { CompressAtTurns(30); KeepMaxTurns(10) }) }))
	})
	t.Run("003/InterruptsAllowed", func(t *testing.T) {
		mustRun(t, seedPolicy(func() {
			// Enable pause/resume capability
			InterruptsAllowed(true)
			// Automatically pause when required tool arguments are missing
			OnMissingFields("await_clarification")
		}))
	})
	t.Run("003/OnMissingFields", func(t *testing.T) {
		// The snippet is OnMissingFields("await_clarification") alone. The
		// DSL requires InterruptsAllowed(true) with it (rejected below, as
		// the InterruptsAllowed section ties pausing to interrupts), so the
		// snippet is completed with it; the other values need nothing.
		mustRun(t, seedPolicy(func() {
			InterruptsAllowed(true)
			OnMissingFields("await_clarification")
		}))
		for _, v := range []string{"finalize", "resume", ""} {
			mustRun(t, seedPolicy(func() { OnMissingFields(v) }))
		}
	})
	t.Run("003/Exemple de politique complet", func(t *testing.T) {
		mustRun(t, seedAgent(func() {
			Agent("chat", "Conversational runner", func() {
				RunPolicy(func() {
					DefaultCaps(
						MaxToolCalls(8),
						MaxRecoveryTurns(3),
					)
					Timing(func() {
						Budget("5m")
						Plan("30s")
						Tools("1m")
					})
					InterruptsAllowed(true)
					OnMissingFields("await_clarification")
					History(func() {
						CompressAtMaxInputTokens(120_000)
						KeepMaxInputTokens(40_000)
						KeepMaxTurns(12)
					})
				})
			})
		}))
	})
}
