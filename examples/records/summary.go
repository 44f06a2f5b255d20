package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/quiver-go/quiver/examples/records/gen/workspace/completions"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
)

// summaryAnswer is the offline model's answer to summarize_records: one
// JSON document, which the completion validates against its schema
// before decoding it.
const summaryAnswer = `{"headline":"Counted the late orders and started a CSV export of sales.orders.","tables":["sales.orders"],"lateOrders":12,"exportIds":["exp-7"]}`

// logEntry asks the generated completion summarize_records for the
// workspace's activity-log entry of a finished conversation — a typed
// value, not prose — and writes it to w. The request carries the
// conversation as text and offers no tools: a completion refuses them.
func logEntry(ctx context.Context, w io.Writer, transcript string) error {
	client := scripted.New(scripted.Reply(summaryAnswer))
	req := &model.Request{
		System:   "Summarize the conversation below for the workspace's activity log.",
		Messages: []model.Message{model.UserMessage(transcript)},
	}
	s, err := completions.SummarizeRecords.Complete(ctx, client, req)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nactivity log (completion %s): %s\n", completions.SummarizeRecords.Definition().Name, s.Headline)
	fmt.Fprintf(w, "  tables: %s", strings.Join(s.Tables, ", "))
	if s.LateOrders != nil {
		fmt.Fprintf(w, " · late orders: %d", *s.LateOrders)
	}
	if len(s.ExportIds) > 0 {
		fmt.Fprintf(w, " · exports: %s", strings.Join(s.ExportIds, ", "))
	}
	fmt.Fprintln(w)
	return nil
}
