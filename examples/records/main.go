// Command records runs the data-workspace assistant declared in
// examples/records/design through its generated packages, offline: a
// scripted model counts late orders (an inline tool), searches for the
// export tool the design defers, and starts an export — a tool behind a
// confirmation, so the run suspends until the operator approves. Then the
// design's typed completion summarize_records turns the conversation into
// an activity-log entry, a validated Go value. It prints what happens as a
// person would read it.
//
//	go run ./examples/records
//
// Regenerate gen/ after changing the design (from the repository root):
//
//	go run goa.design/goa/v3/cmd/goa gen github.com/quiver-go/quiver/examples/records/design -o examples/records
package main

import (
	"context"
	"fmt"
	"io"
	"os"
)

func main() {
	if err := conversation(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "records:", err)
		os.Exit(1)
	}
}

// conversation registers the generated agent, plays one turn with a
// confirmation, asks the completion for its log entry and writes it all
// to w.
func conversation(ctx context.Context, w io.Writer) error {
	client, err := newAssistant(w)
	if err != nil {
		return err
	}
	const ask = "How many orders are late? Then export the orders table to CSV."
	fmt.Fprintln(w, "user:", ask)
	out, err := client.Run(ctx, userInput(ask), withRunID("records-1"))
	if err != nil {
		return err
	}
	if out.Suspension == nil {
		return fmt.Errorf("the export should wait for a confirmation; the run ended with %s", out.Reason)
	}
	fmt.Fprintf(w, "(the export tool was deferred; the model's search made callable: %s)\n", discovered(out))
	item := out.Suspension.Pending[0]
	fmt.Fprintf(w, "\n%s %s\noperator: approve\n\n", item.Title, item.Prompt)
	h, err := client.Continue(ctx, out.RunID, item.Approve())
	if err != nil {
		return err
	}
	out, err = h.Wait(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nassistant: %s\n", out.Final.Text)
	return logEntry(ctx, w, "user: "+ask+"\nassistant: "+out.Final.Text)
}
