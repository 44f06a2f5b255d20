package gateway

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/quiver-go/quiver/mcp/upstream"
	"github.com/quiver-go/quiver/registry"
)

// The defaults of [Options].
const (
	DefaultStartTimeout = 30 * time.Second
	DefaultMinBackoff   = time.Second
	DefaultMaxBackoff   = time.Minute
)

// RevisionPrefix starts the revision of every toolset the gateway
// publishes ("gw-" and a hash of the toolset's contract), so that a tool
// that owns the registry can tell the gateway's registrations from others.
const RevisionPrefix = "gw-"

// Options say where the gateway publishes and how it retries.
type Options struct {
	// Provider publishes each upstream's toolset (a provider key);
	// Consumer reads the catalog back to know a toolset is served (a
	// consumer key). Both are required.
	Provider, Consumer *registry.Client
	// Logger receives what the gateway does, every secret of the
	// configuration scrubbed; discarded when nil.
	Logger *slog.Logger
	// StartTimeout bounds how long [Start] waits for each upstream's first
	// attempt (default 30s): an upstream still starting then is reported
	// as such and published when it is ready.
	StartTimeout time.Duration
	// MinBackoff and MaxBackoff bound the waits between attempts to start,
	// list or publish an upstream that failed (defaults 1s and 1m): the
	// wait doubles with each failure in a row and starts again at
	// MinBackoff once the upstream is served.
	MinBackoff, MaxBackoff time.Duration
	// Handlers answer what upstream servers ask their client (sampling,
	// elicitation, roots); each nil one refuses its request.
	Handlers upstream.Handlers
}

// Gateway fronts the servers of a [Config]: each runs as an upstream
// client whose listed tools a provider in this process publishes to the
// registry as the toolset named after the server, republished when the
// server's tools change, its client reconnected (and a stdio server
// restarted) when it goes away.
type Gateway struct {
	cfg    *Config
	runs   []*run
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// Start starts every server of cfg and waits, up to opts.StartTimeout, for
// each one's first attempt: served, or failed (then retried with backoff
// while the others serve). The error is only for options that cannot work;
// a server that fails is in [Gateway.Status].
func Start(ctx context.Context, cfg *Config, opts Options) (*Gateway, error) {
	if cfg == nil || len(cfg.Servers) == 0 {
		return nil, errors.New("gateway: Start needs a configuration with servers (LoadConfig, ParseConfig)")
	}
	if opts.Provider == nil || opts.Consumer == nil {
		return nil, errors.New("gateway: Options.Provider and Options.Consumer are both required")
	}
	setDefault(&opts.StartTimeout, DefaultStartTimeout)
	setDefault(&opts.MinBackoff, DefaultMinBackoff)
	setDefault(&opts.MaxBackoff, DefaultMaxBackoff)
	if opts.MaxBackoff < opts.MinBackoff {
		return nil, errors.New("gateway: Options.MaxBackoff is below MinBackoff")
	}
	base := slog.Handler(slog.DiscardHandler)
	if opts.Logger != nil {
		base = opts.Logger.Handler()
	}
	log := slog.New(cfg.secrets.handler(base))
	rctx, cancel := context.WithCancel(context.Background())
	g := &Gateway{cfg: cfg, cancel: cancel}
	for _, srv := range cfg.Servers {
		r := newRun(srv, opts, cfg.secrets, log.With("upstream", srv.Name))
		g.runs = append(g.runs, r)
		g.wg.Add(1)
		go func() {
			defer g.wg.Done()
			r.loop(rctx)
		}()
	}
	wctx, stop := context.WithTimeout(ctx, opts.StartTimeout)
	defer stop()
	for _, r := range g.runs {
		select {
		case <-r.attempted:
		case <-wctx.Done():
		}
	}
	return g, nil
}

// Status is what one upstream is doing.
type Status struct {
	// Name is the server's name: its toolset's.
	Name string
	// State is where it stands.
	State State
	// Tools is how many of its tools are published; Skipped are those
	// left out, and why.
	Tools   int
	Skipped []upstream.SkippedTool
	// Revision is the registration published ("" before the first).
	Revision string
	// Err is the last failure (secrets scrubbed), "" when serving.
	Err string
	// Retry is when the next attempt starts, for a failed upstream.
	Retry time.Time
	// Restarts counts the times the server went away while the gateway
	// ran; each is followed by a reconnection (a stdio server started
	// again).
	Restarts int
}

// State is where an upstream stands.
type State string

// The states of an upstream.
const (
	// Starting: its first attempt has not ended.
	Starting State = "starting"
	// Serving: its toolset is published and calls reach it.
	Serving State = "serving"
	// Failed: the last attempt failed; the next starts at Status.Retry.
	// A toolset published before stays published (its calls fail with
	// tool_unavailable while the server cannot be reached).
	Failed State = "failed"
	// Empty: the server lists no tool that can be published.
	Empty State = "empty"
)

// Status returns each upstream's state, in the order of the
// configuration.
func (g *Gateway) Status() []Status {
	out := make([]Status, len(g.runs))
	for i, r := range g.runs {
		out[i] = r.status()
	}
	return out
}

// Config is the configuration the gateway runs.
func (g *Gateway) Config() *Config { return g.cfg }

// Close stops publishing (each provider drains: calls in hand finish) and
// closes every upstream client (stdio servers are stopped).
func (g *Gateway) Close() error {
	g.cancel()
	g.wg.Wait()
	return nil
}

func setDefault(v *time.Duration, def time.Duration) {
	if *v <= 0 {
		*v = def
	}
}

var _ io.Closer = (*Gateway)(nil)
