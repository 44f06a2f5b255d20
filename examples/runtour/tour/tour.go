package tour

import (
	"context"
	"fmt"
	"io"

	"github.com/quiver-go/quiver/runtime"
)

// Question is what the user asks.
const Question = "Which orders are still open? Cancel the oldest one."

// Run runs the scripted conversation, writing what happens to w; opts are
// more runtime options (another engine).
func Run(ctx context.Context, w io.Writer, opts ...runtime.Option) error {
	rt, unsubscribe, err := NewRuntime(w, opts...)
	if err != nil {
		return err
	}
	defer unsubscribe()

	fmt.Fprintln(w, "user:", Question)
	out, err := rt.Run(ctx, AgentName, UserInput(Question), runtime.WithRunID("order-desk-1"))
	if err != nil {
		return err
	}
	if out.Suspension == nil {
		return fmt.Errorf("the run should have suspended for a confirmation, got status %s", out.Status)
	}
	item := out.Suspension.Pending[0]
	fmt.Fprintf(w, "\n[the run is suspended; nothing waits in memory]\n%s: %s\n", item.Title, item.Prompt)
	fmt.Fprintln(w, "operator: approve")

	h, err := rt.Continue(ctx, out.RunID, item.Approve())
	if err != nil {
		return err
	}
	return Finish(ctx, w, h)
}

// Finish waits for the continued run and prints its answer.
func Finish(ctx context.Context, w io.Writer, h *runtime.RunHandle) error {
	out, err := h.Wait(ctx)
	if err != nil {
		return err
	}
	if out.Final == nil {
		return fmt.Errorf("run %s ended with status %s and no answer", out.RunID, out.Status)
	}
	fmt.Fprintf(w, "\nassistant: %s\n", out.Final.Text)
	fmt.Fprintf(w, "(%d tool calls, %d input and %d output tokens)\n", out.ToolCalls, out.Usage.InputTokens, out.Usage.OutputTokens)
	return nil
}
