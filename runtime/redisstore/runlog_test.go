package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/quiver-go/quiver/internal/redistest"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/runtime/redisstore"
	"github.com/quiver-go/quiver/runtime/storetest"
)

// TestRunLogConformance runs the run log's suite on one redis-server, each
// subtest's store under a prefix of its own.
func TestRunLogConformance(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, redistest.Options{})
	storetest.RunLog(t, func(t *testing.T) runtime.RunLog {
		return open(t, srv, redisstore.WithPrefix(redistest.NewPrefix())).RunLog()
	})
}

// TestRunLogConformanceShared: the run logs of two Store values, each with
// its own client (two processes), on one prefix.
func TestRunLogConformanceShared(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, redistest.Options{})
	storetest.RunLogShared(t, func(t *testing.T) (a, b runtime.RunLog) {
		p := redistest.NewPrefix()
		return open(t, srv, redisstore.WithPrefix(p)).RunLog(), open(t, srv, redisstore.WithPrefix(p)).RunLog()
	})
}

// at is the time of the events of these tests.
var at = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// event is event seq of run r1 of type typ.
func event(seq int64, typ runtime.EventType) runtime.EventRecord {
	return runtime.EventRecord{Version: runtime.EventFormat, Type: typ, Data: []byte(`{}`),
		EventHeader: runtime.EventHeader{RunID: "r1", SessionID: "s1", Agent: "desk", Seq: seq, Time: at.Add(time.Duration(seq) * time.Nanosecond)}}
}

// TestStreamEntryIDIsTheSeq: event n of a run is entry 0-n of the stream
// <prefix>log:<run>, field e holding its record, so that a reader outside
// this package follows a run with XREAD from the entry of its cursor.
func TestStreamEntryIDIsTheSeq(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, redistest.Options{})
	c := srv.Client(t)
	ctx := t.Context()
	p := redistest.NewPrefix()
	l := open(t, srv, redisstore.WithPrefix(p)).RunLog()
	evs := []runtime.EventRecord{event(1, runtime.EventRunStarted), event(2, runtime.EventPlanned), event(3, runtime.EventUsage)}
	if err := l.Append(ctx, "o1", evs); err != nil {
		t.Fatal(err)
	}
	got, err := c.XRead(ctx, &redis.XReadArgs{Streams: []string{p + "log:r1", "0-1"}, Block: -1}).Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || len(got[0].Messages) != 2 {
		t.Fatalf("XREAD after 0-1 = %+v; want entries 0-2 and 0-3", got)
	}
	for i, m := range got[0].Messages {
		want, _ := runtime.MarshalEvent(evs[i+1])
		if id := "0-" + string(rune('2'+i)); m.ID != id || m.Values["e"] != string(want) || len(m.Values) != 1 {
			t.Fatalf("entry %d = %s %v; want id %s, field e = %s", i, m.ID, m.Values, id, want)
		}
	}
	// The run's info is a hash, its times exact to the nanosecond.
	info, err := l.Run(ctx, "r1")
	if err != nil || !info.StartedAt.Equal(at.Add(time.Nanosecond)) || !info.UpdatedAt.Equal(at.Add(3*time.Nanosecond)) || info.LastSeq != 3 {
		t.Fatalf("Run = %+v, %v", info, err)
	}
	if h, _ := c.HGetAll(ctx, p+"run:r1").Result(); h["status"] != "running" || h["owner"] != "o1" || h["last"] != "3" || h["session"] != "s1" {
		t.Fatalf("run hash = %v", h)
	}
}

// TestWaitHonoursItsContext: a Wait blocked on Redis returns soon after
// its context is cancelled, not at its timeout.
func TestWaitHonoursItsContext(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, redistest.Options{})
	l := open(t, srv, redisstore.WithPrefix(redistest.NewPrefix())).RunLog()
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	has, err := l.Wait(ctx, "r1", 0, time.Minute)
	if has || !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Fatalf("Wait = %v, %v after %v; want the context's error within a second or so", has, err, time.Since(start))
	}
}

// TestAppendRefusalsSayWhy: the errors of refused appends name the event
// and what to do, and a refused append writes nothing.
func TestAppendRefusalsSayWhy(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, redistest.Options{})
	ctx := t.Context()
	l := open(t, srv, redisstore.WithPrefix(redistest.NewPrefix())).RunLog()
	if err := l.Append(ctx, "o1", []runtime.EventRecord{event(1, runtime.EventRunStarted), event(2, runtime.EventRunCompleted)}); err != nil {
		t.Fatal(err)
	}
	other := event(2, runtime.EventRunFailed)
	for _, c := range []struct {
		evs  []runtime.EventRecord
		is   error
		says string
	}{
		// A writer that lost its lease, at the run's end.
		{[]runtime.EventRecord{other}, runtime.ErrEventConflict, "run r1 is completed, recorded by o1, and its event 2 holds another run_failed event than the one appended"},
		{[]runtime.EventRecord{other}, runtime.ErrRunEnded, "run r1 is completed"},
		{[]runtime.EventRecord{event(4, runtime.EventUsage)}, runtime.ErrEventGap, "event 4 of run r1 follows event 2"},
		{[]runtime.EventRecord{event(2, runtime.EventRunCompleted), event(3, runtime.EventUsage)}, runtime.ErrRunEnded, "run r1 is completed, so its event 3 (usage) is not recorded"},
	} {
		err := l.Append(ctx, "o2", c.evs)
		if !errors.Is(err, c.is) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("Append = %v; want %v saying %q", err, c.is, c.says)
		}
	}
	// Two events at one new seq in one append: the second is the first's
	// retry when equal, a conflict when not.
	l2 := open(t, srv, redisstore.WithPrefix(redistest.NewPrefix())).RunLog()
	if err := l2.Append(ctx, "o1", []runtime.EventRecord{event(1, runtime.EventRunStarted), event(1, runtime.EventRunStarted)}); err != nil {
		t.Fatalf("an event twice in one append: %v", err)
	}
	err := l2.Append(ctx, "o1", []runtime.EventRecord{event(2, runtime.EventUsage), event(2, runtime.EventPlanned)})
	if !errors.Is(err, runtime.ErrEventConflict) {
		t.Fatalf("two events at seq 2 in one append: %v; want ErrEventConflict", err)
	}
	// Another event at a seq of a running run: a conflict only.
	err = l2.Append(ctx, "o2", []runtime.EventRecord{event(1, runtime.EventPlanned)})
	if says := "event 1 of run r1 is stored already, and the one appended differs (a planned event, stored by the run's owner o1): two runtimes are writing this run"; !errors.Is(err, runtime.ErrEventConflict) || errors.Is(err, runtime.ErrRunEnded) || err.Error() != "runtime: another event holds this sequence number: "+says {
		t.Fatalf("Append of another event at seq 1 = %v; want ErrEventConflict saying %q", err, says)
	}
	// No owner: refused, as by every log.
	if err := l2.Append(ctx, "", []runtime.EventRecord{event(2, runtime.EventUsage)}); err == nil {
		t.Fatal("an Append without an owner was accepted")
	}
	if err := l2.Renew(ctx, "", at); err == nil {
		t.Fatal("a Renew without an owner was accepted")
	}
	if got, _ := l2.Read(ctx, "r1", 0, 0); len(got) != 1 {
		t.Fatalf("after a refused append the run holds %d events, want 1", len(got))
	}
}

// TestExpireRemovesEveryKey: an expired run leaves no key under the
// prefix but the run log's shared indexes (empty) and the lease.
func TestExpireRemovesEveryKey(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, redistest.Options{})
	c := srv.Client(t)
	ctx := t.Context()
	p := redistest.NewPrefix()
	l := open(t, srv, redisstore.WithPrefix(p)).RunLog()
	if err := l.Append(ctx, "o1", []runtime.EventRecord{event(1, runtime.EventRunStarted), event(2, runtime.EventRunCompleted)}); err != nil {
		t.Fatal(err)
	}
	got, err := l.Expire(ctx, at.Add(time.Hour))
	if err != nil || len(got) != 1 || got[0].RunID != "r1" || got[0].Status != runtime.StatusCompleted {
		t.Fatalf("Expire = %+v, %v", got, err)
	}
	keys, _ := c.Keys(ctx, p+"*").Result()
	for _, k := range keys {
		if k != p+"format" && !strings.HasPrefix(k, p+"expiredruns:") {
			t.Errorf("key %s left after the run expired", k)
		}
	}
}

// TestConcurrentRunExpireReportsEachOnce: run log expirers on two Store
// values (two clients, as two processes) expire at once; every expired
// run is reported by exactly one of them.
func TestConcurrentRunExpireReportsEachOnce(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, redistest.Options{})
	p := redistest.NewPrefix()
	a, b := open(t, srv, redisstore.WithPrefix(p)).RunLog(), open(t, srv, redisstore.WithPrefix(p)).RunLog()
	ctx := t.Context()
	const n = 60
	for i := range n {
		evs := []runtime.EventRecord{event(1, runtime.EventRunStarted), event(2, runtime.EventRunCompleted)}
		for j := range evs {
			evs[j].RunID, evs[j].Time = fmt.Sprint("r", i), at.Add(time.Duration(i)*time.Millisecond)
		}
		if err := a.Append(ctx, "o1", evs); err != nil {
			t.Fatal(err)
		}
	}
	reported := map[string]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range 8 {
		l := a
		if i%2 == 1 {
			l = b
		}
		wg.Go(func() {
			// Expirers at different cuts; the last ones after every run.
			got, err := l.Expire(ctx, at.Add(time.Duration(i*10)*time.Millisecond))
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			for _, r := range got {
				reported[r.RunID]++
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	if len(reported) != n {
		t.Fatalf("%d of %d expired runs reported", len(reported), n)
	}
	for id, k := range reported {
		if k != 1 {
			t.Errorf("%s reported %d times", id, k)
		}
	}
}

// TestRunOfAnotherFormatIsRefused: a run whose hash says another format,
// as a newer release would write it, is refused by Append, Run and Runs,
// wrapping runtime.ErrUnknownRecordFormat, and left by Expire.
func TestRunOfAnotherFormatIsRefused(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, redistest.Options{})
	c := srv.Client(t)
	ctx := t.Context()
	p := redistest.NewPrefix()
	l := open(t, srv, redisstore.WithPrefix(p)).RunLog()
	if err := l.Append(ctx, "o1", []runtime.EventRecord{event(1, runtime.EventRunStarted), event(2, runtime.EventRunCompleted)}); err != nil {
		t.Fatal(err)
	}
	c.HSet(ctx, p+"run:r1", "format", "2")
	if err := l.Append(ctx, "o1", []runtime.EventRecord{event(3, runtime.EventUsage)}); !errors.Is(err, runtime.ErrUnknownRecordFormat) {
		t.Fatalf("Append: %v, want ErrUnknownRecordFormat", err)
	}
	if _, err := l.Run(ctx, "r1"); !errors.Is(err, runtime.ErrUnknownRecordFormat) {
		t.Fatalf("Run: %v, want ErrUnknownRecordFormat", err)
	}
	if _, err := l.Runs(ctx, runtime.RunFilter{}); !errors.Is(err, runtime.ErrUnknownRecordFormat) {
		t.Fatalf("Runs: %v, want ErrUnknownRecordFormat", err)
	}
	if got, err := l.Expire(ctx, at.Add(time.Hour)); err != nil || len(got) != 0 {
		t.Fatalf("Expire = %+v, %v; want nothing (the run is another release's)", got, err)
	}
	if n, _ := c.XLen(ctx, p+"log:r1").Result(); n != 2 {
		t.Fatalf("the refused run's stream holds %d events, want 2", n)
	}
}

// TestLeaseKeyVanishesADayAfter: an owner's lease key holds its until and
// expires a day after it, so that dead owners leave nothing behind; an
// until already past (as the conformance suite passes) is kept a day too.
func TestLeaseKeyVanishesADayAfter(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, redistest.Options{})
	c := srv.Client(t)
	ctx := t.Context()
	p := redistest.NewPrefix()
	l := open(t, srv, redisstore.WithPrefix(p)).RunLog()
	for _, until := range []time.Time{time.Now().Add(time.Hour), time.Now().Add(-time.Hour)} {
		if err := l.Renew(ctx, "o/1", until); err != nil {
			t.Fatal(err)
		}
		ttl, _ := c.PTTL(ctx, p+"lease:o/1").Result()
		want := max(time.Until(until), 0) + 24*time.Hour
		if ttl < want-time.Minute || ttl > want+time.Minute {
			t.Fatalf("lease of until %v kept %v, want about %v", until, ttl, want)
		}
	}
}

// TestRunsWithALimitReadsTheLatestPages: Runs with a limit walks the runs
// index from the latest update, across pages, and returns the latest
// runs; without one it returns them all.
func TestRunsWithALimitReadsTheLatestPages(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, redistest.Options{})
	l := open(t, srv, redisstore.WithPrefix(redistest.NewPrefix())).RunLog()
	const n = 600 // over two of the script's pages
	for i := range n {
		rec := event(1, runtime.EventRunStarted)
		rec.RunID, rec.Time = fmt.Sprintf("r%03d", i), at.Add(time.Duration(i)*time.Second)
		if err := l.Append(t.Context(), "o1", []runtime.EventRecord{rec}); err != nil {
			t.Fatal(err)
		}
	}
	latest, err := l.Runs(t.Context(), runtime.RunFilter{Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(latest) != 3 || latest[0].RunID != "r599" || latest[2].RunID != "r597" {
		t.Fatalf("Runs(limit 3) = %+v; want r599, r598, r597", latest)
	}
	old, err := l.Runs(t.Context(), runtime.RunFilter{Limit: 2, Status: runtime.StatusRunning})
	if err != nil || len(old) != 2 || old[1].RunID != "r598" {
		t.Fatalf("Runs(limit 2, running) = %+v, %v", old, err)
	}
	all, err := l.Runs(t.Context(), runtime.RunFilter{})
	if err != nil || len(all) != n {
		t.Fatalf("Runs() returned %d runs, %v; want %d", len(all), err, n)
	}
}
