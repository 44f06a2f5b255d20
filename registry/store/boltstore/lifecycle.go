package boltstore

import (
	"context"
	"fmt"

	"github.com/quiver-go/quiver/registry/store"
)

// Renew implements [store.Store]: the lease's expiry moves to the store's
// clock plus its TTL.
func (s *Store) Renew(ctx context.Context, leaseID string) (store.Lease, error) {
	return s.updateLease(ctx, "renew", leaseID, func(t *txn, l *store.Lease) {
		l.ExpiresAt = t.now.Add(l.TTL)
	})
}

// RenewAll implements [store.Store].
func (s *Store) RenewAll(ctx context.Context) ([]store.Lease, error) {
	var out []store.Lease
	err := s.write(ctx, func(t *txn) error {
		leases, err := storedLeases(t.tx, func(store.Lease) bool { return true })
		if err != nil {
			return err
		}
		for i := range leases {
			leases[i].ExpiresAt = t.now.Add(leases[i].TTL)
			if err := t.putJSON(bucketLeases, leases[i].ID, leases[i]); err != nil {
				return err
			}
		}
		out = leases
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Drain implements [store.Store].
func (s *Store) Drain(ctx context.Context, leaseID string) (store.Lease, error) {
	return s.updateLease(ctx, "drain", leaseID, func(_ *txn, l *store.Lease) {
		l.State = store.LeaseDraining
	})
}

// updateLease changes a live lease with change.
func (s *Store) updateLease(ctx context.Context, what, leaseID string, change func(*txn, *store.Lease)) (store.Lease, error) {
	var out store.Lease
	err := s.write(ctx, func(t *txn) error {
		l, err := t.liveLease(what, leaseID)
		if err != nil {
			return err
		}
		change(t, &l)
		out = l
		return t.putJSON(bucketLeases, l.ID, l)
	})
	if err != nil {
		return store.Lease{}, err
	}
	return out, nil
}

// Release implements [store.Store]. A lease past its expiry that
// ExpireLeases has not ended yet is ended as released.
func (s *Store) Release(ctx context.Context, leaseID string) (store.Effects, error) {
	return s.effects(ctx, func(t *txn, fx *store.Effects) error {
		return t.endLease(leaseID, "was released", fx)
	})
}

// ExpireLeases implements [store.Store].
func (s *Store) ExpireLeases(ctx context.Context) (store.Effects, error) {
	return s.effects(ctx, func(t *txn, fx *store.Effects) error {
		return t.expire(fx)
	})
}

// Unregister implements [store.Store].
func (s *Store) Unregister(ctx context.Context, toolset string) (store.Effects, error) {
	return s.effects(ctx, func(t *txn, fx *store.Effects) error {
		return t.unregister(toolset, fx)
	})
}

// effects runs a write that reports its effects.
func (s *Store) effects(ctx context.Context, apply func(*txn, *store.Effects) error) (store.Effects, error) {
	var out store.Effects
	err := s.write(ctx, func(t *txn) error {
		var fx store.Effects
		if err := apply(t, &fx); err != nil {
			return err
		}
		out = fx
		return nil
	})
	if err != nil {
		return store.Effects{}, err
	}
	return out, nil
}

// unregister removes a toolset: its registrations, its leases (their
// published calls settle as OutcomeUnknown) and its accepted calls (as
// OutcomeCallNotAdmitted).
func (t *txn) unregister(toolset string, fx *store.Effects) error {
	_, hasActive, err := t.registration(bucketActive, toolset)
	if err != nil {
		return err
	}
	_, hasPending, err := t.registration(bucketPending, toolset)
	if err != nil {
		return err
	}
	if !hasActive && !hasPending {
		return fmt.Errorf("boltstore: unregister %q: %w", toolset, store.ErrUnknownToolset)
	}
	// Registrations first: ending the leases then activates nothing.
	for _, b := range [][]byte{bucketActive, bucketPending, bucketTokens} {
		if err := t.del(b, []byte(toolset)); err != nil {
			return err
		}
	}
	leases, err := t.toolsetLeases(toolset)
	if err != nil {
		return err
	}
	for _, l := range leases {
		if err := t.endLease(l.ID, "ended with its toolset", fx); err != nil {
			return err
		}
	}
	left, err := t.unsettledCalls(func(c store.Call) bool { return c.Toolset == toolset })
	if err != nil {
		return err
	}
	for i, c := range left {
		outcome := store.OutcomeCallNotAdmitted
		if c.State == store.CallPublished {
			outcome = store.OutcomeUnknown
		}
		if err := t.settle(&left[i], store.Settlement{Outcome: outcome, Error: "toolset " + toolset + " was unregistered"}, fx); err != nil {
			return err
		}
	}
	fx.Removed = append(fx.Removed, toolset)
	return t.changeCatalog(toolset, store.ChangeRemoved, fx)
}
