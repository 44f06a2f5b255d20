package boltstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/quiver-go/quiver/registry/store"
)

// Errors of the embedded store itself.
var (
	// ErrClosed: the store was closed.
	ErrClosed = errors.New("boltstore: store closed")
	// ErrInUse: another process holds the data file's lock.
	ErrInUse = errors.New("boltstore: data folder in use by another process")
)

// Store is the embedded [store.Store]: one bbolt file, writes group
// committed by one goroutine.
type Store struct {
	db        *bbolt.DB
	cfg       config
	ops       chan *op
	closeOnce sync.Once
	// closing is closed by Close; stopped when the committer has returned.
	closing  chan struct{}
	stopped  chan struct{}
	closeErr error
	// update runs a write transaction: db.Update, replaced by tests that
	// make a commit fail.
	update func(func(*bbolt.Tx) error) error
	// commits and committed count transactions and the writes in them, for
	// the benchmark's writes-per-sync figure.
	commits, committed atomic.Uint64
}

var _ store.Store = (*Store)(nil)

// Open opens or creates the store file at path. A file another process has
// open fails with [ErrInUse] after the open timeout.
func Open(path string, opts ...Option) (*Store, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{
		Timeout:      cfg.openTimeout,
		FreelistType: bbolt.FreelistMapType,
		// The free-page list is rebuilt from the data when the file is
		// opened instead of being written at every commit: fewer pages per
		// commit, and no durability lost (the data pages and meta page are
		// still synced before a commit returns).
		NoFreelistSync: true,
	})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("%w: %s is locked (waited %v): stop the other registry or use another data folder", ErrInUse, path, cfg.openTimeout)
	}
	if err != nil {
		return nil, fmt.Errorf("boltstore: open %s: %w", path, err)
	}
	if err := db.Update(initLayout); err != nil {
		db.Close()
		return nil, fmt.Errorf("boltstore: open %s: %w", path, err)
	}
	s := &Store{
		db:      db,
		cfg:     cfg,
		ops:     make(chan *op),
		closing: make(chan struct{}),
		stopped: make(chan struct{}),
		update:  db.Update,
	}
	go s.commitLoop()
	return s, nil
}

// Close stops the committer, then closes the file. Operations waiting to
// be committed fail with [ErrClosed]; later calls too. Closing again
// returns what the first Close did.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		close(s.closing)
		<-s.stopped
		if err := s.db.Close(); err != nil {
			s.closeErr = fmt.Errorf("boltstore: close: %w", err)
		}
	})
	return s.closeErr
}

// now reads the clock without its monotonic reading, in UTC, so a time
// reads back from the file as it was written.
func (s *Store) now() time.Time {
	return s.cfg.clock().Round(0).UTC()
}

// read runs fn in a read-only transaction.
func (s *Store) read(ctx context.Context, fn func(tx *bbolt.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case <-s.closing:
		return ErrClosed
	default:
	}
	err := s.db.View(fn)
	if errors.Is(err, bolterrors.ErrDatabaseNotOpen) {
		return ErrClosed
	}
	return err
}
