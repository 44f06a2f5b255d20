package temporal

import (
	"fmt"
	"sort"

	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// ReplayHistory replays a recorded workflow history against the workflow
// code registered on this engine and reports a non-determinism — code
// that would make other decisions than the history records — as an
// error. Run it over histories of the previous release before deploying
// a change to workflow code (docs/temporal.md says how: histories come
// from client.GetWorkflowHistory or `temporal workflow show --output
// json`, read with client.HistoryFromJSON). logger may be nil. Payloads
// are decoded with Options.DataConverter, the client's.
func (e *Engine) ReplayHistory(logger log.Logger, history *historypb.History) error {
	r, err := worker.NewWorkflowReplayerWithOptions(worker.WorkflowReplayerOptions{DataConverter: e.opts.DataConverter})
	if err != nil {
		return fmt.Errorf("temporal: replay: %w", err)
	}
	e.mu.Lock()
	names := make([]string, 0, len(e.workflows))
	for name := range e.workflows {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		r.RegisterWorkflowWithOptions(e.workflowFunc(e.workflows[name]), workflow.RegisterOptions{Name: name})
	}
	e.mu.Unlock()
	if err := r.ReplayWorkflowHistory(logger, history); err != nil {
		return fmt.Errorf("temporal: replay: %w", err)
	}
	return nil
}
