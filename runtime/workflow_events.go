package runtime

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/quiver-go/quiver/engine"
)

// appendTimeout bounds one append to the run log from workflow code.
const appendTimeout = 30 * time.Second

// emit emits a run-level event; emitCall one of a tool call.
func (r *runner) emit(e Event) { r.emitFor("", e) }

func (r *runner) emitCall(callID string, e Event) { r.emitFor(callID, e) }

// emitFor gives e its header — the next sequence number, the workflow
// clock's time, the attempt — and hands it to the synchronous subscribers
// and to the run log's next append (flush). The sequence number advances
// while replaying too, so that a replay numbers events as the first
// execution did; only the side effects are skipped.
func (r *runner) emitFor(callID string, e Event) {
	r.st.EventSeq++
	e = e.withHead(EventHeader{
		RunID: r.st.RunID, SessionID: r.st.SessionID, Agent: r.st.Agent,
		ParentRunID: r.st.ParentRunID, ParentCallID: r.st.ParentCallID,
		Seq: r.st.EventSeq, Time: r.wctx.Now().UTC(), Step: r.st.Step, CallID: callID,
	})
	if r.wctx.IsReplaying() {
		return
	}
	r.rt.events.publish(e)
	r.unlogged = append(r.unlogged, NewEventRecord(e))
}

// flush appends the events emitted since the last flush to the run log.
// The runner flushes before every activity (a model request, a tool call,
// a store write) and at the end of the segment, so that nothing the run
// does is outside the record of what it did before. The append is
// idempotent on (run, seq): a retried step records nothing twice.
func (r *runner) flush() error {
	if len(r.unlogged) == 0 {
		return nil
	}
	// A cancelled run still records its end.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.wctx.Context()), appendTimeout)
	defer cancel()
	first, last := r.unlogged[0].Seq, r.unlogged[len(r.unlogged)-1].Seq
	err := r.rt.runLog.Append(ctx, r.rt.owner, r.unlogged)
	if errors.Is(err, ErrEventConflict) && engine.IsDurable(r.rt.engine) {
		err = r.appendReexecuted(ctx, err)
	}
	if err != nil {
		return fmt.Errorf("the run log could not record events %d to %d: %w", first, last, err)
	}
	r.unlogged = r.unlogged[:0]
	return nil
}

// appendReexecuted resolves an append refused as a conflict on a durable
// engine. The engine re-executes a workflow task whose worker died after
// recording the task's events but before the engine recorded the task: the
// same events come again, timed by the new task (workflow time is the
// task's). Those stored already, equal but for their time, are skipped and
// the rest appended; any other difference is still the conflict.
func (r *runner) appendReexecuted(ctx context.Context, conflict error) error {
	stored, err := r.rt.runLog.Read(ctx, r.st.RunID, r.unlogged[0].Seq-1, len(r.unlogged))
	if err != nil {
		return errors.Join(conflict, err)
	}
	for i, rec := range stored {
		if rec.Seq != r.unlogged[i].Seq || !sameButTime(rec, r.unlogged[i]) {
			return conflict
		}
	}
	if rest := r.unlogged[len(stored):]; len(rest) > 0 {
		return r.rt.runLog.Append(ctx, r.rt.owner, rest)
	}
	return nil
}

// sameButTime reports whether two records are the same event but for the
// time in their header.
func sameButTime(a, b EventRecord) bool {
	b.Time = a.Time
	ab, errA := MarshalEvent(a)
	bb, errB := MarshalEvent(b)
	return errA == nil && errB == nil && bytes.Equal(ab, bb)
}

// end records how the segment ended — failed or cancelled; completion and
// suspension are recorded where they happen — and appends what is left.
// A segment whose end cannot be recorded fails.
func (r *runner) end(out RunOutput, err error) (RunOutput, error) {
	switch {
	case err == nil:
	case errors.Is(err, engine.ErrCanceled) || r.wctx.Context().Err() != nil:
		r.emit(RunCancelled{})
	default:
		r.emit(RunFailed{Error: err.Error()})
	}
	if ferr := r.flush(); ferr != nil {
		return RunOutput{}, errors.Join(err, ferr)
	}
	return out, err
}
