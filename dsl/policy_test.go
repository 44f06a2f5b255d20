package dsl_test

import (
	"testing"
	"time"

	. "goa.design/goa/v3/dsl"

	. "github.com/quiver-go/quiver/dsl"
	"github.com/quiver-go/quiver/expr"
)

// withPolicy declares an agent "chat" whose RunPolicy runs policy.
func withPolicy(policy func()) func() {
	return func() {
		Service("orchestrator", func() {
			Agent("chat", "Conversational runner", func() { RunPolicy(policy) })
		})
	}
}

func TestRunPolicyEvaluates(t *testing.T) {
	root := mustRun(t, func() {
		Service("orchestrator", func() {
			Agent("chat", "Conversational runner", func() {
				RunPolicy(func() {
					DefaultCaps(MaxToolCalls(8), MaxRecoveryTurns(3))
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
					Cache(func() {
						AfterSystem()
						AfterTools()
					})
				})
			})
			Agent("quick", "Simple policy", func() {
				RunPolicy(func() {
					DefaultCaps(MaxRecoveryTurns(0))
					TimeBudget("2m")
					History(func() { KeepRecentTurns(20) })
				})
			})
			Agent("free", "No policy")
		})
	})
	p := root.Agents[0].RunPolicy
	if p == nil || p.Agent != root.Agents[0] {
		t.Fatalf("run policy = %+v", p)
	}
	if *p.MaxToolCalls != 8 || *p.MaxRecoveryTurns != 3 || p.RuntimeMaxRecoveryTurns() != 3 {
		t.Errorf("caps %d %d", *p.MaxToolCalls, *p.MaxRecoveryTurns)
	}
	if p.TimeBudget != 0 || p.Timing == nil || p.Timing.Budget != 5*time.Minute || p.Timing.Plan != 30*time.Second || p.Timing.Tools != time.Minute {
		t.Errorf("time budget %v, timing %+v", p.TimeBudget, p.Timing)
	}
	if !p.InterruptsAllowed || p.OnMissingFields != expr.MissingFieldsAwaitClarification {
		t.Errorf("interrupts %v, on missing fields %q", p.InterruptsAllowed, p.OnMissingFields)
	}
	h := p.History
	if !h.Compresses() || h.KeepRecentTurns != 0 || h.CompressAtTurns != 0 || h.CompressAtMaxInputTokens != 120_000 || h.KeepMaxInputTokens != 40_000 || h.KeepMaxTurns != 12 {
		t.Errorf("history %+v", h)
	}
	if !p.Cache.AfterSystem || !p.Cache.AfterTools {
		t.Errorf("cache %+v", p.Cache)
	}

	q := root.Agents[1].RunPolicy
	if q.MaxToolCalls != nil || *q.MaxRecoveryTurns != 0 || q.RuntimeMaxRecoveryTurns() != -1 {
		t.Errorf("MaxRecoveryTurns(0) allows no recovery turn: %v, runtime %d", q.MaxRecoveryTurns, q.RuntimeMaxRecoveryTurns())
	}
	if q.TimeBudget != 2*time.Minute || q.Timing != nil || q.Cache != nil || q.OnMissingFields != expr.MissingFieldsPlanner {
		t.Errorf("policy %+v", q)
	}
	if q.History.Compresses() || q.History.KeepRecentTurns != 20 {
		t.Errorf("history %+v", q.History)
	}
	if root.Agents[2].RunPolicy != nil {
		t.Errorf("an agent without RunPolicy has one")
	}
}

func TestRunPolicyRules(t *testing.T) {
	t.Run("at most one RunPolicy per agent", func(t *testing.T) {
		wantError(t, func() {
			Service("orchestrator", func() {
				Agent("chat", "x", func() {
					RunPolicy(func() { TimeBudget("1m") })
					RunPolicy(func() { TimeBudget("2m") })
				})
			})
		}, `RunPolicy: agent "chat" declares RunPolicy twice`)
	})
	t.Run("RunPolicy only in an Agent", func(t *testing.T) {
		wantError(t, func() {
			Service("orchestrator", func() { RunPolicy(func() {}) })
		}, "RunPolicy: must be used in an Agent")
	})
	t.Run("policy functions only in a RunPolicy", func(t *testing.T) {
		wantError(t, func() {
			Service("orchestrator", func() {
				Agent("chat", "x", func() { TimeBudget("2m") })
			})
		}, "TimeBudget: must be used in a RunPolicy")
		wantError(t, withPolicy(func() { Budget("2m") }), "Budget: must be used in Timing")
		wantError(t, withPolicy(func() { AfterTools() }), "AfterTools: must be used in Cache")
		wantError(t, withPolicy(func() { KeepMaxTurns(3) }), "KeepMaxTurns: must be used in History")
	})
	t.Run("durations parse", func(t *testing.T) {
		wantError(t, withPolicy(func() { TimeBudget("2 minutes") }), `TimeBudget: "2 minutes" is not a duration`, `"45s"`)
		wantError(t, withPolicy(func() { Timing(func() { Plan("soon") }) }), `Plan: "soon" is not a duration`)
		wantError(t, withPolicy(func() { Timing(func() { Tools("90") }) }), `Tools: "90" is not a duration`)
		wantError(t, withPolicy(func() { Timing(func() { Budget("-1m") }) }), `Budget: "-1m" must be positive`)
		wantError(t, withPolicy(func() { TimeBudget("0s") }), `TimeBudget: "0s" must be positive`)
	})
	t.Run("TimeBudget with Timing is rejected", func(t *testing.T) {
		wantError(t, withPolicy(func() {
			TimeBudget("2m")
			Timing(func() { Plan("45s") })
		}), "TimeBudget and Timing are both set")
	})
	t.Run("settings are given once", func(t *testing.T) {
		wantError(t, withPolicy(func() { TimeBudget("1m"); TimeBudget("2m") }), "TimeBudget: given twice")
		wantError(t, withPolicy(func() { Timing(func() { Plan("1s"); Plan("2s") }) }), "Plan: given twice")
		wantError(t, withPolicy(func() { Timing(func() { Plan("1s") }); Timing(func() { Tools("1s") }) }), "Timing: given twice")
		wantError(t, withPolicy(func() { Cache(func() { AfterSystem() }); Cache(func() { AfterTools() }) }), "Cache: given twice")
	})
	t.Run("empty Timing and Cache are rejected", func(t *testing.T) {
		wantError(t, withPolicy(func() { Timing(func() {}) }), "Timing: sets nothing")
		wantError(t, withPolicy(func() { Cache(func() {}) }), "Cache: places no checkpoint")
	})
	t.Run("caps are n ≥ 0 and given once", func(t *testing.T) {
		wantError(t, withPolicy(func() { DefaultCaps(MaxToolCalls(-1)) }), "MaxToolCalls: n must be ≥ 0 (0: no cap), got -1")
		wantError(t, withPolicy(func() { DefaultCaps(MaxRecoveryTurns(-2)) }), "MaxRecoveryTurns: n must be ≥ 0 (0: no recovery turn), got -2")
		wantError(t, withPolicy(func() {
			DefaultCaps(MaxToolCalls(3))
			DefaultCaps(MaxToolCalls(4))
		}), "DefaultCaps: MaxToolCalls is given twice")
		wantError(t, withPolicy(func() { DefaultCaps(CapsOption{}) }), "DefaultCaps: want MaxToolCalls(n) or MaxRecoveryTurns(n)")
	})
	t.Run("OnMissingFields values", func(t *testing.T) {
		for _, v := range []string{"", "finalize", "resume"} {
			root := mustRun(t, withPolicy(func() { OnMissingFields(v) }))
			if got := root.Agents[0].RunPolicy.OnMissingFields; string(got) != v {
				t.Errorf("OnMissingFields(%q) = %q", v, got)
			}
		}
		mustRun(t, withPolicy(func() { InterruptsAllowed(true); OnMissingFields("await_clarification") }))
		wantError(t, withPolicy(func() { OnMissingFields("pause") }), `OnMissingFields: "pause" is not an action`, `"await_clarification"`)
	})
	t.Run("await_clarification needs InterruptsAllowed(true)", func(t *testing.T) {
		wantError(t, withPolicy(func() { OnMissingFields("await_clarification") }), `needs InterruptsAllowed(true)`)
		wantError(t, withPolicy(func() {
			InterruptsAllowed(false)
			OnMissingFields("await_clarification")
		}), `needs InterruptsAllowed(true)`)
	})
}

func TestHistoryRules(t *testing.T) {
	history := func(fn func()) func() { return withPolicy(func() { History(fn) }) }
	t.Run("compression with turn-based trigger and retention", func(t *testing.T) {
		root := mustRun(t, history(func() { CompressAtTurns(30); KeepMaxTurns(10) }))
		if h := root.Agents[0].RunPolicy.History; h.CompressAtTurns != 30 || h.KeepMaxTurns != 10 {
			t.Fatalf("history %+v", h)
		}
	})
	t.Run("at most one History", func(t *testing.T) {
		wantError(t, withPolicy(func() {
			History(func() { KeepRecentTurns(5) })
			History(func() { KeepRecentTurns(6) })
		}), "History: at most one History per RunPolicy")
	})
	t.Run("a sliding window or compression, not both", func(t *testing.T) {
		wantError(t, history(func() { KeepRecentTurns(20); CompressAtTurns(30); KeepMaxTurns(10) }), "at most one history policy per agent")
	})
	t.Run("compression needs a trigger", func(t *testing.T) {
		wantError(t, history(func() { KeepMaxInputTokens(40_000) }), "compression needs a trigger: set CompressAtTurns or CompressAtMaxInputTokens")
	})
	t.Run("compression needs a retention", func(t *testing.T) {
		wantError(t, history(func() { CompressAtMaxInputTokens(120_000) }), "compression needs a retention: set KeepMaxTurns or KeepMaxInputTokens")
	})
	t.Run("an empty History is rejected", func(t *testing.T) {
		wantError(t, history(func() {}), "History: declares no policy")
	})
	t.Run("every n > 0", func(t *testing.T) {
		for name, fn := range map[string]func(int){
			"KeepRecentTurns":          KeepRecentTurns,
			"CompressAtTurns":          CompressAtTurns,
			"CompressAtMaxInputTokens": CompressAtMaxInputTokens,
			"KeepMaxTurns":             KeepMaxTurns,
			"KeepMaxInputTokens":       KeepMaxInputTokens,
		} {
			wantError(t, history(func() { fn(0) }), name+": n must be > 0, got 0")
			wantError(t, history(func() { fn(-3) }), name+": n must be > 0, got -3")
		}
	})
	t.Run("each setting once", func(t *testing.T) {
		wantError(t, history(func() { KeepRecentTurns(5); KeepRecentTurns(6) }), "KeepRecentTurns: given twice")
	})
}

func TestPolicyErrorsPointAtTheDesign(t *testing.T) {
	// An error found while the DSL runs points at the call.
	wantError(t, withPolicy(func() { TimeBudget("soon") }), "policy_test.go:", "TimeBudget:", `agent "chat"`)
	// An error found by validation points at the policy's DSL function.
	wantError(t, withPolicy(func() {
		TimeBudget("1m")
		Timing(func() { Plan("1s") })
	}), "policy_test.go:", "TimeBudget:")
	wantError(t, withPolicy(func() { History(func() { KeepMaxTurns(3) }) }), "policy_test.go:", "History:")
}
