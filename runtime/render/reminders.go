package render

import (
	"cmp"
	"slices"
	"strings"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/planner"
)

// The tags that wrap the reminders of one model request.
const (
	ReminderOpen  = "<system-reminder>"
	ReminderClose = "</system-reminder>"
)

// Reminders combines the reminder texts of one turn (result reminders and
// planner reminders, in the order given) into one system message:
// "<system-reminder>\n" + the texts joined by "\n\n" + "\n</system-reminder>".
// Texts are trimmed; blank ones and repeats are dropped, the first
// occurrence keeping its place. ok is false when no text remains.
func Reminders(texts []string) (msg model.Message, ok bool) {
	var kept []string
	for _, t := range texts {
		t = strings.TrimSpace(t)
		if t != "" && !slices.Contains(kept, t) {
			kept = append(kept, t)
		}
	}
	if len(kept) == 0 {
		return model.Message{}, false
	}
	return model.SystemMessage(ReminderOpen + "\n" + strings.Join(kept, "\n\n") + "\n" + ReminderClose), true
}

// ReminderQueue holds the planner reminders of one run
// (planner.Context.AddReminder) between planning steps. It is plain data
// with exported fields: the runtime keeps it in run state, so a checkpointed
// or replayed run emits the same reminders. The zero value is empty and
// ready to use; it is not safe for concurrent use.
//
// A reminder is identified by its ID (by its text when the ID is empty).
// Adding it queues it for the next step; Take emits it at most MaxPerRun
// times per run and only when at least MinTurnsBetween planning steps
// passed since its last emission, and clears it once emitted: a planner
// that wants a standing reminder adds it again on later steps, and the
// limits keep it from being repeated too often.
type ReminderQueue struct {
	// Pending are the queued reminders, in insertion order.
	Pending []planner.Reminder `json:"pending,omitempty"`
	// Emitted records, per reminder key, the emissions so far.
	Emitted map[string]ReminderEmissions `json:"emitted,omitempty"`
}

// ReminderEmissions records the emissions of one reminder in a run.
type ReminderEmissions struct {
	// Count is how many times the reminder was emitted.
	Count int `json:"count"`
	// LastStep is the planning step of the last emission.
	LastStep int `json:"last_step"`
}

// reminderKey identifies r in the queue.
func reminderKey(r planner.Reminder) string {
	if r.ID != "" {
		return r.ID
	}
	return r.Text
}

// Add queues r. A pending reminder with the same key is replaced in place,
// keeping its position; a blank text is ignored.
func (q *ReminderQueue) Add(r planner.Reminder) {
	if strings.TrimSpace(r.Text) == "" {
		return
	}
	key := reminderKey(r)
	for i, p := range q.Pending {
		if reminderKey(p) == key {
			q.Pending[i] = r
			return
		}
	}
	q.Pending = append(q.Pending, r)
}

// Remove drops the pending reminder with this id (or, for reminders without
// one, this text). Its emission record is kept, so its limits still apply
// if it is added again.
func (q *ReminderQueue) Remove(id string) {
	q.Pending = slices.DeleteFunc(q.Pending, func(r planner.Reminder) bool {
		return reminderKey(r) == id
	})
}

// Take returns the texts to emit at planning step step, ordered by tier
// (planner.TierSafety first) then insertion, records their emission and
// removes them from the queue. A reminder that already reached MaxPerRun
// is dropped; one emitted fewer than MinTurnsBetween steps ago stays queued
// for a later step.
func (q *ReminderQueue) Take(step int) []string {
	order := slices.Clone(q.Pending)
	slices.SortStableFunc(order, func(a, b planner.Reminder) int { return cmp.Compare(a.Tier, b.Tier) })
	var texts []string
	var waiting []planner.Reminder
	for _, r := range order {
		key := reminderKey(r)
		e, seen := q.Emitted[key]
		switch {
		case r.MaxPerRun > 0 && e.Count >= r.MaxPerRun:
			continue
		case seen && r.MinTurnsBetween > 0 && step-e.LastStep < r.MinTurnsBetween:
			waiting = append(waiting, r)
			continue
		}
		if q.Emitted == nil {
			q.Emitted = make(map[string]ReminderEmissions)
		}
		q.Emitted[key] = ReminderEmissions{Count: e.Count + 1, LastStep: step}
		texts = append(texts, r.Text)
	}
	// Keep the waiting ones in insertion order.
	q.Pending = slices.DeleteFunc(q.Pending, func(r planner.Reminder) bool {
		return !slices.ContainsFunc(waiting, func(w planner.Reminder) bool { return reminderKey(w) == reminderKey(r) })
	})
	return texts
}
