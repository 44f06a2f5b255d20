package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quiver-go/quiver/internal/httpauth"
	"github.com/quiver-go/quiver/tools"
)

// Defaults of Config.
const (
	DefaultSessions       = 200
	DefaultDuration       = 60 * time.Second
	DefaultRequestTimeout = 30 * time.Second
)

// Config configures Run.
type Config struct {
	// Sessions is how many MCP client sessions run at once over HTTP, and
	// how many in-memory sessions and in-process goroutines the peers run
	// (DefaultSessions when 0).
	Sessions int
	// Duration is how long the HTTP sessions loop (DefaultDuration when
	// 0).
	Duration time.Duration
	// PeerDuration is how long each peer runs: Duration/10, between 250ms
	// and 10s, when 0. The peers make more requests per second than the
	// HTTP sessions; their percentiles settle sooner.
	PeerDuration time.Duration
	// OneAtATime is how long one goroutine or session on each path makes
	// its requests one after the other after the loaded phase, for the
	// overhead with no queue in front of it: the PeerDuration default
	// when 0; negative skips it.
	OneAtATime time.Duration
	// Pause is how long a session waits after each round, drawn at
	// random between Pause/2 and 3·Pause/2 so that sessions drift apart:
	// the time an agent thinks between its requests. With 0 (the default)
	// sessions loop without waiting, and the load is as much as the
	// machine can serve. The peer and the one-at-a-time phase never
	// pause.
	Pause time.Duration
	// RequestTimeout bounds each request (DefaultRequestTimeout when 0).
	RequestTimeout time.Duration
	// Logger receives the server's warnings; none when nil.
	Logger *slog.Logger
}

// Requests are the figures of a path's MCP requests: tools/list,
// search_tools and tools/call (ToolName).
type Requests struct {
	List, Search, Call Figures
}

// Phase is what one phase measured on each path, and the overhead at p50.
type Phase struct {
	// Sessions is how many sessions, or peer goroutines, ran at once on
	// each path.
	Sessions int
	// HTTP is the measured path: MCP over streamable HTTP on loopback.
	HTTP Requests
	// InMemory is MCP over the SDK's in-memory transport (JSON-RPC on a
	// pipe): the same server code, SDK and JSON, without HTTP.
	InMemory Requests
	// InProcess is the peer: the tool's executor called in-process with
	// the same payload.
	InProcess Figures
	// OverheadP50 is HTTP.Call.P50 - InProcess.P50: what serving the
	// tool over MCP adds.
	OverheadP50 time.Duration
}

// Report is what Run measured.
type Report struct {
	// Tool, Query and Arguments are what the sessions search and call.
	Tool      tools.Ident
	Query     string
	Arguments string
	// Protocol is the MCP revision the HTTP sessions negotiated; the
	// in-memory sessions ask for the same.
	Protocol string
	// Sessions and Duration are the loaded phase's HTTP sessions and how
	// long they looped.
	Sessions int
	Duration time.Duration
	// Connect and ConnectInMemory are the sessions' handshakes (all at
	// once on each transport); Close the closing of every session (all at
	// once, after the last phase).
	Connect, ConnectInMemory, Close Figures
	// Loaded is the phase with every session and peer goroutine at once.
	Loaded Phase
	// OneAtATime is one session, or goroutine, on each path; nil when
	// skipped.
	OneAtATime *Phase
	// Errors counts the failed MCP requests by class, on both transports,
	// handshakes and closings included; PeerErrors the failed in-process
	// calls.
	Errors     ErrorCounts
	PeerErrors int
}

// Run starts the MCP server over the workspace toolset on a loopback
// port and connects c.Sessions HTTP client sessions. Then, with
// c.Sessions at once: the peer goroutines call the executor for
// c.PeerDuration, c.Sessions in-memory sessions loop tools/list,
// search_tools and tools/call for c.PeerDuration, and the HTTP sessions
// for c.Duration. Unless skipped, one goroutine or session on each path
// does the same one request at a time for c.OneAtATime. It closes every
// session and the servers before returning. It returns an error when the
// set-up or the shutdown fails or ctx ends; failed requests are in the
// Report.
func Run(ctx context.Context, c Config) (rep *Report, err error) {
	c = c.withDefaults()
	if c.Sessions < 1 || c.Duration <= 0 || c.PeerDuration <= 0 || c.RequestTimeout <= 0 || c.Pause < 0 {
		return nil, fmt.Errorf("bench: sessions %d and durations %s, %s must be positive, pause %s not negative", c.Sessions, c.Duration, c.PeerDuration, c.Pause)
	}
	s, err := serve(ctx, c.Logger)
	if err != nil {
		return nil, err
	}
	transport := clientTransport(c.Sessions)
	defer func() {
		transport.CloseIdleConnections()
		if serr := s.stop(); serr != nil && err == nil {
			err = serr
		}
	}()
	hc := &http.Client{Transport: httpauth.BearerTransport{Key: s.key, Base: transport}}
	p, err := newPeer(s)
	if err != nil {
		return nil, err
	}

	r := &Report{Tool: Tool, Query: Query, Arguments: Arguments, Sessions: c.Sessions}
	var clients, memClients []*client
	defer func() {
		// Before the servers stop (deferred earlier, run later).
		closeRec := closeAll(append(clients, memClients...))
		r.Close = closeRec.figures(0)
		r.Errors.add(closeRec.classes)
	}()
	clients, connectRec := connectAll(ctx, c.Sessions, c.RequestTimeout, func(ctx context.Context) (*sdk.ClientSession, error) {
		return connectHTTP(ctx, s.url, hc)
	})
	r.Connect = connectRec.figures(0)
	r.Errors.add(connectRec.classes)
	if len(clients) == c.Sessions {
		r.Protocol = clients[0].cs.InitializeResult().ProtocolVersion
		var memRec *classRecorder
		memClients, memRec = connectAll(ctx, c.Sessions, c.RequestTimeout, func(ctx context.Context) (*sdk.ClientSession, error) {
			return s.connectMemory(ctx, r.Protocol)
		})
		r.ConnectInMemory = memRec.figures(0)
		r.Errors.add(memRec.classes)
		if len(memClients) > 0 {
			if v := memClients[0].cs.InitializeResult().ProtocolVersion; v != r.Protocol {
				return nil, fmt.Errorf("bench: the in-memory sessions negotiated protocol %s, the HTTP sessions %s", v, r.Protocol)
			}
		}
	}
	if ctx.Err() == nil && len(clients) == c.Sessions && len(memClients) == c.Sessions {
		r.Loaded = phase(ctx, p, clients, memClients, c.PeerDuration, c.Duration, c.Pause, c.RequestTimeout)
		r.Duration = r.Loaded.HTTP.Call.Elapsed
		if c.OneAtATime > 0 {
			one := phase(ctx, p, clients[:1], memClients[:1], c.OneAtATime, c.OneAtATime, 0, c.RequestTimeout)
			r.OneAtATime = &one
		}
	}
	for _, cl := range append(clients, memClients...) {
		r.Errors.add(cl.classes)
	}
	r.PeerErrors = r.Loaded.InProcess.Errors
	if r.OneAtATime != nil {
		r.PeerErrors += r.OneAtATime.InProcess.Errors
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	return r, nil
}

// phase drives the three paths one after the other, each with
// len(clients) sessions or goroutines at once: the peer and the in-memory
// sessions for peerDuration, the HTTP sessions for d; the sessions pause
// between rounds.
func phase(ctx context.Context, p *peer, clients, memClients []*client, peerDuration, d, pause, timeout time.Duration) Phase {
	ph := Phase{Sessions: len(clients)}
	ph.InProcess = p.run(ctx, len(clients), peerDuration, timeout)
	ph.InMemory = loop(ctx, memClients, peerDuration, pause, timeout)
	ph.HTTP = loop(ctx, clients, d, pause, timeout)
	ph.OverheadP50 = ph.HTTP.Call.P50 - ph.InProcess.P50
	return ph
}

func (c Config) withDefaults() Config {
	if c.Sessions == 0 {
		c.Sessions = DefaultSessions
	}
	if c.Duration == 0 {
		c.Duration = DefaultDuration
	}
	if c.PeerDuration == 0 {
		c.PeerDuration = min(max(c.Duration/10, 250*time.Millisecond), 10*time.Second)
	}
	if c.OneAtATime == 0 {
		c.OneAtATime = c.PeerDuration
	}
	if c.RequestTimeout == 0 {
		c.RequestTimeout = DefaultRequestTimeout
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return c
}

// clientTransport is the sessions' shared transport: enough idle
// connections for each session's standalone SSE stream and its request
// in flight.
func clientTransport(sessions int) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 2*sessions + 16
	t.MaxIdleConnsPerHost = 2*sessions + 16
	t.IdleConnTimeout = 90 * time.Second
	return t
}

// classRecorder is a recorder that also counts its failures by class.
type classRecorder struct {
	recorder
	classes ErrorCounts
}

// connectAll connects n sessions at once with connect. It returns the
// sessions that connected.
func connectAll(ctx context.Context, n int, timeout time.Duration, connect func(context.Context) (*sdk.ClientSession, error)) ([]*client, *classRecorder) {
	rec := &classRecorder{}
	var mu sync.Mutex
	var clients []*client
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			cctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			t := time.Now()
			cs, err := connect(cctx)
			d := time.Since(t)
			cl := &client{cs: cs}
			if err != nil {
				err = cl.fail(fmt.Errorf("connect: %w", err))
			}
			mu.Lock()
			defer mu.Unlock()
			rec.add(d, err)
			rec.classes.add(cl.classes)
			if cs != nil && err == nil {
				clients = append(clients, cl)
			}
		})
	}
	wg.Wait()
	return clients, rec
}

// closeAll closes the sessions at once and waits for them.
func closeAll(clients []*client) *classRecorder {
	rec := &classRecorder{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, cl := range clients {
		wg.Go(func() {
			t := time.Now()
			err := cl.cs.Close()
			d := time.Since(t)
			probe := &client{}
			if err != nil && !errors.Is(err, sdk.ErrConnectionClosed) {
				err = probe.fail(fmt.Errorf("close: %w", err))
			} else {
				err = nil
			}
			mu.Lock()
			defer mu.Unlock()
			rec.add(d, err)
			rec.classes.add(probe.classes)
		})
	}
	wg.Wait()
	return rec
}

// loop has every client make rounds until d has passed, pausing between
// them, and returns the figures of each kind of request.
func loop(ctx context.Context, clients []*client, d, pause, timeout time.Duration) Requests {
	for _, cl := range clients {
		cl.list, cl.search, cl.call = recorder{}, recorder{}, recorder{}
	}
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for _, cl := range clients {
		wg.Go(func() {
			for time.Now().Before(deadline) && ctx.Err() == nil {
				cl.round(ctx, timeout)
				if pause > 0 {
					wait(ctx, min(pause/2+rand.N(pause+1), time.Until(deadline)))
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	var l, s, c recorder
	for _, cl := range clients {
		l.merge(&cl.list)
		s.merge(&cl.search)
		c.merge(&cl.call)
	}
	return Requests{List: l.figures(elapsed), Search: s.figures(elapsed), Call: c.figures(elapsed)}
}

// wait waits d or until ctx ends.
func wait(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
