package runtime

import (
	"context"
	"errors"
	"fmt"

	"github.com/quiver-go/quiver/engine"
)

// activitySettle reads where a run's numbering stands after an activity
// failed.
const activitySettle = "quiver.settle"

// settleInput names the run whose numbering is read.
type settleInput struct {
	RunID string `json:"run_id"`
}

// settleOutput is the number of the run's last recorded event.
type settleOutput struct {
	LastSeq int64 `json:"last_seq"`
}

// settleActivity ends this process's hold on the run's live numbering
// (waiting until the events it queued are recorded) and returns the number
// of the run's last recorded event.
func (rt *Runtime) settleActivity(ctx context.Context, in settleInput) (settleOutput, error) {
	local := rt.live.settle(in.RunID)
	info, err := rt.runLog.Run(ctx, in.RunID)
	if errors.Is(err, ErrUnknownRun) {
		return settleOutput{LastSeq: local}, nil
	}
	if err != nil {
		return settleOutput{}, fmt.Errorf("read run %s in the run log: %w", in.RunID, err)
	}
	return settleOutput{LastSeq: max(info.LastSeq, local)}, nil
}

// afterActivity numbers the workflow's next events after those the
// activity that just ended emitted as it ran (streamed output, progress).
// A successful activity said which was its last (lastSeq). A failed one
// could not — its attempt may have been abandoned, or have run in another
// process — so the run log says, read in an activity: what workflow code
// numbers must be the same when a durable engine replays it. When even
// that read fails (a cancelled run), what this process saw is used.
func (r *runner) afterActivity(lastSeq int64, failed bool) {
	local := r.rt.live.settle(r.st.RunID)
	if !failed {
		r.st.EventSeq = max(r.st.EventSeq, lastSeq)
		return
	}
	// Nothing was emitted since the flush before the failed activity.
	out, err := engine.ExecuteActivity[settleOutput](r.wctx, activitySettle, engine.ActivityOptions{StartToCloseTimeout: appendTimeout}, settleInput{RunID: r.st.RunID})
	if err != nil {
		out.LastSeq = local
	}
	r.st.EventSeq = max(r.st.EventSeq, out.LastSeq)
}
