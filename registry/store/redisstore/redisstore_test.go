package redisstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/redistest"
	"github.com/quiver-go/quiver/registry/store"
	"github.com/quiver-go/quiver/registry/store/redisstore"
	"github.com/quiver-go/quiver/registry/store/storetest"
)

// open opens a store on srv, closed at the test's cleanup.
func open(t testing.TB, srv *redistest.Server, opts ...redisstore.Option) *redisstore.Store {
	t.Helper()
	s, err := redisstore.Open(t.Context(), srv.URL(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestConformance runs the suite on one redis-server, each subtest's store
// under a prefix of its own; Reopen opens a new Store value on the same
// prefix.
func TestConformance(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	const changeLogLimit = 8
	type opened struct {
		prefix string
		clock  func() time.Time
	}
	var mu sync.Mutex
	stores := map[store.Store]opened{}
	openAt := func(t *testing.T, o opened) store.Store {
		s := open(t, srv, redisstore.WithPrefix(o.prefix), redisstore.WithClock(o.clock),
			redisstore.WithChangeLogLimit(changeLogLimit))
		mu.Lock()
		stores[s] = o
		mu.Unlock()
		return s
	}
	storetest.Run(t, storetest.Factory{
		Open: func(t *testing.T, clock func() time.Time) store.Store {
			return openAt(t, opened{redistest.NewPrefix(), clock})
		},
		Reopen: func(t *testing.T, s store.Store) store.Store {
			mu.Lock()
			o := stores[s]
			mu.Unlock()
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			return openAt(t, o)
		},
		ChangeLogLimit: changeLogLimit,
	})
}

var weather = store.Registration{Toolset: "weather", Revision: "1", Fingerprint: "fp", Token: "tok",
	Tools: []string{"forecast"}, Declaration: json.RawMessage(`{"name":"weather"}`)}

func weatherCall(id string) store.Call {
	return store.Call{ID: id, Toolset: "weather", Tool: "forecast", Token: "tok",
		Payload: json.RawMessage(`{"city":"Paris","n":12345678901234567890}`), Digest: "d-" + id}
}

// TestStoresShareState: two Store values on one prefix (two registry
// nodes) see each other's writes at once; another prefix sees none.
func TestStoresShareState(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, redistest.Options{})
	prefix := redistest.NewPrefix()
	a, b := open(t, srv, redisstore.WithPrefix(prefix)), open(t, srv, redisstore.WithPrefix(prefix))
	other := open(t, srv, redisstore.WithPrefix(redistest.NewPrefix()))
	ctx := t.Context()

	reg, err := a.Register(ctx, store.RegisterInput{Registration: weather, Provider: "p1", MaxInFlight: 4, TTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	cat, err := b.Catalog(ctx)
	if err != nil || cat.Revision != 1 || len(cat.Registrations) != 1 || len(cat.Leases) != 1 || cat.Leases[0].ID != reg.Lease.ID {
		t.Fatalf("b's catalog after a's Register: %+v, %v", cat, err)
	}
	rec, created, err := b.AcceptCall(ctx, weatherCall("c1"), reg.Lease.ID)
	if err != nil || !created || rec.State != store.CallPublished {
		t.Fatalf("b.AcceptCall = %s, created %v, %v", rec.State, created, err)
	}
	if _, created, err := a.AcceptCall(ctx, weatherCall("c1"), ""); err != nil || created {
		t.Fatalf("a.AcceptCall(c1 again) = created %v, %v; want b's record", created, err)
	}
	got, err := a.GetCall(ctx, "c1")
	if err != nil || got.State != store.CallPublished || string(got.Payload) != string(weatherCall("c1").Payload) {
		t.Fatalf("a.GetCall(c1) = %+v, %v", got, err)
	}
	if _, err := a.SettleCall(ctx, store.Settlement{CallID: "c1", LeaseID: reg.Lease.ID, Outcome: store.OutcomeOK,
		Result: json.RawMessage(`{"celsius":21}`)}); err != nil {
		t.Fatal(err)
	}
	if got, err := b.GetCall(ctx, "c1"); err != nil || got.Outcome != store.OutcomeOK || string(got.Result) != `{"celsius":21}` {
		t.Fatalf("b.GetCall(c1) after a settled it = %+v, %v", got, err)
	}
	fx, err := b.Release(ctx, reg.Lease.ID)
	if err != nil || len(fx.Ended) != 1 {
		t.Fatalf("b.Release = %+v, %v", fx, err)
	}
	if _, err := a.Renew(ctx, reg.Lease.ID); !errors.Is(err, store.ErrLeaseGone) {
		t.Fatalf("a.Renew(lease b released) = %v, want ErrLeaseGone", err)
	}
	if cat, err := other.Catalog(ctx); err != nil || cat.Revision != 0 || len(cat.Registrations) != 0 {
		t.Fatalf("another prefix's catalog: %+v, %v; want empty", cat, err)
	}
	if _, err := other.GetCall(ctx, "c1"); !errors.Is(err, store.ErrUnknownCall) {
		t.Fatalf("another prefix's GetCall(c1) = %v, want ErrUnknownCall", err)
	}
}

// TestServerTime: without WithClock, leases expire and records are
// stamped on the Redis server's clock.
func TestServerTime(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, redistest.Options{})
	s := open(t, srv, redisstore.WithPrefix(redistest.NewPrefix()))
	ctx := t.Context()
	client := srv.Client(t)
	serverNow := func() time.Time {
		t.Helper()
		now, err := client.Time(ctx).Result()
		if err != nil {
			t.Fatal(err)
		}
		return now
	}
	before := serverNow()
	reg, err := s.Register(ctx, store.RegisterInput{Registration: weather, MaxInFlight: 1, TTL: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	after := serverNow()
	if at := reg.Registration.RegisteredAt; at.Before(before) || at.After(after) {
		t.Fatalf("RegisteredAt %v, want the server's time, between %v and %v", at, before, after)
	}
	if exp := reg.Lease.ExpiresAt; exp.Before(before.Add(time.Second)) || exp.After(after.Add(time.Second)) {
		t.Fatalf("ExpiresAt %v, want the server's time plus 1s", exp)
	}
	rec, _, err := s.AcceptCall(ctx, weatherCall("c1"), reg.Lease.ID)
	if err != nil || rec.AcceptedAt.Before(before) || rec.PublishedAt.Before(before) {
		t.Fatalf("AcceptCall = %+v, %v; want stamped on the server's time", rec, err)
	}
	if fx, err := s.ExpireLeases(ctx); err != nil || len(fx.Ended) != 0 {
		t.Fatalf("ExpireLeases before the TTL = %+v, %v; want nothing ended", fx, err)
	}
	time.Sleep(1200 * time.Millisecond)
	if now := serverNow(); !now.After(reg.Lease.ExpiresAt) {
		t.Fatalf("the server's clock reads %v 1.2s after a 1s lease that expires at %v", now, reg.Lease.ExpiresAt)
	}
	if cat, err := s.Catalog(ctx); err != nil || len(cat.Leases) != 0 {
		t.Fatalf("catalog past the expiry: %+v, %v; want no live lease", cat.Leases, err)
	}
	fx, err := s.ExpireLeases(ctx)
	if err != nil || len(fx.Ended) != 1 || fx.Ended[0].ID != reg.Lease.ID || len(fx.Settled) != 1 {
		t.Fatalf("ExpireLeases past the TTL = %+v, %v; want the lease ended, c1 settled", fx, err)
	}
	if fx.Settled[0].Outcome != store.OutcomeUnknown {
		t.Fatalf("c1 settled %s, want outcome_unknown", fx.Settled[0].Outcome)
	}
}

// TestSurvivesRestart: with appendfsync always, what the store wrote is
// there after redis-server is killed and started again.
func TestSurvivesRestart(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, redistest.Options{AOF: true})
	prefix := redistest.NewPrefix()
	s := open(t, srv, redisstore.WithPrefix(prefix))
	ctx := t.Context()
	reg, err := s.Register(ctx, store.RegisterInput{Registration: weather, MaxInFlight: 1, TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.AcceptCall(ctx, weatherCall("c1"), reg.Lease.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.AcceptCall(ctx, weatherCall("c2"), ""); err != nil {
		t.Fatal(err)
	}
	before, _ := s.Catalog(ctx)
	srv.Restart(t) // SIGKILL, then start again on the same folder
	s2 := open(t, srv, redisstore.WithPrefix(prefix))
	cat, err := s2.Catalog(ctx)
	if err != nil || cat.Revision != before.Revision || len(cat.Leases) != 1 || cat.Leases[0].ID != reg.Lease.ID {
		t.Fatalf("catalog after the restart = %+v, %v; want %+v", cat, err, before)
	}
	u, err := s2.Unsettled(ctx)
	if err != nil || len(u) != 2 || u[0].ID != "c1" || u[0].State != store.CallPublished || u[1].State != store.CallAccepted {
		t.Fatalf("unsettled after the restart = %+v, %v", u, err)
	}
	// The first store's client reconnects; its scripts are loaded again.
	if _, err := s.SettleCall(ctx, store.Settlement{CallID: "c1", LeaseID: reg.Lease.ID, Outcome: store.OutcomeOK}); err != nil {
		t.Fatalf("SettleCall after the restart: %v", err)
	}
}

func TestOpenRefuses(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, redistest.Options{})
	ctx := t.Context()
	for _, o := range []redisstore.Option{redisstore.WithChangeLogLimit(0), redisstore.WithPrefix("")} {
		if _, err := redisstore.Open(ctx, srv.URL(), o); err == nil {
			t.Fatal("Open accepted a bad option")
		}
	}
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if _, err := redisstore.Open(short, "redis://user:secret@127.0.0.1:1/0"); err == nil || strings.Contains(err.Error(), "secret") {
		t.Fatalf("Open(no server) = %v; want an error without the password", err)
	}
	prefix := redistest.NewPrefix()
	if err := srv.Client(t).Set(ctx, prefix+"format", "9", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := redisstore.Open(ctx, srv.URL(), redisstore.WithPrefix(prefix)); err == nil || !strings.Contains(err.Error(), `holds key layout "9"`) {
		t.Fatalf("Open(another format) = %v", err)
	}
}

func TestWithClient(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, redistest.Options{})
	client := srv.Client(t)
	s, err := redisstore.Open(t.Context(), "", redisstore.WithClient(client), redisstore.WithPrefix(redistest.NewPrefix()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Register(t.Context(), store.RegisterInput{Registration: weather, MaxInFlight: 1, TTL: time.Minute}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := client.Ping(t.Context()).Err(); err != nil {
		t.Fatalf("the caller's client after Close: %v, want it open", err)
	}
}

func TestClosed(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, redistest.Options{})
	s := open(t, srv, redisstore.WithPrefix(redistest.NewPrefix()))
	ctx := t.Context()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close again: %v", err)
	}
	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, redisstore.ErrClosed) {
			t.Fatalf("%s after Close: %v, want ErrClosed", what, err)
		}
	}
	_, err := s.Register(ctx, store.RegisterInput{Registration: weather, MaxInFlight: 1, TTL: time.Minute})
	check("Register", err)
	_, _, err = s.AcceptCall(ctx, weatherCall("c1"), "")
	check("AcceptCall", err)
	_, err = s.Catalog(ctx)
	check("Catalog", err)
	_, err = s.GetCall(ctx, "c1")
	check("GetCall", err)
	_, _, _, err = s.Changes(ctx, 0)
	check("Changes", err)
}

func TestCanceledContext(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, redistest.Options{})
	s := open(t, srv, redisstore.WithPrefix(redistest.NewPrefix()))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := s.Register(ctx, store.RegisterInput{Registration: weather, MaxInFlight: 1, TTL: time.Minute})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Register(canceled) = %v", err)
	}
	if cat, err := s.Catalog(t.Context()); err != nil || len(cat.Registrations) != 0 {
		t.Fatalf("catalog after a canceled Register: %+v, %v", cat, err)
	}
}
