package runtime

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/quiver-go/quiver/toolcall"
)

// DefaultRunLease is how long a runtime's lease on its running runs lasts
// unless [WithRunLease] says otherwise: 30 seconds, renewed every third
// of it.
const DefaultRunLease = 30 * time.Second

// DefaultRunLogRetention is how long a run log keeps a run that is no
// longer running unless [WithRunLogRetention] says otherwise: 30 days.
const DefaultRunLogRetention = 30 * 24 * time.Hour

// WithRunLog records every run's events in l instead of memory: a durable
// log (runtime/boltstore, runtime/redisstore) outlives the process and
// lets other processes follow runs. A runtime on a log of its own choosing
// holds a lease on the runs it runs ([WithRunLease]) and records those of
// an owner whose lease lapsed as interrupted ([Runtime.RecoverInterrupted]).
func WithRunLog(l RunLog) Option {
	return func(rt *Runtime) error {
		if l == nil {
			return errors.New("WithRunLog: run log is nil")
		}
		rt.runLog, rt.runLogShared = l, true
		return nil
	}
}

// WithRunLease sets how long the runtime's lease on its running runs lasts
// (default 30s; renewed every third of it). A runtime on the same run log
// records a run as interrupted once its owner's lease has lapsed: a
// crashed process's runs are reported that long after the crash at most,
// plus the recovering runtime's own renewal period. It must exceed the
// clock skew between the runtimes' machines.
func WithRunLease(d time.Duration) Option {
	return func(rt *Runtime) error {
		if d < 100*time.Millisecond {
			return fmt.Errorf("WithRunLease(%s): a lease lasts 100ms at least", d)
		}
		rt.lease.ttl = d
		return nil
	}
}

// WithRunLogRetention keeps a run that is no longer running in the run log
// for d after its latest event; [Runtime.ExpireRunLog] removes older
// ones. 0 keeps them until removed otherwise.
func WithRunLogRetention(d time.Duration) Option {
	return func(rt *Runtime) error {
		if d < 0 {
			return fmt.Errorf("WithRunLogRetention(%s): a retention is positive, or 0 for none", d)
		}
		rt.runLogRetention = d
		return nil
	}
}

// ExpireRunLog removes the runs kept past the run log's retention
// ([WithRunLogRetention]) and returns them.
func (rt *Runtime) ExpireRunLog(ctx context.Context) ([]RunInfo, error) {
	if rt.runLogRetention == 0 {
		return nil, nil
	}
	out, err := rt.runLog.Expire(ctx, time.Now().Add(-rt.runLogRetention))
	if err != nil {
		return nil, fmt.Errorf("runtime: expire the run log: %w", err)
	}
	return out, nil
}

// Owner is the id this runtime appends its runs' events under and holds
// its lease as: host, process id and a random suffix.
func (rt *Runtime) Owner() string { return rt.owner }

// durableOwnerSuffix ends the owner id of a runtime on a durable engine
// (engine.Durable): when its process dies, its runs go on on another
// worker, so RecoverInterrupted leaves them alone.
const durableOwnerSuffix = "/durable"

// newOwner returns a runtime instance id.
func newOwner() string {
	host, _ := os.Hostname()
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}

// runLease keeps the runtime's lease on its running runs.
type runLease struct {
	ttl   time.Duration
	mu    sync.Mutex
	until time.Time
	start sync.Once
	// stopped is closed when the renewal loop has returned (nil while
	// none was started): Close waits for it.
	stopped chan struct{}
}

// holdLease makes sure the lease lasts more than half its length from
// now, renewing it when it does not: a run starts only under a held lease.
func (rt *Runtime) holdLease(ctx context.Context) error { return rt.renewLease(ctx, false) }

// renewLease renews the lease, unless it lasts more than half its length
// from now and force is unset.
func (rt *Runtime) renewLease(ctx context.Context, force bool) error {
	l := &rt.lease
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if !force && l.until.Sub(now) > l.ttl/2 {
		return nil
	}
	until := now.Add(l.ttl)
	if err := rt.runLog.Renew(ctx, rt.owner, until); err != nil {
		return fmt.Errorf("runtime: renew the lease of %s on its runs in the run log: %w", rt.owner, err)
	}
	l.until = until
	return nil
}

// keepLease renews the lease every third of its length and records the
// runs of lapsed owners as interrupted, from New until Close.
func (rt *Runtime) keepLease() {
	rt.lease.start.Do(func() {
		rt.lease.stopped = make(chan struct{})
		// A renewal in progress when the runtime closes is cancelled, and
		// Close waits for it: nothing touches the store after Close.
		closing, cancelClosing := context.WithCancel(context.Background())
		go func() {
			<-rt.closing
			cancelClosing()
		}()
		go func() {
			defer close(rt.lease.stopped)
			tick := time.NewTicker(rt.lease.ttl / 3)
			defer tick.Stop()
			for {
				ctx, cancel := context.WithTimeout(closing, rt.lease.ttl/3)
				if err := rt.renewLease(ctx, true); err != nil && closing.Err() == nil {
					slog.Warn("quiver runtime: lease not renewed; its runs may be recorded interrupted", "owner", rt.owner, "err", err)
				}
				if _, err := rt.RecoverInterrupted(ctx); err != nil && closing.Err() == nil {
					slog.Warn("quiver runtime: interrupted runs not recorded", "err", err)
				}
				cancel()
				select {
				case <-rt.closing:
					return
				case <-tick.C:
				}
			}
		}()
	})
}

// RecoverInterrupted records as interrupted the runs of the run log still
// running under an owner whose lease has lapsed — a process that died —
// and returns them. Before each [RunInterrupted] it records, for every call
// the run started with no recorded outcome, a [ToolResultReceived] whose
// failure kind is [toolcall.KindOutcomeUnknown]. Nothing is run again:
// whether such a call took effect is for its executor (which had its
// tool call id as idempotency key) or a person to tell. Runs last
// recorded by a runtime on a durable engine ([engine.Durable]) are left
// alone: their engine continues them on another worker. A runtime on a
// run log given with [WithRunLog] or [WithStore] calls it when it starts
// and at every lease renewal; runs it owns are never touched.
func (rt *Runtime) RecoverInterrupted(ctx context.Context) ([]RunInfo, error) {
	stale, err := rt.runLog.Stale(ctx, time.Now())
	if err != nil {
		return nil, fmt.Errorf("runtime: read the run log's stale runs: %w", err)
	}
	var out []RunInfo
	for _, info := range stale {
		if info.Owner == rt.owner || strings.HasSuffix(info.Owner, durableOwnerSuffix) {
			continue
		}
		recs, err := rt.runLog.Read(ctx, info.RunID, 0, 0)
		if err != nil {
			return out, fmt.Errorf("runtime: read interrupted run %s: %w", info.RunID, err)
		}
		marks := interruptionRecords(info, recs, time.Now().UTC())
		err = rt.runLog.Append(ctx, rt.owner, marks)
		switch {
		case errors.Is(err, ErrEventConflict) || errors.Is(err, ErrEventGap) || errors.Is(err, ErrRunEnded):
			continue // its owner came back, or another runtime recorded it
		case err != nil:
			return out, fmt.Errorf("runtime: record run %s interrupted: %w", info.RunID, err)
		}
		info.Status, info.LastSeq, info.UpdatedAt = StatusInterrupted, marks[len(marks)-1].Seq, marks[len(marks)-1].Time
		out = append(out, info)
	}
	return out, nil
}

// interruptionRecords are the events that close an interrupted run: an
// outcome_unknown result for each call scheduled without a result, then
// the interruption.
func interruptionRecords(info RunInfo, recs []EventRecord, now time.Time) []EventRecord {
	var open []EventRecord
	for _, rec := range recs {
		switch rec.Type {
		case EventToolCallScheduled:
			open = append(open, rec)
		case EventToolResult:
			for i, o := range open {
				if o.CallID == rec.CallID {
					open = append(open[:i], open[i+1:]...)
					break
				}
			}
		}
	}
	head := EventHeader{RunID: info.RunID, SessionID: info.SessionID, Agent: info.Agent, ParentRunID: info.ParentRunID, Seq: info.LastSeq, Time: now}
	if len(recs) > 0 {
		last := recs[len(recs)-1]
		head.ParentCallID, head.Step = last.ParentCallID, last.Step
	}
	var out []EventRecord
	interrupted := RunInterrupted{Owner: info.Owner}
	for _, o := range open {
		var scheduled ToolCallScheduled
		if e, err := o.Event(); err == nil {
			scheduled, _ = e.(ToolCallScheduled)
		}
		f := toolcall.Fail(toolcall.KindOutcomeUnknown, toolcall.RecoveryReplan,
			"The process running this call stopped before it reported an outcome; the call was not run again. Check whether it took effect before calling it again.")
		h := head
		h.Seq++
		h.Step, h.CallID = o.Step, o.CallID
		head.Seq = h.Seq
		out = append(out, NewEventRecord(ToolResultReceived{EventHeader: h, Tool: scheduled.Tool, Result: f.JSON(), Failure: f}))
		interrupted.UnknownCalls = append(interrupted.UnknownCalls, o.CallID)
	}
	head.Seq++
	interrupted.EventHeader = head
	return append(out, NewEventRecord(interrupted))
}
