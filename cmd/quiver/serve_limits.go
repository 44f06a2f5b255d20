package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/quiver-go/quiver/mcp"
	"github.com/quiver-go/quiver/toolcall"
)

// defaultCallsPerClient is how many calls one MCP client of quiver serve
// may have open at once (--max-calls-per-client).
const defaultCallsPerClient = 32

// abandonedCallWait bounds how long a call whose MCP client stopped
// waiting keeps its slot when the call had no deadline: the registry
// answers by the call's own timeout well before it.
const abandonedCallWait = 2 * time.Minute

// clientLimits bounds the calls each MCP client of quiver serve has open,
// before the registry sees them: every MCP client reaches the registry
// with quiver serve's one consumer key, whose registry limit they would
// otherwise share. A client is its bearer credential (with --keys), or its
// MCP session (without: every client then holds the same tier). A session
// counts against the credential of the request that opened it. A call
// holds its slot until the registry answers it, even after its client
// stopped waiting, so abandoned calls count too.
type clientLimits struct {
	max  int // <= 0: no limit
	keys bool
	// idle is how long a session's binding outlives its last request.
	idle time.Duration

	mu       sync.Mutex
	open     map[string]int
	sessions map[string]*boundSession // MCP session id → its client
	pruned   time.Time
}

type boundSession struct {
	client string
	seen   time.Time
}

func newClientLimits(max int, keyed bool, idle time.Duration) *clientLimits {
	if idle <= 0 {
		// Sessions that never idle out are still forgotten after a long
		// silence: the map must not grow without bound.
		idle = 30 * time.Minute
	}
	return &clientLimits{max: max, keys: keyed, idle: idle, open: map[string]int{}, sessions: map[string]*boundSession{}}
}

// limit applies the limits to cfg's source (its executors wrapped) and
// returns the wrapper of the MCP HTTP handler that learns each session's
// client.
func (l *clientLimits) limit(cfg *mcp.Config) func(http.Handler) http.Handler {
	cfg.Source = limitedSource{inner: cfg.Source, l: l}
	return l.handler
}

// handler binds each new MCP session to the client of the request that
// opened it (the response carrying its Mcp-Session-Id).
func (l *clientLimits) handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		client := ""
		if auth := r.Header.Get("Authorization"); auth != "" {
			d := sha256.Sum256([]byte(strings.TrimPrefix(auth, "Bearer ")))
			client = "credential " + hex.EncodeToString(d[:8])
		}
		if id := r.Header.Get("Mcp-Session-Id"); id != "" {
			l.bind(id, client)
			next.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(&sessionWriter{ResponseWriter: w, bind: func(id string) { l.bind(id, client) }}, r)
	})
}

// bind records session id's client unless it has one; it prunes sessions
// idle longer than quiver serve keeps them (--session-timeout).
func (l *clientLimits) bind(id, client string) {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.pruned) > time.Minute {
		for sid, s := range l.sessions {
			if now.Sub(s.seen) > l.idle {
				delete(l.sessions, sid)
			}
		}
		l.pruned = now
	}
	if s, ok := l.sessions[id]; ok {
		s.seen = now
		return
	}
	l.sessions[id] = &boundSession{client: client, seen: now}
}

// clientOf is the client a call of session id counts against.
func (l *clientLimits) clientOf(session string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if s, ok := l.sessions[session]; ok && (l.keys && s.client != "") {
		return s.client
	}
	return "session " + session
}

func (l *clientLimits) acquire(client string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.max > 0 && l.open[client] >= l.max {
		return false
	}
	l.open[client]++
	return true
}

func (l *clientLimits) release(client string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[client]--; l.open[client] <= 0 {
		delete(l.open, client)
	}
}

// executor runs exec's calls within their client's limit: a call beyond
// it fails at once with toolcall.KeyLimit, and nothing reaches the
// registry. A call whose client stops waiting runs on (detached, with its
// deadline) and keeps its slot until the registry answers.
func (l *clientLimits) executor(exec toolcall.Executor) toolcall.Executor {
	return toolcall.ExecutorFunc(func(ctx context.Context, call *toolcall.Call) (*toolcall.Result, error) {
		client := l.clientOf(call.Meta.SessionID)
		if !l.acquire(client) {
			return &toolcall.Result{Failure: toolcall.KeyLimit()}, nil
		}
		detached, cancel := context.WithTimeout(context.WithoutCancel(ctx), abandonedCallWait)
		if dl, ok := ctx.Deadline(); ok {
			cancel()
			detached, cancel = context.WithDeadline(context.WithoutCancel(ctx), dl)
		}
		type answer struct {
			res *toolcall.Result
			err error
		}
		done := make(chan answer, 1)
		go func() {
			res, err := exec.Execute(detached, call)
			// The slot is free before the answer is: a client's next call,
			// sent once this one answered, finds it.
			l.release(client)
			cancel()
			done <- answer{res, err}
		}()
		select {
		case a := <-done:
			return a.res, a.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
}

// limitedSource is a source whose tools run within their client's limit.
type limitedSource struct {
	inner mcp.Source
	l     *clientLimits
}

// Tools implements mcp.Source.
func (s limitedSource) Tools(ctx context.Context) ([]mcp.Tool, <-chan struct{}, error) {
	list, changed, err := s.inner.Tools(ctx)
	if err != nil {
		return nil, nil, err
	}
	out := make([]mcp.Tool, len(list))
	for i, t := range list {
		t.Executor = s.l.executor(t.Executor)
		out[i] = t
	}
	return out, changed, nil
}

// sessionWriter sees the response headers of a request without a
// session, to learn the session it opens.
type sessionWriter struct {
	http.ResponseWriter
	bind func(id string)
	seen bool
}

func (w *sessionWriter) learn() {
	if !w.seen {
		w.seen = true
		if id := w.Header().Get("Mcp-Session-Id"); id != "" {
			w.bind(id)
		}
	}
}

func (w *sessionWriter) WriteHeader(code int) { w.learn(); w.ResponseWriter.WriteHeader(code) }

func (w *sessionWriter) Write(b []byte) (int, error) { w.learn(); return w.ResponseWriter.Write(b) }

// Flush keeps the streaming the SDK's server-sent events need.
func (w *sessionWriter) Flush() {
	w.learn()
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *sessionWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
