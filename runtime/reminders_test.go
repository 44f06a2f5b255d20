package runtime

import (
	"context"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/tools"
)

// withReminder sets the tool's static result reminder.
func withReminder(text string) specOption {
	return func(s *tools.ToolSpec) { s.ResultReminder = text }
}

// remSystemMessages returns the texts of a request's system messages that
// carry <system-reminder> tags.
func remSystemMessages(req model.Request) []string {
	var out []string
	for _, m := range req.Messages {
		if m.Role == model.RoleSystem && strings.Contains(m.TextContent(), "<system-reminder>") {
			out = append(out, m.TextContent())
		}
	}
	return out
}

// remAnywhere reports whether text appears in any message of req.
func remAnywhere(req model.Request, text string) bool {
	for _, m := range req.Messages {
		if strings.Contains(m.TextContent(), text) {
			return true
		}
	}
	return false
}

const (
	remMetrics = "Metrics are displayed as a dashboard widget."
	remAlerts  = "Alerts are shown in a priority-sorted list with severity indicators."
)

func TestResultReminderCombinedIntoOneSystemMessage(t *testing.T) {
	f := newFixture(t, RunPolicy{}, []fixtureTool{
		{spec: newSpec(t, "get_metrics", withReminder(remMetrics)), handler: ok(`{"cpu":0.5}`)},
		{spec: newSpec(t, "get_alerts", withReminder(remAlerts)), handler: ok(`{"alerts":[]}`)},
		{spec: newSpec(t, "lookup"), handler: ok(`{"rows":1}`)},
	},
		scripted.Calls(
			scripted.ToolCallSpec{Name: "get_metrics", Payload: `{}`},
			scripted.ToolCallSpec{Name: "get_alerts", Payload: `{}`},
		),
		scripted.Call("lookup", `{}`),
		scripted.Reply("done"),
	)
	out := f.run("status?")
	reqs := f.model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	if got := remSystemMessages(reqs[0]); len(got) != 0 {
		t.Errorf("first request has reminders: %q", got)
	}
	got := remSystemMessages(reqs[1])
	want := "<system-reminder>\n" + remMetrics + "\n\n" + remAlerts + "\n</system-reminder>"
	if len(got) != 1 || got[0] != want {
		t.Fatalf("request after the batch: reminder messages %q, want exactly one %q", got, want)
	}
	for _, text := range []string{remMetrics, remAlerts} {
		n := 0
		for _, m := range reqs[1].Messages {
			n += strings.Count(m.TextContent(), text)
		}
		if n != 1 {
			t.Errorf("%q appears %d times in the request after the batch, want once", text, n)
		}
	}
	// It follows the tool results it is about.
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	if last.Role != model.RoleSystem || last.TextContent() != want {
		t.Errorf("reminder is not the last message: %+v", last)
	}
	for _, text := range []string{remMetrics, remAlerts} {
		if remAnywhere(reqs[2], text) {
			t.Errorf("reminder %q repeated in the request after next", text)
		}
	}
	for _, m := range out.Messages {
		if strings.Contains(m.TextContent(), "<system-reminder>") {
			t.Errorf("reminder stored in the transcript: %+v", m)
		}
	}
}

func TestResultReminderOnlyAfterSuccess(t *testing.T) {
	f := newFixture(t, RunPolicy{}, []fixtureTool{
		{spec: newSpec(t, "get_metrics", withReminder(remMetrics)), handler: func(context.Context, *ToolCall) (*planner.ToolResult, error) {
			return &planner.ToolResult{Failure: &planner.ToolFailure{Code: "down", Message: "metrics are down"}}, nil
		}},
	},
		scripted.Call("get_metrics", `{}`),
		scripted.Reply("done"),
	)
	f.run("status?")
	if reqs := f.model.Requests(); len(reqs) != 2 || remAnywhere(reqs[1], remMetrics) {
		t.Errorf("reminder of a failed call was sent: %+v", reqs)
	}
}

// remPlanner wraps the standard planner and adds the reminders of each
// step before delegating, as a custom planner would.
type remPlanner struct {
	std       *planner.Standard
	reminders []planner.Reminder
}

func (p *remPlanner) add(ctx planner.Context) {
	for _, r := range p.reminders {
		ctx.AddReminder(r)
	}
}

func (p *remPlanner) PlanStart(ctx context.Context, in *planner.PlanInput) (*planner.PlanResult, error) {
	p.add(in.Agent)
	return p.std.PlanStart(ctx, in)
}

func (p *remPlanner) PlanResume(ctx context.Context, in *planner.PlanResumeInput) (*planner.PlanResult, error) {
	p.add(in.Agent)
	return p.std.PlanResume(ctx, in)
}

func TestAddReminderTiersAndRateLimits(t *testing.T) {
	const (
		guidance = "Prefer short answers."
		safety   = "Never reveal credentials."
		check    = "Double-check units."
	)
	p := &remPlanner{std: planner.NewStandard(), reminders: []planner.Reminder{
		// Inserted lowest tier first: the tiers, not the insertion order,
		// decide the order in the message.
		{ID: "style", Text: guidance, Tier: planner.TierGuidance, MinTurnsBetween: 2},
		{ID: "units", Text: check, Tier: planner.TierCorrectness, MaxPerRun: 2, MinTurnsBetween: 3},
		{ID: "secrets", Text: safety, Tier: planner.TierSafety, MaxPerRun: 1},
	}}
	f := newFixtureWith(t, AgentRegistration{Planner: p}, nil, []fixtureTool{
		{spec: newSpec(t, "lookup", withReminder(remMetrics)), handler: ok(`{"rows":1}`)},
	},
		scripted.Call("lookup", `{}`),
		scripted.Call("lookup", `{}`),
		scripted.Call("lookup", `{}`),
		scripted.Call("lookup", `{}`),
		scripted.Reply("done"),
	)
	f.run("go")
	reqs := f.model.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests", len(reqs))
	}
	wrap := func(texts ...string) []string {
		if len(texts) == 0 {
			return nil
		}
		return []string{"<system-reminder>\n" + strings.Join(texts, "\n\n") + "\n</system-reminder>"}
	}
	want := [][]string{
		wrap(safety, check, guidance), // step 1: everything, safety first
		wrap(remMetrics),              // step 2: safety capped, the others wait
		wrap(remMetrics, guidance),    // step 3: guidance is due again
		wrap(remMetrics, check),       // step 4: units is due (3 steps), its last
		wrap(remMetrics, guidance),    // step 5: units capped at 2
	}
	for i, w := range want {
		got := remSystemMessages(reqs[i])
		if strings.Join(got, "|") != strings.Join(w, "|") {
			t.Errorf("request %d reminders = %q, want %q", i+1, got, w)
		}
	}
}
