package node

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/quiver-go/quiver/internal/loopback"
	"github.com/quiver-go/quiver/registry/server"
	"github.com/quiver-go/quiver/registry/store"
	"github.com/quiver-go/quiver/registry/stores"
)

// DefaultShutdownTimeout is how long Close waits for the requests in
// flight when Config.ShutdownTimeout is zero.
const DefaultShutdownTimeout = 10 * time.Second

// Config says how to assemble a node. Its zero value (but for the store's
// data folder) is a node on the embedded store with the server's defaults,
// serving everyone as admin on a free loopback port.
type Config struct {
	// Store names the store (and bus) to open.
	Store stores.Config
	// Server configures the service: keys, logger, audit log, limits,
	// lease TTL, retention. Its Store and Bus must be left nil: they are
	// the ones Store opens. Server.Logger also receives net/http's errors.
	Server server.Config
	// WrapStore, when set, is given the opened store and returns the one
	// the service runs on, for tests that pause or fail the store at a
	// chosen point. Node.Store and Close keep to the opened store.
	WrapStore func(store.Store) store.Store
	// Handler, when set, is given the service's handler and returns the
	// one served (to add a header to every answer, say).
	Handler func(http.Handler) http.Handler
	// Listener is where the node serves; the node owns it from Start on
	// (closed by Close, Abort, or Start when it fails). When nil, the node
	// listens on Addr once the service is ready.
	Listener net.Listener
	// Addr is the address to listen on when Listener is nil; empty picks a
	// free loopback port (loopback.Listen).
	Addr string
	// TLS, when set, serves HTTPS with it (its Certificates); URL's scheme
	// says which.
	TLS *tls.Config
	// ShutdownTimeout bounds how long Close waits for the requests in
	// flight before it closes their connections; DefaultShutdownTimeout
	// when zero.
	ShutdownTimeout time.Duration
}

// Node is a running registry node.
type Node struct {
	// URL is where the node serves: http:// or https://, then Addr.
	URL string
	// Addr is the host:port the node listens on.
	Addr string
	// Service is the node's registry service (SetKeys, Ready, …).
	Service *server.Service
	// Store is the store the node opened (not the one WrapStore returned).
	Store store.Store
	// Describe says what the store is, for banners: never a password.
	Describe string
	// File is the embedded store's file ("" on Redis).
	File string

	opened  *stores.Node
	http    *http.Server
	timeout time.Duration
	failed  chan error
	served  chan struct{} // closed when the HTTP server stopped serving

	connsMu sync.Mutex
	conns   map[net.Conn]struct{} // the open connections, for Abort

	stopOnce sync.Once
	stopErr  error
}

// Start opens the store, starts the service on it and serves it, and
// returns the node. It fails, leaving nothing open, when the store does
// not open, the configuration is refused or the address cannot be
// listened on.
func Start(ctx context.Context, c Config) (_ *Node, err error) {
	if c.Listener != nil {
		defer func() {
			if err != nil {
				_ = c.Listener.Close()
			}
		}()
	}
	if c.Server.Store != nil || c.Server.Bus != nil {
		return nil, errors.New("node: Config.Server.Store and Bus are opened from Config.Store: leave them nil")
	}
	if c.ShutdownTimeout < 0 {
		return nil, errors.New("node: Config.ShutdownTimeout is negative")
	}
	opened, err := stores.Open(ctx, c.Store)
	if err != nil {
		return nil, err
	}
	n := &Node{
		Store: opened.Store, Describe: opened.Describe, File: opened.File,
		opened: opened, timeout: c.ShutdownTimeout,
		failed: make(chan error, 1), served: make(chan struct{}), conns: map[net.Conn]struct{}{},
	}
	if n.timeout == 0 {
		n.timeout = DefaultShutdownTimeout
	}
	sc := c.Server
	sc.Store, sc.Bus = opened.Store, opened.Bus
	if c.WrapStore != nil {
		sc.Store = c.WrapStore(opened.Store)
	}
	if n.Service, err = server.New(ctx, sc); err != nil {
		_ = opened.Close()
		return nil, err
	}
	ln := c.Listener
	if ln == nil {
		if c.Addr == "" {
			ln, err = loopback.Listen()
		} else {
			ln, err = net.Listen("tcp", c.Addr)
		}
		if err != nil {
			n.Service.Close()
			_ = opened.Close()
			return nil, err
		}
	}
	var h http.Handler = n.Service.Handler()
	if c.Handler != nil {
		h = c.Handler(h)
	}
	n.http = server.HTTPServer(h, sc.Logger)
	n.http.TLSConfig = c.TLS
	n.http.ConnState = n.track
	n.Addr = ln.Addr().String()
	scheme := "http"
	if c.TLS != nil {
		scheme = "https"
	}
	n.URL = scheme + "://" + n.Addr
	go n.serve(ln, c.TLS != nil)
	return n, nil
}

// serve serves until the HTTP server is closed; an error that stopped it
// otherwise goes to failed.
func (n *Node) serve(ln net.Listener, overTLS bool) {
	defer close(n.served)
	// Serve closes ln, but ServeTLS not when it fails before serving.
	defer ln.Close()
	var err error
	if overTLS {
		err = n.http.ServeTLS(ln, "", "")
	} else {
		err = n.http.Serve(ln)
	}
	if !errors.Is(err, http.ErrServerClosed) {
		n.failed <- err
	}
}

// track keeps the set of open connections, for Abort.
func (n *Node) track(c net.Conn, s http.ConnState) {
	n.connsMu.Lock()
	defer n.connsMu.Unlock()
	switch s {
	case http.StateNew:
		n.conns[c] = struct{}{}
	case http.StateClosed, http.StateHijacked:
		delete(n.conns, c)
	}
}

// Failed receives the error the HTTP server stopped with, when it stopped
// serving on its own (the listener failed) rather than through Close or
// Abort. A caller that serves until told to stop selects on it.
func (n *Node) Failed() <-chan error { return n.failed }

// Close stops the node: the service first (waiting calls answered
// unavailable, provider streams ended), then the HTTP server, given
// ShutdownTimeout for the requests still in flight before their
// connections are closed, then the store and bus. It returns the error of
// closing the store; further calls return it again.
func (n *Node) Close() error {
	n.stopOnce.Do(func() {
		n.Service.Close()
		ctx, cancel := context.WithTimeout(context.Background(), n.timeout)
		defer cancel()
		if err := n.http.Shutdown(ctx); err != nil {
			_ = n.http.Close()
		}
		<-n.served
		n.stopErr = n.opened.Close()
	})
	return n.stopErr
}

// Abort stops the node as a crash would for its clients: every open
// connection is cut at once, requests under way and provider streams
// included, before Close runs (its data stays in the store). Tests that
// restart a registry use it; a node that stops on a signal uses Close.
func (n *Node) Abort() error {
	n.connsMu.Lock()
	for c := range n.conns {
		_ = c.Close()
	}
	n.connsMu.Unlock()
	return n.Close()
}
