package temporal

import (
	"context"
	"encoding/json"
	"fmt"

	"go.temporal.io/sdk/client"
)

// handle follows one workflow execution.
type handle struct {
	client client.Client
	run    client.WorkflowRun
}

// ID implements engine.WorkflowHandle.
func (h *handle) ID() string { return h.run.GetID() }

// Wait implements engine.WorkflowHandle: it follows the execution through
// continue-as-new and returns its output, or its error in the engine's
// terms (see workflowFailure).
func (h *handle) Wait(ctx context.Context) (json.RawMessage, error) {
	var out []byte
	if err := h.run.Get(ctx, &out); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, workflowFailure(err)
	}
	return json.RawMessage(out), nil
}

// Cancel implements engine.WorkflowHandle: it requests the cancellation of
// the execution, which cancels its activities and children.
func (h *handle) Cancel(ctx context.Context) error {
	if err := h.client.CancelWorkflow(ctx, h.run.GetID(), ""); err != nil {
		return fmt.Errorf("temporal: cancel workflow %s: %w", h.run.GetID(), err)
	}
	return nil
}
