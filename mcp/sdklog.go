package mcp

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
)

// sdkLogger is the logger the SDK's servers get: the server's, without the
// SDK's error record for a cancelled Run — how ServeStdio and
// ServeTransport stop a session, not a failure — and with the warnings of
// undelivered notifications counted by und rather than logged one per
// session.
func sdkLogger(log *slog.Logger, und *undelivered) *slog.Logger {
	return slog.New(quietSDK{log.Handler(), und})
}

type quietSDK struct {
	slog.Handler
	und *undelivered
}

func (q quietSDK) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == "server run cancelled" {
		return nil
	}
	// The SDK warns "calling notifications/tools/list_changed: …
	// undelivered message: …" for every session without a stream open to
	// carry it: every session a client left without closing, after every
	// catalog change.
	if method, ok := undeliveredMethod(r.Message); ok {
		q.und.add(method)
		return nil
	}
	return q.Handler.Handle(ctx, r)
}

// undeliveredMethod returns the notification an SDK warning says it could
// not deliver.
func undeliveredMethod(msg string) (string, bool) {
	rest, ok := strings.CutPrefix(msg, "calling ")
	if !ok || !strings.Contains(rest, "undelivered message") {
		return "", false
	}
	method, _, ok := strings.Cut(rest, ":")
	return method, ok && strings.HasPrefix(method, "notifications/")
}

func (q quietSDK) WithAttrs(attrs []slog.Attr) slog.Handler {
	return quietSDK{q.Handler.WithAttrs(attrs), q.und}
}

func (q quietSDK) WithGroup(name string) slog.Handler {
	return quietSDK{q.Handler.WithGroup(name), q.und}
}

// undeliveredFlush is how long undelivered notifications are counted
// before one line reports them: a catalog change notifies every session
// within it.
var undeliveredFlush = time.Second

// undelivered counts the notifications the SDK could not deliver and logs
// one warning per method and burst, whatever the number of sessions.
type undelivered struct {
	log *slog.Logger
	ctx context.Context

	mu      sync.Mutex
	counts  map[string]int
	pending bool
}

func newUndelivered(ctx context.Context, log *slog.Logger) *undelivered {
	return &undelivered{log: log, ctx: ctx, counts: map[string]int{}}
}

func (u *undelivered) add(method string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.counts[method]++
	if u.pending {
		return
	}
	u.pending = true
	go func() {
		select {
		case <-time.After(undeliveredFlush):
		case <-u.ctx.Done():
		}
		u.flush()
	}()
}

// flush logs what was counted since the last flush.
func (u *undelivered) flush() {
	u.mu.Lock()
	counts := u.counts
	u.counts = map[string]int{}
	u.pending = false
	u.mu.Unlock()
	for _, method := range slices.Sorted(maps.Keys(counts)) {
		u.log.Warn("mcp: notification undelivered: the sessions have no stream open to carry it (clients that left without closing them, dropped once idle for Config.SessionTimeout)",
			"method", method, "sessions", counts[method])
	}
}
