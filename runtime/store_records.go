package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/quiver-go/quiver/model"
)

// RecordFormat is the format version of the records stores keep
// ([MarshalCheckpoint], [MarshalSession]). A record of another version is
// refused, never misread.
const RecordFormat = 1

// MaxRecordBytes bounds one stored record (a session's transcript, a
// checkpoint): 8 MiB. A bigger one is refused before anything is written.
const MaxRecordBytes = 8 << 20

// ErrRecordTooLarge is wrapped by the error of encoding a record over
// MaxRecordBytes.
var ErrRecordTooLarge = errors.New("runtime: stored record too large")

// ErrUnknownRecordFormat is wrapped by the error of decoding a record
// written in a format this version does not read (a newer release's).
var ErrUnknownRecordFormat = errors.New("runtime: unknown stored record format")

// checkpointRecord is a Checkpoint on disk.
type checkpointRecord struct {
	Format      int               `json:"format"`
	RunID       string            `json:"run_id"`
	Agent       string            `json:"agent"`
	SessionID   string            `json:"session_id,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Pending     []PendingItem     `json:"pending"`
	SuspendedAt time.Time         `json:"suspended_at"`
	ExpiresAt   time.Time         `json:"expires_at,omitzero"`
	State       json.RawMessage   `json:"state,omitempty"`
}

// sessionRecord is a Session on disk.
type sessionRecord struct {
	Format   int             `json:"format"`
	Version  int64           `json:"version"`
	Messages []model.Message `json:"messages"`
}

// MarshalCheckpoint encodes c as a store keeps it, in RecordFormat; it
// fails, wrapping ErrRecordTooLarge, over MaxRecordBytes.
func MarshalCheckpoint(c Checkpoint) ([]byte, error) {
	if c.RunID == "" {
		return nil, errors.New("runtime: a checkpoint without a run id")
	}
	return encodeRecord("checkpoint of run "+c.RunID, checkpointRecord{
		Format: RecordFormat, RunID: c.RunID, Agent: c.Agent, SessionID: c.SessionID, Labels: c.Labels,
		Pending: c.Pending, SuspendedAt: c.SuspendedAt, ExpiresAt: c.ExpiresAt, State: c.State,
	})
}

// UnmarshalCheckpoint decodes a record MarshalCheckpoint wrote. A record
// of another format fails wrapping ErrUnknownRecordFormat; a malformed
// one fails saying what is wrong.
func UnmarshalCheckpoint(b []byte) (Checkpoint, error) {
	var r checkpointRecord
	if err := decodeRecord("checkpoint", b, &r); err != nil {
		return Checkpoint{}, err
	}
	if r.RunID == "" {
		return Checkpoint{}, errors.New("runtime: stored checkpoint: no run id")
	}
	return Checkpoint{
		RunID: r.RunID, Agent: r.Agent, SessionID: r.SessionID, Labels: r.Labels,
		Pending: r.Pending, SuspendedAt: r.SuspendedAt, ExpiresAt: r.ExpiresAt, State: r.State,
	}, nil
}

// MarshalSession encodes s as a store keeps it, in RecordFormat; it fails,
// wrapping ErrRecordTooLarge, over MaxRecordBytes.
func MarshalSession(sessionID string, s Session) ([]byte, error) {
	msgs := s.Messages
	if msgs == nil {
		msgs = []model.Message{}
	}
	return encodeRecord("session "+sessionID, sessionRecord{Format: RecordFormat, Version: s.Version, Messages: msgs})
}

// UnmarshalSession decodes a record MarshalSession wrote (see
// UnmarshalCheckpoint for its errors).
func UnmarshalSession(b []byte) (Session, error) {
	var r sessionRecord
	if err := decodeRecord("session", b, &r); err != nil {
		return Session{}, err
	}
	if r.Version < 1 {
		return Session{}, fmt.Errorf("runtime: stored session: version %d, want 1 or more", r.Version)
	}
	return Session{Messages: r.Messages, Version: r.Version}, nil
}

// encodeRecord marshals v, bounded by MaxRecordBytes.
func encodeRecord(what string, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("runtime: encode %s: %w", what, err)
	}
	if len(b) > MaxRecordBytes {
		return nil, fmt.Errorf("%w: %s is %d bytes, over %d: shorten the conversation (a history policy) or the payloads kept", ErrRecordTooLarge, what, len(b), MaxRecordBytes)
	}
	return b, nil
}

// decodeRecord reads the format first, then the record: a record of
// another format is never decoded as this one.
func decodeRecord(what string, b []byte, into any) error {
	if len(b) > MaxRecordBytes {
		return fmt.Errorf("%w: stored %s is %d bytes, over %d", ErrRecordTooLarge, what, len(b), MaxRecordBytes)
	}
	var head struct {
		Format *int `json:"format"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return fmt.Errorf("runtime: stored %s is not a record: %w", what, err)
	}
	switch {
	case head.Format == nil:
		return fmt.Errorf("%w: stored %s has no format", ErrUnknownRecordFormat, what)
	case *head.Format != RecordFormat:
		return fmt.Errorf("%w: stored %s is in format %d; this release reads format %d: run the release that wrote it", ErrUnknownRecordFormat, what, *head.Format, RecordFormat)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return fmt.Errorf("runtime: stored %s: %w", what, err)
	}
	return nil
}
