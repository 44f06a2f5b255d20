package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// EventFormat is the version of the event contract ([EventRecord]'s "v"):
// within a version fields and event types are only added, never renamed or
// removed, and readers ignore what they do not know. A record of another
// version is refused ([ErrUnknownRecordFormat]), never misread.
const EventFormat = 1

// MaxEventDataBytes bounds the data of one event in a run log: 4 MiB. The
// data of a bigger event (a huge tool result) is left out of its record,
// which says how big it was ([EventRecord.DataOmitted]); the run itself
// is unaffected.
const MaxEventDataBytes = 4 << 20

// EventRecord is an event as a run log keeps it: the envelope every event
// carries, its type, and its type's data as JSON. Its JSON is the stable
// wire shape of event contract v1:
//
//	{"v":1,"type":"tool_result","run_id":"run-1","session_id":"s-1","seq":5,
//	 "time":"2026-12-01T10:00:00Z","step":1,"call_id":"c-1",
//	 "data":{"tool":"orders.lookup","result":{"rows":3}}}
type EventRecord struct {
	// Version is EventFormat.
	Version int       `json:"v"`
	Type    EventType `json:"type"`
	EventHeader
	// Data is the event's own fields (the JSON of its type, e.g.
	// [ToolResultReceived]).
	Data json.RawMessage `json:"data,omitempty"`
	// DataOmitted is the size of data left out for exceeding
	// MaxEventDataBytes (0: none left out).
	DataOmitted int `json:"data_omitted,omitempty"`
}

// NewEventRecord returns the record of e. Data that does not encode (a
// raw JSON field holding something else) is replaced by
// {"data_error": why}: the record of an event is never lost.
func NewEventRecord(e Event) EventRecord {
	h := e.Head()
	if u, ok := e.(UnknownEvent); ok {
		return EventRecord{Version: EventFormat, Type: u.Kind, EventHeader: h, Data: u.Data}
	}
	data, err := json.Marshal(e)
	if err != nil {
		data, _ = json.Marshal(map[string]string{"data_error": err.Error()})
	}
	rec := EventRecord{Version: EventFormat, Type: e.Type(), EventHeader: h, Data: data}
	if len(data) > MaxEventDataBytes {
		rec.Data, rec.DataOmitted = nil, len(data)
	}
	return rec
}

// Event returns the typed event of rec: one of this package's event types,
// or [UnknownEvent] for a type this release does not know. Data fields it
// does not know are ignored.
func (rec EventRecord) Event() (Event, error) {
	decode, ok := eventDecoders[rec.Type]
	if !ok {
		return UnknownEvent{EventHeader: rec.EventHeader, Kind: rec.Type, Data: rec.Data}, nil
	}
	e, err := decode(rec.Data)
	if err != nil {
		return nil, fmt.Errorf("runtime: %s event %d of run %s: its data does not decode: %w", rec.Type, rec.Seq, rec.RunID, err)
	}
	return e.withHead(rec.EventHeader), nil
}

// eventDecoders decode each known event type's data.
var eventDecoders = map[EventType]func(json.RawMessage) (Event, error){
	EventRunStarted:             decodeAs[RunStarted],
	EventPlanned:                decodeAs[Planned],
	EventToolCallScheduled:      decodeAs[ToolCallScheduled],
	EventToolResult:             decodeAs[ToolResultReceived],
	EventAwaiting:               decodeAs[Awaiting],
	EventConfirmation:           decodeAs[ConfirmationDecided],
	EventUsage:                  decodeAs[UsageReported],
	EventRunCompleted:           decodeAs[RunCompleted],
	EventRunFailed:              decodeAs[RunFailed],
	EventRunCancelled:           decodeAs[RunCancelled],
	EventRunInterrupted:         decodeAs[RunInterrupted],
	EventCacheCheckpointIgnored: decodeAs[CacheCheckpointIgnored],
	EventRegistryRead:           decodeAs[RegistryRead],
	EventTextDelta:              decodeAs[TextDelta],
	EventToolCallStreaming:      decodeAs[ToolCallStreaming],
	EventSearchRound:            decodeAs[SearchRound],
	EventStreamUsage:            decodeAs[StreamUsage],
	EventPlanningRetried:        decodeAs[PlanningRetried],
	EventToolProgress:           decodeAs[ToolProgress],
}

// decodeAs decodes data as an event of type E (no data: its zero value).
func decodeAs[E Event](data json.RawMessage) (Event, error) {
	var e E
	if len(data) > 0 {
		if err := json.Unmarshal(data, &e); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// UnknownEvent is an event of a type this release does not know (a newer
// release wrote it): its header and raw data, kept so that a reader can
// skip it, show it, or copy it on.
type UnknownEvent struct {
	EventHeader
	Kind EventType
	Data json.RawMessage
}

// Type implements [Event].
func (u UnknownEvent) Type() EventType { return u.Kind }

func (u UnknownEvent) withHead(h EventHeader) Event { u.EventHeader = h; return u }

// MarshalEvent encodes rec as a run log stores it, after checking what
// every record must hold (a run id, a sequence number from 1, a type).
func MarshalEvent(rec EventRecord) ([]byte, error) {
	if err := rec.check(); err != nil {
		return nil, err
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return nil, fmt.Errorf("runtime: encode event %d of run %s: %w", rec.Seq, rec.RunID, err)
	}
	if len(b) > MaxRecordBytes {
		return nil, fmt.Errorf("%w: event %d of run %s is %d bytes, over %d", ErrRecordTooLarge, rec.Seq, rec.RunID, len(b), MaxRecordBytes)
	}
	return b, nil
}

// UnmarshalEvent decodes a record MarshalEvent wrote. A record of another
// contract version fails wrapping [ErrUnknownRecordFormat]; one that is
// not JSON, or lacks a run id, a sequence number or a type, fails saying
// which.
func UnmarshalEvent(b []byte) (EventRecord, error) {
	if len(b) > MaxRecordBytes {
		return EventRecord{}, fmt.Errorf("%w: a stored event of %d bytes, over %d", ErrRecordTooLarge, len(b), MaxRecordBytes)
	}
	var rec EventRecord
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&rec); err != nil {
		return EventRecord{}, fmt.Errorf("runtime: a stored event does not decode: %w", err)
	}
	if dec.More() {
		return EventRecord{}, errors.New("runtime: a stored event is followed by more data")
	}
	if rec.Version != EventFormat {
		return EventRecord{}, fmt.Errorf("%w: a stored event in event format %d; this release reads format %d: read it with the release that wrote it", ErrUnknownRecordFormat, rec.Version, EventFormat)
	}
	if err := rec.check(); err != nil {
		return EventRecord{}, fmt.Errorf("runtime: a stored event: %w", err)
	}
	return rec, nil
}

// check reports what a record lacks.
func (rec EventRecord) check() error {
	switch {
	case rec.Version != EventFormat:
		return fmt.Errorf("%w: event format %d, want %d", ErrUnknownRecordFormat, rec.Version, EventFormat)
	case rec.RunID == "":
		return errors.New("runtime: an event without a run id")
	case rec.Seq < 1:
		return fmt.Errorf("runtime: event of run %s has sequence number %d: they start at 1", rec.RunID, rec.Seq)
	case rec.Type == "":
		return fmt.Errorf("runtime: event %d of run %s has no type", rec.Seq, rec.RunID)
	case len(rec.Data) > 0 && !json.Valid(rec.Data):
		return fmt.Errorf("runtime: event %d of run %s: its data is not JSON", rec.Seq, rec.RunID)
	}
	return nil
}

// StatusAfter returns a run's status once an event of type t is recorded,
// given its status before (empty for a run with no event yet): the rule
// every run log applies.
func StatusAfter(prev RunStatus, t EventType) RunStatus {
	switch t {
	case EventRunStarted:
		return StatusRunning
	case EventAwaiting:
		return StatusSuspended
	case EventRunCompleted:
		return StatusCompleted
	case EventRunFailed:
		return StatusFailed
	case EventRunCancelled:
		return StatusCancelled
	case EventRunInterrupted:
		return StatusInterrupted
	}
	if prev == "" {
		return StatusRunning
	}
	return prev
}

// Ended reports whether a run in status s is over: nothing more is
// recorded for it.
func (s RunStatus) Ended() bool {
	switch s {
	case StatusCompleted, StatusFailed, StatusCancelled, StatusInterrupted:
		return true
	}
	return false
}
