package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/runtime"
)

// Run runs the conformance suite against the stores open returns: each
// subtest opens its own (a fresh, empty backend, or one with a prefix of
// its own). Two stores open returns for one test may share a backend
// (OpenShared): the suite then checks that concurrent takes and saves
// from both agree.
func Run(t *testing.T, open func(t *testing.T) runtime.Store) {
	t.Run("SessionNeverSaved", func(t *testing.T) { sessionNeverSaved(t, open(t)) })
	t.Run("SessionSaveLoadDelete", func(t *testing.T) { sessionSaveLoadDelete(t, open(t)) })
	t.Run("SessionStaleVersionIsAConflict", func(t *testing.T) { sessionStaleVersion(t, open(t)) })
	t.Run("SessionConcurrentSavesOneWins", func(t *testing.T) { s := open(t); sessionConcurrentSaves(t, s, s) })
	t.Run("SessionRecordTooLarge", func(t *testing.T) { sessionTooLarge(t, open(t)) })
	t.Run("CheckpointTakenOnce", func(t *testing.T) { checkpointTakenOnce(t, open(t)) })
	t.Run("CheckpointConcurrentTakesOneWins", func(t *testing.T) { s := open(t); concurrentTakes(t, s, s) })
	t.Run("CheckpointPutReplaces", func(t *testing.T) { checkpointPutReplaces(t, open(t)) })
	t.Run("CheckpointListFilters", func(t *testing.T) { checkpointList(t, open(t)) })
	t.Run("CheckpointExpiry", func(t *testing.T) { checkpointExpiry(t, open(t)) })
	t.Run("CheckpointRecordTooLarge", func(t *testing.T) { checkpointTooLarge(t, open(t)) })
}

// RunShared checks two stores on one backend (two processes sharing
// Redis, say): a checkpoint put through one is taken once through either,
// and concurrent saves of one session through both leave one winner.
func RunShared(t *testing.T, open func(t *testing.T) (a, b runtime.Store)) {
	t.Run("SharedCheckpointConcurrentTakesOneWins", func(t *testing.T) { a, b := open(t); concurrentTakes(t, a, b) })
	t.Run("SharedSessionConcurrentSavesOneWins", func(t *testing.T) { a, b := open(t); sessionConcurrentSaves(t, a, b) })
	t.Run("SharedConcurrentExpiryReportsEachOnce", func(t *testing.T) { a, b := open(t); concurrentExpiry(t, a, b) })
}

// concurrentExpiry: expired checkpoints, expired at once through a and b;
// each is reported by exactly one expirer.
func concurrentExpiry(t *testing.T, a, b runtime.Store) {
	const n = 20
	for i := range n {
		c := checkpoint(fmt.Sprint("x", i), "desk", "", 0, nil)
		c.ExpiresAt = epoch.Add(time.Minute)
		if err := a.Suspensions().Put(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	seen := map[string]int{}
	for i := range 6 {
		st := a
		if i%2 == 1 {
			st = b
		}
		wg.Go(func() {
			got, err := st.Suspensions().Expire(ctx, epoch.Add(time.Hour))
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, c := range got {
				seen[c.RunID]++
			}
		})
	}
	wg.Wait()
	if len(seen) != n {
		t.Fatalf("%d of %d expired checkpoints reported", len(seen), n)
	}
	for id, k := range seen {
		if k != 1 {
			t.Fatalf("%s reported %d times, want once", id, k)
		}
	}
}

var ctx = context.Background()

// epoch is the suite's clock: stores take "now" as an argument.
var epoch = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func msgs(texts ...string) []model.Message {
	out := make([]model.Message, len(texts))
	for i, s := range texts {
		out[i] = model.UserMessage(s)
	}
	return out
}

func texts(ms []model.Message) string {
	var out []string
	for _, m := range ms {
		out = append(out, m.TextContent())
	}
	return strings.Join(out, "|")
}

func sessionNeverSaved(t *testing.T, s runtime.Store) {
	got, err := s.Sessions().Load(ctx, "nobody")
	if err != nil || got.Version != 0 || len(got.Messages) != 0 {
		t.Fatalf("Load of a session never saved = %+v, %v; want version 0, no messages", got, err)
	}
	if err := s.Sessions().Delete(ctx, "nobody"); err != nil {
		t.Fatalf("Delete of a session never saved: %v", err)
	}
}

func sessionSaveLoadDelete(t *testing.T, s runtime.Store) {
	ss := s.Sessions()
	v, err := ss.Save(ctx, "s1", msgs("hello", "world"), 0)
	if err != nil || v != 1 {
		t.Fatalf("first Save = %d, %v; want version 1", v, err)
	}
	if v, err = ss.Save(ctx, "s1", msgs("hello", "world", "again"), 1); err != nil || v != 2 {
		t.Fatalf("second Save = %d, %v; want version 2", v, err)
	}
	got, err := ss.Load(ctx, "s1")
	if err != nil || got.Version != 2 || texts(got.Messages) != "hello|world|again" {
		t.Fatalf("Load = %+v, %v", got, err)
	}
	// The copy is the caller's.
	got.Messages[0] = model.UserMessage("changed")
	if again, _ := ss.Load(ctx, "s1"); texts(again.Messages) != "hello|world|again" {
		t.Fatalf("a loaded transcript shares memory with the store: %s", texts(again.Messages))
	}
	if other, _ := ss.Load(ctx, "s2"); other.Version != 0 {
		t.Fatalf("another session reads s1's: %+v", other)
	}
	if err := ss.Delete(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if got, err := ss.Load(ctx, "s1"); err != nil || got.Version != 0 || len(got.Messages) != 0 {
		t.Fatalf("Load after Delete = %+v, %v", got, err)
	}
	if v, err := ss.Save(ctx, "s1", msgs("anew"), 0); err != nil || v != 1 {
		t.Fatalf("Save after Delete = %d, %v; want version 1", v, err)
	}
}

func sessionStaleVersion(t *testing.T, s runtime.Store) {
	ss := s.Sessions()
	if _, err := ss.Save(ctx, "s", msgs("a"), 0); err != nil {
		t.Fatal(err)
	}
	for _, stale := range []int64{0, 2, 7} {
		_, err := ss.Save(ctx, "s", msgs("b"), stale)
		if !errors.Is(err, runtime.ErrSessionConflict) {
			t.Fatalf("Save with version %d over version 1: %v, want ErrSessionConflict", stale, err)
		}
	}
	if got, _ := ss.Load(ctx, "s"); got.Version != 1 || texts(got.Messages) != "a" {
		t.Fatalf("a refused save changed the session: %+v", got)
	}
}

// sessionConcurrentSaves: runs that loaded version 0 save at once, through
// a and b; exactly one wins, and the stored transcript is the winner's.
func sessionConcurrentSaves(t *testing.T, a, b runtime.Store) {
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		st := a
		if i%2 == 1 {
			st = b
		}
		wg.Go(func() { _, errs[i] = st.Sessions().Save(ctx, "race", msgs(fmt.Sprint("run", i)), 0) })
	}
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner >= 0:
			t.Fatalf("runs %d and %d both saved over version 0", winner, i)
		case err == nil:
			winner = i
		case !errors.Is(err, runtime.ErrSessionConflict):
			t.Fatalf("run %d: %v, want ErrSessionConflict", i, err)
		}
	}
	if winner < 0 {
		t.Fatal("no save won")
	}
	got, err := b.Sessions().Load(ctx, "race")
	if err != nil || got.Version != 1 || texts(got.Messages) != fmt.Sprint("run", winner) {
		t.Fatalf("stored %+v, %v; want the winner's (run%d) at version 1", got, err, winner)
	}
}

func sessionTooLarge(t *testing.T, s runtime.Store) {
	big := msgs(strings.Repeat("x", runtime.MaxRecordBytes))
	if _, err := s.Sessions().Save(ctx, "big", big, 0); !errors.Is(err, runtime.ErrRecordTooLarge) {
		t.Fatalf("Save of a transcript over MaxRecordBytes: %v, want ErrRecordTooLarge", err)
	}
	if got, _ := s.Sessions().Load(ctx, "big"); got.Version != 0 {
		t.Fatal("a refused record was stored")
	}
}

// checkpoint returns a checkpoint of run id suspended at epoch+at.
func checkpoint(id, agent, session string, at time.Duration, labels map[string]string) runtime.Checkpoint {
	return runtime.Checkpoint{
		RunID: id, Agent: agent, SessionID: session, Labels: labels,
		Pending: []runtime.PendingItem{{
			Kind: runtime.PendingConfirmation, CallID: id + "-c1", Tool: "orders.cancelOrder",
			Prompt: "Cancel order A-1?", Payload: json.RawMessage(`{"order_id":"A-1"}`),
			PayloadDigest: "sha256:abc",
		}},
		SuspendedAt: epoch.Add(at),
		State:       json.RawMessage(`{"run_id":"` + id + `","step":3}`),
	}
}

func checkpointTakenOnce(t *testing.T, s runtime.Store) {
	ss := s.Suspensions()
	want := checkpoint("r1", "desk", "s1", 0, map[string]string{"tenant": "acme"})
	if err := ss.Put(ctx, want); err != nil {
		t.Fatal(err)
	}
	got, err := ss.Take(ctx, "r1", epoch)
	if err != nil {
		t.Fatal(err)
	}
	if got.RunID != "r1" || got.Agent != "desk" || got.SessionID != "s1" || got.Labels["tenant"] != "acme" ||
		!got.SuspendedAt.Equal(want.SuspendedAt) || string(got.State) != string(want.State) ||
		len(got.Pending) != 1 || got.Pending[0].Prompt != "Cancel order A-1?" || got.Pending[0].PayloadDigest != "sha256:abc" ||
		string(got.Pending[0].Payload) != `{"order_id":"A-1"}` {
		t.Fatalf("Take = %+v, want %+v", got, want)
	}
	if _, err := ss.Take(ctx, "r1", epoch); !errors.Is(err, runtime.ErrNotSuspended) || errors.Is(err, runtime.ErrSuspensionExpired) {
		t.Fatalf("second Take: %v, want ErrNotSuspended (not expired)", err)
	}
	if _, err := ss.Take(ctx, "never", epoch); !errors.Is(err, runtime.ErrNotSuspended) {
		t.Fatalf("Take of an unknown run: %v, want ErrNotSuspended", err)
	}
}

// concurrentTakes: one checkpoint, taken at once through a and b; exactly
// one taker gets it.
func concurrentTakes(t *testing.T, a, b runtime.Store) {
	if err := a.Suspensions().Put(ctx, checkpoint("once", "desk", "", 0, nil)); err != nil {
		t.Fatal(err)
	}
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		st := a
		if i%2 == 1 {
			st = b
		}
		wg.Go(func() { _, errs[i] = st.Suspensions().Take(ctx, "once", epoch) })
	}
	wg.Wait()
	won := 0
	for i, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, runtime.ErrNotSuspended):
			t.Fatalf("taker %d: %v, want ErrNotSuspended", i, err)
		}
	}
	if won != 1 {
		t.Fatalf("%d takers got the checkpoint, want exactly 1", won)
	}
}

func checkpointPutReplaces(t *testing.T, s runtime.Store) {
	ss := s.Suspensions()
	first := checkpoint("r", "desk", "", 0, nil)
	second := checkpoint("r", "desk", "", time.Minute, nil)
	second.State = json.RawMessage(`{"second":true}`)
	for _, c := range []runtime.Checkpoint{first, second} {
		if err := ss.Put(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	if l, _ := ss.List(ctx, runtime.SuspendedFilter{}); len(l) != 1 {
		t.Fatalf("List after two Puts of one run = %d checkpoints, want 1", len(l))
	}
	got, err := ss.Take(ctx, "r", epoch)
	if err != nil || string(got.State) != `{"second":true}` {
		t.Fatalf("Take = %s, %v; want the second Put's", got.State, err)
	}
}

func checkpointList(t *testing.T, s runtime.Store) {
	ss := s.Suspensions()
	for _, c := range []runtime.Checkpoint{
		checkpoint("c", "desk", "s2", 2*time.Minute, map[string]string{"tenant": "acme", "region": "eu"}),
		checkpoint("a", "desk", "s1", time.Minute, map[string]string{"tenant": "acme"}),
		checkpoint("b", "audit", "s1", time.Minute, map[string]string{"tenant": "globex"}),
		checkpoint("d", "desk", "", 0, nil),
	} {
		if err := ss.Put(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		f    runtime.SuspendedFilter
		want string
	}{
		{"all, oldest first, ties by run id", runtime.SuspendedFilter{}, "d,a,b,c"},
		{"by agent", runtime.SuspendedFilter{Agent: "desk"}, "d,a,c"},
		{"by session", runtime.SuspendedFilter{SessionID: "s1"}, "a,b"},
		{"by label", runtime.SuspendedFilter{Labels: map[string]string{"tenant": "acme"}}, "a,c"},
		{"by two labels", runtime.SuspendedFilter{Labels: map[string]string{"tenant": "acme", "region": "eu"}}, "c"},
		{"agent and session", runtime.SuspendedFilter{Agent: "audit", SessionID: "s1"}, "b"},
		{"nothing", runtime.SuspendedFilter{Agent: "nobody"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ss.List(ctx, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, c := range got {
				ids = append(ids, c.RunID)
				if c.State != nil {
					t.Errorf("List returned %s's state", c.RunID)
				}
				if len(c.Pending) != 1 || c.Pending[0].CallID != c.RunID+"-c1" {
					t.Errorf("List lost %s's pending items: %+v", c.RunID, c.Pending)
				}
			}
			if strings.Join(ids, ",") != tc.want {
				t.Fatalf("List = %v, want %s", ids, tc.want)
			}
		})
	}
	// Listing takes nothing.
	if _, err := ss.Take(ctx, "a", epoch); err != nil {
		t.Fatalf("Take after List: %v", err)
	}
}

func checkpointExpiry(t *testing.T, s runtime.Store) {
	ss := s.Suspensions()
	soon := checkpoint("soon", "desk", "", 0, nil)
	soon.ExpiresAt = epoch.Add(time.Hour)
	later := checkpoint("later", "desk", "", 0, nil)
	later.ExpiresAt = epoch.Add(48 * time.Hour)
	never := checkpoint("never", "desk", "", 0, nil)
	taken := checkpoint("taken", "desk", "", 0, nil)
	taken.ExpiresAt = epoch.Add(time.Hour)
	for _, c := range []runtime.Checkpoint{soon, later, never, taken} {
		if err := ss.Put(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	// Taken after its retention: removed and reported, never resumed.
	_, err := ss.Take(ctx, "taken", epoch.Add(time.Hour))
	if !errors.Is(err, runtime.ErrSuspensionExpired) || !errors.Is(err, runtime.ErrNotSuspended) {
		t.Fatalf("Take at its expiry: %v, want ErrSuspensionExpired and ErrNotSuspended", err)
	}
	if _, err := ss.Take(ctx, "taken", epoch); !errors.Is(err, runtime.ErrNotSuspended) || errors.Is(err, runtime.ErrSuspensionExpired) {
		t.Fatalf("Take of an expired checkpoint, again: %v, want ErrNotSuspended only (it is gone)", err)
	}
	expired, err := ss.Expire(ctx, epoch.Add(2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(expired) != 1 || expired[0].RunID != "soon" || expired[0].State != nil || !expired[0].ExpiresAt.Equal(soon.ExpiresAt) {
		t.Fatalf("Expire = %+v, want soon (without its state)", expired)
	}
	again, err := ss.Expire(ctx, epoch.Add(2*time.Hour))
	if err != nil || len(again) != 0 {
		t.Fatalf("Expire again = %+v, %v; want nothing: expiry is reported once", again, err)
	}
	left, _ := ss.List(ctx, runtime.SuspendedFilter{})
	var ids []string
	for _, c := range left {
		ids = append(ids, c.RunID)
	}
	slices.Sort(ids)
	if strings.Join(ids, ",") != "later,never" {
		t.Fatalf("left after Expire: %v, want later and never", ids)
	}
}

func checkpointTooLarge(t *testing.T, s runtime.Store) {
	c := checkpoint("big", "desk", "", 0, nil)
	c.State = json.RawMessage(`"` + strings.Repeat("x", runtime.MaxRecordBytes) + `"`)
	if err := s.Suspensions().Put(ctx, c); !errors.Is(err, runtime.ErrRecordTooLarge) {
		t.Fatalf("Put of a checkpoint over MaxRecordBytes: %v, want ErrRecordTooLarge", err)
	}
	if _, err := s.Suspensions().Take(ctx, "big", epoch); !errors.Is(err, runtime.ErrNotSuspended) {
		t.Fatalf("a refused checkpoint was stored: %v", err)
	}
}
