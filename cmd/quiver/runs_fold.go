package main

import (
	"encoding/json"

	"github.com/quiver-go/quiver/runtime"
)

// foldStreamed folds, for quiver runs show, the pieces a model streamed
// into one record each: the text deltas of one planning attempt in a row,
// and the argument pieces of one forming call in a row, become the first
// record with the text joined. A run streamed word by word reads as its
// steps, not as hundreds of lines; quiver runs tail keeps every event (its
// cursor is the last line it printed).
func foldStreamed(recs []runtime.EventRecord) []runtime.EventRecord {
	out := make([]runtime.EventRecord, 0, len(recs))
	for _, rec := range recs {
		if n := len(out); n > 0 && foldable(out[n-1], rec) {
			out[n-1] = joined(out[n-1], rec)
			continue
		}
		out = append(out, rec)
	}
	return out
}

// foldable reports whether next continues the piece prev holds.
func foldable(prev, next runtime.EventRecord) bool {
	if prev.Type != next.Type || prev.Step != next.Step || prev.Attempt != next.Attempt || prev.CallID != next.CallID {
		return false
	}
	return next.Type == runtime.EventTextDelta || next.Type == runtime.EventToolCallStreaming
}

// joined is prev with next's piece added to its own.
func joined(prev, next runtime.EventRecord) runtime.EventRecord {
	a, errA := prev.Event()
	b, errB := next.Event()
	if errA != nil || errB != nil {
		return prev
	}
	var e runtime.Event
	switch a := a.(type) {
	case runtime.TextDelta:
		a.Text += b.(runtime.TextDelta).Text
		e = a
	case runtime.ToolCallStreaming:
		a.ArgumentsDelta += b.(runtime.ToolCallStreaming).ArgumentsDelta
		e = a
	default:
		return prev
	}
	data, err := json.Marshal(e)
	if err != nil {
		return prev
	}
	prev.Data = data
	return prev
}
