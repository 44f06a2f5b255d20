package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/quiver-go/quiver/mcp/upstream"
	"github.com/quiver-go/quiver/registry"
	"github.com/quiver-go/quiver/tools/contract"
)

// run is one upstream: its client, its publication and its state.
type run struct {
	srv  Server
	opts Options
	sec  *secrets
	log  *slog.Logger
	// changed is signalled when the server's tools may have changed: it
	// said so (list_changed), or it went away and comes back.
	changed chan struct{}
	// attempted is closed once the first attempt ended.
	attempted chan struct{}
	once      sync.Once
	// stderr is the end of a stdio server's standard error.
	stderr stderrTail

	mu sync.Mutex
	st Status
}

func newRun(srv Server, opts Options, sec *secrets, log *slog.Logger) *run {
	return &run{
		srv: srv, opts: opts, sec: sec, log: log,
		changed:   make(chan struct{}, 1),
		attempted: make(chan struct{}),
		st:        Status{Name: srv.Name, State: Starting},
	}
}

func (r *run) status() Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.st
	st.Skipped = append([]upstream.SkippedTool(nil), st.Skipped...)
	return st
}

func (r *run) update(f func(*Status)) {
	r.mu.Lock()
	f(&r.st)
	r.mu.Unlock()
}

func (r *run) signal() {
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

// publication is one registration of the toolset, served by a provider
// goroutine until its context ends.
type publication struct {
	revision string
	cancel   context.CancelFunc
	done     chan error
}

func (p *publication) stop() {
	if p != nil {
		p.cancel()
		<-p.done
	}
}

// loop connects, lists, publishes and follows the server until ctx ends.
func (r *run) loop(ctx context.Context) {
	var client *upstream.Client
	var pub *publication
	defer func() {
		pub.stop()
		if client != nil {
			_ = client.Close()
		}
		r.once.Do(func() { close(r.attempted) })
	}()
	failures := 0
	for ctx.Err() == nil {
		var err error
		if client == nil {
			client, err = r.connect(ctx)
		}
		if err == nil {
			pub, err = r.publish(ctx, client, pub)
		}
		if ctx.Err() != nil {
			return
		}
		r.once.Do(func() { close(r.attempted) })
		var ended <-chan error
		if pub != nil {
			ended = pub.done
		}
		if err != nil {
			failures++
			wait := r.backoff(failures)
			msg := err.Error()
			if tail := r.stderr.take(); tail != "" {
				msg += "; the server's standard error ended with: " + tail
			}
			msg = r.sec.scrub(msg)
			r.update(func(s *Status) { s.State, s.Err, s.Retry = Failed, msg, time.Now().Add(wait) })
			r.log.Warn("gateway: upstream failed; retrying", "err", msg, "retry_in", wait.Round(time.Millisecond))
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			case <-r.changed:
			}
			continue
		}
		failures = 0
		select {
		case <-ctx.Done():
			return
		case <-r.changed:
		case err := <-ended:
			// The provider stopped on its own: the registry refused it or
			// replaced it. Publish again.
			r.log.Warn("gateway: the provider stopped; publishing again", "err", r.sec.scrubError(err))
			pub.cancel()
			pub = nil
		}
	}
}

// connect starts the server's client.
func (r *run) connect(ctx context.Context) (*upstream.Client, error) {
	cfg := r.srv.Upstream
	cfg.Handlers = r.opts.Handlers
	if cfg.Command != "" {
		cfg.Stderr = &r.stderr
	}
	cfg.OnToolsChanged = r.signal
	cfg.OnDisconnect = func(err error) {
		if ctx.Err() != nil {
			return // the gateway is stopping: a terminal's Ctrl-C reaches the servers too
		}
		r.update(func(s *Status) { s.Restarts++ })
		r.log.Warn("gateway: upstream went away; reconnecting", "err", r.sec.scrubError(err))
		r.signal()
	}
	cctx, cancel := context.WithTimeout(ctx, r.opts.StartTimeout)
	defer cancel()
	return upstream.Connect(cctx, r.srv.Name, cfg)
}

// publish lists the server's tools and, when they differ from what pub
// serves, publishes them as a new revision and stops pub once the new one
// is served. It returns the publication serving now.
func (r *run) publish(ctx context.Context, c *upstream.Client, pub *publication) (*publication, error) {
	lctx, cancel := context.WithTimeout(ctx, r.opts.StartTimeout)
	defer cancel()
	decl, skipped, err := c.ListedDeclaration(lctx, r.srv.Name)
	if err != nil {
		return pub, err
	}
	unmatched := r.applyExposure(&decl)
	if len(decl.Tools) == 0 {
		pub.stop()
		r.update(func(s *Status) { *s = Status{Name: s.Name, State: Empty, Skipped: skipped, Restarts: s.Restarts} })
		return nil, nil
	}
	decl.Description = fmt.Sprintf("The tools of the MCP server %q, through quiver serve's gateway.", r.srv.Name)
	fp, err := contract.Fingerprint(decl)
	if err != nil {
		return pub, err
	}
	revision := RevisionPrefix + strings.TrimPrefix(fp, "sha256:")[:16]
	if pub == nil || pub.revision != revision {
		next, err := r.serve(ctx, c, decl, revision)
		if err != nil {
			return pub, err
		}
		pub.stop()
		pub = next
	}
	for _, name := range unmatched {
		r.log.Warn(`gateway: "tools" names a tool the server does not list`, "tool", name)
	}
	r.update(func(s *Status) {
		s.State, s.Err, s.Retry = Serving, "", time.Time{}
		s.Tools, s.Skipped, s.Revision = len(decl.Tools), skipped, revision
	})
	return pub, nil
}

// applyExposure gives each tool its tier from the configuration; it
// returns the per-tool entries that matched no tool.
func (r *run) applyExposure(decl *contract.ToolsetDeclaration) (unmatched []string) {
	byOurName := make(map[string]string, len(r.srv.ToolExposure))
	for name := range r.srv.ToolExposure {
		ours, err := upstream.ToolName(r.srv.Name, name)
		if err != nil {
			ours = name
		}
		byOurName[ours] = name
	}
	used := map[string]bool{}
	for i := range decl.Tools {
		t := &decl.Tools[i]
		t.Exposure = r.srv.Exposure
		if name, ok := byOurName[t.Name]; ok {
			t.Exposure = r.srv.ToolExposure[name]
			used[name] = true
		}
	}
	for name := range r.srv.ToolExposure {
		if !used[name] {
			unmatched = append(unmatched, name)
		}
	}
	return unmatched
}

// serve starts a provider of decl at revision and waits until the registry
// serves it.
func (r *run) serve(ctx context.Context, c *upstream.Client, decl contract.ToolsetDeclaration, revision string) (*publication, error) {
	pctx, cancel := context.WithCancel(ctx)
	p := &publication{revision: revision, cancel: cancel, done: make(chan error, 1)}
	reg := registry.Registration{
		Toolset: decl, Revision: revision, Provider: "quiver serve gateway: " + r.srv.Name,
		MaxInFlight: r.srv.MaxConcurrentCalls, Logger: r.log,
	}
	go func() { p.done <- registry.Serve(pctx, r.opts.Provider, reg, c) }()
	wctx, stop := context.WithTimeout(ctx, r.opts.StartTimeout)
	defer stop()
	waited := make(chan error, 1)
	go func() { waited <- r.opts.Consumer.WaitServed(wctx, decl.Name, revision) }()
	select {
	case err := <-waited:
		if err == nil {
			return p, nil
		}
		p.stop()
		return nil, fmt.Errorf("publish toolset %s: %w", decl.Name, err)
	case err := <-p.done:
		stop()
		<-waited
		cancel()
		if err == nil {
			err = errors.New("the provider returned without an error")
		}
		return nil, fmt.Errorf("publish toolset %s: %w", decl.Name, err)
	}
}

// backoff is the wait after the n-th failure in a row.
func (r *run) backoff(n int) time.Duration {
	d := r.opts.MinBackoff
	for i := 1; i < n && d < r.opts.MaxBackoff; i++ {
		d *= 2
	}
	return min(d, r.opts.MaxBackoff)
}
