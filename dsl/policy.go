package dsl

import (
	"time"

	"goa.design/goa/v3/eval"

	"github.com/quiver-go/quiver/expr"
)

// RunPolicy sets the current agent's run-time constraints, the defaults of
// its generated runtime.RunPolicy. An agent has at most one RunPolicy.
//
//	Agent("chat", "Conversational runner", func() {
//		RunPolicy(func() {
//			DefaultCaps(MaxToolCalls(8), MaxRecoveryTurns(3))
//			TimeBudget("2m")
//			InterruptsAllowed(true)
//			OnMissingFields("await_clarification")
//			History(func() { KeepRecentTurns(20) })
//		})
//	})
func RunPolicy(fn func()) {
	a, ok := eval.Current().(*expr.AgentExpr)
	if !ok {
		eval.ReportError("RunPolicy: must be used in an Agent")
		return
	}
	if a.RunPolicy != nil {
		eval.ReportError("RunPolicy: agent %q declares RunPolicy twice: merge them into one", a.Name)
		return
	}
	a.RunPolicy = &expr.RunPolicyExpr{DSLFunc: fn, Agent: a}
}

// CapsOption is a cap given to DefaultCaps: MaxToolCalls or
// MaxRecoveryTurns.
type CapsOption struct {
	name string
	n    int
}

// DefaultCaps caps the resources of a run: DefaultCaps(MaxToolCalls(8),
// MaxRecoveryTurns(3)). Each cap is given at most once.
func DefaultCaps(caps ...CapsOption) {
	p, ok := policy("DefaultCaps")
	if !ok {
		return
	}
	for _, c := range caps {
		var field **int
		switch c.name {
		case "MaxToolCalls":
			field = &p.MaxToolCalls
		case "MaxRecoveryTurns":
			field = &p.MaxRecoveryTurns
		default:
			eval.ReportError("DefaultCaps: want MaxToolCalls(n) or MaxRecoveryTurns(n)")
			continue
		}
		if c.n < 0 {
			continue // reported by the cap's function
		}
		if *field != nil {
			eval.ReportError("DefaultCaps: %s is given twice", c.name)
			continue
		}
		n := c.n
		*field = &n
	}
}

// MaxToolCalls caps the budgeted tool calls of a run (bookkeeping tools
// are free); n ≥ 0, and 0 means no cap, as in runtime.RunPolicy. Give it
// to DefaultCaps.
func MaxToolCalls(n int) CapsOption {
	if n < 0 {
		eval.ReportError("MaxToolCalls: n must be ≥ 0 (0: no cap), got %d", n)
	}
	return CapsOption{name: "MaxToolCalls", n: n}
}

// MaxRecoveryTurns caps the extra planner turns after a rejected tool
// result or model output; n ≥ 0, and 0 allows none. Without it the runtime
// default applies. Give it to DefaultCaps.
func MaxRecoveryTurns(n int) CapsOption {
	if n < 0 {
		eval.ReportError("MaxRecoveryTurns: n must be ≥ 0 (0: no recovery turn), got %d", n)
	}
	return CapsOption{name: "MaxRecoveryTurns", n: n}
}

// TimeBudget sets the run's wall-clock budget, a Go duration such as "2m".
// Use it or Timing, not both.
func TimeBudget(duration string) {
	p, ok := policy("TimeBudget")
	if !ok {
		return
	}
	if p.TimeBudget != 0 {
		eval.ReportError("TimeBudget: given twice")
		return
	}
	if d, ok := parseDuration("TimeBudget", duration); ok {
		p.TimeBudget = d
	}
}

// Timing sets the run's budget and per-attempt timeouts, instead of
// TimeBudget:
//
//	Timing(func() {
//		Budget("10m") // the run's wall-clock budget
//		Plan("45s")   // one planning attempt
//		Tools("2m")   // one tool attempt
//	})
func Timing(fn func()) {
	p, ok := policy("Timing")
	if !ok {
		return
	}
	if p.Timing != nil {
		eval.ReportError("Timing: given twice: merge them into one")
		return
	}
	p.Timing = &expr.TimingExpr{DSLFunc: fn, Policy: p}
	eval.Execute(fn, p.Timing)
}

// Budget sets the run's wall-clock budget in Timing.
func Budget(duration string) { timing("Budget", duration) }

// Plan bounds one planning attempt (PlanStart, PlanResume) in Timing.
func Plan(duration string) { timing("Plan", duration) }

// Tools bounds one tool attempt in Timing.
func Tools(duration string) { timing("Tools", duration) }

// timing sets a Timing duration for the function fname.
func timing(fname, duration string) {
	t, ok := eval.Current().(*expr.TimingExpr)
	if !ok {
		eval.ReportError("%s: must be used in Timing", fname)
		return
	}
	field := map[string]*time.Duration{"Budget": &t.Budget, "Plan": &t.Plan, "Tools": &t.Tools}[fname]
	if *field != 0 {
		eval.ReportError("%s: given twice", fname)
		return
	}
	if d, ok := parseDuration(fname, duration); ok {
		*field = d
	}
}

// History sets how the conversation is prepared for the planner: a sliding
// window,
//
//	History(func() { KeepRecentTurns(20) })
//
// or model-assisted compression, with at least one trigger and at least
// one retention:
//
//	History(func() {
//		CompressAtMaxInputTokens(120_000) // or CompressAtTurns(n)
//		KeepMaxInputTokens(40_000)        // and/or KeepMaxTurns(n)
//	})
func History(fn func()) {
	p, ok := policy("History")
	if !ok {
		return
	}
	if p.History != nil {
		eval.ReportError("History: at most one History per RunPolicy: merge them into one")
		return
	}
	p.History = &expr.HistoryExpr{DSLFunc: fn, Policy: p}
	eval.Execute(fn, p.History)
}

// KeepRecentTurns keeps the n most recent turns (n > 0) in requests, with
// the leading system messages: a sliding window.
func KeepRecentTurns(n int) { historyCount("KeepRecentTurns", n) }

// CompressAtTurns triggers compression when at least n logical turns
// (n > 0) are present.
func CompressAtTurns(n int) { historyCount("CompressAtTurns", n) }

// CompressAtMaxInputTokens triggers compression when the provider-visible
// input exceeds n tokens (n > 0), counted by the history model.
func CompressAtMaxInputTokens(n int) { historyCount("CompressAtMaxInputTokens", n) }

// KeepMaxTurns keeps at most the n most recent whole turns (n > 0)
// verbatim after compression.
func KeepMaxTurns(n int) { historyCount("KeepMaxTurns", n) }

// KeepMaxInputTokens keeps the most recent whole turns fitting n input
// tokens (n > 0) verbatim after compression.
func KeepMaxInputTokens(n int) { historyCount("KeepMaxInputTokens", n) }

// historyCount sets the History count of the function fname.
func historyCount(fname string, n int) {
	h, ok := eval.Current().(*expr.HistoryExpr)
	if !ok {
		eval.ReportError("%s: must be used in History", fname)
		return
	}
	if n <= 0 {
		eval.ReportError("%s: n must be > 0, got %d", fname, n)
		return
	}
	field := map[string]*int{
		"KeepRecentTurns":          &h.KeepRecentTurns,
		"CompressAtTurns":          &h.CompressAtTurns,
		"CompressAtMaxInputTokens": &h.CompressAtMaxInputTokens,
		"KeepMaxTurns":             &h.KeepMaxTurns,
		"KeepMaxInputTokens":       &h.KeepMaxInputTokens,
	}[fname]
	if *field != 0 {
		eval.ReportError("%s: given twice", fname)
		return
	}
	*field = n
}

// Cache places prompt-cache checkpoints for providers that support them:
// Cache(func() { AfterSystem(); AfterTools() }). Providers without prompt
// caching ignore them; the runtime reports each ignored checkpoint with a
// CacheCheckpointIgnored event.
func Cache(fn func()) {
	p, ok := policy("Cache")
	if !ok {
		return
	}
	if p.Cache != nil {
		eval.ReportError("Cache: given twice: merge them into one")
		return
	}
	p.Cache = &expr.CacheExpr{DSLFunc: fn, Policy: p}
	eval.Execute(fn, p.Cache)
}

// AfterSystem places a cache checkpoint after the system messages.
func AfterSystem() {
	if c, ok := eval.Current().(*expr.CacheExpr); ok {
		c.AfterSystem = true
		return
	}
	eval.ReportError("AfterSystem: must be used in Cache")
}

// AfterTools places a cache checkpoint after the tool definitions.
func AfterTools() {
	if c, ok := eval.Current().(*expr.CacheExpr); ok {
		c.AfterTools = true
		return
	}
	eval.ReportError("AfterTools: must be used in Cache")
}

// InterruptsAllowed lets the run suspend (pause, await clarification) and
// resume.
func InterruptsAllowed(allowed bool) {
	if p, ok := policy("InterruptsAllowed"); ok {
		p.InterruptsAllowed = allowed
	}
}

// OnMissingFields says what a run does when a tool call lacks required
// fields: "finalize" ends it, "await_clarification" suspends it for the
// caller (it needs InterruptsAllowed(true)), "resume" runs the tool anyway,
// "" lets the planner decide.
func OnMissingFields(action string) {
	p, ok := policy("OnMissingFields")
	if !ok {
		return
	}
	a := expr.MissingFieldsAction(action)
	if !a.Valid() {
		eval.ReportError(`OnMissingFields: %q is not an action: want "finalize", "await_clarification", "resume" or ""`, action)
		return
	}
	p.OnMissingFields = a
}

// policy returns the run policy being declared, or reports that fname must
// be used in one.
func policy(fname string) (*expr.RunPolicyExpr, bool) {
	p, ok := eval.Current().(*expr.RunPolicyExpr)
	if !ok {
		eval.ReportError("%s: must be used in a RunPolicy", fname)
	}
	return p, ok
}

// parseDuration parses a policy duration, reporting a bad one.
func parseDuration(fname, value string) (time.Duration, bool) {
	d, err := expr.ParseDuration(fname, value)
	if err != nil {
		eval.ReportError("%s", err)
		return 0, false
	}
	return d, true
}
