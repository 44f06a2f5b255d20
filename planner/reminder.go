package planner

// ReminderTier orders reminders: lower tiers are emitted first and survive
// when reminders must be dropped.
type ReminderTier int

// The reminder tiers.
const (
	TierSafety ReminderTier = iota
	TierCorrectness
	TierGuidance
)

// Reminder is a system note added to the next model request, wrapped in
// <system-reminder> tags with the other reminders of the turn.
type Reminder struct {
	// ID identifies the reminder for rate limiting and removal.
	ID   string       `json:"id"`
	Text string       `json:"text"`
	Tier ReminderTier `json:"tier"`
	// MinTurnsBetween is the least number of planning steps between two
	// emissions (0: no limit).
	MinTurnsBetween int `json:"min_turns_between,omitempty"`
	// MaxPerRun caps emissions per run (0: no cap).
	MaxPerRun int `json:"max_per_run,omitempty"`
}
