// Package history applies an agent's history policy to the conversation a
// planning step sends: a sliding window of recent turns (KeepRecentTurns) or
// model-assisted compression (Compression). The runtime calls Apply when a
// planner invocation first prepares its messages; a step that never reads
// its messages is not charged for it.
//
// A turn is a logical unit: a user message, the assistant messages that
// answer it (text and/or tool calls) and every tool result, up to the next
// user message that is not the answer to a clarification (see SplitTurns).
// Both policies keep or drop whole turns, never part of one, and keep the
// system messages that open the conversation.
//
// Invariants: inputs are never mutated (Apply returns deep copies); kept
// messages keep their provider metadata (model.Message.Meta), so
// discoveries and native blocks recorded there survive compaction. The
// metadata of removed messages goes with them, except their discovery
// records (model.DiscoveryMetaKey): a summary carries the union of the tools
// discovered in what it replaces (an earlier summary included), and a window
// adds the tools discovered in the turns it drops to the record of the first
// message it keeps — the only change a policy makes to a kept message's
// metadata. Carried records list tools only: they count no search and no
// exhaustion, so the current turn's search budget (model.SearchesThisTurn)
// is unchanged. No policy removes a discovery. The window trims requests
// only; compression rewrites the transcript, which the runtime stores so the
// same turns are not summarized again on every step.
package history
