package runtime

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/quiver-go/quiver/engine"
)

// liveRuns holds, per run this process is running an activity of, the
// numbering and recording of the events activities emit as they go
// (streamed model output, tool progress). The workflow numbers its own
// events in the run's state; an activity's events take the numbers after
// the last event the workflow recorded before it, and the workflow numbers
// its next events after the activity's last ([planOutput.LastSeq],
// [executeOutput.LastSeq]; after a failure, the run log's last, read in
// the quiver.settle activity: [runner.afterActivity]).
// A retried attempt numbers on after the failed one's events, which stay
// in the log: [PlanningRetried] tells a reader they are void.
type liveRuns struct {
	mu   sync.Mutex
	runs map[string]*liveRun
}

// liveRun numbers and records one run's live events. Records are appended
// in the background, in batches, so a model streaming token by token is
// never held back by a store's write; closing an activity's emitter waits
// for its events to be recorded.
type liveRun struct {
	rt *Runtime

	mu       sync.Mutex
	idle     *sync.Cond // signalled when a drain ends
	last     int64      // the last sequence number given
	pending  []EventRecord
	draining bool
	sealed   bool  // settled: later events are dropped
	err      error // the first append that failed
}

// open returns the run's live state, its numbering at least floor (the
// last event the workflow recorded).
func (l *liveRuns) open(rt *Runtime, runID string, floor int64) *liveRun {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.runs == nil {
		l.runs = map[string]*liveRun{}
	}
	lr, ok := l.runs[runID]
	if !ok {
		lr = &liveRun{rt: rt}
		lr.idle = sync.NewCond(&lr.mu)
		l.runs[runID] = lr
	}
	lr.mu.Lock()
	lr.last = max(lr.last, floor)
	lr.mu.Unlock()
	return lr
}

// settle ends the activity's hold on the run's numbering, once the
// workflow has the activity's outcome: it waits until the events queued
// are recorded, seals the run's live state — an activity the workflow no
// longer waits for (a cancelled attempt still running) emits nothing more
// — and returns the number of the last live event (0: none in this
// process). The workflow numbers its next events after it.
func (l *liveRuns) settle(runID string) int64 {
	l.mu.Lock()
	lr := l.runs[runID]
	delete(l.runs, runID)
	l.mu.Unlock()
	if lr == nil {
		return 0
	}
	lr.mu.Lock()
	defer lr.mu.Unlock()
	lr.sealed = true
	for lr.draining {
		lr.idle.Wait()
	}
	return lr.last
}

// emit numbers e after the run's last event, hands it to the synchronous
// subscribers and queues its record.
func (lr *liveRun) emit(head EventHeader, e Event) {
	lr.mu.Lock()
	defer lr.mu.Unlock()
	if lr.sealed {
		return
	}
	lr.last++
	head.Seq = lr.last
	head.Time = time.Now().UTC()
	e = e.withHead(head)
	// Under the lock: subscribers see the run's events in sequence order.
	lr.rt.events.publish(e)
	lr.pending = append(lr.pending, NewEventRecord(e))
	if !lr.draining {
		lr.draining = true
		go lr.drain()
	}
}

// drain appends the queued records until none is left.
func (lr *liveRun) drain() {
	for {
		lr.mu.Lock()
		batch := lr.pending
		lr.pending = nil
		if len(batch) == 0 || lr.err != nil {
			lr.draining = false
			lr.idle.Broadcast()
			lr.mu.Unlock()
			return
		}
		lr.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), appendTimeout)
		err := lr.rt.runLog.Append(ctx, lr.rt.owner, batch)
		cancel()
		if err != nil {
			lr.mu.Lock()
			lr.err = fmt.Errorf("the run log could not record events %d to %d: %w", batch[0].Seq, batch[len(batch)-1].Seq, err)
			lr.mu.Unlock()
		}
	}
}

// wait blocks until every queued record is appended, and returns the
// last number given and the first append error.
func (lr *liveRun) wait() (int64, error) {
	lr.mu.Lock()
	defer lr.mu.Unlock()
	for lr.draining {
		lr.idle.Wait()
	}
	return lr.last, lr.err
}

// activityEvents is one activity attempt's emitter: the header its events
// carry (run, step, attempt) over the run's live numbering.
type activityEvents struct {
	run  *liveRun
	head EventHeader
}

// liveHead is the header of the live events of the run whose state is
// st, in planning step step.
func (st *runState) liveHead(step int) EventHeader {
	return EventHeader{
		RunID: st.RunID, SessionID: st.SessionID, Agent: st.Agent,
		ParentRunID: st.ParentRunID, ParentCallID: st.ParentCallID, Step: step,
	}
}

// newActivityEvents opens the emitter of an activity attempt: its events
// carry head, with the attempt ctx names, numbered after floor (the last
// event the workflow recorded before the activity).
// A retried attempt numbers after the run log's last event too: the
// attempt before may have run in another process.
func (rt *Runtime) newActivityEvents(ctx context.Context, head EventHeader, floor int64) *activityEvents {
	head.Attempt = engine.ActivityAttempt(ctx)
	if head.Attempt > 1 {
		if info, err := rt.runLog.Run(ctx, head.RunID); err == nil {
			floor = max(floor, info.LastSeq)
		}
	}
	return &activityEvents{run: rt.live.open(rt, head.RunID, floor), head: head}
}

// emit emits a run-level live event; emitCall one of a call.
func (a *activityEvents) emit(e Event) { a.run.emit(a.head, e) }

func (a *activityEvents) emitCall(callID string, e Event) {
	h := a.head
	h.CallID = callID
	a.run.emit(h, e)
}

// close waits until the attempt's events are recorded and returns the
// number of the last live event of the run and the first append error: an
// activity whose events are not all recorded fails, or the workflow's next
// event would leave a gap in the log.
func (a *activityEvents) close() (int64, error) { return a.run.wait() }
