package history

import (
	"errors"
	"fmt"
)

// Policy is an agent's history policy (History in the DSL). At most one of
// its two policies may be set; the zero Policy keeps the whole history.
type Policy struct {
	// KeepRecentTurns is a sliding window: requests carry only the n most
	// recent turns (and the leading system messages). 0 turns it off. The
	// stored transcript is not changed.
	KeepRecentTurns int `json:"keep_recent_turns,omitempty"`
	// Compression summarizes older turns with the history model; nil turns
	// it off.
	Compression *Compression `json:"compression,omitempty"`
}

// Compression is model-assisted summarization: when a trigger fires, the
// turns older than the retention are replaced by one summary message. It
// needs at least one trigger (CompressAt…) and at least one retention
// (KeepMax…); a zero field is unset.
type Compression struct {
	// CompressAtTurns triggers compression when at least this many logical
	// turns are present (a summary left by an earlier compression is not a
	// turn).
	CompressAtTurns int `json:"compress_at_turns,omitempty"`
	// CompressAtMaxInputTokens triggers compression when the
	// provider-visible input (system prompt and messages), measured with the
	// history model's token counter, exceeds this many tokens.
	CompressAtMaxInputTokens int `json:"compress_at_max_input_tokens,omitempty"`
	// KeepMaxTurns keeps at most this many recent turns verbatim.
	KeepMaxTurns int `json:"keep_max_turns,omitempty"`
	// KeepMaxInputTokens keeps only the most recent whole turns whose
	// messages fit this many input tokens; the current turn is kept even
	// when it alone does not fit.
	KeepMaxInputTokens int `json:"keep_max_input_tokens,omitempty"`
}

// enabled reports whether p sets a policy.
func (p *Policy) enabled() bool {
	return p != nil && (p.KeepRecentTurns != 0 || p.Compression != nil)
}

// usesTokens reports whether c needs a token counter.
func (c *Compression) usesTokens() bool {
	return c.CompressAtMaxInputTokens > 0 || c.KeepMaxInputTokens > 0
}

// Validate reports every problem of p at once (errors.Join), each prefixed
// "history:". hasModel says whether the agent has a history model (the
// summarizer: compression without one fails registration); canCount says
// whether that model counts tokens exactly (model.TokenCounter), which the
// token-based settings need. A nil or zero Policy is valid.
func (p *Policy) Validate(hasModel, canCount bool) error {
	if p == nil {
		return nil
	}
	var errs []error
	add := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("history: "+format, args...))
	}
	if p.KeepRecentTurns < 0 {
		add("KeepRecentTurns must be > 0, got %d", p.KeepRecentTurns)
	}
	c := p.Compression
	if c != nil && p.KeepRecentTurns != 0 {
		add("at most one history policy per agent: set KeepRecentTurns or Compression, not both")
	}
	if c == nil {
		return errors.Join(errs...)
	}
	for _, f := range [...]struct {
		name string
		v    int
	}{
		{"CompressAtTurns", c.CompressAtTurns},
		{"CompressAtMaxInputTokens", c.CompressAtMaxInputTokens},
		{"KeepMaxTurns", c.KeepMaxTurns},
		{"KeepMaxInputTokens", c.KeepMaxInputTokens},
	} {
		if f.v < 0 {
			add("%s must be > 0, got %d", f.name, f.v)
		}
	}
	if c.CompressAtTurns <= 0 && c.CompressAtMaxInputTokens <= 0 {
		add("compression needs a trigger: set CompressAtTurns or CompressAtMaxInputTokens")
	}
	if c.KeepMaxTurns <= 0 && c.KeepMaxInputTokens <= 0 {
		add("compression needs a retention: set KeepMaxTurns or KeepMaxInputTokens")
	}
	if !hasModel {
		add("compression needs a history model to summarize older turns: set HistoryModel (registration fails without one)")
	} else if c.usesTokens() && !canCount {
		add("CompressAtMaxInputTokens and KeepMaxInputTokens need a history model that counts tokens exactly (implements model.TokenCounter); use turn-based settings or such a model")
	}
	return errors.Join(errs...)
}

// triggered reports whether compression should run for a transcript of
// turns logical turns; tokens counts the provider-visible input and is
// called only when a token trigger is set.
func (c *Compression) triggered(turns int, tokens func() (int, error)) (bool, error) {
	if c.CompressAtTurns > 0 && turns >= c.CompressAtTurns {
		return true, nil
	}
	if c.CompressAtMaxInputTokens > 0 {
		n, err := tokens()
		if err != nil {
			return false, err
		}
		return n > c.CompressAtMaxInputTokens, nil
	}
	return false, nil
}
