package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/runtime/boltstore"
	"github.com/quiver-go/quiver/runtime/internal/ordersdesk"
)

// exitNotSuspended is the exit status of a continue of a run that is not
// suspended.
const exitNotSuspended = 3

func main() {
	data := flag.String("data", "", "data folder holding the runtime's store file")
	logPath := flag.String("log", "", "file the executor appends a line to per cancelled order")
	runID := flag.String("run", "", "approve: the run to continue (default: the one waiting)")
	flag.Parse()
	if *data == "" || *logPath == "" || flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: suspendprog -data DIR -log FILE [-run ID] start|approve")
		os.Exit(2)
	}
	err := run(context.Background(), os.Stdout, flag.Arg(0), *data, *logPath, *runID)
	if err != nil {
		fmt.Fprintln(os.Stderr, "suspendprog:", err)
		if errors.Is(err, runtime.ErrNotSuspended) {
			os.Exit(exitNotSuspended)
		}
		os.Exit(1)
	}
}

// run opens the store and plays mode.
func run(ctx context.Context, w io.Writer, mode, data, logPath, runID string) error {
	store, err := boltstore.Open(filepath.Join(data, boltstore.FileName))
	if err != nil {
		return err
	}
	defer store.Close()
	rt, err := ordersdesk.New(store, ordersdesk.Script(), ordersdesk.LoggingExecutor(logPath))
	if err != nil {
		return err
	}
	defer rt.Close()
	switch mode {
	case "start":
		return start(ctx, w, rt)
	case "approve":
		return approve(ctx, w, rt, runID)
	}
	return fmt.Errorf("mode %q: want start or approve", mode)
}

// start runs the agent until it suspends, prints the run id, then blocks
// until the process is killed: nothing of the run is left to finish here.
func start(ctx context.Context, w io.Writer, rt *runtime.Runtime) error {
	out, err := rt.Run(ctx, ordersdesk.Agent, runtime.RunInput{Messages: []model.Message{model.UserMessage("Cancel A-1.")}})
	if err != nil {
		return err
	}
	if out.Suspension == nil {
		return fmt.Errorf("run %s ended with status %s; it should have suspended at the confirmation", out.RunID, out.Status)
	}
	fmt.Fprintf(w, "suspended %s\n", out.RunID)
	for {
		time.Sleep(time.Hour)
	}
}

// approve lists the suspended runs and continues runID (or the only one
// waiting) with an approval of its first item. A runID not waiting is
// continued anyway, so the runtime reports why it cannot be.
func approve(ctx context.Context, w io.Writer, rt *runtime.Runtime, runID string) error {
	waiting, err := rt.ListSuspended(ctx, runtime.SuspendedFilter{})
	if err != nil {
		return err
	}
	if len(waiting) == 0 {
		fmt.Fprintln(w, "nothing waiting")
	}
	var answer *runtime.PendingInputResponse
	for _, c := range waiting {
		item := c.Pending[0]
		fmt.Fprintf(w, "waiting %s (agent %s): %s\n", c.RunID, c.Agent, item.Prompt)
		if runID == "" && len(waiting) == 1 {
			runID = c.RunID
		}
		if c.RunID == runID {
			a := item.Approve()
			answer = &a
		}
	}
	if runID == "" {
		if len(waiting) == 0 {
			return nil
		}
		return fmt.Errorf("%d runs are waiting: name one with -run", len(waiting))
	}
	if answer == nil {
		answer = &runtime.PendingInputResponse{Confirmation: &runtime.ConfirmationDecision{Approved: true}}
	}
	fmt.Fprintf(w, "approving %s\n", runID)
	h, err := rt.Continue(ctx, runID, *answer)
	if err != nil {
		return err
	}
	out, err := h.Wait(ctx)
	if err != nil {
		return err
	}
	if out.Final == nil {
		return fmt.Errorf("run %s ended with status %s and no answer", out.RunID, out.Status)
	}
	fmt.Fprintf(w, "final %s: %s\n", out.RunID, out.Final.Text)
	return nil
}
