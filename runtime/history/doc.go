// Package history applies an agent's history policy to the conversation a
// planning step sends: a sliding window of recent turns (KeepRecentTurns) or
// model-assisted compression (Compression). The runtime calls Apply when a
// planner invocation first prepares its messages; a step that never reads
// its messages is not charged for it.
//
// A turn is a logical unit: a user message, the assistant messages that
// answer it (text and/or tool calls) and every tool result, up to the next
// user message (see SplitTurns). Both policies keep or drop whole turns,
// never part of one, and keep the system messages that open the
// conversation.
//
// Invariants: inputs are never mutated (Apply returns deep copies); kept
// messages keep their provider metadata (model.Message.Meta) verbatim, so
// discoveries and native blocks recorded there survive compaction; the
// metadata of summarized messages is dropped with them — compaction that
// removes a record removes what it recorded. The window trims requests only;
// compression rewrites the transcript, which the runtime stores so the same
// turns are not summarized again on every step.
package history
