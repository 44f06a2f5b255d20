// Command runtour runs an agent offline, on the in-memory engine with a
// scripted model, and prints its events as a person would read them. The
// run lists orders (a bounded result the model sees with its bounds), then
// asks to cancel one — a tool behind a confirmation, so the run suspends;
// the program approves and the run continues to its answer.
//
//	go run ./examples/runtour
package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/quiver-go/quiver/runtime"
)

func main() {
	if err := tour(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "runtour:", err)
		os.Exit(1)
	}
}

// tour runs the scripted conversation, writing what happens to w.
func tour(ctx context.Context, w io.Writer) error {
	rt, unsubscribe, err := newRuntime(w)
	if err != nil {
		return err
	}
	defer unsubscribe()

	fmt.Fprintln(w, "user: Which orders are still open? Cancel the oldest one.")
	out, err := rt.Run(ctx, agentName, userInput("Which orders are still open? Cancel the oldest one."), runtime.WithRunID("order-desk-1"))
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
	out, err = h.Wait(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nassistant: %s\n", out.Final.Text)
	fmt.Fprintf(w, "(%d tool calls, %d input and %d output tokens)\n", out.ToolCalls, out.Usage.InputTokens, out.Usage.OutputTokens)
	return nil
}
