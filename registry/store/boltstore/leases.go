package boltstore

import (
	"fmt"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quiver-go/quiver/registry/store"
)

// newLeaseID returns a random lease id.
func newLeaseID() string { return store.NewLeaseID() }

// live reports whether a stored lease has not expired at now: a lease past
// its expiry is not live even before ExpireLeases ends it.
func live(l store.Lease, now time.Time) bool {
	return !now.After(l.ExpiresAt)
}

// storedLeases reads the leases not ended yet (live or past expiry),
// sorted by id, keeping those keep accepts.
func storedLeases(tx *bbolt.Tx, keep func(store.Lease) bool) ([]store.Lease, error) {
	var leases []store.Lease
	err := tx.Bucket(bucketLeases).ForEach(func(k, v []byte) error {
		var l store.Lease
		if err := decode(bucketLeases, k, v, &l); err != nil {
			return err
		}
		if keep(l) {
			leases = append(leases, l)
		}
		return nil
	})
	return leases, err
}

// toolsetLeases reads the leases of toolset not ended yet.
func (t *txn) toolsetLeases(toolset string) ([]store.Lease, error) {
	return storedLeases(t.tx, func(l store.Lease) bool { return l.Toolset == toolset })
}

// lease reads a lease not ended yet.
func (t *txn) lease(id string) (store.Lease, bool, error) {
	var l store.Lease
	ok, err := getJSON(t.tx, bucketLeases, id, &l)
	return l, ok, err
}

// liveLease reads a live lease for what (an operation's name);
// ErrLeaseGone when it ended or expired.
func (t *txn) liveLease(what, id string) (store.Lease, error) {
	l, ok, err := t.lease(id)
	switch {
	case err != nil:
		return store.Lease{}, err
	case !ok:
		return store.Lease{}, fmt.Errorf("boltstore: %s lease %q: %w", what, id, store.ErrLeaseGone)
	case !live(l, t.now):
		return store.Lease{}, fmt.Errorf("boltstore: %s lease %q: expired at %s: %w",
			what, id, l.ExpiresAt.Format(time.RFC3339Nano), store.ErrLeaseGone)
	}
	return l, nil
}

// expire ends every lease past its expiry.
func (t *txn) expire(fx *store.Effects) error {
	expired, err := storedLeases(t.tx, func(l store.Lease) bool { return !live(l, t.now) })
	if err != nil {
		return err
	}
	for _, l := range expired {
		if err := t.endLease(l.ID, "expired", fx); err != nil {
			return err
		}
	}
	return nil
}

// endLease ends a lease (why: how, for the settled calls' error): its
// published calls settle as OutcomeUnknown, and a replacement waiting for
// it activates when it was the last lease on the active registration.
func (t *txn) endLease(id, why string, fx *store.Effects) error {
	l, ok, err := t.lease(id)
	if err != nil || !ok {
		return err
	}
	if err := t.del(bucketLeases, []byte(id)); err != nil {
		return err
	}
	fx.Ended = append(fx.Ended, l)
	prefix := publishedPrefix(id)
	for _, k := range t.keysWithPrefix(bucketPublished, prefix) {
		c, ok, err := t.call(string(k[len(prefix):]))
		if err != nil {
			return err
		}
		if !ok || c.State != store.CallPublished {
			continue
		}
		msg := fmt.Sprintf("lease %s %s before the call's outcome was posted", id, why)
		if err := t.settle(&c, store.Settlement{Outcome: store.OutcomeUnknown, Error: msg}, fx); err != nil {
			return err
		}
	}
	return t.activateIfDrained(l.Toolset, fx)
}

// activateIfDrained activates the toolset's pending registration when no
// lease on the active one is left.
func (t *txn) activateIfDrained(toolset string, fx *store.Effects) error {
	pending, ok, err := t.registration(bucketPending, toolset)
	if err != nil || !ok {
		return err
	}
	active, _, err := t.registration(bucketActive, toolset)
	if err != nil {
		return err
	}
	leases, err := t.toolsetLeases(toolset)
	if err != nil {
		return err
	}
	for _, l := range leases {
		if l.Token == active.Token {
			return nil
		}
	}
	return t.replace(toolset, pending, fx)
}

// replace makes next the toolset's active registration: its pending leases
// become active, the calls still accepted with another token settle as
// OutcomeCallNotAdmitted, and the catalog records the replacement.
func (t *txn) replace(toolset string, next store.Registration, fx *store.Effects) error {
	if err := t.putActive(next); err != nil {
		return err
	}
	if err := t.del(bucketPending, []byte(toolset)); err != nil {
		return err
	}
	leases, err := t.toolsetLeases(toolset)
	if err != nil {
		return err
	}
	for _, l := range leases {
		if l.Token == next.Token && l.State == store.LeasePending {
			l.State = store.LeaseActive
			if err := t.putJSON(bucketLeases, l.ID, l); err != nil {
				return err
			}
		}
	}
	stale, err := t.unsettledCalls(func(c store.Call) bool {
		return c.Toolset == toolset && c.State == store.CallAccepted && c.Token != next.Token
	})
	if err != nil {
		return err
	}
	msg := fmt.Sprintf("toolset %s was replaced by revision %s before the call was handed to a provider", toolset, next.Revision)
	for i := range stale {
		if err := t.settle(&stale[i], store.Settlement{Outcome: store.OutcomeCallNotAdmitted, Error: msg}, fx); err != nil {
			return err
		}
	}
	fx.Activated = append(fx.Activated, next)
	return t.changeCatalog(toolset, store.ChangeReplaced, fx)
}
