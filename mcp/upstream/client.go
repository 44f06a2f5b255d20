package upstream

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quiver-go/quiver/internal/httpauth"
)

// ErrClosed is returned by the methods of a [Client] after Close.
var ErrClosed = errors.New("upstream: client closed")

// Client is a connection to one upstream server, reconnected after the
// server dies. It is a [toolcall.Executor] for the toolsets built on it
// ([Client.ListedToolset], [Client.DeclaredToolset]). Its methods are safe
// for concurrent use.
type Client struct {
	name string
	cfg  Config
	sdk  *mcp.Client

	// connMu serializes (re)connecting; mu guards the fields below.
	connMu sync.Mutex
	mu     sync.Mutex
	sess   *session
	closed bool
	// failures counts the connection attempts that failed in a row; next
	// is when the next attempt may start.
	failures int
	next     time.Time
	// names maps, per toolset built on the client, our tool names to the
	// server's.
	names map[string]map[string]string
	// closing is cancelled by Close first, ending the calls in flight (the
	// SDK's session close waits for them).
	closing     context.Context
	stopClosing context.CancelFunc
}

// session is one live connection; done is closed when it ended.
type session struct {
	cs   *mcp.ClientSession
	done chan struct{}
}

func (s *session) alive() bool {
	select {
	case <-s.done:
		return false
	default:
		return true
	}
}

// Connect starts (stdio) or reaches (HTTP) the server and completes the
// initialize handshake within cfg.InitializeTimeout. name names the
// server in messages and in the toolsets built on it. A server that does
// not answer in time is an error naming it and the timeout.
func Connect(ctx context.Context, name string, cfg Config) (*Client, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("upstream: server %q: %w", name, err)
	}
	c := &Client{name: name, cfg: cfg, names: map[string]map[string]string{}}
	c.closing, c.stopClosing = context.WithCancel(context.Background())
	opts := &mcp.ClientOptions{
		Capabilities: cfg.Handlers.capabilities(),
	}
	if cfg.OnToolsChanged != nil {
		opts.ToolListChangedHandler = func(context.Context, *mcp.ToolListChangedRequest) {
			go cfg.OnToolsChanged()
		}
	}
	c.sdk = mcp.NewClient(&mcp.Implementation{Name: "quiver", Version: "v0"}, opts)
	c.sdk.AddReceivingMiddleware(cfg.Handlers.middleware(name))
	s, err := c.dial(ctx)
	if err != nil {
		c.stopClosing()
		return nil, err
	}
	c.sess = s
	return c, nil
}

// Name is the server's name given to [Connect].
func (c *Client) Name() string { return c.name }

// dial opens one session, the handshake bounded by InitializeTimeout.
func (c *Client) dial(ctx context.Context) (*session, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, c.cfg.InitializeTimeout, errInitTimeout)
	defer cancel()
	cs, err := c.sdk.Connect(ctx, c.transport(), &mcp.ClientSessionOptions{ProtocolVersion: ProtocolVersion})
	if err != nil {
		if context.Cause(ctx) == errInitTimeout {
			return nil, fmt.Errorf("upstream: server %q did not complete the MCP initialize handshake within %s (Config.InitializeTimeout): %w", c.name, c.cfg.InitializeTimeout, err)
		}
		return nil, fmt.Errorf("upstream: server %q: connect: %w", c.name, err)
	}
	s := &session{cs: cs, done: make(chan struct{})}
	go func() {
		err := cs.Wait()
		close(s.done)
		c.mu.Lock()
		closed := c.closed
		c.mu.Unlock()
		if !closed && c.cfg.OnDisconnect != nil {
			c.cfg.OnDisconnect(err)
		}
	}()
	return s, nil
}

var errInitTimeout = errors.New("initialize timed out")

// ProtocolVersion is the MCP protocol version the client asks for in the
// initialize handshake (a server may answer an older one). It is the last
// version with the initialize handshake and requests sent by the server:
// on it every sampling, elicitation and roots request reaches [Handlers],
// which answer or refuse it.
const ProtocolVersion = "2025-11-25"

// transport returns a new transport to the server (a stdio transport
// starts a new process).
func (c *Client) transport() mcp.Transport {
	if c.cfg.Command != "" {
		cmd := exec.Command(c.cfg.Command, c.cfg.Args...)
		cmd.Env = append(minimalEnv(), c.cfg.Env...)
		cmd.Dir = c.cfg.Dir
		cmd.Stderr = c.cfg.Stderr
		detach(cmd)
		return &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}
	}
	hc := c.cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Transport: &http.Transport{
			Proxy:               http.ProxyFromEnvironment,
			DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			TLSHandshakeTimeout: 10 * time.Second,
			IdleConnTimeout:     90 * time.Second,
			ForceAttemptHTTP2:   true,
		}}
	}
	if c.cfg.BearerToken != "" || len(c.cfg.Header) > 0 {
		base := hc.Transport
		if base == nil {
			base = http.DefaultTransport
		}
		wrapped := *hc
		wrapped.Transport = headerTransport{header: c.cfg.Header, base: httpauth.BearerTransport{Key: c.cfg.BearerToken, Base: base}}
		hc = &wrapped
	}
	return &mcp.StreamableClientTransport{Endpoint: c.cfg.URL, HTTPClient: hc}
}

// headerTransport adds header to every request.
type headerTransport struct {
	header http.Header
	base   http.RoundTripper
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(t.header) > 0 {
		r = r.Clone(r.Context())
		for k, vs := range t.header {
			r.Header.Del(k)
			for _, v := range vs {
				r.Header.Add(k, v)
			}
		}
	}
	return t.base.RoundTrip(r)
}

// session returns the live session, reconnecting when the last one ended:
// at most maxAttempts attempts within ctx, each after the backoff the
// failures before it set. The error is the last attempt's.
func (c *Client) session(ctx context.Context) (*session, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	if s := c.sess; s != nil && s.alive() {
		c.mu.Unlock()
		return s, nil
	}
	c.mu.Unlock()

	c.connMu.Lock()
	defer c.connMu.Unlock()
	var last error
	for range maxAttempts {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return nil, ErrClosed
		}
		if s := c.sess; s != nil && s.alive() {
			c.mu.Unlock()
			return s, nil
		}
		wait := time.Until(c.next)
		c.mu.Unlock()
		if wait > 0 {
			if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
				if last == nil {
					last = fmt.Errorf("the next reconnection attempt is in %s, after this call's deadline", wait.Round(time.Millisecond))
				}
				return nil, last
			}
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil, ctx.Err()
			case <-t.C:
			}
		}
		s, err := c.dial(ctx)
		c.mu.Lock()
		if err == nil {
			if c.closed {
				c.mu.Unlock()
				_ = s.cs.Close()
				return nil, ErrClosed
			}
			c.sess, c.failures, c.next = s, 0, time.Time{}
			c.mu.Unlock()
			return s, nil
		}
		c.failures++
		c.next = time.Now().Add(c.backoff(c.failures))
		c.mu.Unlock()
		last = err
		if ctx.Err() != nil {
			break
		}
	}
	return nil, last
}

// maxAttempts is how many connection attempts one call makes.
const maxAttempts = 3

// backoff is the wait after the n-th failed attempt in a row.
func (c *Client) backoff(n int) time.Duration {
	d := c.cfg.MinBackoff
	for i := 1; i < n && d < c.cfg.MaxBackoff; i++ {
		d *= 2
	}
	return min(d, c.cfg.MaxBackoff)
}

// Close closes the connection (and stops a stdio server: its stdin is
// closed; it gets SIGTERM if it has not exited 2s later, and is killed
// if it still runs after that). An HTTP session is ended with a DELETE the SDK bounds to 5s.
// Calls after Close fail with [ErrClosed].
func (c *Client) Close() error {
	c.mu.Lock()
	s := c.sess
	c.sess, c.closed = nil, true
	c.mu.Unlock()
	c.stopClosing()
	if s == nil {
		return nil
	}
	err := s.cs.Close()
	<-s.done
	if err != nil && !errors.Is(err, mcp.ErrConnectionClosed) {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil // a stdio server stopped by Close exits as it may
		}
		return fmt.Errorf("upstream: server %q: close: %w", c.name, err)
	}
	return nil
}
