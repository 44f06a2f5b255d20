package render_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime/render"
)

func TestReminders(t *testing.T) {
	msg, ok := render.Reminders([]string{
		"Metrics are displayed as a dashboard widget.",
		"  ",
		"Alerts are shown in a priority-sorted list with severity indicators.",
		"Metrics are displayed as a dashboard widget.\n",
	})
	want := "<system-reminder>\nMetrics are displayed as a dashboard widget.\n\nAlerts are shown in a priority-sorted list with severity indicators.\n</system-reminder>"
	if !ok || msg.Role != model.RoleSystem || msg.TextContent() != want || len(msg.Parts) != 1 {
		t.Errorf("Reminders = %+v, %v", msg, ok)
	}
	if _, ok := render.Reminders(nil); ok {
		t.Error("no texts: ok")
	}
	if _, ok := render.Reminders([]string{"", " \n"}); ok {
		t.Error("blank texts: ok")
	}
}

func TestReminderQueueTierOrder(t *testing.T) {
	var q render.ReminderQueue
	q.Add(planner.Reminder{ID: "style", Text: "Be brief.", Tier: planner.TierGuidance})
	q.Add(planner.Reminder{ID: "check", Text: "Check units.", Tier: planner.TierCorrectness})
	q.Add(planner.Reminder{ID: "pii", Text: "Do not reveal emails.", Tier: planner.TierSafety})
	q.Add(planner.Reminder{ID: "tone", Text: "Stay neutral.", Tier: planner.TierGuidance})
	q.Add(planner.Reminder{ID: "style", Text: "Be very brief.", Tier: planner.TierGuidance}) // replaces in place
	q.Add(planner.Reminder{ID: "blank", Text: " "})                                          // ignored
	got := q.Take(1)
	want := []string{"Do not reveal emails.", "Check units.", "Be very brief.", "Stay neutral."}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Take = %q, want %q", got, want)
	}
	if len(q.Pending) != 0 {
		t.Errorf("pending after take: %v", q.Pending)
	}
	if got := q.Take(2); got != nil {
		t.Errorf("second Take = %q", got)
	}
}

func TestReminderQueueLimits(t *testing.T) {
	var q render.ReminderQueue
	anomaly := planner.Reminder{ID: "anomaly", Text: "Highlight anomalies.", Tier: planner.TierGuidance, MinTurnsBetween: 2, MaxPerRun: 2}
	var emitted []int
	for step := 1; step <= 8; step++ {
		q.Add(anomaly) // the planner adds it on every step
		if texts := q.Take(step); len(texts) == 1 {
			emitted = append(emitted, step)
		}
	}
	// Emitted at step 1, held until step 3 (two steps later), then capped.
	if !reflect.DeepEqual(emitted, []int{1, 3}) {
		t.Errorf("emitted at steps %v, want [1 3]", emitted)
	}
	if len(q.Pending) != 0 {
		t.Errorf("a capped reminder stays pending: %v", q.Pending)
	}
	if e := q.Emitted["anomaly"]; e.Count != 2 || e.LastStep != 3 {
		t.Errorf("emissions = %+v", e)
	}

	// A rate-limited reminder waits in the queue without blocking others.
	q = render.ReminderQueue{}
	q.Add(planner.Reminder{ID: "slow", Text: "slow", MinTurnsBetween: 3})
	q.Take(1)
	q.Add(planner.Reminder{ID: "slow", Text: "slow", MinTurnsBetween: 3})
	q.Add(planner.Reminder{ID: "fast", Text: "fast"})
	if got := q.Take(2); !reflect.DeepEqual(got, []string{"fast"}) {
		t.Errorf("Take(2) = %q", got)
	}
	if got := q.Take(3); got != nil {
		t.Errorf("Take(3) = %q", got)
	}
	if got := q.Take(4); !reflect.DeepEqual(got, []string{"slow"}) {
		t.Errorf("Take(4) = %q", got)
	}
}

func TestReminderQueueRemoveAndJSON(t *testing.T) {
	var q render.ReminderQueue
	q.Add(planner.Reminder{ID: "a", Text: "A"})
	q.Add(planner.Reminder{ID: "b", Text: "B", MaxPerRun: 1})
	q.Add(planner.Reminder{Text: "no id"})
	q.Remove("a")
	q.Remove("no id")
	raw, err := json.Marshal(&q)
	if err != nil {
		t.Fatal(err)
	}
	var back render.ReminderQueue
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if got := back.Take(1); !reflect.DeepEqual(got, []string{"B"}) {
		t.Errorf("Take after removal and round trip = %q", got)
	}
	raw, _ = json.Marshal(&back)
	if string(raw) != `{"emitted":{"b":{"count":1,"last_step":1}}}` {
		t.Errorf("state = %s", raw)
	}
	back.Add(planner.Reminder{ID: "b", Text: "B", MaxPerRun: 1})
	if got := back.Take(2); got != nil {
		t.Errorf("capped reminder emitted again: %q", got)
	}
}
