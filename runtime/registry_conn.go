package runtime

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/quiver-go/quiver/registry"
	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/contract"
)

// registryConn is a connected registry: its client and what the runtime
// last read from it, per set of sources (the whole registry, or a sorted
// list of named toolsets).
type registryConn struct {
	name     string
	client   *registry.Client
	settings registry.ConsumerSettings

	mu       sync.Mutex
	reads    map[string]*registryRead
	compiled map[string]*registryToolset // by toolset name; replaced when its fingerprint changes
	syncing  map[string]bool
}

func newRegistryConn(name string, client *registry.Client) *registryConn {
	return &registryConn{
		name:     name,
		client:   client,
		settings: client.Consumer(),
		reads:    make(map[string]*registryRead),
		compiled: make(map[string]*registryToolset),
		syncing:  make(map[string]bool),
	}
}

// registryRead is one consistent read of a set of sources.
type registryRead struct {
	revision int64
	toolsets []*registryToolset // sorted by name
	// at is when the registry last answered for this set (a 304 included).
	at time.Time
}

// registryToolset is a resolved toolset compiled into specs. It is
// immutable once built.
type registryToolset struct {
	resolved registry.ResolvedToolset
	specs    []tools.ToolSpec
	// decls are the tools' declarations as compiled (toolset and tags
	// inherited), by bare name: what a saved contract keeps.
	decls map[string]contract.ToolDeclaration
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
func (c *registryConn) resolve(ctx context.Context, named []string, closing <-chan struct{}) (*registryRead, readReport, error) {
	key := sourceKey(named)
	c.mu.Lock()
	last := c.reads[key]
	c.mu.Unlock()
	read, notModified, err := c.read(ctx, named, last)
	if err != nil {
		if last != nil && c.settings.CacheTTL > 0 && unreachable(ctx, err) {
			if age := time.Since(last.at); age <= c.settings.CacheTTL {
				return last, readReport{Registry: c.name, Revision: last.revision, Stale: true, Age: age, Cause: err.Error()}, nil
			}
		}
		return nil, readReport{}, err
	}
	c.startSync(key, named, closing)
	return read, readReport{Registry: c.name, Revision: read.revision, NotModified: notModified}, nil
}

// read performs one conditional read and records it.
func (c *registryConn) read(ctx context.Context, named []string, last *registryRead) (*registryRead, bool, error) {
	req := registry.ResolveRequest{Toolsets: named}
	if last != nil {
		req.Known = last.revision
	}
	res, err := c.client.Resolve(ctx, req)
	if err != nil {
		return nil, false, err
	}
	now := time.Now()
	key := sourceKey(named)
	if res.NotModified && last != nil {
		c.mu.Lock()
		defer c.mu.Unlock()
		fresh := &registryRead{revision: last.revision, toolsets: last.toolsets, at: now}
		if cur := c.reads[key]; cur == nil || cur.revision <= fresh.revision {
			c.reads[key] = fresh
		}
		return fresh, true, nil
	}
	read := &registryRead{revision: res.Revision, at: now, toolsets: make([]*registryToolset, 0, len(res.Toolsets))}
	for _, ts := range res.Toolsets {
		compiled, err := c.compile(ts)
		if err != nil {
			return nil, false, err
		}
		read.toolsets = append(read.toolsets, compiled)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if cur := c.reads[key]; cur == nil || cur.revision <= read.revision {
		c.reads[key] = read
	}
	return read, false, nil
}

// compile returns the compiled form of a resolved toolset, reusing the
// last compilation of the same registration.
func (c *registryConn) compile(ts registry.ResolvedToolset) (*registryToolset, error) {
	c.mu.Lock()
	prev := c.compiled[ts.Name]
	c.mu.Unlock()
	if prev != nil && prev.resolved.Fingerprint == ts.Fingerprint && prev.resolved.Revision == ts.Revision && prev.resolved.Token == ts.Token {
		return prev, nil
	}
	fp, err := contract.Fingerprint(ts.Declaration)
	if err != nil {
		return nil, fmt.Errorf("registry %q: toolset %q: %w", c.name, ts.Name, err)
	}
	if fp != ts.Fingerprint {
		return nil, fmt.Errorf("registry %q: toolset %q: its declaration hashes to %s but the registry lists fingerprint %s: the registry's answer is inconsistent", c.name, ts.Name, fp, ts.Fingerprint)
	}
	decl := ts.Declaration
	decl.Name = ts.Name
	specs, err := contract.CompileToolset(decl)
	if err != nil {
		return nil, fmt.Errorf("registry %q: %w", c.name, err)
	}
	out := &registryToolset{resolved: ts, specs: specs, decls: make(map[string]contract.ToolDeclaration, len(decl.Tools))}
	for _, d := range decl.Tools {
		if d.Toolset == "" {
			d.Toolset = decl.Name
		}
		d.Tags = tools.InheritTags(decl.Tags, d.Tags)
		out.decls[d.Name] = d
	}
	c.mu.Lock()
	c.compiled[ts.Name] = out
	c.mu.Unlock()
	return out, nil
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
			c.mu.Lock()
			last := c.reads[key]
			c.mu.Unlock()
			ctx, cancel := context.WithTimeout(context.Background(), c.settings.SyncInterval)
			// A failed refresh leaves the last read in place; the next
			// step's own read reports the failure.
			_, _, _ = c.read(ctx, named, last)
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
