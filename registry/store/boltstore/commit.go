package boltstore

import (
	"context"
	"errors"
	"fmt"

	"go.etcd.io/bbolt"
)

// maxBatch caps how many operations share one transaction.
const maxBatch = 256

// op is one write operation handed to the committer. apply checks every
// precondition before it writes anything: an operation that fails leaves
// the shared transaction as it found it.
type op struct {
	ctx   context.Context
	apply func(t *txn) error
	done  chan error
}

// errTainted rolls back a batch in which an operation failed after
// writing.
var errTainted = errors.New("boltstore: an operation failed after writing")

// write hands apply to the committer and waits until its transaction is
// durable. Once the committer has taken the operation the caller waits for
// its outcome whatever ctx does: the write may be on disk already.
func (s *Store) write(ctx context.Context, apply func(t *txn) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	o := &op{ctx: ctx, apply: apply, done: make(chan error, 1)}
	select {
	case s.ops <- o:
	case <-s.closing:
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	return <-o.done
}

// commitLoop is the committer: it takes one operation, drains the ones
// already waiting without waiting for more, and commits them in one
// transaction, one sync for all.
func (s *Store) commitLoop() {
	defer close(s.stopped)
	batch := make([]*op, 0, maxBatch)
	for {
		select {
		case <-s.closing:
			return
		case o := <-s.ops:
			batch = append(batch[:0], o)
		}
	drain:
		for len(batch) < maxBatch {
			select {
			case o := <-s.ops:
				batch = append(batch, o)
			default:
				break drain
			}
		}
		s.commit(batch)
		clear(batch)
	}
}

// commit applies batch in one transaction and answers every operation. An
// operation that failed before writing fails alone. One that failed after
// writing (a write error) would leave the transaction half done: the batch
// is rolled back and each operation runs again in a transaction of its
// own, which nothing was answered from yet.
func (s *Store) commit(batch []*op) {
	errs := make([]error, len(batch))
	err := s.update(func(tx *bbolt.Tx) error {
		for i, o := range batch {
			wrote, err := s.run(tx, o)
			errs[i] = err
			if err != nil && wrote {
				return errTainted
			}
		}
		return nil
	})
	switch {
	case errors.Is(err, errTainted):
		for _, o := range batch {
			o.done <- s.commitOne(o)
		}
	case err != nil:
		err = fmt.Errorf("boltstore: commit: %w", err)
		for _, o := range batch {
			o.done <- err
		}
	default:
		s.commits.Add(1)
		s.committed.Add(uint64(len(batch)))
		for i, o := range batch {
			o.done <- errs[i]
		}
	}
}

// commitOne applies o in a transaction of its own.
func (s *Store) commitOne(o *op) error {
	var opErr error
	err := s.update(func(tx *bbolt.Tx) error {
		_, opErr = s.run(tx, o)
		return opErr
	})
	if opErr != nil {
		return opErr
	}
	if err != nil {
		return fmt.Errorf("boltstore: commit: %w", err)
	}
	return nil
}

// run applies o in tx, skipping it when its caller gave up already, and
// reports whether it wrote.
func (s *Store) run(tx *bbolt.Tx, o *op) (wrote bool, err error) {
	if err := o.ctx.Err(); err != nil {
		return false, err
	}
	t := &txn{tx: tx, now: s.now(), changeLogLimit: s.cfg.changeLogLimit}
	err = o.apply(t)
	return t.wrote, err
}
