package redisstore

import (
	"context"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/redisconn"
	"github.com/quiver-go/quiver/internal/redistest"
	"github.com/quiver-go/quiver/runtime"
)

// TestReplayedScripts: go-redis sends a command again when its connection
// broke before the reply. A save or take run again with the same nonce
// answers as its first run did (the save succeeded, the take got the
// checkpoint); another caller's, with another nonce, does not.
func TestReplayedScripts(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, redistest.Options{})
	ctx := context.Background()
	s, err := Open(ctx, srv.URL(), WithPrefix("replay:"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	rec, err := runtime.MarshalSession("s", runtime.Session{Version: 1})
	if err != nil {
		t.Fatal(err)
	}
	save := func(n string) string {
		t.Helper()
		reply, err := s.conn.Eval(ctx, "save", scriptSave, false, []string{s.sessionKey("s")}, "0", "1", rec, recordFormat, n)
		if err != nil {
			t.Fatal(err)
		}
		return redisconn.Str(reply[0])
	}
	if got := save("n1"); got != "ok" {
		t.Fatalf("first save: %s", got)
	}
	if got := save("n1"); got != "ok" {
		t.Fatalf("the same save again: %s, want ok (it succeeded)", got)
	}
	if got := save("n2"); got != "conflict" {
		t.Fatalf("another save over version 0: %s, want conflict", got)
	}

	if err := s.Put(ctx, runtime.Checkpoint{RunID: "r", Agent: "desk"}); err != nil {
		t.Fatal(err)
	}
	take := func(n string) []any {
		t.Helper()
		reply, err := s.conn.Eval(ctx, "take", scriptTake, false,
			[]string{s.checkpointKey("r"), s.suspendedKey(), s.expiryKey(), s.takenKey("r")},
			"r", recordFormat, n, takenKeep.Milliseconds())
		if err != nil {
			t.Fatal(err)
		}
		return reply
	}
	first := take("t1")
	if redisconn.Str(first[0]) != "ok" {
		t.Fatalf("first take: %v", first)
	}
	if again := take("t1"); redisconn.Str(again[0]) != "ok" || redisconn.Str(again[1]) != redisconn.Str(first[1]) {
		t.Fatalf("the same take again: %v, want the checkpoint it took", again)
	}
	if other := take("t2"); redisconn.Str(other[0]) != "none" {
		t.Fatalf("another take: %v, want none", other)
	}
}

// An expiry go-redis sends again after its reply was lost reports what the
// first run removed; another expiry reports nothing more.
func TestReplayedExpiryReportsWhatItRemoved(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	ctx := t.Context()
	s, err := Open(ctx, srv.URL(), WithPrefix(redistest.NewPrefix()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for _, id := range []string{"a", "b"} {
		if err := s.Put(ctx, runtime.Checkpoint{RunID: id, Agent: "desk", SuspendedAt: now, ExpiresAt: now.Add(time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	at, err := timeKey(now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	expire := func(n string) int {
		t.Helper()
		reply, err := s.conn.Eval(ctx, "expire", scriptExpire, false,
			[]string{s.suspendedKey(), s.expiryKey(), s.expiredKey(n)},
			s.prefix, at, recordFormat, n, takenKeep.Milliseconds())
		if err != nil {
			t.Fatal(err)
		}
		return len(reply) - 1
	}
	if got := expire("e1"); got != 2 {
		t.Fatalf("first expiry removed %d, want 2", got)
	}
	if got := expire("e1"); got != 2 {
		t.Fatalf("the same expiry again reported %d, want the 2 it removed", got)
	}
	if got := expire("e2"); got != 0 {
		t.Fatalf("another expiry reported %d, want 0", got)
	}
}
