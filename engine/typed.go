package engine

import (
	"context"
	"encoding/json"
	"fmt"
)

// Workflow adapts typed workflow code to a WorkflowDefinition.
func Workflow[I, O any](name string, fn func(wctx WorkflowContext, in I) (O, error)) WorkflowDefinition {
	return WorkflowDefinition{Name: name, Handler: func(wctx WorkflowContext, raw json.RawMessage) (json.RawMessage, error) {
		var in I
		if err := json.Unmarshal(raw, &in); err != nil {
			return nil, fmt.Errorf("engine: workflow %s: decode input: %w", name, err)
		}
		out, err := fn(wctx, in)
		if err != nil {
			return nil, err
		}
		return Marshal(out)
	}}
}

// Activity adapts a typed activity to an ActivityDefinition.
func Activity[I, O any](name string, opts ActivityOptions, fn func(ctx context.Context, in I) (O, error)) ActivityDefinition {
	return ActivityDefinition{Name: name, Options: opts, Handler: func(ctx context.Context, raw json.RawMessage) (json.RawMessage, error) {
		var in I
		if err := json.Unmarshal(raw, &in); err != nil {
			return nil, NewNonRetryableError(fmt.Errorf("decode input: %w", err))
		}
		out, err := fn(ctx, in)
		if err != nil {
			return nil, err
		}
		return Marshal(out)
	}}
}

// ExecuteActivity runs an activity from workflow code and returns its typed
// output.
func ExecuteActivity[O any](wctx WorkflowContext, name string, opts ActivityOptions, input any) (O, error) {
	var out O
	err := wctx.ExecuteActivity(name, opts, input, &out)
	return out, err
}

// ExecuteChild runs a child workflow and returns its typed output.
func ExecuteChild[O any](wctx WorkflowContext, id, workflow string, opts ChildOptions, input any) (O, error) {
	var out O
	err := wctx.ExecuteChild(id, workflow, opts, input, &out)
	return out, err
}

// Start starts a workflow with a typed input.
func Start(ctx context.Context, e Engine, id, workflow string, input any) (WorkflowHandle, error) {
	raw, err := Marshal(input)
	if err != nil {
		return nil, fmt.Errorf("engine: workflow %s: encode input: %w", workflow, err)
	}
	return e.StartWorkflow(ctx, StartRequest{ID: id, Workflow: workflow, Input: raw})
}
