// Command workerproc is a Temporal worker process of the worker-kill
// tests: a runtime on engine/temporal and on Redis stores, with the
// killdesk registrations, polling one task queue until it is killed. The
// tests start it, kill it (SIGKILL: no graceful stop) and start another.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/quiver-go/quiver/engine/temporal"
	"github.com/quiver-go/quiver/engine/temporal/internal/killdesk"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/runtime/redisstore"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "workerproc:", err)
		os.Exit(1)
	}
}

func run() error {
	address := flag.String("address", "", "the Temporal frontend, host:port")
	namespace := flag.String("namespace", "default", "the Temporal namespace")
	queue := flag.String("queue", "", "the task queue to poll")
	redisURL := flag.String("redis", "", "the Redis of the runtime's stores, redis://…")
	prefix := flag.String("prefix", "", "the stores' key prefix")
	journal := flag.String("journal", "", "the file executions are journalled to")
	block := flag.String("block", "", "where to stop and wait to be killed: tool, plan, child")
	heartbeat := flag.Duration("heartbeat", time.Second, "the activities' heartbeat timeout")
	attempts := flag.Int("attempts", 5, "tries per activity (0: the runtime's own, one for a tool call)")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	c, err := client.DialContext(ctx, client.Options{HostPort: *address, Namespace: *namespace,
		Logger: sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))})
	if err != nil {
		return err
	}
	defer c.Close()
	store, err := redisstore.Open(ctx, *redisURL, redisstore.WithPrefix(*prefix))
	if err != nil {
		return err
	}
	defer store.Close()
	eng, err := temporal.NewWorker(c, *queue, killdesk.EngineOptions(*heartbeat, *attempts))
	if err != nil {
		return err
	}
	cfg := &killdesk.Config{Journal: *journal, Block: *block}
	rt, err := runtime.New(runtime.WithEngine(eng), runtime.WithStore(store), runtime.WithModel(model.ModelClassDefault, killdesk.Model(cfg)))
	if err != nil {
		return err
	}
	defer rt.Close()
	if err := killdesk.Register(rt, cfg); err != nil {
		return err
	}
	if err := eng.Start(); err != nil {
		return err
	}
	fmt.Println("ready", rt.Owner())
	<-ctx.Done()
	eng.Stop()
	return nil
}
