package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/quiver-go/quiver/runtime"
)

// runJSON is a run as quiver runs prints it with --json.
type runJSON struct {
	RunID       string            `json:"run_id"`
	Status      runtime.RunStatus `json:"status"`
	Agent       string            `json:"agent,omitempty"`
	SessionID   string            `json:"session_id,omitempty"`
	ParentRunID string            `json:"parent_run_id,omitempty"`
	Owner       string            `json:"owner,omitempty"`
	// LeaseLapsed is set for a running run whose owner no longer holds
	// its lease.
	LeaseLapsed bool      `json:"lease_lapsed,omitempty"`
	Events      int64     `json:"events"`
	StartedAt   time.Time `json:"started_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

// runShowJSON is quiver runs show --json.
type runShowJSON struct {
	Run     runJSON               `json:"run"`
	Events  []runtime.EventRecord `json:"events"`
	Pending []runtime.PendingItem `json:"pending,omitempty"`
}

func runInfosJSON(runs []runtime.RunInfo, lapsed map[string]bool) []runJSON {
	out := make([]runJSON, 0, len(runs))
	for _, r := range runs {
		out = append(out, runJSON{
			RunID: r.RunID, Status: r.Status, Agent: r.Agent, SessionID: r.SessionID, ParentRunID: r.ParentRunID,
			Owner: r.Owner, LeaseLapsed: lapsed[r.RunID], Events: r.LastSeq, StartedAt: r.StartedAt, UpdatedAt: r.UpdatedAt,
		})
	}
	return out
}

// statusText is a run's status for a table.
func statusText(r runtime.RunInfo, lapsed bool) string {
	if lapsed {
		return string(r.Status) + " (owner gone)"
	}
	return string(r.Status)
}

// printRuns prints quiver runs ls.
func printRuns(w io.Writer, where string, runs []runtime.RunInfo, lapsed map[string]bool) error {
	if len(runs) == 0 {
		_, err := fmt.Fprintf(w, "No runs in %s.\n", where)
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tSTATUS\tAGENT\tSESSION\tEVENTS\tUPDATED")
	for _, r := range runs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", r.RunID, statusText(r, lapsed[r.RunID]), dash(r.Agent), dash(r.SessionID), r.LastSeq, r.UpdatedAt.Local().Format(time.DateTime))
	}
	return tw.Flush()
}

// printRun prints quiver runs show.
func printRun(w io.Writer, r runtime.RunInfo, lapsed bool, recs []runtime.EventRecord) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "Run:\t%s\n", r.RunID)
	fmt.Fprintf(tw, "Status:\t%s\n", statusText(r, lapsed))
	fmt.Fprintf(tw, "Agent:\t%s\n", dash(r.Agent))
	fmt.Fprintf(tw, "Session:\t%s\n", dash(r.SessionID))
	if r.ParentRunID != "" {
		fmt.Fprintf(tw, "Parent run:\t%s\n", r.ParentRunID)
	}
	fmt.Fprintf(tw, "Owner:\t%s\n", dash(r.Owner))
	fmt.Fprintf(tw, "Started:\t%s\n", r.StartedAt.Local().Format(time.DateTime))
	fmt.Fprintf(tw, "Updated:\t%s\n", r.UpdatedAt.Local().Format(time.DateTime))
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nEvents (%d):\n", len(recs))
	for _, rec := range foldStreamed(recs) {
		fmt.Fprintf(w, "  %s\n", eventLine(rec))
	}
	if pending := pendingOf(recs, r); len(pending) > 0 {
		fmt.Fprintf(w, "\nWaiting for (%d):\n", len(pending))
		for i, p := range pending {
			what := string(p.Kind)
			if p.Tool != "" {
				what += " of " + string(p.Tool) + " (call " + p.CallID + ")"
			}
			fmt.Fprintf(w, "  %d. %s: %s\n", i+1, what, oneLine(p.Prompt))
		}
	}
	return nil
}

// pendingOf returns what a suspended run waits for: the items of its
// latest awaiting event.
func pendingOf(recs []runtime.EventRecord, r runtime.RunInfo) []runtime.PendingItem {
	if r.Status != runtime.StatusSuspended {
		return nil
	}
	for i := len(recs) - 1; i >= 0; i-- {
		if recs[i].Type != runtime.EventAwaiting {
			continue
		}
		if e, err := recs[i].Event(); err == nil {
			return e.(runtime.Awaiting).Pending
		}
		return nil
	}
	return nil
}

// eventLine is one event on one line: sequence number, time, step, type
// and what it says.
func eventLine(rec runtime.EventRecord) string {
	step := "-"
	if rec.Step > 0 {
		step = fmt.Sprint(rec.Step)
	}
	line := fmt.Sprintf("%4d  %s  step %-3s %-24s", rec.Seq, rec.Time.Local().Format("15:04:05.000"), step, rec.Type)
	if s := eventSummary(rec); s != "" {
		line += " " + s
	}
	return strings.TrimRight(line, " ")
}

// maxSummaryRunes bounds what a line repeats of an event's text.
const maxSummaryRunes = 100

// eventSummary says what an event says, briefly.
func eventSummary(rec runtime.EventRecord) string {
	if rec.DataOmitted > 0 {
		return fmt.Sprintf("(%d bytes of data left out of the log)", rec.DataOmitted)
	}
	e, err := rec.Event()
	if err != nil {
		return "(data does not decode: " + err.Error() + ")"
	}
	var s string
	switch e := e.(type) {
	case runtime.RunStarted:
		if e.Continued {
			s = "continued"
		}
	case runtime.Planned:
		switch {
		case len(e.ToolCalls) > 0:
			s = "calls " + strings.Join(e.ToolCalls, ", ")
		case e.Final:
			s = "answered: " + e.Text
		default:
			s = e.Text
		}
	case runtime.ToolCallScheduled:
		s = string(e.Tool) + " call " + e.CallID
		if e.DisplayHint != "" {
			s += ": " + e.DisplayHint
		}
	case runtime.ToolResultReceived:
		s = string(e.Tool) + " call " + e.CallID
		switch {
		case e.Failure != nil:
			s += " failed, " + string(e.Failure.Code) + ": " + e.Failure.Message
		case e.DisplayHint != "":
			s += ": " + e.DisplayHint
		default:
			s += fmt.Sprintf(": %d bytes", len(e.Result))
		}
	case runtime.Awaiting:
		s = count(len(e.Pending), "pending item", "pending items")
	case runtime.ConfirmationDecided:
		verdict := "denied"
		if e.Approved {
			verdict = "approved"
		}
		s = string(e.Tool) + " call " + e.CallID + " " + verdict
	case runtime.UsageReported:
		s = fmt.Sprintf("%d in, %d out tokens", e.Usage.InputTokens, e.Usage.OutputTokens)
	case runtime.RunCompleted:
		s = string(e.Reason)
	case runtime.RunFailed:
		s = e.Error
	case runtime.RunInterrupted:
		s = "owner " + e.Owner + " stopped"
		if len(e.UnknownCalls) > 0 {
			s += "; outcome unknown: " + strings.Join(e.UnknownCalls, ", ")
		}
	case runtime.RegistryRead:
		s = fmt.Sprintf("%s revision %d", e.Registry, e.Revision)
	case runtime.CacheCheckpointIgnored:
		s = string(e.Checkpoint)
	case runtime.TextDelta:
		s = attempt(e.Attempt) + e.Text
	case runtime.ToolCallStreaming:
		s = attempt(e.Attempt) + e.Tool + " call " + e.CallID + " " + e.ArgumentsDelta
	case runtime.SearchRound:
		s = fmt.Sprintf("%q found %s", e.Query, dash(strings.Join(e.Found, ", ")))
	case runtime.StreamUsage:
		s = fmt.Sprintf("%d in, %d out tokens", e.Usage.InputTokens, e.Usage.OutputTokens)
	case runtime.PlanningRetried:
		s = fmt.Sprintf("attempt %d; what attempt %d streamed is void", e.Attempt, e.Attempt-1)
	case runtime.ToolProgress:
		s = fmt.Sprintf("%s call %s: %g", e.Tool, e.CallID, e.Progress.Progress)
		if e.Total > 0 {
			s += fmt.Sprintf(" of %g", e.Total)
		}
		if e.Message != "" {
			s += ", " + e.Message
		}
	case runtime.UnknownEvent:
		s = "(a newer release's event) " + string(e.Data)
	}
	s = oneLine(s)
	if r := []rune(s); len(r) > maxSummaryRunes {
		s = string(r[:maxSummaryRunes-1]) + "…"
	}
	return s
}

// attempt names a retried attempt ("" for the first).
func attempt(n int) string {
	if n > 1 {
		return fmt.Sprintf("(attempt %d) ", n)
	}
	return ""
}

// dash stands for an empty cell.
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
