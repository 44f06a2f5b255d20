package boltstore

import (
	"context"
	"fmt"

	"go.etcd.io/bbolt"

	"github.com/quiver-go/quiver/registry/store"
)

// Catalog implements [store.Store]. Leases past their expiry are not live
// and not listed, even before ExpireLeases ends them.
func (s *Store) Catalog(ctx context.Context) (store.Catalog, error) {
	var cat store.Catalog
	err := s.read(ctx, func(tx *bbolt.Tx) (err error) {
		now := s.now()
		cat.Revision = revision(tx)
		if cat.Registrations, err = activeRegistrations(tx); err != nil {
			return err
		}
		cat.Leases, err = storedLeases(tx, func(l store.Lease) bool { return live(l, now) })
		return err
	})
	if err != nil {
		return store.Catalog{}, err
	}
	return cat, nil
}

// Changes implements [store.Store]. On a reset it returns no changes: the
// caller reads the Catalog again. An after beyond the current revision is a
// reset too.
func (s *Store) Changes(ctx context.Context, after uint64) (changes []store.Change, rev uint64, reset bool, err error) {
	err = s.read(ctx, func(tx *bbolt.Tx) (err error) {
		changes, rev, reset, err = readChanges(tx, after)
		return err
	})
	if err != nil {
		return nil, 0, false, err
	}
	return changes, rev, reset, nil
}

// GetCall implements [store.Store].
func (s *Store) GetCall(ctx context.Context, callID string) (store.Call, error) {
	var c store.Call
	err := s.read(ctx, func(tx *bbolt.Tx) error {
		ok, err := getJSON(tx, bucketCalls, callID, &c)
		if err == nil && !ok {
			err = fmt.Errorf("boltstore: call %q: %w", callID, store.ErrUnknownCall)
		}
		return err
	})
	if err != nil {
		return store.Call{}, err
	}
	return c, nil
}

// Unsettled implements [store.Store]: oldest AcceptedAt first, then by id.
func (s *Store) Unsettled(ctx context.Context) ([]store.Call, error) {
	var calls []store.Call
	err := s.read(ctx, func(tx *bbolt.Tx) (err error) {
		calls, err = readUnsettled(tx, func(store.Call) bool { return true })
		return err
	})
	if err != nil {
		return nil, err
	}
	return calls, nil
}
