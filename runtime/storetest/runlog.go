package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quiver-go/quiver/runtime"
)

// RunLog runs the run log's conformance suite against the logs open
// returns: each subtest opens its own, empty.
func RunLog(t *testing.T, open func(t *testing.T) runtime.RunLog) {
	t.Run("AppendAndRead", func(t *testing.T) { logAppendRead(t, open(t)) })
	t.Run("AppendIsIdempotent", func(t *testing.T) { logIdempotent(t, open(t)) })
	t.Run("AnotherEventAtASeqIsAConflict", func(t *testing.T) { logConflict(t, open(t)) })
	t.Run("ASeqRepeatedInOneBatch", func(t *testing.T) { logRepeatedInOneBatch(t, open(t)) })
	t.Run("GapsAreRefusedWholly", func(t *testing.T) { logGap(t, open(t)) })
	t.Run("EndedRunTakesNoNewEvent", func(t *testing.T) { logEnded(t, open(t)) })
	t.Run("StatusFollowsEvents", func(t *testing.T) { logStatus(t, open(t)) })
	t.Run("UnknownRun", func(t *testing.T) { logUnknown(t, open(t)) })
	t.Run("RunsFilters", func(t *testing.T) { logRuns(t, open(t)) })
	t.Run("RunsLimitKeepsTiesInOrder", func(t *testing.T) { logRunsLimitTies(t, open(t)) })
	t.Run("WaitWakesOnAppend", func(t *testing.T) { logWait(t, open(t)) })
	t.Run("StaleFollowsLeases", func(t *testing.T) { logStale(t, open(t)) })
	t.Run("ExpireRemovesEndedRuns", func(t *testing.T) { logExpire(t, open(t)) })
	t.Run("BadRecordsRefused", func(t *testing.T) { logBadRecords(t, open(t)) })
	t.Run("FollowReadsEveryEventInOrder", func(t *testing.T) { l := open(t); logFollow(t, l, l) })
	t.Run("ConcurrentWritersOneWinsEachSeq", func(t *testing.T) { l := open(t); logConcurrentWriters(t, l, l) })
}

// RunLogShared checks two logs on one backend (two processes sharing
// Redis): a follower on one sees what the other appends, and of two
// writers racing for each sequence number one wins.
func RunLogShared(t *testing.T, open func(t *testing.T) (a, b runtime.RunLog)) {
	t.Run("SharedFollowSeesTheOthersAppends", func(t *testing.T) { a, b := open(t); logFollow(t, a, b) })
	t.Run("SharedConcurrentWritersOneWinsEachSeq", func(t *testing.T) { a, b := open(t); logConcurrentWriters(t, a, b) })
}

// ev is event seq of run, of type typ, with data, at epoch+seq seconds.
func ev(run string, seq int64, typ runtime.EventType, data string) runtime.EventRecord {
	rec := runtime.EventRecord{
		Version: runtime.EventFormat, Type: typ,
		EventHeader: runtime.EventHeader{RunID: run, SessionID: "s-" + run, Agent: "desk", Seq: seq, Time: epoch.Add(time.Duration(seq) * time.Second), Step: 1},
	}
	if data != "" {
		rec.Data = json.RawMessage(data)
	}
	return rec
}

// started is a run's first events: run_started then a planned step.
func started(run string) []runtime.EventRecord {
	return []runtime.EventRecord{ev(run, 1, runtime.EventRunStarted, `{}`), ev(run, 2, runtime.EventPlanned, `{"tool_calls":["lookup"]}`)}
}

func mustAppend(t *testing.T, l runtime.RunLog, owner string, recs ...runtime.EventRecord) {
	t.Helper()
	if err := l.Append(ctx, owner, recs); err != nil {
		t.Fatalf("Append: %v", err)
	}
}

func read(t *testing.T, l runtime.RunLog, run string, after int64, limit int) []runtime.EventRecord {
	t.Helper()
	got, err := l.Read(ctx, run, after, limit)
	if err != nil {
		t.Fatalf("Read(%s, %d, %d): %v", run, after, limit, err)
	}
	return got
}

// seqs lists the records' sequence numbers and types.
func seqs(recs []runtime.EventRecord) string {
	var out []string
	for _, r := range recs {
		out = append(out, fmt.Sprintf("%d:%s", r.Seq, r.Type))
	}
	return strings.Join(out, " ")
}

func logAppendRead(t *testing.T, l runtime.RunLog) {
	want := append(started("r1"), ev("r1", 3, runtime.EventToolCallScheduled, `{"tool":"orders.lookup","payload":{"q":"x"}}`))
	want[2].CallID = "c-1"
	mustAppend(t, l, "o1", want...)
	got := read(t, l, "r1", 0, 0)
	if len(got) != 3 {
		t.Fatalf("read %d events, want 3: %s", len(got), seqs(got))
	}
	for i := range want {
		w, _ := runtime.MarshalEvent(want[i])
		g, _ := runtime.MarshalEvent(got[i])
		if string(w) != string(g) {
			t.Fatalf("event %d read back as\n%s\nwant\n%s", i+1, g, w)
		}
	}
	if s := seqs(read(t, l, "r1", 1, 0)); s != "2:planned 3:tool_call_scheduled" {
		t.Fatalf("read after 1 = %s", s)
	}
	if s := seqs(read(t, l, "r1", 0, 2)); s != "1:run_started 2:planned" {
		t.Fatalf("read with limit 2 = %s", s)
	}
	if got := read(t, l, "r1", 3, 0); len(got) != 0 {
		t.Fatalf("read after the last = %s, want none", seqs(got))
	}
}

func logIdempotent(t *testing.T, l runtime.RunLog) {
	mustAppend(t, l, "o1", started("r1")...)
	mustAppend(t, l, "o1", started("r1")...) // a retried step
	mustAppend(t, l, "o1", started("r1")[1], ev("r1", 3, runtime.EventUsage, `{"usage":{"input_tokens":3}}`))
	if s := seqs(read(t, l, "r1", 0, 0)); s != "1:run_started 2:planned 3:usage" {
		t.Fatalf("after appending events twice: %s; want each once", s)
	}
	info, err := l.Run(ctx, "r1")
	if err != nil || info.LastSeq != 3 {
		t.Fatalf("Run = %+v, %v; want last seq 3", info, err)
	}
}

func logRepeatedInOneBatch(t *testing.T, l runtime.RunLog) {
	first := ev("r1", 1, runtime.EventRunStarted, `{}`)
	mustAppend(t, l, "o1", first, first, ev("r1", 2, runtime.EventPlanned, `{}`))
	if s := seqs(read(t, l, "r1", 0, 0)); s != "1:run_started 2:planned" {
		t.Fatalf("a batch holding seq 1 twice stored %s; want it once", s)
	}
	other := ev("r2", 1, runtime.EventRunStarted, `{"continued":true}`)
	err := l.Append(ctx, "o1", []runtime.EventRecord{ev("r2", 1, runtime.EventRunStarted, `{}`), other})
	if !errors.Is(err, runtime.ErrEventConflict) {
		t.Fatalf("a batch holding two events at seq 1 = %v; want ErrEventConflict", err)
	}
	if _, err := l.Run(ctx, "r2"); !errors.Is(err, runtime.ErrUnknownRun) {
		t.Fatalf("the refused batch left run r2: %v", err)
	}
}

func logConflict(t *testing.T, l runtime.RunLog) {
	mustAppend(t, l, "o1", started("r1")...)
	other := ev("r1", 2, runtime.EventPlanned, `{"tool_calls":["other"]}`)
	err := l.Append(ctx, "o2", []runtime.EventRecord{other, ev("r1", 3, runtime.EventUsage, `{}`)})
	if !errors.Is(err, runtime.ErrEventConflict) {
		t.Fatalf("Append of another event at seq 2 = %v; want ErrEventConflict", err)
	}
	if s := seqs(read(t, l, "r1", 0, 0)); s != "1:run_started 2:planned" {
		t.Fatalf("a refused append changed the log: %s", s)
	}
	if got := read(t, l, "r1", 1, 0); string(got[0].Data) != `{"tool_calls":["lookup"]}` {
		t.Fatalf("seq 2 holds %s; want the first writer's", got[0].Data)
	}
}

func logGap(t *testing.T, l runtime.RunLog) {
	err := l.Append(ctx, "o1", []runtime.EventRecord{ev("r1", 2, runtime.EventPlanned, `{}`)})
	if !errors.Is(err, runtime.ErrEventGap) {
		t.Fatalf("a new run's first event at seq 2 = %v; want ErrEventGap", err)
	}
	mustAppend(t, l, "o1", started("r1")...)
	err = l.Append(ctx, "o1", []runtime.EventRecord{ev("r1", 3, runtime.EventUsage, `{}`), ev("r1", 5, runtime.EventUsage, `{}`)})
	if !errors.Is(err, runtime.ErrEventGap) {
		t.Fatalf("Append with seq 5 after 3 = %v; want ErrEventGap", err)
	}
	if s := seqs(read(t, l, "r1", 0, 0)); s != "1:run_started 2:planned" {
		t.Fatalf("a refused append wrote part of its events: %s", s)
	}
}

func logEnded(t *testing.T, l runtime.RunLog) {
	done := ev("r1", 3, runtime.EventRunCompleted, `{"reason":"final_response"}`)
	mustAppend(t, l, "o1", append(started("r1"), done)...)
	mustAppend(t, l, "o1", done) // the same end again: nothing new
	err := l.Append(ctx, "o1", []runtime.EventRecord{ev("r1", 4, runtime.EventUsage, `{}`)})
	if !errors.Is(err, runtime.ErrRunEnded) {
		t.Fatalf("Append after the run completed = %v; want ErrRunEnded", err)
	}
	// A writer that lost its lease appends its own event where the run's
	// end now is: the error says the run ended.
	late := ev("r1", 3, runtime.EventToolResult, `{"tool":"a.b"}`)
	if err := l.Append(ctx, "o2", []runtime.EventRecord{late}); !errors.Is(err, runtime.ErrRunEnded) || !errors.Is(err, runtime.ErrEventConflict) {
		t.Fatalf("Append of another event at an ended run's last seq = %v; want ErrRunEnded and ErrEventConflict", err)
	}
}

func logStatus(t *testing.T, l runtime.RunLog) {
	check := func(want runtime.RunStatus, owner string, last int64) {
		t.Helper()
		info, err := l.Run(ctx, "r1")
		if err != nil {
			t.Fatal(err)
		}
		if info.Status != want || info.Owner != owner || info.LastSeq != last || info.RunID != "r1" ||
			info.SessionID != "s-r1" || info.Agent != "desk" || !info.StartedAt.Equal(epoch.Add(time.Second)) ||
			!info.UpdatedAt.Equal(epoch.Add(time.Duration(last)*time.Second)) {
			t.Fatalf("Run = %+v; want status %s, owner %s, last seq %d, session s-r1, agent desk, started at seq 1's time, updated at seq %d's", info, want, owner, last, last)
		}
	}
	mustAppend(t, l, "o1", started("r1")...)
	check(runtime.StatusRunning, "o1", 2)
	mustAppend(t, l, "o1", ev("r1", 3, runtime.EventAwaiting, `{"pending":[]}`))
	check(runtime.StatusSuspended, "o1", 3)
	mustAppend(t, l, "o2", ev("r1", 4, runtime.EventRunStarted, `{"continued":true}`))
	check(runtime.StatusRunning, "o2", 4)
	mustAppend(t, l, "o2", ev("r1", 5, runtime.EventRunFailed, `{"error":"boom"}`))
	check(runtime.StatusFailed, "o2", 5)
}

func logUnknown(t *testing.T, l runtime.RunLog) {
	if _, err := l.Run(ctx, "nobody"); !errors.Is(err, runtime.ErrUnknownRun) {
		t.Fatalf("Run of an unknown run = %v; want ErrUnknownRun", err)
	}
	if got := read(t, l, "nobody", 0, 0); len(got) != 0 {
		t.Fatalf("Read of an unknown run = %s", seqs(got))
	}
}

func logRuns(t *testing.T, l runtime.RunLog) {
	// r1 (session s-r1) completed, r2 running, r3 in session s-r1 too,
	// agent other, suspended; updated in order r1 < r2 < r3.
	mustAppend(t, l, "o1", ev("r1", 1, runtime.EventRunStarted, `{}`), ev("r1", 2, runtime.EventRunCompleted, `{}`))
	r2 := started("r2")
	r2[0].Time, r2[1].Time = epoch.Add(time.Minute), epoch.Add(time.Minute+time.Second)
	mustAppend(t, l, "o1", r2...)
	r3 := []runtime.EventRecord{ev("r3", 1, runtime.EventRunStarted, `{}`), ev("r3", 2, runtime.EventAwaiting, `{}`)}
	for i := range r3 {
		r3[i].SessionID, r3[i].Agent, r3[i].Time = "s-r1", "other", epoch.Add(time.Hour+time.Duration(i)*time.Second)
	}
	mustAppend(t, l, "o1", r3...)
	for _, c := range []struct {
		f    runtime.RunFilter
		want string
	}{
		{runtime.RunFilter{}, "r3 r2 r1"},
		{runtime.RunFilter{Limit: 2}, "r3 r2"},
		{runtime.RunFilter{SessionID: "s-r1"}, "r3 r1"},
		{runtime.RunFilter{Agent: "desk"}, "r2 r1"},
		{runtime.RunFilter{Status: runtime.StatusRunning}, "r2"},
		{runtime.RunFilter{Status: runtime.StatusSuspended, SessionID: "s-r1"}, "r3"},
		{runtime.RunFilter{SessionID: "nobody"}, ""},
		{runtime.RunFilter{Limit: 1, Agent: "desk"}, "r2"},
	} {
		got, err := l.Runs(ctx, c.f)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range got {
			ids = append(ids, r.RunID)
		}
		if s := strings.Join(ids, " "); s != c.want {
			t.Errorf("Runs(%+v) = %q, want %q", c.f, s, c.want)
		}
	}
}

// logRunsLimitTies: runs updated at the same instant are ordered by run
// id, also where a limit cuts them.
func logRunsLimitTies(t *testing.T, l runtime.RunLog) {
	for _, id := range []string{"c", "a", "b", "d"} {
		recs := []runtime.EventRecord{ev(id, 1, runtime.EventRunStarted, `{}`)}
		if id == "d" {
			recs[0].Time = epoch // updated before the others
		}
		mustAppend(t, l, "o1", recs...)
	}
	for limit, want := range map[int]string{1: "a", 2: "a b", 3: "a b c", 4: "a b c d", 0: "a b c d"} {
		got, err := l.Runs(ctx, runtime.RunFilter{Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range got {
			ids = append(ids, r.RunID)
		}
		if s := strings.Join(ids, " "); s != want {
			t.Errorf("Runs(limit %d) = %q, want %q", limit, s, want)
		}
	}
}

func logWait(t *testing.T, l runtime.RunLog) {
	// A run with no event yet: Wait times out, then wakes on its first.
	if has, err := l.Wait(ctx, "r1", 0, 50*time.Millisecond); err != nil || has {
		t.Fatalf("Wait on a run with no event = %v, %v; want false after the timeout", has, err)
	}
	woke := make(chan error, 1)
	go func() {
		has, err := l.Wait(ctx, "r1", 0, 20*time.Second)
		if err == nil && !has {
			err = errors.New("the wait returned before the timeout without an event")
		}
		woke <- err
	}()
	time.Sleep(50 * time.Millisecond)
	mustAppend(t, l, "o1", started("r1")...)
	if err := <-woke; err != nil {
		t.Fatal(err)
	}
	if has, err := l.Wait(ctx, "r1", 1, time.Second); err != nil || !has {
		t.Fatalf("Wait after seq 1 with seq 2 stored = %v, %v; want true at once", has, err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := l.Wait(cancelled, "r1", 2, 20*time.Second); err == nil {
		t.Fatal("Wait with a cancelled context returned no error")
	}
}

func logStale(t *testing.T, l runtime.RunLog) {
	mustAppend(t, l, "alive", started("r1")...)
	mustAppend(t, l, "dead", started("r2")...)
	mustAppend(t, l, "never", started("r3")...)
	mustAppend(t, l, "dead", ev("r4", 1, runtime.EventRunStarted, `{}`), ev("r4", 2, runtime.EventAwaiting, `{}`))
	if err := l.Renew(ctx, "alive", epoch.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := l.Renew(ctx, "dead", epoch.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	ids := func(now time.Time) string {
		got, err := l.Stale(ctx, now)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range got {
			out = append(out, r.RunID+"/"+r.Owner)
		}
		return strings.Join(out, " ")
	}
	if s := ids(epoch.Add(30 * time.Second)); s != "r3/never" {
		t.Fatalf("Stale before the dead owner's lease lapses = %q; want only the run of the owner with no lease", s)
	}
	if s := ids(epoch.Add(2 * time.Minute)); s != "r2/dead r3/never" {
		t.Fatalf("Stale after the dead owner's lease lapsed = %q; want r2/dead r3/never (a suspended run is never stale)", s)
	}
	if err := l.Renew(ctx, "dead", epoch.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if s := ids(epoch.Add(2 * time.Minute)); s != "r3/never" {
		t.Fatalf("Stale after the owner renewed = %q; want r3/never", s)
	}
}

func logExpire(t *testing.T, l runtime.RunLog) {
	mustAppend(t, l, "o1", ev("old", 1, runtime.EventRunStarted, `{}`), ev("old", 2, runtime.EventRunCompleted, `{}`))
	mustAppend(t, l, "o1", ev("waiting", 1, runtime.EventRunStarted, `{}`), ev("waiting", 2, runtime.EventAwaiting, `{}`))
	mustAppend(t, l, "o1", started("running")...)
	late := []runtime.EventRecord{ev("recent", 1, runtime.EventRunStarted, `{}`), ev("recent", 2, runtime.EventRunCompleted, `{}`)}
	late[0].Time, late[1].Time = epoch.Add(time.Hour), epoch.Add(time.Hour)
	mustAppend(t, l, "o1", late...)
	got, err := l.Expire(ctx, epoch.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range got {
		ids = append(ids, r.RunID)
	}
	if s := strings.Join(ids, " "); s != "old waiting" {
		t.Fatalf("Expire = %q; want old waiting (never a running run, nor one updated after the cut)", s)
	}
	for _, id := range []string{"old", "waiting"} {
		if _, err := l.Run(ctx, id); !errors.Is(err, runtime.ErrUnknownRun) {
			t.Fatalf("expired run %s: Run = %v; want ErrUnknownRun", id, err)
		}
		if left := read(t, l, id, 0, 0); len(left) != 0 {
			t.Fatalf("expired run %s kept events %s", id, seqs(left))
		}
	}
	for _, id := range []string{"running", "recent"} {
		if _, err := l.Run(ctx, id); err != nil {
			t.Fatalf("run %s should be kept: %v", id, err)
		}
	}
	// An expired run's id starts afresh.
	mustAppend(t, l, "o1", started("old")...)
}

func logBadRecords(t *testing.T, l runtime.RunLog) {
	noRun := ev("", 1, runtime.EventRunStarted, `{}`)
	if err := l.Append(ctx, "o1", []runtime.EventRecord{noRun}); err == nil {
		t.Fatal("an event without a run id was appended")
	}
	zero := ev("r1", 0, runtime.EventRunStarted, `{}`)
	if err := l.Append(ctx, "o1", []runtime.EventRecord{zero}); err == nil {
		t.Fatal("an event with sequence number 0 was appended")
	}
	huge := ev("r1", 1, runtime.EventRunStarted, `"`+strings.Repeat("x", runtime.MaxRecordBytes)+`"`)
	if err := l.Append(ctx, "o1", []runtime.EventRecord{huge}); !errors.Is(err, runtime.ErrRecordTooLarge) {
		t.Fatalf("an event over MaxRecordBytes: %v; want ErrRecordTooLarge", err)
	}
	if err := l.Append(ctx, "", []runtime.EventRecord{ev("r1", 1, runtime.EventRunStarted, `{}`)}); err == nil {
		t.Fatal("an Append without an owner was accepted")
	}
	if err := l.Renew(ctx, "", epoch); err == nil {
		t.Fatal("a Renew without an owner was accepted")
	}
	mixed := []runtime.EventRecord{ev("r1", 1, runtime.EventRunStarted, `{}`), ev("r2", 1, runtime.EventRunStarted, `{}`)}
	if err := l.Append(ctx, "o1", mixed); err == nil {
		t.Fatal("one Append of two runs' events was accepted")
	}
	if _, err := l.Run(ctx, "r1"); !errors.Is(err, runtime.ErrUnknownRun) {
		t.Fatalf("a refused append left run r1: %v", err)
	}
}

// logFollow: a follower on b sees, in order, every event a writer on a
// appends one by one, and returns when the run completes; a second
// follower starting from a cursor sees the rest only.
func logFollow(t *testing.T, a, b runtime.RunLog) {
	const n = 40
	done := make(chan error, 1)
	go func() {
		for seq := int64(1); seq <= n; seq++ {
			typ := runtime.EventUsage
			switch seq {
			case 1:
				typ = runtime.EventRunStarted
			case n:
				typ = runtime.EventRunCompleted
			}
			if err := a.Append(ctx, "o1", []runtime.EventRecord{ev("r1", seq, typ, `{}`)}); err != nil {
				done <- err
				return
			}
			if seq%8 == 0 {
				time.Sleep(5 * time.Millisecond)
			}
		}
		done <- nil
	}()
	var got []int64
	if err := runtime.FollowRunLog(ctx, b, "r1", 0, func(rec runtime.EventRecord) error {
		got = append(got, rec.Seq)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("the follower saw %d events, want %d: %v", len(got), n, got)
	}
	for i, s := range got {
		if s != int64(i+1) {
			t.Fatalf("the follower saw %v: not every event in order", got)
		}
	}
	var rest []int64
	if err := runtime.FollowRunLog(ctx, b, "r1", 30, func(rec runtime.EventRecord) error {
		rest = append(rest, rec.Seq)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(rest) != n-30 || rest[0] != 31 {
		t.Fatalf("following from cursor 30 saw %v; want 31 to %d", rest, n)
	}
}

// logConcurrentWriters: writers on a and b race to append their own
// event at each sequence number; each number is won once, the loser told
// so, and the log holds the winners' events without a gap.
func logConcurrentWriters(t *testing.T, a, b runtime.RunLog) {
	mustAppend(t, a, "o1", ev("r1", 1, runtime.EventRunStarted, `{}`))
	const n = 30
	var mu sync.Mutex
	won := map[int64]string{}
	var wg sync.WaitGroup
	for w, l := range []runtime.RunLog{a, b, a, b} {
		owner := fmt.Sprint("w", w)
		wg.Go(func() {
			for seq := int64(2); seq <= n; seq++ {
				err := l.Append(ctx, owner, []runtime.EventRecord{ev("r1", seq, runtime.EventUsage, `{"by":"`+owner+`"}`)})
				switch {
				case err == nil:
					mu.Lock()
					if prev, ok := won[seq]; ok {
						t.Errorf("seq %d won by %s and %s", seq, prev, owner)
					}
					won[seq] = owner
					mu.Unlock()
				case errors.Is(err, runtime.ErrEventConflict) || errors.Is(err, runtime.ErrEventGap):
					// lost the race, or raced ahead of it: try the next
				default:
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	got := read(t, a, "r1", 0, 0)
	for i, rec := range got {
		if rec.Seq != int64(i+1) {
			t.Fatalf("the log has a gap: %s", seqs(got))
		}
		if i > 0 && string(rec.Data) != `{"by":"`+won[rec.Seq]+`"}` {
			t.Fatalf("seq %d holds %s, but %s won it", rec.Seq, rec.Data, won[rec.Seq])
		}
	}
}
