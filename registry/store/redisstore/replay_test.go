package redisstore

import (
	"context"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/redisconn"
	"github.com/quiver-go/quiver/internal/redistest"
	"github.com/quiver-go/quiver/registry/store"
)

// TestReplayedScripts: go-redis sends a command again when its connection
// broke before the reply. AcceptCall and PublishCall run again with the
// same arguments (the same nonce) answer as the first run did, so that
// their caller routes the call and writes its frame; another call with
// the same id does not.
func TestReplayedScripts(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, redistest.Options{})
	ctx := context.Background()
	s, err := Open(ctx, srv.URL(), WithPrefix("replay:"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	reg, err := s.Register(ctx, store.RegisterInput{
		Registration: store.Registration{Toolset: "weather", Revision: "1", Fingerprint: "fp", Token: "tok"},
		MaxInFlight:  1, TTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	created := func(id, nonce string) int64 {
		t.Helper()
		reply, err := s.eval(ctx, "accept call", scriptAccept, false, id, "weather", "echo", "d", "tok", `{"id":"`+id+`"}`, "", "", nonce)
		if err != nil || redisconn.Str(reply[0]) != "ok" {
			t.Fatalf("accept %s: %v, %v", id, reply, err)
		}
		return reply[1].(int64)
	}
	// The same script run twice (a retried command) answers as the first
	// run; another attempt does not.
	first, replayed, other := created("c1", "n1"), created("c1", "n1"), created("c1", "n2")
	if first != 1 || replayed != 1 || other != 0 {
		t.Fatalf("AcceptCall created %d, replayed %d, another attempt %d: want 1, 1, 0", first, replayed, other)
	}
	published := func(nonce string) int64 {
		t.Helper()
		reply, err := s.eval(ctx, "publish call", scriptPublish, false, "c1", reg.Lease.ID, nonce)
		if err != nil || redisconn.Str(reply[0]) != "ok" {
			t.Fatalf("publish: %v, %v", reply, err)
		}
		return reply[2].(int64)
	}
	first, replayed, other = published("p1"), published("p1"), published("p2")
	if first != 1 || replayed != 1 || other != 0 {
		t.Fatalf("PublishCall published %d, replayed %d, another attempt %d: want 1, 1, 0", first, replayed, other)
	}
}
