package boltstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync"

	"go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/quiver-go/quiver/runtime"
)

// FileName is the runtime's store file in a data folder; the registry's
// embedded store keeps registry.db beside it (see the package doc for why
// they are two files).
const FileName = "runs.db"

// Errors of the store itself.
var (
	// ErrInUse is wrapped by the error of Open when another process (or
	// another Open in this one) holds the file's lock.
	ErrInUse = errors.New("boltstore: runtime store file in use")
	// ErrClosed is wrapped by the error of any call after Close.
	ErrClosed = errors.New("boltstore: store closed")
)

// Store is the embedded durable [runtime.Store]: it is its own
// [runtime.SessionStore] and [runtime.SuspensionStore], and its
// [Store.RunLog] keeps the run log in the same file. It is safe for
// concurrent use.
type Store struct {
	db        *bbolt.DB
	path      string
	closeOnce sync.Once
	closeErr  error
	// done is closed by Close: waiters on the run log watch it.
	done chan struct{}
	// mu guards changed, which is closed, and replaced, after every
	// append that wrote an event: waiters on the run log watch it.
	mu      sync.Mutex
	changed chan struct{}
}

// Compile-time checks of the interfaces Store implements.
var (
	_ runtime.Store           = (*Store)(nil)
	_ runtime.SessionStore    = (*Store)(nil)
	_ runtime.SuspensionStore = (*Store)(nil)
	_ runtime.RunLog          = runLog{}
)

// Open opens or creates the store file at path (conventionally
// filepath.Join(dataDir, FileName)). A file another process holds fails,
// wrapping [ErrInUse], after the open timeout ([WithOpenTimeout]).
func Open(path string, opts ...Option) (*Store, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: cfg.openTimeout})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("%w: %s is locked by another process (waited %v): stop that process, or give this one another data folder", ErrInUse, path, cfg.openTimeout)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("boltstore: open %s: %w: create the folder %s first, or give a folder that exists", path, err, filepath.Dir(path))
	}
	if err != nil {
		return nil, fmt.Errorf("boltstore: open %s: %w", path, err)
	}
	if err := db.Update(initLayout); err != nil {
		db.Close()
		return nil, fmt.Errorf("boltstore: open %s: %w", path, err)
	}
	return &Store{db: db, path: path, done: make(chan struct{}), changed: make(chan struct{})}, nil
}

// Close closes the file, after the transactions in progress end; later
// calls fail wrapping [ErrClosed], and so do the run log's Waits in
// progress. Closing again returns what the first Close did.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		close(s.done)
		if err := s.db.Close(); err != nil {
			s.closeErr = fmt.Errorf("boltstore: close %s: %w", s.path, err)
		}
	})
	return s.closeErr
}

// Sessions implements [runtime.Store].
func (s *Store) Sessions() runtime.SessionStore { return s }

// Suspensions implements [runtime.Store].
func (s *Store) Suspensions() runtime.SuspensionStore { return s }

// view runs fn in a read-only transaction.
func (s *Store) view(ctx context.Context, fn func(*bbolt.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("boltstore: %w", err)
	}
	return s.closed(s.db.View(fn))
}

// update runs fn in a write transaction, committed (and synced) when fn
// returns nil.
func (s *Store) update(ctx context.Context, fn func(*bbolt.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("boltstore: %w", err)
	}
	return s.closed(s.db.Update(fn))
}

// closed turns bbolt's error for a closed file into ErrClosed.
func (s *Store) closed(err error) error {
	if errors.Is(err, bolterrors.ErrDatabaseNotOpen) {
		return fmt.Errorf("%w: %s was closed; open it again", ErrClosed, s.path)
	}
	return err
}
