package runtime

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/quiver-go/quiver/registry"
)

// registryConn is a connected registry: its client and its catalog
// reader (registry.Reader, the one the MCP server reads with too), with
// what the runtime adds: the CacheTTL fallback and the background sync.
type registryConn struct {
	name     string
	client   *registry.Client
	reader   *registry.Reader
	settings registry.ConsumerSettings

	mu      sync.Mutex
	syncing map[string]bool
}

func newRegistryConn(name string, client *registry.Client) *registryConn {
	return &registryConn{
		name:     name,
		client:   client,
		reader:   registry.NewReader(name, client),
		settings: client.Consumer(),
		syncing:  make(map[string]bool),
	}
}

// readReport says how a step's read of one registry went; the workflow
// publishes it as a RegistryRead event.
type readReport struct {
	Registry    string `json:"registry"`
	Revision    int64  `json:"revision"`
	NotModified bool   `json:"not_modified,omitempty"`
	// Stale is set when the registry was unreachable and the last
	// resolution, Age old, was served instead (CacheTTL).
	Stale bool          `json:"stale,omitempty"`
	Age   time.Duration `json:"age,omitempty"`
	Cause string        `json:"cause,omitempty"`
}

// sourceKey names a set of sources of one registry: "*" for the whole
// registry, else the sorted toolset names.
func sourceKey(named []string) string {
	if len(named) == 0 {
		return "*"
	}
	return strings.Join(named, "\x00")
}

// resolve reads the sources once: a request conditional on the revision
// last read for them (unchanged: not modified, the same read reused).
// When the registry is unreachable and the client's CacheTTL covers the
// last read, that read is served and the report says so.
func (c *registryConn) resolve(ctx context.Context, named []string, closing <-chan struct{}) (*registry.Read, readReport, error) {
	read, notModified, err := c.reader.Read(ctx, named)
	if err != nil {
		if last := c.reader.Last(named); last != nil && c.settings.CacheTTL > 0 && unreachable(ctx, err) {
			if age := time.Since(last.At); age <= c.settings.CacheTTL {
				return last, readReport{Registry: c.name, Revision: last.Revision, Stale: true, Age: age, Cause: err.Error()}, nil
			}
		}
		return nil, readReport{}, err
	}
	c.startSync(sourceKey(named), named, closing)
	return read, readReport{Registry: c.name, Revision: read.Revision, NotModified: notModified}, nil
}

// startSync refreshes a set of sources in the background every
// SyncInterval, so the next step's read usually finds it current and the
// cache CacheTTL serves is recent. One loop per set; it ends when the
// runtime closes.
func (c *registryConn) startSync(key string, named []string, closing <-chan struct{}) {
	if c.settings.SyncInterval <= 0 {
		return
	}
	c.mu.Lock()
	if c.syncing[key] {
		c.mu.Unlock()
		return
	}
	c.syncing[key] = true
	c.mu.Unlock()
	named = slices.Clone(named)
	go func() {
		t := time.NewTicker(c.settings.SyncInterval)
		defer t.Stop()
		for {
			select {
			case <-closing:
				return
			case <-t.C:
			}
			ctx, cancel := context.WithTimeout(context.Background(), c.settings.SyncInterval)
			// A failed refresh leaves the last read in place; the next
			// step's own read reports the failure.
			_, _, _ = c.reader.Read(ctx, named)
			cancel()
		}
	}()
}

// unreachable reports whether err means the registry could not answer
// (transport failure, timeout, unavailable) rather than an answer such as
// unknown_toolset. The caller's own cancellation is neither.
func unreachable(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	switch registry.ErrorName(err) {
	case "", registry.ErrUnavailable, registry.ErrOverloaded:
		return !errors.Is(err, registry.ErrExcludedByFederation)
	}
	return false
}
