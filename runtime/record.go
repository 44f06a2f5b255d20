package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/quiver-go/quiver/engine"
	"github.com/quiver-go/quiver/model"
)

const activityRecord = "quiver.record"

// recordInput is what a run segment leaves behind: a completed run's
// session transcript, or a suspended run's checkpoint.
type recordInput struct {
	// SessionID and Transcript save a completed run's session over
	// SessionVersion, the version the run loaded.
	SessionID      string          `json:"session_id,omitempty"`
	Transcript     []model.Message `json:"transcript,omitempty"`
	SessionVersion int64           `json:"session_version,omitempty"`
	// State and Suspended store a suspended run's checkpoint.
	State     *runState     `json:"state,omitempty"`
	Suspended *pendingState `json:"suspended,omitempty"`
}

// recordOutput says what a session save could not do: NotSaved is why the
// transcript was not saved ("" when it was), Conflict whether another run
// of the session saved first.
type recordOutput struct {
	NotSaved string `json:"not_saved,omitempty"`
	Conflict bool   `json:"conflict,omitempty"`
}

// recordActivity stores a run's session or checkpoint. A session that
// cannot be saved is reported in the output, not as an error: the run
// completed, and its output carries what it added (RunOutput.Messages).
func (rt *Runtime) recordActivity(ctx context.Context, in recordInput) (recordOutput, error) {
	if in.Suspended != nil && in.State != nil {
		return recordOutput{}, rt.putCheckpoint(ctx, in.State, in.Suspended.Items)
	}
	if in.SessionID != "" {
		if _, err := rt.sessions.Save(ctx, in.SessionID, in.Transcript, in.SessionVersion); err != nil {
			return recordOutput{NotSaved: err.Error(), Conflict: errors.Is(err, ErrSessionConflict)}, nil
		}
	}
	return recordOutput{}, nil
}

// putCheckpoint stores a suspended run's checkpoint, with its retention.
func (rt *Runtime) putCheckpoint(ctx context.Context, st *runState, pending []PendingItem) error {
	state, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("runtime: encode run %s: %w", st.RunID, err)
	}
	now := time.Now().UTC()
	c := Checkpoint{
		RunID: st.RunID, Agent: st.Agent, SessionID: st.SessionID, Labels: st.Labels,
		Pending: pending, SuspendedAt: now, State: state,
	}
	if rt.retention > 0 {
		c.ExpiresAt = now.Add(rt.retention)
	}
	if err := rt.suspensions.Put(ctx, c); err != nil {
		return engine.NewNonRetryableError(fmt.Errorf("runtime: store the checkpoint of run %s: %w", st.RunID, err))
	}
	return nil
}

// record runs the record activity from workflow code.
func (r *runner) record(in recordInput) (recordOutput, error) {
	if err := r.flush(); err != nil {
		return recordOutput{}, err
	}
	return engine.ExecuteActivity[recordOutput](r.wctx, activityRecord, engine.ActivityOptions{}, in)
}
