package boltstore

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quiver-go/quiver/registry/store"
)

// batchFixture is a store with one toolset and one lease, and operations
// to commit as one batch, bypassing the committer's timing.
type batchFixture struct {
	t     *testing.T
	s     *Store
	lease string
}

func newBatchFixture(t *testing.T) *batchFixture {
	s, err := Open(filepath.Join(t.TempDir(), "registry.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	r := store.Registration{Toolset: "weather", Revision: "1", Fingerprint: "fp", Token: "tok"}
	reg, err := s.Register(t.Context(), store.RegisterInput{Registration: r, MaxInFlight: 1, TTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return &batchFixture{t: t, s: s, lease: reg.Lease.ID}
}

func (f *batchFixture) op(apply func(t *txn) error) *op {
	return &op{ctx: f.t.Context(), apply: apply, done: make(chan error, 1)}
}

func (f *batchFixture) accept(id, token string) *op {
	return f.op(func(t *txn) error {
		_, _, err := t.accept(store.Call{ID: id, Toolset: "weather", Token: token}, f.lease)
		return err
	})
}

// commit commits ops as one batch and returns their answers.
func (f *batchFixture) commit(ops ...*op) []error {
	f.s.commit(ops)
	errs := make([]error, len(ops))
	for i, o := range ops {
		errs[i] = <-o.done
	}
	return errs
}

func (f *batchFixture) wantCall(id string, state store.CallState) {
	f.t.Helper()
	c, err := f.s.GetCall(f.t.Context(), id)
	if state == "" {
		if !errors.Is(err, store.ErrUnknownCall) {
			f.t.Fatalf("GetCall(%s) = %+v, %v; want no record", id, c, err)
		}
		return
	}
	if err != nil || c.State != state {
		f.t.Fatalf("GetCall(%s) = %s, %v; want %s", id, c.State, err, state)
	}
}

// A write refused on its preconditions fails alone; the others of its
// batch commit in one transaction, each seeing the writes before it.
func TestBatchRefusedWriteFailsAlone(t *testing.T) {
	f := newBatchFixture(t)
	canceled, cancel := context.WithCancel(t.Context())
	cancel()
	skipped := f.accept("c5", "tok")
	skipped.ctx = canceled
	acceptC4 := f.op(func(t *txn) error {
		_, _, err := t.accept(store.Call{ID: "c4", Toolset: "weather", Token: "tok"}, "")
		return err
	})
	publishC4 := f.op(func(t *txn) error {
		c, _, err := t.call("c4")
		if err != nil || c.State != store.CallAccepted {
			return fmt.Errorf("c4 before publishing: %s, %v", c.State, err)
		}
		return t.publish(&c, f.lease)
	})
	var again bool
	acceptC1 := f.op(func(t *txn) (err error) {
		_, again, err = t.accept(store.Call{ID: "c1", Toolset: "weather", Token: "tok"}, f.lease)
		return err
	})
	commits := f.s.commits.Load()
	errs := f.commit(f.accept("c1", "tok"), f.accept("c2", "stale"), f.accept("c3", "tok"),
		acceptC4, publishC4, skipped, acceptC1)
	for _, i := range []int{0, 2, 3, 4, 6} {
		if errs[i] != nil {
			t.Fatalf("write %d: %v", i, errs[i])
		}
	}
	switch {
	case !errors.Is(errs[1], store.ErrAdmissionConflict):
		t.Fatalf("stale token: %v, want ErrAdmissionConflict", errs[1])
	case !errors.Is(errs[5], context.Canceled):
		t.Fatalf("canceled write: %v, want context.Canceled", errs[5])
	case again:
		t.Fatal("accepting c1 again in the same batch created a record")
	}
	if n := f.s.commits.Load() - commits; n != 1 {
		t.Fatalf("%d transactions, want 1", n)
	}
	f.wantCall("c1", store.CallPublished)
	f.wantCall("c2", "")
	f.wantCall("c3", store.CallPublished)
	f.wantCall("c4", store.CallPublished)
	f.wantCall("c5", "")
}

// A write failing after it wrote taints the batch: it is rolled back and
// each write committed alone, so only the failing one is lost.
func TestBatchTaintedWriteIsRolledBack(t *testing.T) {
	f := newBatchFixture(t)
	boom := errors.New("boom")
	tainted := f.op(func(t *txn) error {
		if _, _, err := t.accept(store.Call{ID: "half", Toolset: "weather", Token: "tok"}, ""); err != nil {
			return err
		}
		return boom
	})
	errs := f.commit(f.accept("c1", "tok"), tainted, f.accept("c2", "tok"))
	if errs[0] != nil || errs[2] != nil || !errors.Is(errs[1], boom) {
		t.Fatalf("answers %v, want nil, boom, nil", errs)
	}
	f.wantCall("c1", store.CallPublished)
	f.wantCall("half", "")
	f.wantCall("c2", store.CallPublished)
}

// When the transaction fails to commit, every write of the batch gets the
// error and none is kept.
func TestBatchCommitFailureReachesEveryWrite(t *testing.T) {
	f := newBatchFixture(t)
	diskFull := errors.New("disk full")
	f.s.update = func(fn func(*bbolt.Tx) error) error {
		return f.s.db.Update(func(tx *bbolt.Tx) error {
			if err := fn(tx); err != nil {
				return err
			}
			return diskFull // as if the commit failed: rolled back
		})
	}
	errs := f.commit(f.accept("c1", "tok"), f.accept("c2", "tok"))
	f.s.update = f.s.db.Update
	for i, err := range errs {
		if !errors.Is(err, diskFull) {
			t.Fatalf("write %d of a failed commit: %v, want the commit's error", i, err)
		}
	}
	f.wantCall("c1", "")
	f.wantCall("c2", "")
}
