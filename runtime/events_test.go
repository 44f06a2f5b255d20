package runtime

// evtAll returns the events the workflow of one run emitted, in order:
// the events activities stream as they run (their Attempt is set) are
// left out here, and tested in stream_test.go.
func evtAll(f *fixture, runID string) []Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Event
	for _, e := range f.events {
		if e.Run() == runID && e.Head().Attempt == 0 {
			out = append(out, e)
		}
	}
	return out
}

// evtEvery returns every event subscribers saw of one run, the streamed
// ones included, in order.
func evtEvery(f *fixture, runID string) []Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Event
	for _, e := range f.events {
		if e.Run() == runID {
			out = append(out, e)
		}
	}
	return out
}

// evtTypes names events by type.
func evtTypes(events []Event) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = string(e.Type())
	}
	return out
}
