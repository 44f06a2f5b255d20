package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/internal/examplecheck"
	"github.com/quiver-go/quiver/runtime"
)

var update = flag.Bool("update", false, "rewrite testdata/follow.golden")

// TestFollowOutput runs the example and compares what it prints with the
// golden file: the stream from before the run starts, the text and the
// forming call appended as they arrive, the drop after event 8 and the
// reconnect that resumes mid-call, the tool's progress, the check against
// the run log, then 204 from the last id and 401 without the token.
func TestFollowOutput(t *testing.T) {
	var buf bytes.Buffer
	if err := run(context.Background(), &buf); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	examplecheck.Golden(t, buf.Bytes(), "testdata/follow.golden", *update)
}

// TestSSEReader: fields up to a blank line make an event, CRLF line ends
// and comments are taken, data lines are joined, a blank line without
// data dispatches nothing, and an event the stream cut before its blank
// line is dropped.
func TestSSEReader(t *testing.T) {
	stream := ": keep-alive\r\n\r\n" +
		"id: 1\r\nevent: run_started\r\ndata: {\"a\":1}\r\n\r\n" +
		"id: 2\n: a comment in the middle\ndata:first\ndata: second\n\n" +
		"\n\n" +
		"id: 3\nevent: cut\ndata: {}\n"
	r := newSSEReader(strings.NewReader(stream))
	want := []sseEvent{
		{ID: "1", Type: "run_started", Data: `{"a":1}`},
		{ID: "2", Data: "first\nsecond"},
	}
	for i, w := range want {
		got, err := r.next()
		if err != nil {
			t.Fatalf("event %d: %v", i+1, err)
		}
		if got != w {
			t.Fatalf("event %d: %+v, want %+v", i+1, got, w)
		}
	}
	if got, err := r.next(); !errors.Is(err, io.EOF) {
		t.Fatalf("after the last whole event: %+v, %v; want io.EOF", got, err)
	}
}

// TestSameEventsRefusesGapsRepeatsAndStrangers: the check the example ends
// with fails on a missing event, a repeated one, one the log does not
// hold as sent, and a short or long list.
func TestSameEventsRefusesGapsRepeatsAndStrangers(t *testing.T) {
	var logged []runtime.EventRecord
	var all []received
	for i, e := range []runtime.Event{
		runtime.RunStarted{EventHeader: runtime.EventHeader{RunID: "r", Seq: 1}},
		runtime.TextDelta{EventHeader: runtime.EventHeader{RunID: "r", Seq: 2, Step: 1, Attempt: 1}, Text: "Hi"},
		runtime.RunCompleted{EventHeader: runtime.EventHeader{RunID: "r", Seq: 3}},
	} {
		rec := runtime.NewEventRecord(e)
		b, err := runtime.MarshalEvent(rec)
		if err != nil {
			t.Fatal(err)
		}
		logged = append(logged, rec)
		all = append(all, received{seq: int64(i + 1), data: string(b)})
	}
	if err := sameEvents(all, logged); err != nil {
		t.Fatalf("the log's own events: %v", err)
	}
	altered := append([]received(nil), all...)
	altered[1].data = strings.Replace(altered[1].data, "Hi", "Ho", 1)
	for name, got := range map[string][]received{
		"missing":  {all[0], all[2]},
		"repeated": {all[0], all[1], all[1], all[2]},
		"altered":  altered,
		"short":    all[:2],
		"long":     append(append([]received(nil), all...), received{seq: 4, data: all[2].data}),
	} {
		if err := sameEvents(got, logged); err == nil {
			t.Errorf("%s: sameEvents passed", name)
		}
	}
}
