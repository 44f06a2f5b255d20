package registry

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/contract"
)

// Reader reads a registry's catalog for one consumer — the runtime's
// planning steps and the MCP server (mcp.Registry) both read through one:
// each read is conditional on the revision last read for the same set of
// toolsets (unchanged: the same read again, for the price of one 304);
// each toolset's declaration is checked against the fingerprint the
// registry lists, then compiled once per registration (fingerprint,
// revision and token); [Reader.WaitChange] follows the change feed. A Reader is
// safe for concurrent use.
type Reader struct {
	name   string
	client *Client

	mu       sync.Mutex
	reads    map[string]*Read
	compiled map[string]*CompiledToolset // by toolset name
}

// NewReader returns a reader of the registry client reaches; name is what
// its errors call the registry.
func NewReader(name string, client *Client) *Reader {
	return &Reader{name: name, client: client, reads: map[string]*Read{}, compiled: map[string]*CompiledToolset{}}
}

// Client is the registry client the reader reads with.
func (r *Reader) Client() *Client { return r.client }

// Read is one consistent read of a set of toolsets. It is immutable.
type Read struct {
	// Revision is the catalog revision read.
	Revision int64
	// Toolsets are the toolsets read, compiled, sorted by name.
	Toolsets []*CompiledToolset
	// At is when the registry last answered for this set (a 304
	// included).
	At time.Time
}

// CompiledToolset is a resolved toolset compiled into specs. It is
// immutable and shared by every read of the same registration.
type CompiledToolset struct {
	// Resolved is the registry's answer for the toolset.
	Resolved ResolvedToolset
	// Specs are its tools' compiled contracts.
	Specs []tools.ToolSpec
	// Declarations are the tools' declarations as compiled (toolset and
	// tags inherited), by bare tool name: what a saved contract keeps.
	Declarations map[string]contract.ToolDeclaration
}

// setKey names a set of toolsets: "*" for the whole registry, else the
// sorted names.
func setKey(named []string) string {
	if len(named) == 0 {
		return "*"
	}
	sorted := slices.Clone(named)
	slices.Sort(sorted)
	return strings.Join(sorted, "\x00")
}

// Last returns the last read of the named toolsets (all of them when
// named is empty), or nil.
func (r *Reader) Last(named []string) *Read {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reads[setKey(named)]
}

// Read reads the named toolsets (all of them when named is empty) with one
// request conditional on the last read of the same set, and reports
// whether the registry answered not modified. A toolset whose declaration
// does not hash to the fingerprint the registry lists fails the read: the
// registry's answer is inconsistent, and nothing of it is served.
func (r *Reader) Read(ctx context.Context, named []string) (*Read, bool, error) {
	key := setKey(named)
	last := r.Last(named)
	req := ResolveRequest{Toolsets: named}
	if last != nil {
		req.Known = last.Revision
	}
	res, err := r.client.Resolve(ctx, req)
	if err != nil {
		return nil, false, err
	}
	now := time.Now()
	if res.NotModified && last != nil {
		fresh := &Read{Revision: last.Revision, Toolsets: last.Toolsets, At: now}
		r.keep(key, fresh)
		return fresh, true, nil
	}
	read := &Read{Revision: res.Revision, At: now, Toolsets: make([]*CompiledToolset, 0, len(res.Toolsets))}
	for _, ts := range res.Toolsets {
		compiled, err := r.compile(ts)
		if err != nil {
			return nil, false, err
		}
		read.Toolsets = append(read.Toolsets, compiled)
	}
	r.keep(key, read)
	return read, false, nil
}

// keep records read as the set's last unless a newer one is there.
func (r *Reader) keep(key string, read *Read) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if cur := r.reads[key]; cur == nil || cur.Revision <= read.Revision {
		r.reads[key] = read
	}
}

// compile returns the compiled form of a resolved toolset, reusing the
// last compilation of the same registration.
func (r *Reader) compile(ts ResolvedToolset) (*CompiledToolset, error) {
	r.mu.Lock()
	prev := r.compiled[ts.Name]
	r.mu.Unlock()
	if prev != nil && prev.Resolved.Fingerprint == ts.Fingerprint && prev.Resolved.Revision == ts.Revision && prev.Resolved.Token == ts.Token {
		return prev, nil
	}
	fp, err := contract.Fingerprint(ts.Declaration)
	if err != nil {
		return nil, fmt.Errorf("registry %q: toolset %q: %w", r.name, ts.Name, err)
	}
	if fp != ts.Fingerprint {
		return nil, &InconsistentError{Registry: r.name, Toolset: ts.Name, Computed: fp, Listed: ts.Fingerprint}
	}
	decl := ts.Declaration
	decl.Name = ts.Name
	specs, err := contract.CompileToolset(decl)
	if err != nil {
		return nil, fmt.Errorf("registry %q: %w", r.name, err)
	}
	out := &CompiledToolset{Resolved: ts, Specs: specs, Declarations: make(map[string]contract.ToolDeclaration, len(decl.Tools))}
	for _, d := range decl.Tools {
		if d.Toolset == "" {
			d.Toolset = decl.Name
		}
		d.Tags = tools.InheritTags(decl.Tags, d.Tags)
		out.Declarations[d.Name] = d
	}
	r.mu.Lock()
	r.compiled[ts.Name] = out
	r.mu.Unlock()
	return out, nil
}

// InconsistentError is a registry's answer listing a toolset whose
// declaration does not hash to the fingerprint it lists beside it. The
// registry refuses such a registration itself, so the answer was altered
// on its way or the registry is broken: nothing of it is served, by the
// runtime or by the MCP server.
type InconsistentError struct {
	// Registry is the reader's name for the registry.
	Registry string
	// Toolset is the toolset listed.
	Toolset string
	// Computed is [contract.Fingerprint] of the declaration received.
	Computed string
	// Listed is the fingerprint the registry listed.
	Listed string
}

// Error says what does not match.
func (e *InconsistentError) Error() string {
	return fmt.Sprintf("registry %q: toolset %q: its declaration hashes to %s but the registry lists fingerprint %s: the registry's answer is inconsistent", e.Registry, e.Toolset, e.Computed, e.Listed)
}

// WaitChange returns once the registry's catalog is past revision (or
// reset), following the change feed; a failed poll is retried after
// retry. It returns ctx's error when ctx ends first.
func (r *Reader) WaitChange(ctx context.Context, revision int64, retry time.Duration) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		res, err := r.client.Changes(ctx, &gen.ChangesPayload{After: revision, WaitMs: 30000})
		if err != nil {
			select {
			case <-time.After(retry):
			case <-ctx.Done():
			}
			continue
		}
		if res.Revision > revision || res.Reset {
			return nil
		}
	}
}
