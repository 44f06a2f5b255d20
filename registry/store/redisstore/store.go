package redisstore

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/quiver-go/quiver/registry/store"
)

// ErrClosed: the store was closed.
var ErrClosed = errors.New("redisstore: store closed")

// Store is [store.Store] on Redis. It keeps nothing in the process: every
// method is one script or one MULTI transaction, so Store values on the
// same prefix, in one process or many, see each other's writes at once.
type Store struct {
	c      redis.UniversalClient
	own    bool // the client is the store's, closed by Close
	cfg    config
	keys   []string // the fixed keys, in the order lua/common.lua reads KEYS
	closed atomic.Bool

	closeOnce sync.Once
	closeErr  error
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
	s := &Store{c: cfg.client, cfg: cfg}
	if s.c == nil {
		o, err := redis.ParseURL(rawURL)
		if err != nil {
			return nil, fmt.Errorf("redisstore: open %s: %w", redact(rawURL), err)
		}
		if o.MaintNotificationsConfig == nil {
			// Cluster maintenance notices are for Redis Enterprise; servers
			// that do not know them would refuse the command at every
			// connection.
			o.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
		}
		s.c, s.own = redis.NewClient(o), true
	}
	p := cfg.prefix
	// In the order of the key* constants, which lua/common.lua unpacks.
	s.keys = []string{p + "rev", p + "changes", p + "active", p + "tokens", p + "pending",
		p + "pending_tokens", p + "leases", p + "unsettled", p + "settled"}
	if err := s.checkFormat(ctx, rawURL); err != nil {
		if s.own {
			s.c.Close()
		}
		return nil, err
	}
	return s, nil
}

// checkFormat sets the format of a new prefix and checks an existing one.
func (s *Store) checkFormat(ctx context.Context, rawURL string) error {
	key := s.cfg.prefix + "format"
	if err := s.c.SetNX(ctx, key, format, 0).Err(); err != nil {
		return fmt.Errorf("redisstore: open %s: %w", redact(rawURL), err)
	}
	got, err := s.c.Get(ctx, key).Result()
	if err != nil {
		return fmt.Errorf("redisstore: open %s: %w", redact(rawURL), err)
	}
	if got != format {
		return fmt.Errorf("redisstore: open %s: prefix %q holds data format %q, this build reads format %s", redact(rawURL), s.cfg.prefix, got, format)
	}
	return nil
}

// redact hides the password of a URL.
func redact(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

// Close closes the store's own client (not one given with WithClient).
// Later calls fail with [ErrClosed]; calls under way finish or fail with
// it. Closing again returns what the first Close did.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.closed.Store(true)
		if s.own {
			if err := s.c.Close(); err != nil {
				s.closeErr = fmt.Errorf("redisstore: close: %w", err)
			}
		}
	})
	return s.closeErr
}

// usable fails when the store is closed or ctx is done.
func (s *Store) usable(ctx context.Context) error {
	if s.closed.Load() {
		return ErrClosed
	}
	return ctx.Err()
}

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
	if err := s.usable(ctx); err != nil {
		return nil, err
	}
	now, err := s.nowArg()
	if err != nil {
		return nil, fmt.Errorf("redisstore: %s: the clock: %w", what, err)
	}
	argv := append(make([]any, 0, 3+len(args)), s.cfg.prefix, now, s.cfg.changeLogLimit)
	argv = append(argv, args...)
	run := sc.Run
	if readOnly {
		run = sc.RunRO
	}
	reply, err := run(ctx, s.c, s.keys, argv...).Slice()
	if err != nil {
		return nil, s.failed(ctx, what, err)
	}
	if len(reply) == 0 {
		return nil, fmt.Errorf("redisstore: %s: empty reply", what)
	}
	if _, ok := reply[0].(string); !ok {
		return nil, fmt.Errorf("redisstore: %s: reply status %v", what, reply[0])
	}
	return reply, nil
}

// failed wraps the error of a command: ErrClosed when the store was closed
// meanwhile, the context's error as it is.
func (s *Store) failed(ctx context.Context, what string, err error) error {
	switch {
	case s.closed.Load():
		return ErrClosed
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		return err
	}
	return fmt.Errorf("redisstore: %s: %w", what, err)
}
