package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/quiver-go/quiver/examples/runtour/tour"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/runtime/boltstore"
)

// openStore opens the runtime's store in the data folder dir, created
// (0700) when missing.
func openStore(dir string) (*boltstore.Store, string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, "", fmt.Errorf("data folder: %w", err)
	}
	path := filepath.Join(dir, boltstore.FileName)
	s, err := boltstore.Open(path)
	if err != nil {
		return nil, "", err
	}
	return s, path, nil
}

// suspendTour runs the tour on the store in dir until the confirmation,
// prints the waiting run and how to approve it, and returns: the run is
// kept in the file, and nothing of it is left in this process.
func suspendTour(ctx context.Context, w io.Writer, dir string) error {
	store, path, err := openStore(dir)
	if err != nil {
		return err
	}
	defer store.Close()
	rt, unsubscribe, err := tour.NewRuntime(w, runtime.WithStore(store))
	if err != nil {
		return err
	}
	defer unsubscribe()

	fmt.Fprintln(w, "user:", tour.Question)
	// The runtime names the run: each tour on the folder is a run of its
	// own, with a session of its own.
	out, err := rt.Run(ctx, tour.AgentName, tour.UserInput(tour.Question))
	if err != nil {
		return err
	}
	if out.Suspension == nil {
		return fmt.Errorf("the run should have suspended for a confirmation, got status %s", out.Status)
	}
	item := out.Suspension.Pending[0]
	fmt.Fprintf(w, "\n[run %s is suspended and kept in %s; this process exits]\n%s: %s\n", out.RunID, path, item.Title, item.Prompt)
	fmt.Fprintf(w, "To approve it from another process: go run ./examples/runtour --data %s --approve\n", dir)
	return nil
}

// approveTour lists the runs waiting in the store in dir, approves the
// oldest and prints the rest of its tour.
func approveTour(ctx context.Context, w io.Writer, dir string) error {
	store, path, err := openStore(dir)
	if err != nil {
		return err
	}
	defer store.Close()
	rt, unsubscribe, err := tour.NewRuntime(w, runtime.WithStore(store))
	if err != nil {
		return err
	}
	defer unsubscribe()

	waiting, err := rt.ListSuspended(ctx, runtime.SuspendedFilter{Agent: tour.AgentName})
	if err != nil {
		return err
	}
	if len(waiting) == 0 {
		return fmt.Errorf("no run is waiting in %s: start a tour there with --data %s (without --approve)", path, dir)
	}
	fmt.Fprintf(w, "[runs waiting in %s]\n", path)
	for _, c := range waiting {
		item := c.Pending[0]
		fmt.Fprintf(w, "- %s (agent %s) waits for %s: %s: %s\n", c.RunID, c.Agent, item.Kind, item.Title, item.Prompt)
	}
	oldest := waiting[0]
	fmt.Fprintf(w, "operator: approve %s\n", oldest.RunID)
	h, err := rt.Continue(ctx, oldest.RunID, oldest.Pending[0].Approve())
	if err != nil {
		return err
	}
	if err := tour.Finish(ctx, w, h); err != nil {
		return err
	}
	if more := len(waiting) - 1; more > 0 {
		fmt.Fprintf(w, "(%d more waiting: run with --approve again)\n", more)
	}
	return nil
}
