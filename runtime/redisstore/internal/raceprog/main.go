package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/runtime/internal/ordersdesk"
	"github.com/quiver-go/quiver/runtime/redisstore"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "raceprog:", err)
		os.Exit(1)
	}
}

func run() error {
	redisURL := flag.String("redis", "", "URL of the Redis server, redis://host:port/db")
	prefix := flag.String("prefix", redisstore.DefaultPrefix, "key prefix of the store")
	logPath := flag.String("log", "", "file the executor appends a line to for every order it cancels")
	barrier := flag.Bool("barrier", false, `continue: print "ready" once the run is listed, then wait for a line on standard input`)
	flag.Parse()
	if *redisURL == "" || *logPath == "" {
		return errors.New("-redis and -log are required")
	}
	ctx := context.Background()
	store, err := redisstore.Open(ctx, *redisURL, redisstore.WithPrefix(*prefix))
	if err != nil {
		return err
	}
	defer store.Close()

	switch args := flag.Args(); {
	case len(args) == 1 && args[0] == "start":
		rt, err := ordersdesk.New(store, ordersdesk.Script(), ordersdesk.LoggingExecutor(*logPath))
		if err != nil {
			return err
		}
		defer rt.Close()
		out, err := rt.Run(ctx, ordersdesk.Agent, runtime.RunInput{Messages: []model.Message{model.UserMessage("Cancel A-1.")}})
		if err != nil {
			return err
		}
		if out.Status != runtime.StatusSuspended {
			return fmt.Errorf("run %s ended %s, want suspended", out.RunID, out.Status)
		}
		fmt.Println(out.RunID)
		return nil
	case len(args) == 2 && args[0] == "continue":
		rt, err := ordersdesk.New(store, ordersdesk.Script(), ordersdesk.LoggingExecutor(*logPath))
		if err != nil {
			return err
		}
		defer rt.Close()
		return continueRun(ctx, rt, args[1], *barrier)
	}
	return errors.New(`usage: raceprog -redis URL -prefix P -log FILE start | [-barrier] continue RUNID`)
}

// continueRun lists the suspended runs and continues runID with its first
// pending item's approval.
func continueRun(ctx context.Context, rt *runtime.Runtime, runID string, barrier bool) error {
	suspended, err := rt.ListSuspended(ctx, runtime.SuspendedFilter{Agent: ordersdesk.Agent})
	if err != nil {
		return err
	}
	var item *runtime.PendingItem
	for _, c := range suspended {
		if c.RunID == runID && len(c.Pending) > 0 {
			item = &c.Pending[0]
		}
	}
	if barrier {
		fmt.Println("ready")
		if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
			return fmt.Errorf("-barrier: waiting for a line on standard input: %w", err)
		}
	}
	if item == nil {
		fmt.Println("not suspended")
		return nil
	}
	h, err := rt.Continue(ctx, runID, item.Approve())
	if errors.Is(err, runtime.ErrNotSuspended) {
		fmt.Println("not suspended")
		return nil
	}
	if err != nil {
		return err
	}
	out, err := h.Wait(ctx)
	if err != nil {
		return err
	}
	if out.Final == nil {
		return fmt.Errorf("run %s ended %s without a final answer", runID, out.Status)
	}
	fmt.Println("completed:", out.Final.Text)
	return nil
}
