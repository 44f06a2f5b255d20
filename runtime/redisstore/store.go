package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/quiver-go/quiver/internal/redisconn"
	"github.com/quiver-go/quiver/runtime"
)

// ErrClosed is the error of every method of a store after its Close.
var ErrClosed = errors.New("redisstore: the store is closed: open another one")

// Store is [runtime.Store] on Redis: it is its own [runtime.SessionStore]
// and [runtime.SuspensionStore], and [Store.RunLog] is its run log. It
// keeps nothing in the process: every method is one command or one script
// (the run log's Wait repeats its XREAD), so Store values on the same
// prefix, in one process or many, see each other's writes at once.
type Store struct {
	conn   *redisconn.Conn
	prefix string
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
	conn, err := redisconn.Open(ctx, redisconn.Config{
		Package: "redisstore", ErrClosed: ErrClosed, URL: rawURL, Client: cfg.client,
		Prefix: cfg.prefix, Layout: layout, LayoutAdvice: ": open it with the release that wrote it, or use another prefix",
	})
	if err != nil {
		return nil, err
	}
	return &Store{conn: conn, prefix: cfg.prefix}, nil
}

// Sessions implements [runtime.Store]: the store itself.
func (s *Store) Sessions() runtime.SessionStore { return s }

// Suspensions implements [runtime.Store]: the store itself.
func (s *Store) Suspensions() runtime.SuspensionStore { return s }

// Close closes the store's own client (not one given with WithClient).
// Later calls fail with [ErrClosed]. Closing again returns what the first
// Close did.
func (s *Store) Close() error { return s.conn.Close() }

// unknownFormat is the error of a record whose hash says another format.
func unknownFormat(what, got string) error {
	if got == "" {
		return fmt.Errorf("%w: stored %s has no format field: it was not written by this package", runtime.ErrUnknownRecordFormat, what)
	}
	return fmt.Errorf("%w: stored %s is in format %s; this release reads format %s: run the release that wrote it", runtime.ErrUnknownRecordFormat, what, got, recordFormat)
}
