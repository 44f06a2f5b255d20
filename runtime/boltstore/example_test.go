package boltstore_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/runtime/boltstore"
)

// A checkpoint put by one Open is listed and taken, exactly once, by the
// next: what a runtime given the store (runtime.WithStore) does when a run
// suspends in one process and is continued in another.
func ExampleOpen() {
	dir, err := os.MkdirTemp("", "runs")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, boltstore.FileName)
	ctx := context.Background()

	s, err := boltstore.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	err = s.Put(ctx, runtime.Checkpoint{
		RunID: "run-1", Agent: "desk",
		Pending:     []runtime.PendingItem{{Kind: runtime.PendingConfirmation, Prompt: "Cancel order A-1?"}},
		SuspendedAt: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC),
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := s.Close(); err != nil {
		log.Fatal(err)
	}

	s, err = boltstore.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	waiting, err := s.List(ctx, runtime.SuspendedFilter{Agent: "desk"})
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range waiting {
		fmt.Printf("%s waits: %s\n", c.RunID, c.Pending[0].Prompt)
	}
	if _, err := s.Take(ctx, "run-1", time.Now()); err != nil {
		log.Fatal(err)
	}
	_, err = s.Take(ctx, "run-1", time.Now())
	fmt.Println(err)
	// Output:
	// run-1 waits: Cancel order A-1?
	// runtime: run is not suspended: run "run-1" (unknown, finished or already continued)
}
