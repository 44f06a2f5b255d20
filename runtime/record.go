package runtime

import (
	"context"

	"github.com/quiver-go/quiver/engine"
	"github.com/quiver-go/quiver/model"
)

const activityRecord = "quiver.record"

// recordInput is what a run segment leaves behind: a completed run's
// session transcript, or a suspended run's checkpoint.
type recordInput struct {
	// SessionID and Transcript save a completed run's session.
	SessionID  string          `json:"session_id,omitempty"`
	Transcript []model.Message `json:"transcript,omitempty"`
	// State and Suspended store a suspended run's checkpoint.
	State     *runState     `json:"state,omitempty"`
	Suspended *pendingState `json:"suspended,omitempty"`
}

// recordActivity stores a run's session or checkpoint.
func (rt *Runtime) recordActivity(ctx context.Context, in recordInput) (struct{}, error) {
	if in.Suspended != nil && in.State != nil {
		rt.runs.put(in.State)
		return struct{}{}, nil
	}
	if in.SessionID != "" {
		return struct{}{}, rt.sessions.Save(ctx, in.SessionID, in.Transcript)
	}
	return struct{}{}, nil
}

// record runs the record activity from workflow code.
func (r *runner) record(in recordInput) error {
	_, err := engine.ExecuteActivity[struct{}](r.wctx, activityRecord, engine.ActivityOptions{}, in)
	return err
}
