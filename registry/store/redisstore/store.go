package redisstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/quiver-go/quiver/internal/redisconn"
	"github.com/quiver-go/quiver/registry/store"
)

// ErrClosed: the store was closed.
var ErrClosed = errors.New("redisstore: store closed")

// Store is [store.Store] on Redis. It keeps nothing in the process: every
// method is one script or one MULTI transaction, so Store values on the
// same prefix, in one process or many, see each other's writes at once.
type Store struct {
	conn *redisconn.Conn
	cfg  config
	keys []string // the fixed keys, in the order lua/common.lua reads KEYS
}

var _ store.Store = (*Store)(nil)

// format is the layout version this package reads and writes, kept under
// the prefix's "format" key.
const format = "1"

// Open opens the store at url (redis://[user:password@]host:port/db, or
// rediss:// for TLS; see redis.ParseURL), or on the client of WithClient,
// and checks the data format under the prefix (a new prefix gets this
// build's). It fails when Redis does not answer.
func Open(ctx context.Context, rawURL string, opts ...Option) (*Store, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	conn, err := redisconn.Open(ctx, redisconn.Config{
		Package: "redisstore", ErrClosed: ErrClosed, URL: rawURL, Client: cfg.client,
		Prefix: cfg.prefix, Layout: format, LayoutAdvice: ": open it with the release that wrote it, or use another prefix",
	})
	if err != nil {
		return nil, err
	}
	p := cfg.prefix
	// In the order of the key* constants, which lua/common.lua unpacks.
	keys := []string{p + "rev", p + "changes", p + "active", p + "tokens", p + "pending",
		p + "pending_tokens", p + "leases", p + "unsettled", p + "settled"}
	return &Store{conn: conn, cfg: cfg, keys: keys}, nil
}

// Close closes the store's own client (not one given with WithClient).
// Later calls fail with [ErrClosed]; calls under way finish or fail with
// it. Closing again returns what the first Close did.
func (s *Store) Close() error { return s.conn.Close() }

// nowArg is the store's clock for a script: "" reads the server's TIME.
func (s *Store) nowArg() (string, error) {
	if s.cfg.clock == nil {
		return "", nil
	}
	return timeKey(s.cfg.clock())
}

// eval runs a script (what: the operation, for errors) with the layout's
// keys and the common arguments before args. The reply's first element is
// its status: "ok", or the error the operation maps to a sentinel.
func (s *Store) eval(ctx context.Context, what string, sc *redis.Script, readOnly bool, args ...any) ([]any, error) {
	now, err := s.nowArg()
	if err != nil {
		return nil, fmt.Errorf("redisstore: %s: the clock: %w", what, err)
	}
	argv := append(make([]any, 0, 3+len(args)), s.cfg.prefix, now, s.cfg.changeLogLimit)
	argv = append(argv, args...)
	return s.conn.Eval(ctx, what, sc, readOnly, s.keys, argv...)
}
