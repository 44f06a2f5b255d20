// Command runtour runs an agent offline, on the in-memory engine with a
// scripted model, and prints its events as a person would read them. The
// run lists orders (a bounded result the model sees with its bounds), then
// asks to cancel one — a tool behind a confirmation, so the run suspends;
// the program approves and the run continues to its answer.
//
//	go run ./examples/runtour
//
// With --data the suspended run is kept on disk (runtime/boltstore, the
// file runs.db in DIR) and the program exits at the confirmation; a later
// process given --approve lists the waiting run, approves it and finishes
// the tour:
//
//	go run ./examples/runtour --data DIR
//	go run ./examples/runtour --data DIR --approve
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/quiver-go/quiver/examples/runtour/tour"
)

func main() {
	if err := cli(context.Background(), os.Stdout, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "runtour:", err)
		os.Exit(1)
	}
}

// cli runs the tour args ask for: in memory, or on the data folder of
// --data (stopping at the confirmation, or finishing with --approve).
func cli(ctx context.Context, w io.Writer, args []string) error {
	flags := flag.NewFlagSet("runtour", flag.ContinueOnError)
	data := flags.String("data", "", "keep runs in `DIR` (its runs.db) and stop at the confirmation")
	approve := flags.Bool("approve", false, "with --data: approve the waiting run and finish the tour")
	if err := flags.Parse(args); err != nil {
		return err
	}
	switch {
	case flags.NArg() > 0:
		return fmt.Errorf("unexpected argument %q: runtour takes only --data DIR and --approve", flags.Arg(0))
	case *approve && *data == "":
		return errors.New("--approve continues a run kept in a data folder: give it with --data DIR")
	case *approve:
		return approveTour(ctx, w, *data)
	case *data != "":
		return suspendTour(ctx, w, *data)
	}
	return tour.Run(ctx, w)
}
