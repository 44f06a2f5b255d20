package mcp_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quiver-go/quiver/mcp"
	"github.com/quiver-go/quiver/tools"
)

// switchSource serves opsToolset, with or without ops.find, and tells the
// server when flip switches.
type switchSource struct {
	full, less []mcp.Tool
	mu         sync.Mutex
	without    bool
	changed    chan struct{}
}

func newSwitchSource(t testing.TB) *switchSource {
	runs := &counter{runs: map[tools.Ident]int{}}
	var src switchSource
	for _, spec := range opsToolset(&testing.T{}) {
		tool := mcp.Tool{Spec: spec, Deferred: spec.Name != "ops.find", Executor: runs}
		src.full = append(src.full, tool)
		if spec.Name != "ops.find" {
			src.less = append(src.less, tool)
		}
	}
	if len(src.full) == len(src.less) {
		t.Fatal("ops.find missing from opsToolset")
	}
	src.changed = make(chan struct{})
	return &src
}

func (s *switchSource) Tools(context.Context) ([]mcp.Tool, <-chan struct{}, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.without {
		return s.less, s.changed, nil
	}
	return s.full, s.changed, nil
}

// flip changes the catalog: ops.find leaves it, or comes back.
func (s *switchSource) flip() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.without = !s.without
	close(s.changed)
	s.changed = make(chan struct{})
}

// lines counts the records a logger receives.
type lines struct {
	mu   sync.Mutex
	msgs []string
}

func (l *lines) Enabled(_ context.Context, lv slog.Level) bool { return lv >= slog.LevelWarn }
func (l *lines) WithAttrs([]slog.Attr) slog.Handler            { return l }
func (l *lines) WithGroup(string) slog.Handler                 { return l }
func (l *lines) Handle(_ context.Context, r slog.Record) error {
	text := r.Message
	r.Attrs(func(a slog.Attr) bool { text += " " + a.String(); return true })
	l.mu.Lock()
	l.msgs = append(l.msgs, text)
	l.mu.Unlock()
	return nil
}

func (l *lines) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.msgs)
}

func (l *lines) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.msgs...)
}

// waitFor polls cond for up to 10 seconds.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	waitWithin(t, 10*time.Second, what, cond)
}

// waitWithin polls cond for up to d.
func waitWithin(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

func TestSessionCapsRefuseNewSessionsAndKeepOldOnes(t *testing.T) {
	e := newEnv(t, func(c *mcp.Config) { c.MaxSessions = 3; c.MaxSessionsPerCredential = 2 })
	a, b := e.mustConnect("ro-key"), e.mustConnect("ro-key")
	// A third session of the same credential is over its cap.
	resp, body := post(t, e, initBody, nil)
	if resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(body, "Config.MaxSessionsPerCredential") || !strings.Contains(body, "--max-sessions-per-key") {
		t.Fatalf("third session of a credential: %d %q, want 429 naming the cap and how to raise it", resp.StatusCode, body)
	}
	// Another credential may still start one, up to the total.
	c := e.mustConnect("staging-key")
	if _, err := e.connect("full-key"); err == nil {
		t.Fatal("a fourth session connected")
	}
	resp, body = post(t, e, initBody, map[string]string{"Authorization": "Bearer full-key"})
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "holds 3 sessions") || !strings.Contains(body, "--max-sessions") {
		t.Fatalf("fourth session: %d %q, want 503 naming the cap and how to raise it", resp.StatusCode, body)
	}
	if n := e.server.Sessions(); n != 3 {
		t.Fatalf("Sessions() = %d after refusals, want 3", n)
	}
	// The sessions held keep working.
	for _, cl := range []*client{a, b, c} {
		if names := cl.names(t); len(names) == 0 {
			t.Fatal("a session lists nothing after refusals")
		}
	}
	// A closed session frees its slot.
	_ = a.Close()
	waitFor(t, "the closed session to be dropped", func() bool { return e.server.Sessions() == 2 })
	e.mustConnect("full-key")
}

func TestIdleSessionsAreDroppedAndFreeTheirSlot(t *testing.T) {
	e := newEnv(t, func(c *mcp.Config) { c.MaxSessions = 3; c.SessionTimeout = 100 * time.Millisecond })
	for range 3 {
		e.mustConnect("ro-key")
	}
	// Raw sessions, as an MCP Inspector --cli run leaves them: no stream,
	// no DELETE. They count against the cap until idle.
	if resp, _ := post(t, e, initBody, nil); resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("fourth session: %d, want 503", resp.StatusCode)
	}
	waitFor(t, "idle sessions to be dropped", func() bool { return e.server.Sessions() == 0 })
	var ids []string
	for range 3 {
		resp, body := post(t, e, initBody, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("session after the idle drop: %d %q", resp.StatusCode, body)
		}
		ids = append(ids, resp.Header.Get("Mcp-Session-Id"))
	}
	waitFor(t, "the raw sessions to be dropped", func() bool { return e.server.Sessions() == 0 })
	resp, _ := post(t, e, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, map[string]string{"Mcp-Session-Id": ids[0]})
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("request of a dropped session: %d, want 404", resp.StatusCode)
	}
	e.mustConnect("ro-key")
}

// inMemory connects n clients over the SDK's in-memory transports; got
// counts the list_changed notifications they receive.
func inMemory(t testing.TB, s *mcp.Server, n int, got *atomic.Int64) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	sc := sdk.NewClient(&sdk.Implementation{Name: "mem", Version: "1"}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { got.Add(1) },
	})
	for range n {
		ct, st := sdk.NewInMemoryTransports()
		wg.Add(1)
		go func() { defer wg.Done(); _ = s.ServeTransport(ctx, st) }()
		cs, err := sc.Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
	}
	waitFor(t, "sessions to connect", func() bool { return s.Sessions() == n })
}

// catalogChange flips the catalog once under n sessions and returns the
// listings built and the lines logged meanwhile.
func catalogChange(t *testing.T, n int) (builds int64, logged []string) {
	log := &lines{}
	src := newSwitchSource(t)
	s, err := mcp.New(mcp.Config{Source: src, Anonymous: tools.ExposureReadOnly, MaxSessions: -1, MaxSessionsPerCredential: -1, Logger: slog.New(log)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if err := s.Ready(context.Background()); err != nil {
		t.Fatal(err)
	}
	var got atomic.Int64
	inMemory(t, s, n, &got)
	before, versions, lines0 := s.ListingBuilds(), s.CatalogVersions(), log.count()
	src.flip()
	waitFor(t, "the catalog change", func() bool { return s.CatalogVersions() > versions })
	waitFor(t, "every session's list_changed", func() bool { return got.Load() >= int64(n) })
	return s.ListingBuilds() - before, log.all()[lines0:]
}

func TestCatalogChangeCostsOneListingAndConstantLogs(t *testing.T) {
	if testing.Short() {
		t.Skip("2,000 sessions")
	}
	few, fewLog := catalogChange(t, 20)
	many, manyLog := catalogChange(t, 2000)
	if few != 1 || many != 1 {
		t.Fatalf("listings built for one change = %d (20 sessions), %d (2,000 sessions): want 1, one per (tier, version)", few, many)
	}
	if len(manyLog) != len(fewLog) {
		t.Fatalf("a change logged %d lines under 2,000 sessions, %d under 20: want as many\n%s", len(manyLog), len(fewLog), strings.Join(manyLog, "\n"))
	}
}

func TestUndeliveredListChangedIsOneLine(t *testing.T) {
	defer mcp.SetUndeliveredFlush(50 * time.Millisecond)()
	log := &lines{}
	src := newSwitchSource(t)
	creds := map[string]tools.Exposure{"ro-key": tools.ExposureReadOnly, "staging-key": tools.ExposureStaging, "full-key": tools.ExposureFull}
	e := startServer(t, mcp.Config{Source: src, Credentials: creds, Logger: slog.New(log)})
	// Sessions as an MCP Inspector --cli run leaves them: initialized,
	// then no stream to carry a notification, and no DELETE.
	const n = 30
	for i := range n {
		key := []string{"ro-key", "staging-key", "full-key"}[i%3]
		resp, body := post(t, e, initBody, map[string]string{"Authorization": "Bearer " + key})
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("initialize: %d %q", resp.StatusCode, body)
		}
		resp, body = post(t, e, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, map[string]string{"Authorization": "Bearer " + key, "Mcp-Session-Id": resp.Header.Get("Mcp-Session-Id")})
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("initialized: %d %q", resp.StatusCode, body)
		}
	}
	before, versions := e.server.ListingBuilds(), e.server.CatalogVersions()
	src.flip()
	waitFor(t, "the catalog change", func() bool { return e.server.CatalogVersions() > versions })
	if got := e.server.ListingBuilds() - before; got != 3 {
		t.Fatalf("listings built = %d for sessions of 3 tiers, want 3", got)
	}
	want := fmt.Sprintf("sessions=%d", n)
	waitFor(t, "the undelivered notifications' line", func() bool {
		for _, m := range log.all() {
			if strings.Contains(m, "undelivered") && strings.Contains(m, want) {
				return true
			}
		}
		return false
	})
	time.Sleep(100 * time.Millisecond)
	var undelivered []string
	for _, m := range log.all() {
		if strings.Contains(m, "undelivered") {
			undelivered = append(undelivered, m)
		}
	}
	if len(undelivered) != 1 {
		t.Fatalf("logged %d lines of undelivered notifications for one change under %d sessions, want 1:\n%s", len(undelivered), n, strings.Join(log.all(), "\n"))
	}
}

func TestServeTransportCountsAgainstTheCap(t *testing.T) {
	s, err := mcp.New(mcp.Config{Source: newSwitchSource(t), Anonymous: tools.ExposureReadOnly, MaxSessions: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	var got atomic.Int64
	inMemory(t, s, 1, &got)
	_, st := sdk.NewInMemoryTransports()
	if err := s.ServeTransport(context.Background(), st); !errors.Is(err, mcp.ErrSessionCap) || !strings.Contains(err.Error(), "Config.MaxSessions") {
		t.Fatalf("a second transport session: %v, want ErrSessionCap naming Config.MaxSessions", err)
	}
}
