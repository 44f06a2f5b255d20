package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/quiver-go/quiver/runtime"
)

// ErrClosed is the error of every method of a store after its Close.
var ErrClosed = errors.New("redisstore: the store is closed: open another one")

// Store is [runtime.Store] on Redis: it is its own [runtime.SessionStore]
// and [runtime.SuspensionStore]. It keeps nothing in the process: every
// method is one command or one script, so Store values on the same
// prefix, in one process or many, see each other's writes at once.
type Store struct {
	c      redis.UniversalClient
	own    bool // the client is the store's, closed by Close
	prefix string
	closed atomic.Bool

	closeOnce sync.Once
	closeErr  error
}

// Compile-time checks of the interfaces Store implements.
var (
	_ runtime.Store           = (*Store)(nil)
	_ runtime.SessionStore    = (*Store)(nil)
	_ runtime.SuspensionStore = (*Store)(nil)
)

// layout is the version of the key layout this package reads and writes,
// kept under the prefix's "format" key (the records carry their own
// format, runtime.RecordFormat).
const layout = "1"

// recordFormat is runtime.RecordFormat as the "format" field of a record's
// hash: scripts compare it without decoding the record.
var recordFormat = strconv.Itoa(runtime.RecordFormat)

// Open opens the store at rawURL (redis://[user:password@]host:port/db, or
// rediss:// for TLS; see redis.ParseURL), or on the client of WithClient,
// and checks the layout under the prefix (a new prefix gets this build's).
// It fails when Redis does not answer.
func Open(ctx context.Context, rawURL string, opts ...Option) (*Store, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	s := &Store{c: cfg.client, prefix: cfg.prefix}
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
	if err := s.checkLayout(ctx, rawURL); err != nil {
		if s.own {
			s.c.Close()
		}
		return nil, err
	}
	return s, nil
}

// checkLayout sets the layout of a new prefix and checks an existing one.
func (s *Store) checkLayout(ctx context.Context, rawURL string) error {
	key := s.prefix + "format"
	if err := s.c.SetNX(ctx, key, layout, 0).Err(); err != nil {
		return fmt.Errorf("redisstore: open %s: %w", redact(rawURL), err)
	}
	got, err := s.c.Get(ctx, key).Result()
	if err != nil {
		return fmt.Errorf("redisstore: open %s: %w", redact(rawURL), err)
	}
	if got != layout {
		return fmt.Errorf("redisstore: open %s: prefix %q holds key layout %q, this build reads layout %s: open it with the release that wrote it, or use another prefix", redact(rawURL), s.prefix, got, layout)
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

// Sessions implements [runtime.Store]: the store itself.
func (s *Store) Sessions() runtime.SessionStore { return s }

// Suspensions implements [runtime.Store]: the store itself.
func (s *Store) Suspensions() runtime.SuspensionStore { return s }

// Close closes the store's own client (not one given with WithClient).
// Later calls fail with [ErrClosed]. Closing again returns what the first
// Close did.
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

// eval runs a script (what: the operation, for errors). The reply's first
// element is its status: "ok", or what went wrong.
func (s *Store) eval(ctx context.Context, what string, sc *redis.Script, readOnly bool, keys []string, args ...any) ([]any, error) {
	if err := s.usable(ctx); err != nil {
		return nil, err
	}
	run := sc.Run
	if readOnly {
		run = sc.RunRO
	}
	reply, err := run(ctx, s.c, keys, args...).Slice()
	if err != nil {
		return nil, s.failed(ctx, what, err)
	}
	if len(reply) == 0 {
		return nil, fmt.Errorf("redisstore: %s: empty reply from the script", what)
	}
	if _, ok := reply[0].(string); !ok {
		return nil, fmt.Errorf("redisstore: %s: reply status %v from the script", what, reply[0])
	}
	return reply, nil
}

// str is a reply element as a string ("" for a nil one).
func str(v any) string {
	s, _ := v.(string)
	return s
}

// nonce is a random id of one write, so that a script go-redis sends again
// (its connection broke before the reply) answers as its first run did.
func nonce() string {
	b := make([]byte, 16)
	rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}

// unknownFormat is the error of a record whose hash says another format.
func unknownFormat(what, got string) error {
	if got == "" {
		return fmt.Errorf("%w: stored %s has no format field: it was not written by this package", runtime.ErrUnknownRecordFormat, what)
	}
	return fmt.Errorf("%w: stored %s is in format %s; this release reads format %s: run the release that wrote it", runtime.ErrUnknownRecordFormat, what, got, recordFormat)
}
