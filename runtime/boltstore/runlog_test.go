package boltstore_test

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/runtime/boltstore"
	"github.com/quiver-go/quiver/runtime/storetest"
)

func TestRunLogConformance(t *testing.T) {
	storetest.RunLog(t, func(t *testing.T) runtime.RunLog {
		s, _ := openTemp(t)
		return s.RunLog()
	})
}

// TestRunLogConformanceShared runs the two-logs suite on one *Store's
// log given twice (see TestConformanceShared for why one).
func TestRunLogConformanceShared(t *testing.T) {
	storetest.RunLogShared(t, func(t *testing.T) (a, b runtime.RunLog) {
		s, _ := openTemp(t)
		return s.RunLog(), s.RunLog()
	})
}

var logEpoch = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

// event is event seq of run, of type typ, at logEpoch+seq seconds.
func event(run string, seq int64, typ runtime.EventType) runtime.EventRecord {
	return runtime.EventRecord{
		Version: runtime.EventFormat, Type: typ, Data: json.RawMessage(`{"n":1}`),
		EventHeader: runtime.EventHeader{RunID: run, SessionID: "s-" + run, Agent: "desk", ParentRunID: "parent", Seq: seq, Time: logEpoch.Add(time.Duration(seq) * time.Second), Step: 1},
	}
}

// TestRunLogOutlivesTheStore: the events, the runs' info and the owners'
// leases one Open wrote, the next reads; between them every call fails
// wrapping ErrClosed.
func TestRunLogOutlivesTheStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), boltstore.FileName)
	s, err := boltstore.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	l := s.RunLog()
	running := []runtime.EventRecord{event("r1", 1, runtime.EventRunStarted), event("r1", 2, runtime.EventPlanned)}
	done := []runtime.EventRecord{event("r2", 1, runtime.EventRunStarted), event("r2", 2, runtime.EventRunCompleted)}
	for owner, recs := range map[string][]runtime.EventRecord{"o1": running, "o2": done} {
		if err := l.Append(ctx, owner, recs); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Renew(ctx, "o1", logEpoch.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	before, err := l.Runs(ctx, runtime.RunFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"Append": l.Append(ctx, "o1", []runtime.EventRecord{event("r1", 3, runtime.EventUsage)}),
		"Renew":  l.Renew(ctx, "o1", logEpoch),
		"Read":   second(l.Read(ctx, "r1", 0, 0)),
		"Run":    second(l.Run(ctx, "r1")),
		"Runs":   second(l.Runs(ctx, runtime.RunFilter{})),
		"Wait":   second(l.Wait(ctx, "r1", 2, time.Second)),
		"Stale":  second(l.Stale(ctx, logEpoch)),
		"Expire": second(l.Expire(ctx, logEpoch)),
	} {
		if !errors.Is(err, boltstore.ErrClosed) {
			t.Errorf("%s after Close: %v, want ErrClosed", name, err)
		}
	}

	s, err = boltstore.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	l = s.RunLog()
	for _, want := range [][]runtime.EventRecord{running, done} {
		got, err := l.Read(ctx, want[0].RunID, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("run %s after reopening: %d events, want %d", want[0].RunID, len(got), len(want))
		}
		for i := range want {
			w, _ := runtime.MarshalEvent(want[i])
			g, _ := runtime.MarshalEvent(got[i])
			if string(g) != string(w) {
				t.Fatalf("event %d of run %s after reopening:\n%s\nwant\n%s", i+1, want[0].RunID, g, w)
			}
		}
	}
	after, err := l.Runs(ctx, runtime.RunFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != 2 || len(before) != 2 {
		t.Fatalf("Runs before closing = %+v, after reopening = %+v; want two each", before, after)
	}
	for i := range after {
		a, b := after[i], before[i]
		if a.RunID != b.RunID || a.SessionID != b.SessionID || a.Agent != b.Agent || a.ParentRunID != "parent" || a.ParentRunID != b.ParentRunID ||
			a.Status != b.Status || a.Owner != b.Owner || a.LastSeq != b.LastSeq || !a.StartedAt.Equal(b.StartedAt) || !a.UpdatedAt.Equal(b.UpdatedAt) {
			t.Fatalf("run info after reopening = %+v, want %+v", a, b)
		}
	}
	if stale, err := l.Stale(ctx, logEpoch.Add(time.Minute)); err != nil || len(stale) != 0 {
		t.Fatalf("Stale within o1's lease after reopening = %+v, %v; want none (the lease was kept)", stale, err)
	}
	if stale, err := l.Stale(ctx, logEpoch.Add(2*time.Hour)); err != nil || len(stale) != 1 || stale[0].RunID != "r1" {
		t.Fatalf("Stale after o1's lease = %+v, %v; want r1", stale, err)
	}
	if err := l.Append(ctx, "o1", []runtime.EventRecord{event("r1", 3, runtime.EventRunCompleted)}); err != nil {
		t.Fatalf("Append after reopening: %v", err)
	}
}

// second returns a call's error.
func second[T any](_ T, err error) error { return err }

// TestWaitReturnsOnClose: a Wait in progress fails wrapping ErrClosed as
// soon as the store closes, not at its timeout.
func TestWaitReturnsOnClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), boltstore.FileName)
	s, err := boltstore.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	woke := make(chan error, 1)
	go func() {
		_, err := s.RunLog().Wait(ctx, "r1", 0, time.Minute)
		woke <- err
	}()
	time.Sleep(50 * time.Millisecond)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-woke:
		if !errors.Is(err, boltstore.ErrClosed) {
			t.Fatalf("Wait when the store closed: %v, want ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Wait still blocked 5s after Close")
	}
}

// TestLayout1IsMigrated: a file written before the run log (layout 1:
// meta, sessions, checkpoints) opens, keeps its sessions and
// checkpoints, gains the run log, and is layout 2 from then on.
func TestLayout1IsMigrated(t *testing.T) {
	path := filepath.Join(t.TempDir(), boltstore.FileName)
	sess, err := runtime.MarshalSession("s1", runtime.Session{Messages: []model.Message{model.UserMessage("hello")}, Version: 4})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	cp, err := runtime.MarshalCheckpoint(runtime.Checkpoint{RunID: "r1", Agent: "desk", SessionID: "s1", SuspendedAt: at, State: json.RawMessage(`{"step":2}`)})
	if err != nil {
		t.Fatal(err)
	}
	writeRaw(t, path, []byte("meta"), []byte("layout"), []byte("1"))
	writeRaw(t, path, []byte("sessions"), []byte("s1"), sess)
	writeRaw(t, path, []byte("checkpoints"), []byte("r1"), cp)

	s, err := boltstore.Open(path)
	if err != nil {
		t.Fatalf("Open of a layout-1 file: %v", err)
	}
	if got, err := s.Load(ctx, "s1"); err != nil || got.Version != 4 || len(got.Messages) != 1 {
		t.Fatalf("Load after the migration = %+v, %v; want the session at version 4", got, err)
	}
	if err := s.RunLog().Append(ctx, "o1", []runtime.EventRecord{event("r2", 1, runtime.EventRunStarted)}); err != nil {
		t.Fatalf("Append after the migration: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if got := readRaw(t, path, []byte("meta"), []byte("layout")); string(got) != "2" {
		t.Fatalf("layout after the migration = %q, want 2", got)
	}
	if got := readRaw(t, path, []byte("checkpoints"), []byte("r1")); string(got) != string(cp) {
		t.Fatalf("the checkpoint changed in the migration: %s", got)
	}

	s, err = boltstore.Open(path)
	if err != nil {
		t.Fatalf("Open of the migrated file: %v", err)
	}
	defer s.Close()
	if c, err := s.Take(ctx, "r1", at); err != nil || string(c.State) != `{"step":2}` {
		t.Fatalf("Take after the migration = %+v, %v; want the checkpoint", c, err)
	}
	if info, err := s.RunLog().Run(ctx, "r2"); err != nil || info.LastSeq != 1 {
		t.Fatalf("Run after reopening the migrated file = %+v, %v", info, err)
	}
}

// TestRunInfoOfAnotherFormatIsRefused: a run's info of a format this
// release does not read is refused by every call reading it, and left in
// the file.
func TestRunInfoOfAnotherFormatIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), boltstore.FileName)
	s, err := boltstore.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	future := []byte(`{"format":99,"run_id":"r1","status":"running","last_seq":1}`)
	writeRaw(t, path, []byte("runs"), []byte("r1"), future)

	s, err = boltstore.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	l := s.RunLog()
	for name, err := range map[string]error{
		"Run":    second(l.Run(ctx, "r1")),
		"Runs":   second(l.Runs(ctx, runtime.RunFilter{})),
		"Stale":  second(l.Stale(ctx, logEpoch)),
		"Expire": second(l.Expire(ctx, logEpoch.Add(time.Hour))),
		"Wait":   second(l.Wait(ctx, "r1", 0, time.Second)),
		"Append": l.Append(ctx, "o1", []runtime.EventRecord{event("r1", 1, runtime.EventRunStarted)}),
	} {
		if !errors.Is(err, runtime.ErrUnknownRecordFormat) || !strings.Contains(err.Error(), `"r1"`) {
			t.Errorf("%s over a format-99 run: %v, want ErrUnknownRecordFormat naming the run", name, err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if got := readRaw(t, path, []byte("runs"), []byte("r1")); string(got) != string(future) {
		t.Fatalf("the refused info was changed or removed: %q", got)
	}
}

func TestRenewNeedsAnOwner(t *testing.T) {
	s, _ := openTemp(t)
	if err := s.RunLog().Renew(ctx, "", logEpoch); err == nil || !strings.Contains(err.Error(), "owner") {
		t.Fatalf("Renew without an owner: %v, want a refusal naming the owner", err)
	}
}
