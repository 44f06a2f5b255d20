// Command runtour runs the run tour of examples/runtour on Temporal: the
// same agent, offline model and output, its run a Temporal workflow, its
// planning steps and tool calls activities on a worker of this process.
// With no address it starts a Temporal server in the process (nothing to
// install or download):
//
//	cd engine/temporal && go run ./examples/runtour -engine temporal
//
// or runs against a server of yours, e.g. `temporal server start-dev`:
//
//	go run ./examples/runtour -engine temporal --temporal-address localhost:7233
//
// -engine inmem runs the tour on the in-memory engine instead, for
// comparison.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/server/temporaltest"

	"github.com/quiver-go/quiver/engine/temporal"
	"github.com/quiver-go/quiver/examples/runtour/tour"
	"github.com/quiver-go/quiver/runtime"
)

func main() {
	if err := cli(context.Background(), os.Stdout, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "runtour:", err)
		os.Exit(1)
	}
}

// cli runs the tour on the engine args name.
func cli(ctx context.Context, w io.Writer, args []string) error {
	flags := flag.NewFlagSet("runtour", flag.ContinueOnError)
	engineName := flags.String("engine", "temporal", "the engine: temporal or inmem")
	address := flags.String("temporal-address", "", "a Temporal server's `host:port` (default: one started in this process)")
	namespace := flags.String("namespace", "default", "the Temporal namespace, with --temporal-address")
	queue := flags.String("task-queue", "quiver-runtour", "the task queue the tour's worker polls")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if flags.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q: runtour takes -engine, --temporal-address, --namespace and --task-queue", flags.Arg(0))
	}
	switch *engineName {
	case "inmem":
		return tour.Run(ctx, w)
	case "temporal":
	default:
		return fmt.Errorf("-engine %q: use temporal or inmem", *engineName)
	}
	c, stop, err := dial(ctx, *address, *namespace)
	if err != nil {
		return err
	}
	defer stop()
	eng, err := temporal.NewWorker(c, *queue, temporal.Options{})
	if err != nil {
		return err
	}
	defer eng.Stop()
	fmt.Fprintf(w, "[on Temporal: task queue %s]\n", *queue)
	return tour.Run(ctx, w, runtime.WithEngine(eng))
}

// quiet drops the SDK's and the server's logs: the tour prints its events.
var quiet = sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))

// dial connects to the server at address, or starts one in the process
// when address is empty; stop closes what it opened.
func dial(ctx context.Context, address, namespace string) (client.Client, func(), error) {
	if address == "" {
		srv := temporaltest.NewServer(temporaltest.WithBaseClientOptions(client.Options{Logger: quiet}))
		return srv.GetDefaultClient(), srv.Stop, nil
	}
	c, err := client.DialContext(ctx, client.Options{HostPort: address, Namespace: namespace, Logger: quiet})
	if err != nil {
		return nil, nil, errors.Join(fmt.Errorf("connect to Temporal at %s", address), err)
	}
	return c, c.Close, nil
}
