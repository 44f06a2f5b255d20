package runtime

import (
	"context"
	"errors"
	"time"
)

// followBatch is how many events a follower reads at once, and
// followWait how long one Wait blocks before the follower checks again.
const (
	followBatch = 256
	followWait  = 10 * time.Second
)

// FollowRunLog calls fn with each event of the run after sequence number
// after, in order, as the log records them, and returns once the run has
// ended or suspended and fn has seen its every event (nil), when ctx is
// done (its error), or when fn fails (that error). It may start before
// the run's first event. The cursor is the Seq of the last event fn saw:
// a follower that stops, or loses its connection, follows on from there
// and misses nothing. A follower never holds a run back: it reads what
// the run has already recorded.
func FollowRunLog(ctx context.Context, log RunLog, runID string, after int64, fn func(EventRecord) error) error {
	for {
		recs, err := log.Read(ctx, runID, after, followBatch)
		if err != nil {
			return err
		}
		for _, rec := range recs {
			if err := fn(rec); err != nil {
				return err
			}
			after = rec.Seq
		}
		if len(recs) == followBatch {
			continue
		}
		info, err := log.Run(ctx, runID)
		switch {
		case err == nil && info.LastSeq <= after && (info.Status.Ended() || info.Status == StatusSuspended):
			return nil
		case err != nil && !errors.Is(err, ErrUnknownRun):
			return err
		case err == nil && info.LastSeq > after:
			continue
		}
		if _, err := log.Wait(ctx, runID, after, followWait); err != nil {
			return err
		}
	}
}

// Follow follows a run in the runtime's run log ([FollowRunLog]).
func (rt *Runtime) Follow(ctx context.Context, runID string, after int64, fn func(EventRecord) error) error {
	return FollowRunLog(ctx, rt.runLog, runID, after, fn)
}

// RunLog returns the runtime's run log ([WithRunLog], [WithStore]; in
// memory by default).
func (rt *Runtime) RunLog() RunLog { return rt.runLog }
