package redisbus_test

import (
	"context"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/redistest"
	"github.com/quiver-go/quiver/internal/registrytest"
	gen "github.com/quiver-go/quiver/registry/gen/registry"
)

// The change feed works across nodes: a long poll on node B wakes when a
// toolset registers through node A, and a conditional read on B sees the
// new revision.
func TestTheChangeFeedCrossesNodes(t *testing.T) {
	rs := redistest.Start(t, redistest.Options{})
	a := registrytest.Start(t, registrytest.Options{RedisURL: rs.URL(), Prefix: "feed:"})
	b := registrytest.Start(t, registrytest.Options{RedisURL: rs.URL(), Prefix: "feed:"})
	onB := b.Client(t, "")
	before, err := onB.ListToolsets(context.Background(), &gen.ListToolsetsPayload{})
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan *gen.ChangesResult, 1)
	go func() {
		res, err := onB.Changes(context.Background(), &gen.ChangesPayload{After: before.Revision, WaitMs: 10000})
		if err != nil {
			t.Error(err)
		}
		got <- res
	}()
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	registrytest.Register(t, a.Client(t, ""), registrytest.Echo("echo"), "r1", 1, false)
	select {
	case res := <-got:
		if len(res.Changes) != 1 || res.Changes[0].Toolset != "echo" || res.Changes[0].Kind != "registered" {
			t.Fatalf("%+v", res)
		}
		t.Logf("node B's poll woke %s after the registration through node A", time.Since(start).Round(time.Millisecond))
	case <-time.After(5 * time.Second):
		t.Fatal("node B's long poll did not wake for a registration through node A")
	}
	after, err := onB.ListToolsets(context.Background(), &gen.ListToolsetsPayload{IfNoneMatch: &before.Etag})
	if err != nil || after.Unchanged != nil || len(after.Toolsets) != 1 {
		t.Fatalf("conditional read on node B: %+v %v", after, err)
	}
}
