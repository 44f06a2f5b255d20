package runtime

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// MemoryRunLogEndedRuns is how many ended runs (completed, failed,
// cancelled, interrupted) the in-memory run log keeps: once more have
// ended, the one that ended first is dropped, so that a process running
// agents for months on the default store does not keep every event it
// ever emitted. Running and suspended runs are always kept.
const MemoryRunLogEndedRuns = 1000

// memoryRunLog is the default [RunLog]: events in process memory, lost
// with the process, through the same encoding and rules as a durable log.
type memoryRunLog struct {
	mu     sync.Mutex
	runs   map[string]*memoryRun
	leases map[string]time.Time
	// ended are the ended runs, in the order they ended: the first is
	// dropped when there are more than MemoryRunLogEndedRuns.
	ended []endedRun
	// changed is closed, and replaced, at every append: waiters watch it.
	changed chan struct{}
}

// endedRun names a run that ended, by id and the time of its last event
// (an id expired and used again is another run).
type endedRun struct {
	id string
	at time.Time
}

// memoryRun is one run's info and records, record i holding seq i+1.
type memoryRun struct {
	info    RunInfo
	records [][]byte
}

// NewMemoryRunLog returns an empty in-memory run log, which keeps the
// latest MemoryRunLogEndedRuns ended runs.
func NewMemoryRunLog() RunLog {
	return &memoryRunLog{runs: map[string]*memoryRun{}, leases: map[string]time.Time{}, changed: make(chan struct{})}
}

// Append implements [RunLog].
func (l *memoryRunLog) Append(ctx context.Context, owner string, events []EventRecord) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(events) == 0 {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	run := l.runs[events[0].RunID]
	if run == nil {
		run = &memoryRun{}
	}
	info, add, err := PlanAppend(run.info, owner, events, func(seq int64) ([]byte, error) { return run.records[seq-1], nil })
	if err != nil || len(add) == 0 {
		return err
	}
	for _, e := range add {
		run.records = append(run.records, e.Record)
	}
	ended := info.Status.Ended() && !run.info.Status.Ended()
	run.info = info
	l.runs[info.RunID] = run
	if ended {
		l.dropEnded(endedRun{info.RunID, info.UpdatedAt})
	}
	close(l.changed)
	l.changed = make(chan struct{})
	return nil
}

// dropEnded records that e ended and drops the runs that ended first
// beyond MemoryRunLogEndedRuns. l.mu is held.
func (l *memoryRunLog) dropEnded(e endedRun) {
	l.ended = append(l.ended, e)
	for len(l.ended) > MemoryRunLogEndedRuns {
		old := l.ended[0]
		l.ended = l.ended[1:]
		if run := l.runs[old.id]; run != nil && run.info.Status.Ended() && run.info.UpdatedAt.Equal(old.at) {
			delete(l.runs, old.id)
		}
	}
}

// Read implements [RunLog].
func (l *memoryRunLog) Read(ctx context.Context, runID string, after int64, limit int) ([]EventRecord, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l.mu.Lock()
	var records [][]byte
	if run := l.runs[runID]; run != nil && after < int64(len(run.records)) {
		records = run.records[max(after, 0):]
	}
	l.mu.Unlock()
	if limit > 0 && len(records) > limit {
		records = records[:limit]
	}
	out := make([]EventRecord, 0, len(records))
	for _, b := range records {
		rec, err := UnmarshalEvent(b)
		if err != nil {
			return nil, fmt.Errorf("runtime: run log, run %s: %w", runID, err)
		}
		out = append(out, rec)
	}
	return out, nil
}

// Wait implements [RunLog].
func (l *memoryRunLog) Wait(ctx context.Context, runID string, after int64, timeout time.Duration) (bool, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		l.mu.Lock()
		run, changed := l.runs[runID], l.changed
		has := run != nil && run.info.LastSeq > after
		l.mu.Unlock()
		if has {
			return true, nil
		}
		select {
		case <-changed:
		case <-timer.C:
			return false, nil
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
}

// Run implements [RunLog].
func (l *memoryRunLog) Run(ctx context.Context, runID string) (RunInfo, error) {
	if err := ctx.Err(); err != nil {
		return RunInfo{}, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	run := l.runs[runID]
	if run == nil {
		return RunInfo{}, fmt.Errorf("%w: %q", ErrUnknownRun, runID)
	}
	return run.info, nil
}

// Runs implements [RunLog].
func (l *memoryRunLog) Runs(ctx context.Context, f RunFilter) ([]RunInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l.mu.Lock()
	var out []RunInfo
	for _, run := range l.runs {
		if f.Matches(run.info) {
			out = append(out, run.info)
		}
	}
	l.mu.Unlock()
	SortRunsRecentFirst(out)
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[:f.Limit]
	}
	return out, nil
}

// Renew implements [RunLog].
func (l *memoryRunLog) Renew(ctx context.Context, owner string, until time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if owner == "" {
		return errors.New("runtime: Renew without an owner: name the runtime instance holding the lease")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.leases[owner] = until
	return nil
}

// Stale implements [RunLog].
func (l *memoryRunLog) Stale(ctx context.Context, now time.Time) ([]RunInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l.mu.Lock()
	var out []RunInfo
	for _, run := range l.runs {
		if run.info.Status == StatusRunning && !l.leases[run.info.Owner].After(now) {
			out = append(out, run.info)
		}
	}
	l.mu.Unlock()
	SortRunsOldestFirst(out)
	return out, nil
}

// Expire implements [RunLog].
func (l *memoryRunLog) Expire(ctx context.Context, before time.Time) ([]RunInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l.mu.Lock()
	var out []RunInfo
	for id, run := range l.runs {
		if run.info.Status != StatusRunning && run.info.UpdatedAt.Before(before) {
			out = append(out, run.info)
			delete(l.runs, id)
		}
	}
	l.mu.Unlock()
	SortRunsOldestFirst(out)
	return out, nil
}

// SortRunsRecentFirst sorts runs the way [RunLog.Runs] returns them: the
// most recently updated first, ties by run id.
func SortRunsRecentFirst(runs []RunInfo) {
	slices.SortFunc(runs, func(a, b RunInfo) int {
		return cmp.Or(b.UpdatedAt.Compare(a.UpdatedAt), cmp.Compare(a.RunID, b.RunID))
	})
}

// SortRunsOldestFirst sorts runs the way [RunLog.Stale] and
// [RunLog.Expire] return them: the least recently updated first, ties by
// run id.
func SortRunsOldestFirst(runs []RunInfo) {
	slices.SortFunc(runs, func(a, b RunInfo) int {
		return cmp.Or(a.UpdatedAt.Compare(b.UpdatedAt), cmp.Compare(a.RunID, b.RunID))
	})
}
