package faulttest

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/loopback"
	"github.com/quiver-go/quiver/registry/node"
	"github.com/quiver-go/quiver/registry/server"
	"github.com/quiver-go/quiver/registry/store"
)

// faultRegistry is a registry in the test's process whose listener lets
// the test break the connections that carry providers' call streams.
type faultRegistry struct {
	URL     string
	Service *server.Service
	Store   store.Store
	Net     *faultListener
	stop    func()
}

// startFaultRegistry runs a registry on the backend b (a temporary data
// folder for bolt) until the test ends.
func startFaultRegistry(t *testing.T, b *backend, leaseTTL, grace time.Duration) *faultRegistry {
	t.Helper()
	return startFaultRegistryOn(t, b, leaseTTL, grace, nil)
}

// startFaultRegistryOn is startFaultRegistry with the server's store
// wrapped by wrap (when not nil), for tests that pause the server at a
// chosen point.
func startFaultRegistryOn(t *testing.T, b *backend, leaseTTL, grace time.Duration, wrap func(store.Store) store.Store) *faultRegistry {
	t.Helper()
	return startFaultRegistryIn(t, b, t.TempDir(), leaseTTL, grace, wrap)
}

// startFaultRegistryIn is startFaultRegistryOn with the data in dir (bolt),
// for a test that restarts the registry on its data.
func startFaultRegistryIn(t *testing.T, b *backend, dir string, leaseTTL, grace time.Duration, wrap func(store.Store) store.Store) *faultRegistry {
	t.Helper()
	ln, err := loopback.Listen()
	if err != nil {
		t.Fatal(err)
	}
	fl := &faultListener{Listener: ln}
	n, err := node.Start(context.Background(), node.Config{
		Store:     b.stores(dir),
		WrapStore: wrap,
		Server: server.Config{
			Logger:   slog.New(slog.NewTextHandler(io.Discard, nil)),
			LeaseTTL: leaseTTL, PublishedGrace: grace,
		},
		Listener: fl,
	})
	if err != nil {
		t.Fatal(err)
	}
	r := &faultRegistry{URL: n.URL, Service: n.Service, Store: n.Store, Net: fl}
	var once sync.Once
	r.stop = func() {
		once.Do(func() {
			fl.Cut() // unblocks stalled writes
			_ = n.Abort()
		})
	}
	t.Cleanup(r.Close)
	return r
}

// Close stops the registry and closes its store and bus (idempotent): its
// requests under way end as at a crash, its data stays.
func (r *faultRegistry) Close() { r.stop() }

// streamRequest is the request line of a provider's call stream.
var streamRequest = regexp.MustCompile(`GET /v1/leases/[^ /]+/calls[ ?]`)

// faultListener accepts connections that notice when they carry a call
// stream; Blackhole, Stall and Cut act on those.
type faultListener struct {
	net.Listener
	mu    sync.Mutex
	conns []*faultConn
}

func (l *faultListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	fc := &faultConn{Conn: c, closed: make(chan struct{}), modeChanged: make(chan struct{})}
	l.mu.Lock()
	l.conns = append(l.conns, fc)
	l.mu.Unlock()
	return fc, nil
}

// streams returns the open connections that carry a call stream.
func (l *faultListener) streams() []*faultConn {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []*faultConn
	for _, c := range l.conns {
		c.mu.Lock()
		if c.stream && !c.isClosed {
			out = append(out, c)
		}
		c.mu.Unlock()
	}
	return out
}

// Blackhole makes the open stream connections swallow what the registry
// writes: the writes succeed, nothing reaches the provider. It returns how
// many connections it affected.
func (l *faultListener) Blackhole() int { return l.setMode(blackhole) }

// Stall makes the open stream connections' writes block until Resume or
// Cut: the registry's writer hangs on the first frame it writes, the
// following frames wait in its queue.
func (l *faultListener) Stall() int { return l.setMode(stall) }

// Resume lets the stream connections write again; a stalled write goes
// through.
func (l *faultListener) Resume() int { return l.setMode(pass) }

func (l *faultListener) setMode(m connMode) int {
	s := l.streams()
	for _, c := range s {
		c.mu.Lock()
		c.mode = m
		close(c.modeChanged)
		c.modeChanged = make(chan struct{})
		c.mu.Unlock()
	}
	return len(s)
}

// Cut closes the stream connections (both ways, as a broken network path
// does): what they swallowed is lost, and new connections work.
func (l *faultListener) Cut() int {
	s := l.streams()
	for _, c := range s {
		c.Close()
	}
	return len(s)
}

// Swallowed returns what the blackholed connections swallowed so far.
func (l *faultListener) Swallowed() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b bytes.Buffer
	for _, c := range l.conns {
		c.mu.Lock()
		b.Write(c.swallowed.Bytes())
		c.mu.Unlock()
	}
	return b.Bytes()
}

// Events returns the events written to the stream connections, in order:
// "ping", "drain", or a call frame's call id.
func (l *faultListener) Events() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, c := range l.conns {
		c.mu.Lock()
		for _, ev := range strings.Split(c.written.String(), "event: ")[1:] {
			name, rest, _ := strings.Cut(ev, "\n")
			if m := callIDField.FindStringSubmatch(rest); name == "call" && m != nil {
				name = m[1]
			}
			out = append(out, name)
		}
		c.mu.Unlock()
	}
	return out
}

// callIDField finds a call frame's call id.
var callIDField = regexp.MustCompile(`"call_id":"([^"]*)"`)

// Blocked returns how many writes are blocked on stalled connections.
func (l *faultListener) Blocked() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, c := range l.conns {
		c.mu.Lock()
		n += c.blocked
		c.mu.Unlock()
	}
	return n
}

type connMode int

const (
	pass connMode = iota
	blackhole
	stall
)

// faultConn is one accepted connection.
type faultConn struct {
	net.Conn

	mu        sync.Mutex
	seen      []byte // the tail of what was read, to spot a stream request
	stream    bool
	mode      connMode
	swallowed bytes.Buffer
	written   bytes.Buffer // what went through while it carried a stream
	blocked   int
	isClosed  bool
	closed    chan struct{}
	closeOnce sync.Once
	// modeChanged is closed (and replaced) when mode changes.
	modeChanged chan struct{}
}

func (c *faultConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.mu.Lock()
		if !c.stream {
			c.seen = append(c.seen, p[:n]...)
			if streamRequest.Match(c.seen) {
				c.stream = true
			}
			if len(c.seen) > 256 {
				c.seen = append(c.seen[:0], c.seen[len(c.seen)-256:]...)
			}
		}
		c.mu.Unlock()
	}
	return n, err
}

func (c *faultConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	for c.mode == stall {
		changed := c.modeChanged
		c.blocked++
		c.mu.Unlock()
		select {
		case <-c.closed:
		case <-changed:
		}
		c.mu.Lock()
		c.blocked--
		if c.isClosed {
			c.mu.Unlock()
			return 0, net.ErrClosed
		}
	}
	if c.mode == blackhole {
		c.swallowed.Write(p)
		c.mu.Unlock()
		return len(p), nil
	}
	if c.stream {
		c.written.Write(p)
	}
	c.mu.Unlock()
	return c.Conn.Write(p)
}

func (c *faultConn) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.isClosed = true
		c.mu.Unlock()
		close(c.closed)
	})
	return c.Conn.Close()
}
