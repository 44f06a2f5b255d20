package boltstore

import (
	"context"
	"fmt"
	"time"

	"github.com/quiver-go/quiver/registry/store"
)

// Register implements [store.Store]. A lease joining the active
// registration while a replacement is pending joins it draining, so that
// the replacement is not held back by a replica of the old revision.
func (s *Store) Register(ctx context.Context, in store.RegisterInput) (store.Registered, error) {
	if err := checkRegister(in); err != nil {
		return store.Registered{}, err
	}
	var out store.Registered
	err := s.write(ctx, func(t *txn) (err error) {
		out, err = t.register(in)
		return err
	})
	if err != nil {
		return store.Registered{}, err
	}
	return out, nil
}

func checkRegister(in store.RegisterInput) error {
	if err := in.Check(); err != nil {
		return fmt.Errorf("%s: %w", "boltstore", err)
	}
	return nil
}

// registerStep is what Register does with a registration.
type registerStep int

const (
	create registerStep = iota
	joinActive
	joinPending
	stage
)

// register checks the registration against what the expiry sweep will
// leave of its toolset, then sweeps and applies it: a refused registration
// writes nothing.
func (t *txn) register(in store.RegisterInput) (store.Registered, error) {
	reg := in.Registration
	if reg.RegisteredAt.IsZero() {
		reg.RegisteredAt = t.now
	}
	ts := reg.Toolset
	active, hasActive, err := t.registration(bucketActive, ts)
	if err != nil {
		return store.Registered{}, err
	}
	pending, hasPending, err := t.registration(bucketPending, ts)
	if err != nil {
		return store.Registered{}, err
	}
	leases, err := t.toolsetLeases(ts)
	if err != nil {
		return store.Registered{}, err
	}
	if hasPending && !anyLiveOn(leases, active.Token, t.now) {
		active, hasPending = pending, false // the sweep will activate it
	}
	var step registerStep
	switch {
	case !hasActive:
		step = create
	case reg.Token == active.Token:
		step = joinActive
	case reg.Revision == active.Revision && reg.Fingerprint != active.Fingerprint:
		return store.Registered{}, fmt.Errorf("boltstore: register %s revision %q fingerprint %s: the active registration has fingerprint %s: %w",
			ts, reg.Revision, reg.Fingerprint, active.Fingerprint, store.ErrRevisionConflict)
	case hasPending && reg.Token == pending.Token:
		step = joinPending
	case hasPending:
		return store.Registered{}, fmt.Errorf("boltstore: register %s revision %q: revision %q waits for revision %q to drain: %w",
			ts, reg.Revision, pending.Revision, active.Revision, store.ErrReplacementPending)
	default:
		step = stage
	}

	var fx store.Effects
	if err := t.expire(&fx); err != nil {
		return store.Registered{}, err
	}
	lease := store.Lease{
		ID:          newLeaseID(),
		Toolset:     ts,
		Token:       reg.Token,
		Provider:    in.Provider,
		MaxInFlight: in.MaxInFlight,
		State:       store.LeaseActive,
		TTL:         in.TTL,
		ExpiresAt:   t.now.Add(in.TTL),
	}
	on := reg
	switch step {
	case create:
		if err := t.putActive(reg); err != nil {
			return store.Registered{}, err
		}
		fx.Activated = append(fx.Activated, reg)
		err = t.changeCatalog(ts, store.ChangeRegistered, &fx)
	case joinActive:
		on, _, err = t.registration(bucketActive, ts)
		if t.tx.Bucket(bucketPending).Get([]byte(ts)) != nil {
			lease.State = store.LeaseDraining
		}
	case joinPending:
		on, _, err = t.registration(bucketPending, ts)
		lease.State = store.LeasePending
	case stage:
		lease.State, err = t.stage(reg, &fx)
	}
	if err != nil {
		return store.Registered{}, err
	}
	if err := t.putJSON(bucketLeases, lease.ID, lease); err != nil {
		return store.Registered{}, err
	}
	return store.Registered{Lease: lease, Registration: on, Effects: fx}, nil
}

// stage makes reg the toolset's pending replacement and drains the leases
// of the active registration, or replaces the active one at once when it
// has no lease left. It returns the state of a lease on reg.
func (t *txn) stage(reg store.Registration, fx *store.Effects) (store.LeaseState, error) {
	active, _, err := t.registration(bucketActive, reg.Toolset)
	if err != nil {
		return "", err
	}
	leases, err := t.toolsetLeases(reg.Toolset)
	if err != nil {
		return "", err
	}
	if !anyLiveOn(leases, active.Token, t.now) {
		return store.LeaseActive, t.replace(reg.Toolset, reg, fx)
	}
	if err := t.putJSON(bucketPending, reg.Toolset, reg); err != nil {
		return "", err
	}
	for _, l := range leases {
		if l.Token != active.Token || l.State != store.LeaseActive {
			continue
		}
		l.State = store.LeaseDraining
		if err := t.putJSON(bucketLeases, l.ID, l); err != nil {
			return "", err
		}
		fx.Draining = append(fx.Draining, l)
	}
	return store.LeasePending, nil
}

// anyLiveOn reports whether a live lease holds the registration token.
func anyLiveOn(leases []store.Lease, token string, now time.Time) bool {
	for _, l := range leases {
		if l.Token == token && live(l, now) {
			return true
		}
	}
	return false
}
