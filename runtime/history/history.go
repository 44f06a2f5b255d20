package history

import (
	"context"
	"fmt"
	"slices"

	"github.com/quiver-go/quiver/model"
)

// SplitTurns splits a transcript into its leading system messages (those
// before anything else) and its turns. A turn starts at a user message and
// runs to the next one: the user message, the assistant messages (text
// and/or tool calls) and every tool result, never split. A user message made
// only of tool results does not start a turn, nor does one marked
// model.ContinuesTurnMetaKey (the answer to a clarification belongs to the
// turn that asked it, as model.TurnStart counts it); messages other than
// system ones that come before the first user message form a first turn of
// their own, so nothing is lost.
//
// The returned slices are fresh but their messages are shallow copies of
// msgs' (parts and metadata are shared): clone them before mutating.
func SplitTurns(msgs []model.Message) (lead []model.Message, turns [][]model.Message) {
	i := 0
	for i < len(msgs) && msgs[i].Role == model.RoleSystem {
		i++
	}
	lead = append([]model.Message(nil), msgs[:i]...)
	for _, m := range msgs[i:] {
		if len(turns) == 0 || startsTurn(m) {
			turns = append(turns, nil)
		}
		turns[len(turns)-1] = append(turns[len(turns)-1], m)
	}
	return lead, turns
}

// startsTurn reports whether m opens a turn: a user message with something
// other than tool results that does not continue the turn before it.
func startsTurn(m model.Message) bool {
	if m.Role != model.RoleUser {
		return false
	}
	if _, continues := m.Meta[model.ContinuesTurnMetaKey]; continues {
		return false
	}
	if len(m.Parts) == 0 {
		return true
	}
	for _, p := range m.Parts {
		if p.Kind != model.PartToolResult {
			return true
		}
	}
	return false
}

// Apply returns the messages to send for one planning step under p, as deep
// copies of msgs (which are never mutated). system is the agent's system
// prompt, counted with the messages by the token trigger.
//
// With KeepRecentTurns the request carries the leading system messages and
// the n most recent turns; compacted is false (the transcript is unchanged).
// The tools discovered in the dropped turns are added to the discovery
// record of the first kept message (its copy in the request; the record's
// Searches and Exhausted, and the message's other metadata, are kept as
// they are), so the request still loads them.
//
// With Compression, when a trigger fires, the turns older than the retention
// are summarized by one summarizer.Complete call (see SummarySystemPrompt)
// and replaced by one user message, SummaryPrefix followed by the summary,
// placed between the leading system messages and the kept turns; compacted
// is true and the runtime stores out as the new transcript. A summary left
// by an earlier compression is folded into the next one and is not counted
// as a turn. Kept messages keep their metadata verbatim; summarized ones
// lose theirs except their discovery records: the summary carries one
// record (model.DiscoveryMetaKey) listing every tool discovered in what it
// replaces, an earlier summary included, with no searches counted and no
// exhaustion, so the discoveries stay and no turn's search budget changes.
// The most recent turn is always kept whole, even when it alone exceeds
// KeepMaxInputTokens; with both retentions set the fewer turns are kept.
// When nothing is older than the retention, msgs are returned unchanged
// (compacted false).
//
// A nil or zero p returns msgs unchanged. summarizer and counter may be nil
// when p does not need them; an invalid p is reported as by Validate.
func Apply(ctx context.Context, p *Policy, system string, msgs []model.Message, summarizer model.Client, counter model.TokenCounter) (out []model.Message, compacted bool, err error) {
	if !p.enabled() {
		return model.CloneMessages(msgs), false, nil
	}
	if err := p.Validate(summarizer != nil, counter != nil); err != nil {
		return nil, false, err
	}
	if p.KeepRecentTurns > 0 {
		return window(msgs, p.KeepRecentTurns), false, nil
	}
	return compress(ctx, p.Compression, system, msgs, summarizer, counter)
}

// window keeps the leading system messages and the n most recent turns.
func window(msgs []model.Message, n int) []model.Message {
	lead, turns := SplitTurns(msgs)
	if len(turns) <= n {
		return model.CloneMessages(msgs)
	}
	out := join(lead, nil, turns[len(turns)-n:])
	addDiscoveredTools(&out[len(lead)], model.DiscoveredTools(slices.Concat(turns[:len(turns)-n]...)))
	return out
}

// compress applies c to msgs.
func compress(ctx context.Context, c *Compression, system string, msgs []model.Message, summarizer model.Client, counter model.TokenCounter) ([]model.Message, bool, error) {
	lead, turns := SplitTurns(msgs)
	var prior *model.Message
	if len(turns) > 0 && len(turns[0]) == 1 && IsSummary(turns[0][0]) {
		prior = &turns[0][0]
		turns = turns[1:]
	}
	fire, err := c.triggered(len(turns), func() (int, error) {
		n, err := counter.CountTokens(ctx, system, msgs)
		if err != nil {
			return 0, fmt.Errorf("history: count input tokens: %w", err)
		}
		return n, nil
	})
	if err != nil || !fire || len(turns) == 0 {
		return cloneOrNil(msgs, err), false, err
	}
	keep, err := retained(ctx, c, turns, counter)
	if err != nil {
		return nil, false, err
	}
	old := turns[:len(turns)-keep]
	if len(old) == 0 {
		return model.CloneMessages(msgs), false, nil
	}
	var toSummarize []model.Message
	if prior != nil {
		toSummarize = append(toSummarize, *prior)
	}
	for _, t := range old {
		toSummarize = append(toSummarize, t...)
	}
	summary, err := summarize(ctx, summarizer, toSummarize)
	if err != nil {
		return nil, false, fmt.Errorf("history: summarize %d turns: %w", len(old), err)
	}
	// The summary carries the discoveries of what it replaces, an earlier
	// summary's included, as one record of tools only.
	if ids := model.DiscoveredTools(toSummarize); len(ids) > 0 {
		summary.SetDiscovery(model.Discovery{Tools: ids})
	}
	return join(lead, &summary, turns[len(turns)-keep:]), true, nil
}

// retained returns how many of the most recent turns c keeps verbatim: at
// least one (the current turn), at most KeepMaxTurns, and, with
// KeepMaxInputTokens, only as many whole turns as fit the budget, counted
// from the most recent one backwards.
func retained(ctx context.Context, c *Compression, turns [][]model.Message, counter model.TokenCounter) (int, error) {
	limit := len(turns)
	if c.KeepMaxTurns > 0 {
		limit = min(limit, c.KeepMaxTurns)
	}
	if c.KeepMaxInputTokens <= 0 {
		return limit, nil
	}
	keep := 1
	for k := 2; k <= limit; k++ {
		var tail []model.Message
		for _, t := range turns[len(turns)-k:] {
			tail = append(tail, t...)
		}
		n, err := counter.CountTokens(ctx, "", tail)
		if err != nil {
			return 0, fmt.Errorf("history: count tokens of the %d most recent turns: %w", k, err)
		}
		if n > c.KeepMaxInputTokens {
			break
		}
		keep = k
	}
	return keep, nil
}

// join returns deep copies of lead, the optional summary and the turns'
// messages, in that order.
func join(lead []model.Message, summary *model.Message, turns [][]model.Message) []model.Message {
	out := model.CloneMessages(lead)
	if summary != nil {
		out = append(out, *summary)
	}
	for _, t := range turns {
		out = append(out, model.CloneMessages(t)...)
	}
	return out
}

// cloneOrNil returns a deep copy of msgs, or nil when err is set.
func cloneOrNil(msgs []model.Message, err error) []model.Message {
	if err != nil {
		return nil
	}
	return model.CloneMessages(msgs)
}
