package history_test

import (
	"strings"
	"testing"

	"github.com/quiver-go/quiver/runtime/history"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name     string
		policy   *history.Policy
		hasModel bool
		canCount bool
		want     []string // substrings of the error, in order; none: valid
	}{
		{name: "nil", policy: nil},
		{name: "zero", policy: &history.Policy{}},
		{name: "window", policy: &history.Policy{KeepRecentTurns: 20}},
		{name: "turn compression", policy: &history.Policy{Compression: &history.Compression{CompressAtTurns: 10, KeepMaxTurns: 4}}, hasModel: true},
		{name: "token compression", policy: &history.Policy{Compression: &history.Compression{CompressAtMaxInputTokens: 120_000, KeepMaxInputTokens: 40_000, KeepMaxTurns: 12}}, hasModel: true, canCount: true},
		{
			name:   "negative window",
			policy: &history.Policy{KeepRecentTurns: -1},
			want:   []string{"history: KeepRecentTurns must be > 0, got -1"},
		},
		{
			name:     "both policies",
			policy:   &history.Policy{KeepRecentTurns: 3, Compression: &history.Compression{CompressAtTurns: 10, KeepMaxTurns: 4}},
			hasModel: true,
			want:     []string{"history: at most one history policy per agent"},
		},
		{
			name:     "negative compression settings",
			policy:   &history.Policy{Compression: &history.Compression{CompressAtTurns: -2, CompressAtMaxInputTokens: -3, KeepMaxTurns: -4, KeepMaxInputTokens: -5}},
			hasModel: true,
			canCount: true,
			want: []string{
				"history: CompressAtTurns must be > 0, got -2",
				"history: CompressAtMaxInputTokens must be > 0, got -3",
				"history: KeepMaxTurns must be > 0, got -4",
				"history: KeepMaxInputTokens must be > 0, got -5",
				"history: compression needs a trigger",
				"history: compression needs a retention",
			},
		},
		{
			name:     "no trigger",
			policy:   &history.Policy{Compression: &history.Compression{KeepMaxTurns: 4}},
			hasModel: true,
			want:     []string{"history: compression needs a trigger: set CompressAtTurns or CompressAtMaxInputTokens"},
		},
		{
			name:     "no retention",
			policy:   &history.Policy{Compression: &history.Compression{CompressAtTurns: 10}},
			hasModel: true,
			want:     []string{"history: compression needs a retention: set KeepMaxTurns or KeepMaxInputTokens"},
		},
		{
			name:   "no history model",
			policy: &history.Policy{Compression: &history.Compression{CompressAtTurns: 10, KeepMaxTurns: 4}},
			want:   []string{"history: compression needs a history model", "registration fails without one"},
		},
		{
			name:     "tokens without counter",
			policy:   &history.Policy{Compression: &history.Compression{CompressAtTurns: 10, KeepMaxInputTokens: 4000}},
			hasModel: true,
			want:     []string{"history: CompressAtMaxInputTokens and KeepMaxInputTokens need a history model that counts tokens exactly"},
		},
		{
			name:   "every problem at once",
			policy: &history.Policy{KeepRecentTurns: -1, Compression: &history.Compression{}},
			want: []string{
				"KeepRecentTurns must be > 0",
				"at most one history policy",
				"needs a trigger",
				"needs a retention",
				"needs a history model",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.policy.Validate(tt.hasModel, tt.canCount)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate: no error, want %q", tt.want)
			}
			msg := err.Error()
			at := 0
			for _, w := range tt.want {
				i := strings.Index(msg[at:], w)
				if i < 0 {
					t.Fatalf("error %q lacks %q (after offset %d)", msg, w, at)
				}
				at += i + len(w)
			}
			for _, line := range strings.Split(msg, "\n") {
				if !strings.HasPrefix(line, "history: ") {
					t.Errorf("line %q is not prefixed with history:", line)
				}
			}
		})
	}
}
