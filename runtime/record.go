package runtime

import (
	"context"

	"github.com/quiver-go/quiver/engine"
)

const activityRecord = "quiver.record"

// recordInput is what a run segment leaves behind: a completed run's
// session transcript, or a suspended run's checkpoint.
type recordInput struct {
	State     runState      `json:"state"`
	Completed bool          `json:"completed,omitempty"`
	Suspended *pendingState `json:"suspended,omitempty"`
}

// recordActivity stores a run's session or checkpoint.
func (rt *Runtime) recordActivity(ctx context.Context, in recordInput) (struct{}, error) {
	if in.Suspended != nil {
		st := in.State
		rt.runs.put(&st)
		return struct{}{}, nil
	}
	if in.Completed && !in.State.OneShot && in.State.SessionID != "" {
		return struct{}{}, rt.sessions.Save(ctx, in.State.SessionID, in.State.Transcript)
	}
	return struct{}{}, nil
}

// record runs the record activity from workflow code.
func (r *runner) record(in recordInput) error {
	_, err := engine.ExecuteActivity[struct{}](r.wctx, activityRecord, engine.ActivityOptions{}, in)
	return err
}
