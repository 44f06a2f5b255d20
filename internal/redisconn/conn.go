package redisconn

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// NewClient returns a client of rawURL (ClientOptions).
func NewClient(rawURL string) (*redis.Client, error) {
	o, err := ClientOptions(rawURL)
	if err != nil {
		return nil, err
	}
	return redis.NewClient(o), nil
}

// ClientOptions returns the client options of rawURL
// (redis://[user:password@]host:port/db, or rediss:// for TLS; see
// redis.ParseURL), for a caller that tunes them before making its client.
// Its error names the URL without its password.
func ClientOptions(rawURL string) (*redis.Options, error) {
	o, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Redact(rawURL), err)
	}
	if o.MaintNotificationsConfig == nil {
		// Cluster maintenance notices are for Redis Enterprise; servers
		// that do not know them would refuse the command at every
		// connection.
		o.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	}
	return o, nil
}

// Config says how Open opens a store's connection.
type Config struct {
	// Package prefixes every error ("redisstore").
	Package string
	// ErrClosed is the error of a call after Close.
	ErrClosed error
	// URL is the server's, used when Client is nil.
	URL string
	// Client, when set, is used as it is and left open by Close.
	Client redis.UniversalClient
	// Prefix is the store's key prefix; Layout the version of its key
	// layout, kept under Prefix+"format" (set on a new prefix, checked on
	// an existing one); LayoutAdvice ends the refusal of another layout.
	Prefix, Layout, LayoutAdvice string
}

// Conn is a store's Redis connection.
type Conn struct {
	// C is the client.
	C   redis.UniversalClient
	cfg Config
	own bool

	closed    atomic.Bool
	closeOnce sync.Once
	closeErr  error
}

// Open returns the connection cfg describes after checking the layout
// under its prefix. It fails when Redis does not answer.
func Open(ctx context.Context, cfg Config) (*Conn, error) {
	c := &Conn{C: cfg.Client, cfg: cfg}
	if c.C == nil {
		client, err := NewClient(cfg.URL)
		if err != nil {
			return nil, fmt.Errorf("%s: open %w", cfg.Package, err)
		}
		c.C, c.own = client, true
	}
	if err := c.checkLayout(ctx); err != nil {
		if c.own {
			c.C.Close()
		}
		return nil, err
	}
	return c, nil
}

// checkLayout sets the layout of a new prefix and checks an existing one.
func (c *Conn) checkLayout(ctx context.Context) error {
	key := c.cfg.Prefix + "format"
	where := Redact(c.cfg.URL)
	if err := c.C.SetNX(ctx, key, c.cfg.Layout, 0).Err(); err != nil {
		return fmt.Errorf("%s: open %s: %w", c.cfg.Package, where, err)
	}
	got, err := c.C.Get(ctx, key).Result()
	if err != nil {
		return fmt.Errorf("%s: open %s: %w", c.cfg.Package, where, err)
	}
	if got != c.cfg.Layout {
		return fmt.Errorf("%s: open %s: prefix %q holds key layout %q, this build reads layout %s%s", c.cfg.Package, where, c.cfg.Prefix, got, c.cfg.Layout, c.cfg.LayoutAdvice)
	}
	return nil
}

// Close closes the client Open made (not one given in Config.Client).
// Later calls fail with Config.ErrClosed; calls under way finish or fail
// with it. Closing again returns what the first Close did.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() {
		c.closed.Store(true)
		if c.own {
			if err := c.C.Close(); err != nil {
				c.closeErr = fmt.Errorf("%s: close: %w", c.cfg.Package, err)
			}
		}
	})
	return c.closeErr
}

// Usable fails when the connection is closed or ctx is done.
func (c *Conn) Usable(ctx context.Context) error {
	if c.closed.Load() {
		return c.cfg.ErrClosed
	}
	return ctx.Err()
}

// Failed wraps the error of a command (what: the operation): ErrClosed
// when the connection was closed meanwhile, the context's error as it is.
func (c *Conn) Failed(ctx context.Context, what string, err error) error {
	switch {
	case c.closed.Load():
		return c.cfg.ErrClosed
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		return err
	}
	return fmt.Errorf("%s: %s: %w", c.cfg.Package, what, err)
}

// Eval runs a script (what: the operation, for errors). The reply's first
// element is its status: "ok", or what the operation maps to an error.
func (c *Conn) Eval(ctx context.Context, what string, sc *redis.Script, readOnly bool, keys []string, args ...any) ([]any, error) {
	if err := c.Usable(ctx); err != nil {
		return nil, err
	}
	run := sc.Run
	if readOnly {
		run = sc.RunRO
	}
	reply, err := run(ctx, c.C, keys, args...).Slice()
	if err != nil {
		return nil, c.Failed(ctx, what, err)
	}
	if len(reply) == 0 {
		return nil, fmt.Errorf("%s: %s: empty reply from the script", c.cfg.Package, what)
	}
	if _, ok := reply[0].(string); !ok {
		return nil, fmt.Errorf("%s: %s: reply status %v from the script", c.cfg.Package, what, reply[0])
	}
	return reply, nil
}

// Redact hides the password of a URL.
func Redact(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

// Str is a reply element as a string ("" for a nil one).
func Str(v any) string {
	s, _ := v.(string)
	return s
}

// Nonce is a random id of one write, so that a script go-redis sends
// again (its connection broke before the reply) answers as its first run
// did.
func Nonce() string {
	b := make([]byte, 16)
	rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}
