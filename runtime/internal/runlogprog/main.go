package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/runtime/boltstore"
	"github.com/quiver-go/quiver/runtime/internal/ordersdesk"
	"github.com/quiver-go/quiver/runtime/redisstore"
)

// errEnough stops a follower after -max events.
var errEnough = errors.New("enough events")

func main() {
	boltPath := flag.String("bolt", "", "the bbolt store file")
	redisURL := flag.String("redis", "", "the Redis store's URL")
	prefix := flag.String("prefix", redisstore.DefaultPrefix, "the Redis store's key prefix")
	lease := flag.Duration("lease", time.Second, "hang: the runtime's lease on its runs")
	logPath := flag.String("log", "", "hang: the file the executor appends a line to per started call")
	runID := flag.String("run", "", "hang: the run id to start; follow: the run to follow")
	after := flag.Int64("after", 0, "follow: the cursor to follow from")
	maxEvents := flag.Int("max", 0, "follow: leave after this many events (0: at the run's end)")
	flag.Parse()
	if flag.NArg() != 1 || (*boltPath == "") == (*redisURL == "") || *runID == "" {
		fmt.Fprintln(os.Stderr, "usage: runlogprog (-bolt FILE | -redis URL -prefix P) -run ID [-lease D -log FILE] [-after N -max K] hang|follow")
		os.Exit(2)
	}
	ctx := context.Background()
	store, err := open(ctx, *boltPath, *redisURL, *prefix)
	if err == nil {
		switch flag.Arg(0) {
		case "hang":
			err = hang(ctx, os.Stdout, store, *runID, *logPath, *lease)
		case "follow":
			err = follow(ctx, os.Stdout, store.RunLog(), *runID, *after, *maxEvents)
		default:
			err = fmt.Errorf("mode %q: want hang or follow", flag.Arg(0))
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "runlogprog:", err)
		os.Exit(1)
	}
}

// open opens the store the flags name.
func open(ctx context.Context, boltPath, redisURL, prefix string) (runtime.Store, error) {
	if boltPath != "" {
		return boltstore.Open(boltPath)
	}
	return redisstore.Open(ctx, redisURL, redisstore.WithPrefix(prefix))
}

// hang runs the orders desk until its confirmation, approves it, and
// prints "hanging RUN" once the executor has logged the call's start; the
// executor never returns.
func hang(ctx context.Context, w io.Writer, store runtime.Store, runID, logPath string, lease time.Duration) error {
	rt, err := ordersdesk.New(store, ordersdesk.Script(), ordersdesk.HangingExecutor(logPath), runtime.WithRunLease(lease))
	if err != nil {
		return err
	}
	out, err := rt.Run(ctx, ordersdesk.Agent, runtime.RunInput{Messages: []model.Message{model.UserMessage("Cancel A-1.")}}, runtime.WithRunID(runID))
	if err != nil {
		return err
	}
	if out.Suspension == nil {
		return fmt.Errorf("run %s ended %s; it should have suspended at the confirmation", out.RunID, out.Status)
	}
	if _, err := rt.Continue(ctx, out.RunID, out.Suspension.Pending[0].Approve()); err != nil {
		return err
	}
	fmt.Fprintf(w, "hanging %s\n", out.RunID)
	select {} // until killed
}

// follow prints each event of the run after the cursor as its record's
// JSON, one a line, until the run ends or suspends, or max events.
func follow(ctx context.Context, w io.Writer, log runtime.RunLog, runID string, after int64, maxEvents int) error {
	n := 0
	err := runtime.FollowRunLog(ctx, log, runID, after, func(rec runtime.EventRecord) error {
		b, err := runtime.MarshalEvent(rec)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "%s\n", b); err != nil {
			return err
		}
		if n++; maxEvents > 0 && n >= maxEvents {
			return errEnough
		}
		return nil
	})
	if errors.Is(err, errEnough) {
		return nil
	}
	return err
}
