package boltstore

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	"github.com/quiver-go/quiver/runtime"
)

// runRecord is a run's info as the runs bucket keeps it, in
// [runtime.RecordFormat].
type runRecord struct {
	Format      int               `json:"format"`
	RunID       string            `json:"run_id"`
	SessionID   string            `json:"session_id,omitempty"`
	Agent       string            `json:"agent,omitempty"`
	ParentRunID string            `json:"parent_run_id,omitempty"`
	Status      runtime.RunStatus `json:"status"`
	Owner       string            `json:"owner,omitempty"`
	LastSeq     int64             `json:"last_seq"`
	StartedAt   time.Time         `json:"started_at"`
	UpdatedAt   time.Time         `json:"updated_at"`
}

// marshalRunInfo encodes info as the runs bucket keeps it.
func marshalRunInfo(info runtime.RunInfo) ([]byte, error) {
	b, err := json.Marshal(runRecord{
		Format: runtime.RecordFormat, RunID: info.RunID, SessionID: info.SessionID, Agent: info.Agent,
		ParentRunID: info.ParentRunID, Status: info.Status, Owner: info.Owner, LastSeq: info.LastSeq,
		StartedAt: info.StartedAt, UpdatedAt: info.UpdatedAt,
	})
	if err != nil {
		return nil, fmt.Errorf("boltstore: encode the info of run %q: %w", info.RunID, err)
	}
	return b, nil
}

// unmarshalRunInfo decodes the record under key (a run id), reading its
// format first: a record of another format is refused, wrapping
// [runtime.ErrUnknownRecordFormat], never misread.
func unmarshalRunInfo(key, b []byte) (runtime.RunInfo, error) {
	var head struct {
		Format *int `json:"format"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return runtime.RunInfo{}, fmt.Errorf("boltstore: the info of run %q does not decode: %w: the file was damaged or written by something else; remove the run's record or the file", key, err)
	}
	switch {
	case head.Format == nil:
		return runtime.RunInfo{}, fmt.Errorf("%w: the stored info of run %q has no format", runtime.ErrUnknownRecordFormat, key)
	case *head.Format != runtime.RecordFormat:
		return runtime.RunInfo{}, fmt.Errorf("%w: the stored info of run %q is in format %d; this release reads format %d: run the release that wrote it", runtime.ErrUnknownRecordFormat, key, *head.Format, runtime.RecordFormat)
	}
	var r runRecord
	if err := json.Unmarshal(b, &r); err != nil {
		return runtime.RunInfo{}, fmt.Errorf("boltstore: the info of run %q does not decode: %w: the file was damaged or written by something else; remove the run's record or the file", key, err)
	}
	if r.RunID != string(key) {
		return runtime.RunInfo{}, fmt.Errorf("boltstore: the record under run %q holds run %q's info: the file was written by something else; remove the record or the file", key, r.RunID)
	}
	return runtime.RunInfo{
		RunID: r.RunID, SessionID: r.SessionID, Agent: r.Agent, ParentRunID: r.ParentRunID,
		Status: r.Status, Owner: r.Owner, LastSeq: r.LastSeq, StartedAt: r.StartedAt, UpdatedAt: r.UpdatedAt,
	}, nil
}

// seqKey is the key of event seq in a run's events bucket: big-endian, so
// that keys sort as sequence numbers do.
func seqKey(seq int64) []byte {
	return binary.BigEndian.AppendUint64(nil, uint64(seq))
}

// keySeq is the sequence number of an events bucket's key.
func keySeq(k []byte) (int64, error) {
	if len(k) != 8 {
		return 0, fmt.Errorf("boltstore: an event key of %d bytes, want 8 (a big-endian sequence number): the file was written by something else", len(k))
	}
	return int64(binary.BigEndian.Uint64(k)), nil
}

// marshalLease encodes the end of a lease as the run_leases bucket keeps
// it: RFC 3339 text with nanoseconds.
func marshalLease(until time.Time) ([]byte, error) {
	b, err := until.UTC().MarshalText()
	if err != nil {
		return nil, fmt.Errorf("boltstore: lease until %v: %w: give a time between years 0 and 9999", until, err)
	}
	return b, nil
}

// unmarshalLease decodes the lease of owner.
func unmarshalLease(owner, b []byte) (time.Time, error) {
	var t time.Time
	if err := t.UnmarshalText(b); err != nil {
		return time.Time{}, fmt.Errorf("boltstore: the lease of owner %q does not decode: %w: the file was damaged or written by something else; renew the lease (Renew) or remove it", owner, err)
	}
	return t, nil
}
