package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/runtime/storetest"
)

func TestMemoryRunLogConformance(t *testing.T) {
	storetest.RunLog(t, func(*testing.T) runtime.RunLog { return runtime.NewMemoryRunLog() })
}

// TestMemoryRunLogKeepsTheLatestEndedRuns: past MemoryRunLogEndedRuns
// ended runs, the first to end is dropped; a suspended run, older than
// all of them, is kept.
func TestMemoryRunLogKeepsTheLatestEndedRuns(t *testing.T) {
	ctx := context.Background()
	l := runtime.NewMemoryRunLog()
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	rec := func(run string, seq int64, typ runtime.EventType, i int) runtime.EventRecord {
		return runtime.EventRecord{Version: runtime.EventFormat, Type: typ, Data: []byte(`{}`),
			EventHeader: runtime.EventHeader{RunID: run, Seq: seq, Time: at.Add(time.Duration(i) * time.Second)}}
	}
	if err := l.Append(ctx, "o", []runtime.EventRecord{rec("waiting", 1, runtime.EventRunStarted, 0), rec("waiting", 2, runtime.EventAwaiting, 0)}); err != nil {
		t.Fatal(err)
	}
	const extra = 5
	for i := range runtime.MemoryRunLogEndedRuns + extra {
		id := fmt.Sprint("r", i)
		if err := l.Append(ctx, "o", []runtime.EventRecord{rec(id, 1, runtime.EventRunStarted, i+1), rec(id, 2, runtime.EventRunCompleted, i+1)}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range extra + 1 {
		_, err := l.Run(ctx, fmt.Sprint("r", i))
		if dropped := errors.Is(err, runtime.ErrUnknownRun); dropped != (i < extra) {
			t.Fatalf("run r%d: %v; want the first %d ended runs dropped, the rest kept", i, err, extra)
		}
	}
	if info, err := l.Run(ctx, "waiting"); err != nil || info.Status != runtime.StatusSuspended {
		t.Fatalf("the suspended run: %+v, %v; want it kept", info, err)
	}
	if all, _ := l.Runs(ctx, runtime.RunFilter{}); len(all) != runtime.MemoryRunLogEndedRuns+1 {
		t.Fatalf("%d runs kept, want %d", len(all), runtime.MemoryRunLogEndedRuns+1)
	}
}
