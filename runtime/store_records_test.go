package runtime

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/quiver-go/quiver/model"
)

// A record of another format is refused, never read as this one; one
// without a format too.
func TestStoredRecordsOfAnotherFormatAreRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    string
	}{
		{"newer", `{"format":2,"run_id":"r","agent":"a","pending":[],"suspended_at":"2026-12-01T00:00:00Z"}`},
		{"none", `{"run_id":"r","agent":"a","pending":[]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := UnmarshalCheckpoint([]byte(tc.b)); !errors.Is(err, ErrUnknownRecordFormat) {
				t.Errorf("checkpoint: %v, want ErrUnknownRecordFormat", err)
			}
			if _, err := UnmarshalSession([]byte(strings.Replace(tc.b, `"run_id":"r","agent":"a","pending":[]`, `"version":1,"messages":[]`, 1))); !errors.Is(err, ErrUnknownRecordFormat) {
				t.Errorf("session: %v, want ErrUnknownRecordFormat", err)
			}
		})
	}
}

// What MarshalCheckpoint and MarshalSession write reads back the same.
func TestStoredRecordsRoundTrip(t *testing.T) {
	c := Checkpoint{RunID: "r", Agent: "a", SessionID: "s", Labels: map[string]string{"k": "v"},
		Pending:     []PendingItem{{Kind: PendingConfirmation, CallID: "c", Prompt: "ok?", Payload: json.RawMessage(`{"x":1}`)}},
		SuspendedAt: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), State: json.RawMessage(`{"run_id":"r"}`)}
	b, err := MarshalCheckpoint(c)
	if err != nil {
		t.Fatal(err)
	}
	got, err := UnmarshalCheckpoint(b)
	if err != nil || got.RunID != "r" || got.Labels["k"] != "v" || string(got.State) != `{"run_id":"r"}` || !got.SuspendedAt.Equal(c.SuspendedAt) || !got.ExpiresAt.IsZero() {
		t.Fatalf("%+v %v", got, err)
	}
	sb, err := MarshalSession("s", Session{Messages: []model.Message{model.UserMessage("hi")}, Version: 3})
	if err != nil {
		t.Fatal(err)
	}
	s, err := UnmarshalSession(sb)
	if err != nil || s.Version != 3 || s.Messages[0].TextContent() != "hi" {
		t.Fatalf("%+v %v", s, err)
	}
}

// Stored records are input from outside the process: decoding any bytes
// fails cleanly or yields a record that encodes again.
func FuzzUnmarshalStoredRecords(f *testing.F) {
	c, _ := MarshalCheckpoint(Checkpoint{RunID: "r", Agent: "a", Pending: []PendingItem{{Kind: PendingConfirmation, Prompt: "p"}}})
	s, _ := MarshalSession("s", Session{Messages: []model.Message{model.UserMessage("hi")}, Version: 1})
	f.Add(c)
	f.Add(s)
	f.Add([]byte(`{"format":1}`))
	f.Add([]byte(`{"format":1,"version":1,"messages":[{"role":"user","parts":[{"kind":"text","text":"x"}]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if c, err := UnmarshalCheckpoint(b); err == nil {
			if _, err := MarshalCheckpoint(c); err != nil && !errors.Is(err, ErrRecordTooLarge) {
				t.Fatalf("a decoded checkpoint does not encode: %v", err)
			}
		}
		if s, err := UnmarshalSession(b); err == nil {
			if _, err := MarshalSession("s", s); err != nil && !errors.Is(err, ErrRecordTooLarge) {
				t.Fatalf("a decoded session does not encode: %v", err)
			}
		}
	})
}

// A checkpoint this release cannot read is refused and left in place for
// the release that can.
func TestMemoryTakeLeavesAnUnreadableCheckpoint(t *testing.T) {
	s := NewMemoryStore()
	s.checkpoints["r"] = []byte(`{"format":2,"run_id":"r"}`)
	for range 2 {
		if _, err := s.Suspensions().Take(t.Context(), "r", time.Now()); !errors.Is(err, ErrUnknownRecordFormat) {
			t.Fatalf("Take: %v, want ErrUnknownRecordFormat", err)
		}
	}
}
