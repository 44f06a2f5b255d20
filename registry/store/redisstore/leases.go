package redisstore

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/quiver-go/quiver/internal/redisconn"
	"github.com/quiver-go/quiver/registry/store"
)

// Register implements [store.Store] in one script (lua/register.lua). A
// lease joining the active registration while a replacement is pending
// joins it draining, so that the replacement is not held back by a replica
// of the old revision.
func (s *Store) Register(ctx context.Context, in store.RegisterInput) (store.Registered, error) {
	if err := checkRegister(in); err != nil {
		return store.Registered{}, err
	}
	r := in.Registration
	regJSON, err := json.Marshal(r)
	if err != nil {
		return store.Registered{}, fmt.Errorf("redisstore: register %q: encode: %w", r.Toolset, err)
	}
	reply, err := s.eval(ctx, "register", scriptRegister, false, r.Toolset, r.Token, r.Revision, r.Fingerprint,
		regJSON, newLeaseID(), in.Provider, in.MaxInFlight, int64(in.TTL))
	if err != nil {
		return store.Registered{}, err
	}
	switch status := redisconn.Str(reply[0]); {
	case status == "revision_conflict" && len(reply) == 2:
		return store.Registered{}, fmt.Errorf("redisstore: register %s revision %q fingerprint %s: the active registration has fingerprint %s: %w",
			r.Toolset, r.Revision, r.Fingerprint, redisconn.Str(reply[1]), store.ErrRevisionConflict)
	case status == "replacement_pending" && len(reply) == 3:
		return store.Registered{}, fmt.Errorf("redisstore: register %s revision %q: revision %q waits for revision %q to drain: %w",
			r.Toolset, r.Revision, redisconn.Str(reply[1]), redisconn.Str(reply[2]), store.ErrReplacementPending)
	case status != "ok" || len(reply) != 9:
		return store.Registered{}, badReply("register", reply)
	}
	var out store.Registered
	if out.Lease, err = decodeLease(reply[1]); err != nil {
		return store.Registered{}, fmt.Errorf("redisstore: register: %w", err)
	}
	if out.Registration, err = decodeRegistration(reply[2]); err != nil {
		return store.Registered{}, fmt.Errorf("redisstore: register: %w", err)
	}
	if out.Effects, err = decodeEffects(reply[3:]); err != nil {
		return store.Registered{}, fmt.Errorf("redisstore: register: %w", err)
	}
	return out, nil
}

func checkRegister(in store.RegisterInput) error {
	if err := in.Check(); err != nil {
		return fmt.Errorf("%s: %w", "redisstore", err)
	}
	return nil
}

// newLeaseID returns a random lease id.
func newLeaseID() string { return store.NewLeaseID() }

// Renew implements [store.Store]: the lease's expiry moves to the store's
// clock plus its TTL.
func (s *Store) Renew(ctx context.Context, leaseID string) (store.Lease, error) {
	return s.updateLease(ctx, "renew", scriptRenew, leaseID)
}

// Drain implements [store.Store].
func (s *Store) Drain(ctx context.Context, leaseID string) (store.Lease, error) {
	return s.updateLease(ctx, "drain", scriptDrain, leaseID)
}

// updateLease runs a script that changes a live lease.
func (s *Store) updateLease(ctx context.Context, what string, sc *redis.Script, leaseID string) (store.Lease, error) {
	reply, err := s.eval(ctx, what, sc, false, leaseID)
	if err != nil {
		return store.Lease{}, err
	}
	switch status := redisconn.Str(reply[0]); {
	case status == "lease_gone":
		return store.Lease{}, fmt.Errorf("redisstore: %s lease %q: %w", what, leaseID, store.ErrLeaseGone)
	case status == "lease_expired" && len(reply) == 2:
		expired, _ := parseTime(redisconn.Str(reply[1]))
		return store.Lease{}, fmt.Errorf("redisstore: %s lease %q: expired at %s: %w",
			what, leaseID, expired.Format(time.RFC3339Nano), store.ErrLeaseGone)
	case status != "ok" || len(reply) != 2:
		return store.Lease{}, badReply(what, reply)
	}
	l, err := decodeLease(reply[1])
	if err != nil {
		return store.Lease{}, fmt.Errorf("redisstore: %s: %w", what, err)
	}
	return l, nil
}

// RenewAll implements [store.Store]; the leases are sorted by id.
func (s *Store) RenewAll(ctx context.Context) ([]store.Lease, error) {
	reply, err := s.eval(ctx, "renew all", scriptRenewAll, false)
	if err != nil {
		return nil, err
	}
	if redisconn.Str(reply[0]) != "ok" || len(reply) != 2 {
		return nil, badReply("renew all", reply)
	}
	leases, err := decodeLeases(reply[1])
	if err != nil {
		return nil, fmt.Errorf("redisstore: renew all: %w", err)
	}
	sortLeases(leases)
	return leases, nil
}

// Release implements [store.Store]. A lease past its expiry that
// ExpireLeases has not ended yet is ended as released.
func (s *Store) Release(ctx context.Context, leaseID string) (store.Effects, error) {
	return s.effects(ctx, "release", scriptRelease, leaseID)
}

// ExpireLeases implements [store.Store].
func (s *Store) ExpireLeases(ctx context.Context) (store.Effects, error) {
	return s.effects(ctx, "expire leases", scriptExpire)
}

// Unregister implements [store.Store].
func (s *Store) Unregister(ctx context.Context, toolset string) (store.Effects, error) {
	return s.effects(ctx, "unregister", scriptUnregister, toolset)
}

// effects runs a script that reports its effects.
func (s *Store) effects(ctx context.Context, what string, sc *redis.Script, args ...any) (store.Effects, error) {
	reply, err := s.eval(ctx, what, sc, false, args...)
	if err != nil {
		return store.Effects{}, err
	}
	switch status := redisconn.Str(reply[0]); {
	case status == "unknown_toolset" && len(args) == 1:
		return store.Effects{}, fmt.Errorf("redisstore: %s %q: %w", what, args[0], store.ErrUnknownToolset)
	case status != "ok" || len(reply) != 7:
		return store.Effects{}, badReply(what, reply)
	}
	fx, err := decodeEffects(reply[1:])
	if err != nil {
		return store.Effects{}, fmt.Errorf("redisstore: %s: %w", what, err)
	}
	return fx, nil
}

// sortLeases sorts leases by id.
func sortLeases(ls []store.Lease) {
	slices.SortFunc(ls, func(a, b store.Lease) int { return strings.Compare(a.ID, b.ID) })
}

// badReply reports a reply the operation does not expect.
func badReply(what string, reply []any) error {
	parts := make([]string, 0, len(reply))
	for _, v := range reply {
		if s, ok := v.(string); ok {
			parts = append(parts, strconv.Quote(s))
		} else {
			parts = append(parts, fmt.Sprintf("%T", v))
		}
	}
	return fmt.Errorf("redisstore: %s: unexpected reply [%s]", what, strings.Join(parts, " "))
}
