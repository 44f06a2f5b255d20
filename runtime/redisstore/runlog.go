package redisstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/quiver-go/quiver/internal/redisconn"
	"github.com/quiver-go/quiver/runtime"
)

// waitSlice bounds one blocking XREAD of Wait: between two, Wait checks
// its context, which go-redis does not watch while a command blocks.
const waitSlice = 500 * time.Millisecond

// leaseKeep is how long an owner's lease key outlives its until (or its
// renewal, for an until already past): Stale compares the stored until
// with the caller's now, so the key only has to be there while anyone may
// ask about a time before until; a dead owner's key vanishes a day after.
const leaseKeep = 24 * time.Hour

// maxSeq is the largest sequence number append.lua compares exactly: Lua
// numbers are doubles.
const maxSeq = 1 << 53

// eventFormat is runtime.EventFormat as the "format" field of a run's
// hash.
var eventFormat = strconv.Itoa(runtime.EventFormat)

// statusSentinel is a status no run has: StatusAfter returns it for the
// types that keep a run's status.
const statusSentinel runtime.RunStatus = "\x00"

// endedStatuses are the statuses that end a run ([runtime.RunStatus.Ended]),
// space separated, for append.lua.
var endedStatuses = func() string {
	var out []string
	for _, s := range []runtime.RunStatus{runtime.StatusRunning, runtime.StatusSuspended, runtime.StatusCompleted,
		runtime.StatusFailed, runtime.StatusCancelled, runtime.StatusInterrupted} {
		if s.Ended() {
			out = append(out, string(s))
		}
	}
	return strings.Join(out, " ")
}()

// statusSet is the status an event of type t sets, "" for a type that
// keeps the run's (running for a new run): [runtime.StatusAfter] split so
// that append.lua applies it to the stored status.
func statusSet(t runtime.EventType) string {
	if s := runtime.StatusAfter(statusSentinel, t); s != statusSentinel {
		return string(s)
	}
	return ""
}

// RunLog implements [runtime.Store]: the run log on Redis, under the
// store's prefix (see the package documentation for its keys). Every
// method is one command or one script: run logs of Store values on one
// prefix, in one process or many, see each other's appends at once, and
// a follower on one wakes on another's append.
func (s *Store) RunLog() runtime.RunLog { return &runLog{s: s} }

// runLog is the store's [runtime.RunLog]: its own type, since the
// store's SuspensionStore methods take some of the names.
type runLog struct{ s *Store }

var _ runtime.RunLog = (*runLog)(nil)

func (s *Store) logKey(runID string) string           { return s.prefix + "log:" + runID }
func (s *Store) runKey(runID string) string           { return s.prefix + "run:" + runID }
func (s *Store) runsKey() string                      { return s.prefix + "runs" }
func (s *Store) runningKey() string                   { return s.prefix + "running" }
func (s *Store) sessionRunsKey(session string) string { return s.prefix + "sessionruns:" + session }
func (s *Store) leaseKey(owner string) string         { return s.prefix + "lease:" + owner }
func (s *Store) expiredRunsKey(nonce string) string   { return s.prefix + "expiredruns:" + nonce }

// Append implements [runtime.RunLog]: the records are encoded and
// checked here (one run, a run id, seqs from 1, the size bound), then one
// script applies runtime.PlanAppend's rules to the stored run and writes
// every new event, or nothing.
func (l *runLog) Append(ctx context.Context, owner string, events []runtime.EventRecord) error {
	if err := l.s.conn.Usable(ctx); err != nil {
		return err
	}
	if len(events) == 0 {
		return nil
	}
	if owner == "" {
		return errors.New("redisstore: an Append without an owner: name the runtime instance appending (Runtime.Owner)")
	}
	first := events[0]
	args := make([]any, 0, 9+4*len(events))
	args = append(args, first.RunID, owner, eventFormat, string(runtime.StatusRunning), endedStatuses,
		first.SessionID, first.Agent, first.ParentRunID, len(events))
	for i, rec := range events {
		if i > 0 && rec.RunID != first.RunID {
			return fmt.Errorf("redisstore: one Append holds events of runs %s and %s: append each run's events apart", first.RunID, rec.RunID)
		}
		b, err := runtime.MarshalEvent(rec)
		if err != nil {
			return err
		}
		if rec.Seq > maxSeq {
			return fmt.Errorf("redisstore: event %d of run %s: its sequence number is over 2^53, the largest the store's scripts compare exactly (as Lua numbers)", rec.Seq, rec.RunID)
		}
		at, err := timeKey(rec.Time)
		if err != nil {
			return fmt.Errorf("redisstore: append event %d of run %s: its time: %w", rec.Seq, rec.RunID, err)
		}
		args = append(args, strconv.FormatInt(rec.Seq, 10), b, statusSet(rec.Type), at)
	}
	what := fmt.Sprintf("append %d events of run %s", len(events), first.RunID)
	reply, err := l.s.conn.Eval(ctx, what, scriptAppend, false,
		[]string{l.s.logKey(first.RunID), l.s.runKey(first.RunID), l.s.runsKey(), l.s.runningKey(), l.s.sessionRunsKey(first.SessionID)},
		args...)
	if err != nil {
		return err
	}
	// rec is the event a refusal names (its index, from 1, in reply[1]).
	rec := func() (runtime.EventRecord, bool) {
		i, ok := reply[1].(int64)
		if len(reply) < 3 || !ok || i < 1 || i > int64(len(events)) {
			return runtime.EventRecord{}, false
		}
		return events[i-1], true
	}
	switch redisconn.Str(reply[0]) {
	case "ok":
		return nil
	case "conflict":
		if r, ok := rec(); ok && len(reply) > 3 && runtime.RunStatus(redisconn.Str(reply[3])).Ended() {
			// A writer that lost its lease, where the run's end now is.
			return fmt.Errorf("%w (%w): run %s is %s, recorded by %s, and its event %d holds another %s event than the one appended",
				runtime.ErrRunEnded, runtime.ErrEventConflict, r.RunID, redisconn.Str(reply[3]), redisconn.Str(reply[2]), r.Seq, r.Type)
		}
		if r, ok := rec(); ok {
			return fmt.Errorf("%w: event %d of run %s is stored already, and the one appended differs (a %s event, stored by the run's owner %s): two runtimes are writing this run",
				runtime.ErrEventConflict, r.Seq, r.RunID, r.Type, redisconn.Str(reply[2]))
		}
	case "gap":
		if r, ok := rec(); ok {
			return fmt.Errorf("%w: event %d of run %s follows event %v: append the events in between first", runtime.ErrEventGap, r.Seq, r.RunID, reply[2])
		}
	case "ended":
		if r, ok := rec(); ok {
			return fmt.Errorf("%w: run %s is %s, so its event %d (%s) is not recorded", runtime.ErrRunEnded, r.RunID, redisconn.Str(reply[2]), r.Seq, r.Type)
		}
	case "format":
		if len(reply) > 1 {
			return fmt.Errorf("redisstore: %s: %w", what, unknownRunFormat(first.RunID, redisconn.Str(reply[1])))
		}
	case "damaged":
		if len(reply) > 1 {
			return fmt.Errorf("redisstore: %s: the run's keys %s and %s disagree: %s; they were changed by something else than this package (run Redis with maxmemory-policy noeviction): delete both to drop the run",
				what, l.s.logKey(first.RunID), l.s.runKey(first.RunID), redisconn.Str(reply[1]))
		}
	}
	return fmt.Errorf("redisstore: %s: unexpected reply %v", what, reply)
}

// Read implements [runtime.RunLog]: one XRANGE from entry 0-(after+1).
func (l *runLog) Read(ctx context.Context, runID string, after int64, limit int) ([]runtime.EventRecord, error) {
	if err := l.s.conn.Usable(ctx); err != nil {
		return nil, err
	}
	what := fmt.Sprintf("read the events of run %s after %d", runID, after)
	if after >= maxSeq {
		return nil, nil // no event is stored there (and after+1 may overflow)
	}
	start := "0-" + strconv.FormatInt(max(after, 0)+1, 10)
	var msgs []redis.XMessage
	var err error
	if limit > 0 {
		msgs, err = l.s.conn.C.XRangeN(ctx, l.s.logKey(runID), start, "+", int64(limit)).Result()
	} else {
		msgs, err = l.s.conn.C.XRange(ctx, l.s.logKey(runID), start, "+").Result()
	}
	if err != nil {
		return nil, l.s.conn.Failed(ctx, what, err)
	}
	out := make([]runtime.EventRecord, 0, len(msgs))
	for _, m := range msgs {
		b, ok := m.Values["e"].(string)
		if !ok {
			return nil, fmt.Errorf("redisstore: %s: stream entry %s of %s has no field e: the key was written by something else than this package", what, m.ID, l.s.logKey(runID))
		}
		rec, err := runtime.UnmarshalEvent([]byte(b))
		if err != nil {
			return nil, fmt.Errorf("redisstore: %s: stream entry %s: %w", what, m.ID, err)
		}
		if id := "0-" + strconv.FormatInt(rec.Seq, 10); id != m.ID || rec.RunID != runID {
			return nil, fmt.Errorf("redisstore: %s: stream entry %s holds event %d of run %s: the key was written by something else than this package", what, m.ID, rec.Seq, rec.RunID)
		}
		out = append(out, rec)
	}
	return out, nil
}

// Wait implements [runtime.RunLog]: XREAD BLOCK on the run's stream
// (which need not exist yet) from entry 0-after, at most waitSlice at a
// time so that ctx is checked between two.
func (l *runLog) Wait(ctx context.Context, runID string, after int64, timeout time.Duration) (bool, error) {
	deadline := time.Now().Add(timeout)
	args := &redis.XReadArgs{Streams: []string{l.s.logKey(runID), "0-" + strconv.FormatInt(max(after, 0), 10)}, Count: 1}
	for {
		if err := l.s.conn.Usable(ctx); err != nil {
			return false, err
		}
		// Block is in whole milliseconds, and BLOCK 0 is forever: under a
		// millisecond left, one last look without blocking (-1).
		args.Block = min(time.Until(deadline), waitSlice).Truncate(time.Millisecond)
		last := args.Block <= 0
		if last {
			args.Block = -1
		}
		res, err := l.s.conn.C.XRead(ctx, args).Result()
		switch {
		case err == nil && len(res) > 0 && len(res[0].Messages) > 0:
			return true, nil
		case err != nil && !errors.Is(err, redis.Nil):
			return false, l.s.conn.Failed(ctx, fmt.Sprintf("wait for an event of run %s after %d", runID, after), err)
		case last:
			return false, nil
		}
	}
}

// Run implements [runtime.RunLog].
func (l *runLog) Run(ctx context.Context, runID string) (runtime.RunInfo, error) {
	if err := l.s.conn.Usable(ctx); err != nil {
		return runtime.RunInfo{}, err
	}
	got, err := l.s.conn.C.HMGet(ctx, l.s.runKey(runID), runFields...).Result()
	if err != nil {
		return runtime.RunInfo{}, l.s.conn.Failed(ctx, "read run "+runID, err)
	}
	if got[3] == nil {
		return runtime.RunInfo{}, fmt.Errorf("%w: %q", runtime.ErrUnknownRun, runID)
	}
	vals := make([]string, len(got))
	for i, v := range got {
		vals[i] = redisconn.Str(v)
	}
	info, err := parseRunInfo(runID, vals)
	if err != nil {
		return runtime.RunInfo{}, fmt.Errorf("redisstore: read run %s: %w", runID, err)
	}
	return info, nil
}

// Runs implements [runtime.RunLog]: one read-only script reads the runs
// of the session's index (or of every run) with the agent and status
// asked; the order and the limit are applied here.
func (l *runLog) Runs(ctx context.Context, f runtime.RunFilter) ([]runtime.RunInfo, error) {
	index, kind := l.s.runsKey(), "all"
	if f.SessionID != "" {
		index, kind = l.s.sessionRunsKey(f.SessionID), "session"
	}
	reply, err := l.s.conn.Eval(ctx, "list the runs", scriptRuns, true, []string{index}, l.s.prefix, kind, f.Agent, string(f.Status), f.Limit)
	if err != nil {
		return nil, err
	}
	out, err := parseRuns(reply, 0)
	if err != nil {
		return nil, fmt.Errorf("redisstore: list the runs: %w", err)
	}
	var kept []runtime.RunInfo
	for _, r := range out {
		if f.Matches(r.RunInfo) {
			kept = append(kept, r.RunInfo)
		}
	}
	runtime.SortRunsRecentFirst(kept)
	if f.Limit > 0 && len(kept) > f.Limit {
		kept = kept[:f.Limit]
	}
	return kept, nil
}

// Renew implements [runtime.RunLog]: owner's lease key holds until (a
// time key), replacing any earlier one, and vanishes leaseKeep after until, or after now for an
// until already past.
func (l *runLog) Renew(ctx context.Context, owner string, until time.Time) error {
	if err := l.s.conn.Usable(ctx); err != nil {
		return err
	}
	if owner == "" {
		return errors.New("redisstore: Renew without an owner: name the runtime instance holding the lease (Runtime.Owner)")
	}
	k, err := timeKey(until)
	if err != nil {
		return fmt.Errorf("redisstore: renew the lease of %s: its until: %w", owner, err)
	}
	ttl := max(time.Until(until), 0) + leaseKeep
	if err := l.s.conn.C.Set(ctx, l.s.leaseKey(owner), k, ttl).Err(); err != nil {
		return l.s.conn.Failed(ctx, "renew the lease of "+owner, err)
	}
	return nil
}

// Stale implements [runtime.RunLog]: one read-only script reads the
// running runs and their owners' leases; a lease counts when its until is
// after now (the caller's clock, not Redis's).
func (l *runLog) Stale(ctx context.Context, now time.Time) ([]runtime.RunInfo, error) {
	reply, err := l.s.conn.Eval(ctx, "list the stale runs", scriptStale, true, []string{l.s.runningKey()}, l.s.prefix, string(runtime.StatusRunning))
	if err != nil {
		return nil, err
	}
	runs, err := parseRuns(reply, 1)
	if err != nil {
		return nil, fmt.Errorf("redisstore: list the stale runs: %w", err)
	}
	var out []runtime.RunInfo
	for _, r := range runs {
		if r.lease != "" {
			until, err := fromTimeKey(r.lease)
			if err != nil {
				return nil, fmt.Errorf("redisstore: list the stale runs: the lease of %s (key %s): %w", r.Owner, l.s.leaseKey(r.Owner), err)
			}
			if until.After(now) {
				continue
			}
		}
		out = append(out, r.RunInfo)
	}
	runtime.SortRunsOldestFirst(out)
	return out, nil
}

// Expire implements [runtime.RunLog]: one script removes and returns the
// runs not running updated before before, so that of concurrent expirers
// each run is reported by one. Runs of another format are left for the
// release that reads them.
func (l *runLog) Expire(ctx context.Context, before time.Time) ([]runtime.RunInfo, error) {
	cut, err := timeKey(before)
	if err != nil {
		return nil, fmt.Errorf("redisstore: expire runs: before: %w", err)
	}
	nonce := redisconn.Nonce()
	reply, err := l.s.conn.Eval(ctx, "expire runs", scriptExpireRuns, false,
		[]string{l.s.runsKey(), l.s.runningKey(), l.s.expiredRunsKey(nonce)},
		l.s.prefix, cut, eventFormat, nonce, takenKeep.Milliseconds(), string(runtime.StatusRunning))
	if err != nil {
		return nil, err
	}
	runs, bad := parseRuns(reply, 0)
	if bad != nil {
		// Removed all the same: report the others, then this.
		bad = fmt.Errorf("redisstore: expire runs: a removed run: %w", bad)
	}
	out := make([]runtime.RunInfo, 0, len(runs))
	for _, r := range runs {
		out = append(out, r.RunInfo)
	}
	runtime.SortRunsOldestFirst(out)
	return out, bad
}

// runFields are the fields of a run's hash, in the order the scripts
// reply them.
var runFields = []string{"format", "status", "owner", "last", "session", "agent", "parent", "started", "updated"}

// scannedRun is a run a script replied, with its owner's lease for
// stale.lua.
type scannedRun struct {
	runtime.RunInfo
	lease string
}

// parseRuns decodes a script's reply {'ok', then for each run its id,
// runFields and extra more values}: the runs that decode, and the error
// of the first that does not.
func parseRuns(reply []any, extra int) ([]scannedRun, error) {
	n := 1 + len(runFields) + extra
	if (len(reply)-1)%n != 0 {
		return nil, fmt.Errorf("a reply of %d values, not 1 + %d a run", len(reply), n)
	}
	out := make([]scannedRun, 0, (len(reply)-1)/n)
	vals := make([]string, len(runFields))
	var bad error
	for i := 1; i < len(reply); i += n {
		id := redisconn.Str(reply[i])
		for j := range vals {
			vals[j] = redisconn.Str(reply[i+1+j])
		}
		info, err := parseRunInfo(id, vals)
		if err != nil {
			bad = cmp.Or(bad, err)
			continue
		}
		r := scannedRun{RunInfo: info}
		if extra > 0 {
			r.lease = redisconn.Str(reply[i+1+len(runFields)])
		}
		out = append(out, r)
	}
	return out, bad
}

// parseRunInfo decodes the runFields of run id's hash.
func parseRunInfo(id string, v []string) (runtime.RunInfo, error) {
	if v[0] != eventFormat {
		return runtime.RunInfo{}, unknownRunFormat(id, v[0])
	}
	bad := func(field string, err error) error {
		return fmt.Errorf("run %s: its hash's %s field: %w; the key was written by something else than this package", id, field, err)
	}
	last, err := strconv.ParseInt(v[3], 10, 64)
	if err != nil {
		return runtime.RunInfo{}, bad("last", err)
	}
	started, err := fromTimeKey(v[7])
	if err != nil {
		return runtime.RunInfo{}, bad("started", err)
	}
	updated, err := fromTimeKey(v[8])
	if err != nil {
		return runtime.RunInfo{}, bad("updated", err)
	}
	return runtime.RunInfo{RunID: id, Status: runtime.RunStatus(v[1]), Owner: v[2], LastSeq: last,
		SessionID: v[4], Agent: v[5], ParentRunID: v[6], StartedAt: started, UpdatedAt: updated}, nil
}

// unknownRunFormat is the error of a run whose hash says another format.
func unknownRunFormat(runID, got string) error {
	if got == "" {
		return fmt.Errorf("%w: run %s's hash has no format field: it was not written by this package", runtime.ErrUnknownRecordFormat, runID)
	}
	return fmt.Errorf("%w: run %s's hash is in event format %s; this release reads format %s: run the release that wrote it", runtime.ErrUnknownRecordFormat, runID, got, eventFormat)
}
