package redisstore

import (
	"context"
	"fmt"
	"time"

	"github.com/quiver-go/quiver/internal/redisconn"
	"github.com/quiver-go/quiver/runtime"
)

// takenKeep is how long a taken checkpoint stays under its "taken" key,
// and expired ones under their expiry's "expired" key: long enough for
// go-redis to send the script again after a broken connection and get the
// records, not to keep them around.
const takenKeep = time.Minute

func (s *Store) checkpointKey(runID string) string { return s.prefix + "checkpoint:" + runID }
func (s *Store) takenKey(runID string) string      { return s.prefix + "taken:" + runID }
func (s *Store) suspendedKey() string              { return s.prefix + "suspended" }
func (s *Store) expiryKey() string                 { return s.prefix + "expiry" }
func (s *Store) expiredKey(nonce string) string    { return s.prefix + "expired:" + nonce }

// Put implements [runtime.SuspensionStore].
func (s *Store) Put(ctx context.Context, c runtime.Checkpoint) error {
	b, err := runtime.MarshalCheckpoint(c)
	if err != nil {
		return err
	}
	expires := ""
	if !c.ExpiresAt.IsZero() {
		if expires, err = timeKey(c.ExpiresAt); err != nil {
			return fmt.Errorf("redisstore: put the checkpoint of run %q: its expiry: %w", c.RunID, err)
		}
	}
	_, err = s.conn.Eval(ctx, fmt.Sprintf("put the checkpoint of run %q", c.RunID), scriptPut, false,
		[]string{s.checkpointKey(c.RunID), s.suspendedKey(), s.expiryKey()},
		c.RunID, b, recordFormat, c.SuspendedAt.UnixMilli(), expires)
	return err
}

// Take implements [runtime.SuspensionStore]: one script reads and deletes
// the checkpoint, so of concurrent takers, in any process, one gets it.
// A checkpoint another release wrote (another record format) is refused
// and left in place.
func (s *Store) Take(ctx context.Context, runID string, now time.Time) (runtime.Checkpoint, error) {
	what := fmt.Sprintf("checkpoint of run %q", runID)
	reply, err := s.conn.Eval(ctx, "take the "+what, scriptTake, false,
		[]string{s.checkpointKey(runID), s.suspendedKey(), s.expiryKey(), s.takenKey(runID)},
		runID, recordFormat, redisconn.Nonce(), takenKeep.Milliseconds())
	if err != nil {
		return runtime.Checkpoint{}, err
	}
	switch redisconn.Str(reply[0]) {
	case "none":
		return runtime.Checkpoint{}, runtime.NotSuspended(runID)
	case "format":
		return runtime.Checkpoint{}, unknownFormat(what, redisconn.Str(reply[1]))
	case "ok":
	default:
		return runtime.Checkpoint{}, fmt.Errorf("redisstore: take the %s: unexpected reply %v", what, reply)
	}
	c, err := runtime.UnmarshalCheckpoint([]byte(redisconn.Str(reply[1])))
	if err != nil {
		return runtime.Checkpoint{}, fmt.Errorf("redisstore: take the %s (removed: it cannot be continued): %w", what, err)
	}
	if runtime.Expired(c, now) {
		return runtime.Checkpoint{}, runtime.SuspensionExpired(c)
	}
	return c, nil
}

// List implements [runtime.SuspensionStore]: one read-only script reads
// every checkpoint at one instant; the filter and the order are applied
// here.
func (s *Store) List(ctx context.Context, f runtime.SuspendedFilter) ([]runtime.Checkpoint, error) {
	reply, err := s.conn.Eval(ctx, "list the checkpoints", scriptList, true, []string{s.suspendedKey()}, s.prefix)
	if err != nil {
		return nil, err
	}
	var out []runtime.Checkpoint
	for i := 1; i+2 < len(reply); i += 3 {
		id, format, rec := redisconn.Str(reply[i]), redisconn.Str(reply[i+1]), redisconn.Str(reply[i+2])
		what := fmt.Sprintf("checkpoint of run %q", id)
		if format != recordFormat {
			return nil, fmt.Errorf("redisstore: list the checkpoints: %w", unknownFormat(what, format))
		}
		c, err := runtime.UnmarshalCheckpoint([]byte(rec))
		if err != nil {
			return nil, fmt.Errorf("redisstore: list the checkpoints: %s: %w", what, err)
		}
		if f.Matches(c) {
			c.State = nil
			out = append(out, c)
		}
	}
	runtime.SortCheckpoints(out)
	return out, nil
}

// Expire implements [runtime.SuspensionStore]: one script removes and
// returns the checkpoints expired at now, so that of concurrent expirers
// each checkpoint is reported by one. Checkpoints of another record format
// are left for the release that reads them. A removed record that does
// not decode is returned as an error beside the checkpoints that do.
func (s *Store) Expire(ctx context.Context, now time.Time) ([]runtime.Checkpoint, error) {
	at, err := timeKey(now)
	if err != nil {
		return nil, fmt.Errorf("redisstore: expire checkpoints: now: %w", err)
	}
	nonce := redisconn.Nonce()
	reply, err := s.conn.Eval(ctx, "expire checkpoints", scriptExpire, false, []string{s.suspendedKey(), s.expiryKey(), s.expiredKey(nonce)},
		s.prefix, at, recordFormat, nonce, takenKeep.Milliseconds())
	if err != nil {
		return nil, err
	}
	out := make([]runtime.Checkpoint, 0, len(reply)-1)
	var bad error
	for _, r := range reply[1:] {
		c, err := runtime.UnmarshalCheckpoint([]byte(redisconn.Str(r)))
		if err != nil {
			// Removed all the same: report the others, then this.
			bad = fmt.Errorf("redisstore: expire checkpoints: a removed checkpoint does not decode: %w", err)
			continue
		}
		c.State = nil
		out = append(out, c)
	}
	runtime.SortCheckpoints(out)
	return out, bad
}
