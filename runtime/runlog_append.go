package runtime

import (
	"bytes"
	"errors"
	"fmt"
)

// StoredEvent is one event a run log writes: its sequence number and its
// record ([MarshalEvent]).
type StoredEvent struct {
	Seq    int64
	Record []byte
}

// PlanAppend applies the rules of [RunLog.Append] for a store that keeps
// a run's info and its events by sequence number: given the run's info
// (zero for a run with no event) and a way to read a stored record, it
// returns the info after the append and the events to write — none when
// every event is stored already. It changes nothing; the store writes
// the result in one transaction with the read of info.
func PlanAppend(info RunInfo, owner string, events []EventRecord, stored func(seq int64) ([]byte, error)) (RunInfo, []StoredEvent, error) {
	if owner == "" {
		return info, nil, errors.New("runtime: an Append without an owner: name the runtime instance appending (Runtime.Owner)")
	}
	var out []StoredEvent
	storedLast := info.LastSeq
	for i, rec := range events {
		if i > 0 && rec.RunID != events[0].RunID {
			return info, nil, fmt.Errorf("runtime: one Append holds events of runs %s and %s: append each run's events apart", events[0].RunID, rec.RunID)
		}
		b, err := MarshalEvent(rec)
		if err != nil {
			return info, nil, err
		}
		if rec.Seq <= info.LastSeq {
			// A number this batch already holds is compared with the
			// batch's own event; an earlier one with the stored record.
			var old []byte
			if rec.Seq > storedLast {
				old = out[rec.Seq-storedLast-1].Record
			} else if old, err = stored(rec.Seq); err != nil {
				return info, nil, err
			}
			if !bytes.Equal(old, b) && info.Status.Ended() {
				return info, nil, fmt.Errorf("%w (%w): run %s is %s, recorded by %s, and its event %d holds another %s event than the one appended", ErrRunEnded, ErrEventConflict, rec.RunID, info.Status, info.Owner, rec.Seq, rec.Type)
			}
			if !bytes.Equal(old, b) {
				return info, nil, fmt.Errorf("%w: event %d of run %s is recorded already, and the %s event appended there differs (the run's latest events are %s's): two runtimes are writing this run", ErrEventConflict, rec.Seq, rec.RunID, rec.Type, info.Owner)
			}
			continue
		}
		if rec.Seq != info.LastSeq+1 {
			return info, nil, fmt.Errorf("%w: event %d of run %s follows event %d: append the events in between first", ErrEventGap, rec.Seq, rec.RunID, info.LastSeq)
		}
		if info.Status.Ended() {
			return info, nil, fmt.Errorf("%w: run %s is %s, so its event %d (%s) is not recorded", ErrRunEnded, rec.RunID, info.Status, rec.Seq, rec.Type)
		}
		if info.LastSeq == 0 {
			info = RunInfo{RunID: rec.RunID, SessionID: rec.SessionID, Agent: rec.Agent, ParentRunID: rec.ParentRunID, StartedAt: rec.Time}
		}
		info.Status = StatusAfter(info.Status, rec.Type)
		info.Owner, info.LastSeq, info.UpdatedAt = owner, rec.Seq, rec.Time
		out = append(out, StoredEvent{Seq: rec.Seq, Record: b})
	}
	return info, out, nil
}
