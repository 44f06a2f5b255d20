package main

import (
	"errors"
	"fmt"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/quiver-go/quiver/runtime"
)

// Requirement line of the runs examples (TestHelpExamplesRun): the test
// records a run, run-1, in the data folder first.
const withRecordedRun = "# with run-1 recorded in the data folder"

func newRunsLsCommand() *cobra.Command {
	var f runLogFlags
	var filter runtime.RunFilter
	var status string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "ls",
		Short: "List the runs of a run log, the most recently updated first",
		Long: `List the runs of a run log, the most recently updated first: run id, status,
agent, session, number of events, last update. A running run whose runtime
no longer holds its lease (its process died, and no runtime has recorded it
interrupted yet) says so.`,
		Example: `  ` + withRecordedRun + `
  quiver runs ls
  quiver runs ls --status completed --limit 10
  quiver runs ls --json`,
		Args: cobra.NoArgs,
		PreRunE: func(*cobra.Command, []string) error {
			filter.Status = runtime.RunStatus(status)
			switch filter.Status {
			case "", runtime.StatusRunning, runtime.StatusSuspended, runtime.StatusCompleted, runtime.StatusFailed, runtime.StatusCancelled, runtime.StatusInterrupted:
			default:
				return usagef("--status %q: want running, suspended, completed, failed, cancelled or interrupted", status)
			}
			if filter.Limit < 0 {
				return usagef("--limit %d: want 0 (all) or more", filter.Limit)
			}
			return nil
		},
		RunE: func(c *cobra.Command, _ []string) error {
			l, err := f.open(c.Context())
			if err != nil {
				return err
			}
			defer l.close()
			runs, err := l.log.Runs(c.Context(), filter)
			if err != nil {
				return err
			}
			lapsed, err := lapsedRuns(c, l.log)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(c.OutOrStdout(), runInfosJSON(runs, lapsed))
			}
			return printRuns(c.OutOrStdout(), l.where, runs, lapsed)
		},
	}
	f.addFlags(cmd)
	cmd.Flags().StringVar(&filter.SessionID, "session", "", "only the runs of session `ID`")
	cmd.Flags().StringVar(&filter.Agent, "agent", "", "only the runs of agent `NAME`")
	cmd.Flags().StringVar(&status, "status", "", "only the runs in `STATUS` (running, suspended, completed, failed, cancelled, interrupted)")
	cmd.Flags().IntVar(&filter.Limit, "limit", 50, "list `N` runs at most (0: all)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newRunsShowCommand() *cobra.Command {
	var f runLogFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show RUN",
		Short: "Show a run: its status, its events in order, what it waits for",
		Long: `Show a run of a run log: its status, agent, session and owner, every event in
order (sequence number, time, step, type and what it says), and, for a
suspended run, the items it waits for. --json prints the run and its
event records as the log keeps them (event contract v1).`,
		Example: `  ` + withRecordedRun + `
  quiver runs show run-1
  quiver runs show run-1 --json`,
		Args: exactlyOneRun,
		RunE: func(c *cobra.Command, args []string) error {
			l, err := f.open(c.Context())
			if err != nil {
				return err
			}
			defer l.close()
			info, err := l.log.Run(c.Context(), args[0])
			if errors.Is(err, runtime.ErrUnknownRun) {
				return fmt.Errorf("%s has no run %q: 'quiver runs ls' lists its runs", l.where, args[0])
			}
			if err != nil {
				return err
			}
			recs, err := l.log.Read(c.Context(), args[0], 0, 0)
			if err != nil {
				return err
			}
			lapsed, err := lapsedRuns(c, l.log)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(c.OutOrStdout(), runShowJSON{Run: runInfosJSON([]runtime.RunInfo{info}, lapsed)[0], Events: recs, Pending: pendingOf(recs, info)})
			}
			return printRun(c.OutOrStdout(), info, lapsed[info.RunID], recs)
		},
	}
	f.addFlags(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newRunsTailCommand() *cobra.Command {
	var f runLogFlags
	var after int64
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "tail RUN",
		Short: "Print a run's events as they are recorded, until it ends or suspends",
		Long: `Print a run's events as the run log records them, from the start or after
sequence number --after N, and return once the run has ended or suspended
(or on Ctrl-C). A run not started yet is waited for. Each line starts with
the event's sequence number: to follow on after an interruption, pass the
last one printed as --after. --json prints one event record per line.`,
		Example: `  ` + withRecordedRun + `
  quiver runs tail run-1
  quiver runs tail run-1 --after 3 --json`,
		Args: exactlyOneRun,
		PreRunE: func(*cobra.Command, []string) error {
			if after < 0 {
				return usagef("--after %d: want a sequence number, 0 for the start", after)
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(c.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			l, err := f.open(ctx)
			if err != nil {
				return err
			}
			defer l.close()
			w := c.OutOrStdout()
			err = runtime.FollowRunLog(ctx, l.log, args[0], after, func(rec runtime.EventRecord) error {
				if asJSON {
					b, err := runtime.MarshalEvent(rec)
					if err != nil {
						return err
					}
					_, err = fmt.Fprintf(w, "%s\n", b)
					return err
				}
				_, err := fmt.Fprintln(w, eventLine(rec))
				return err
			})
			if ctx.Err() != nil && c.Context().Err() == nil {
				return nil // Ctrl-C: the cursor is the last line printed
			}
			return err
		},
	}
	f.addFlags(cmd)
	cmd.Flags().Int64Var(&after, "after", 0, "print the events after sequence number `N`")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON event record per line")
	return cmd
}

// exactlyOneRun requires the RUN argument.
func exactlyOneRun(cmd *cobra.Command, args []string) error {
	switch {
	case len(args) == 0:
		return usagef("%s needs a run id: 'quiver runs ls' lists them", cmd.CommandPath())
	case len(args) > 1:
		return usagef("%s takes one run id, got %d", cmd.CommandPath(), len(args))
	case args[0] == "":
		return usagef("%s: the run id is empty", cmd.CommandPath())
	}
	return nil
}

// lapsedRuns returns the running runs whose owner's lease has lapsed.
func lapsedRuns(c *cobra.Command, l runtime.RunLog) (map[string]bool, error) {
	stale, err := l.Stale(c.Context(), time.Now())
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, r := range stale {
		out[r.RunID] = true
	}
	return out, nil
}
