package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/quiver-go/quiver/runtime"
)

// record is the record of e with its header.
func record(t *testing.T, seq int64, step, attempt int, callID string, typ runtime.EventType, data any) runtime.EventRecord {
	t.Helper()
	raw, err := json.Marshal(data)
	if err != nil {
		t.Fatal(err)
	}
	return runtime.EventRecord{Version: runtime.EventFormat, Type: typ, Data: raw, EventHeader: runtime.EventHeader{
		RunID: "run-1", Seq: seq, Time: time.Unix(0, 0), Step: step, Attempt: attempt, CallID: callID,
	}}
}

func TestShowFoldsAStepsTextAndEachFormingCallIntoOneLine(t *testing.T) {
	recs := []runtime.EventRecord{
		record(t, 1, 0, 0, "", runtime.EventRunStarted, map[string]any{}),
		record(t, 2, 1, 1, "", runtime.EventTextDelta, map[string]any{"text": "The answer "}),
		record(t, 3, 1, 1, "", runtime.EventTextDelta, map[string]any{"text": "is fo"}),
		record(t, 4, 1, 2, "", runtime.EventPlanningRetried, map[string]any{}),
		record(t, 5, 1, 2, "", runtime.EventTextDelta, map[string]any{"text": "Let me "}),
		record(t, 6, 1, 2, "", runtime.EventTextDelta, map[string]any{"text": "check."}),
		record(t, 7, 1, 2, "c1", runtime.EventToolCallStreaming, map[string]any{"tool": "lookup"}),
		record(t, 8, 1, 2, "c1", runtime.EventToolCallStreaming, map[string]any{"tool": "lookup", "arguments_delta": `{"q":`}),
		record(t, 9, 1, 2, "c1", runtime.EventToolCallStreaming, map[string]any{"tool": "lookup", "arguments_delta": `"orders"}`}),
		record(t, 10, 1, 2, "c2", runtime.EventToolCallStreaming, map[string]any{"tool": "count", "arguments_delta": `{}`}),
	}
	var lines []string
	for _, rec := range foldStreamed(recs) {
		lines = append(lines, eventLine(rec))
	}
	got := strings.Join(lines, "\n")
	for _, want := range []string{
		"text_delta               The answer is fo",
		"planning_retried         attempt 2; what attempt 1 streamed is void",
		"text_delta               (attempt 2) Let me check.",
		`tool_call_streaming      (attempt 2) lookup call c1 {"q":"orders"}`,
		`tool_call_streaming      (attempt 2) count call c2 {}`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("show lacks %q:\n%s", want, got)
		}
	}
	if len(lines) != 6 {
		t.Errorf("%d lines, want 6 (one per step's text, attempt and call):\n%s", len(lines), got)
	}
}
