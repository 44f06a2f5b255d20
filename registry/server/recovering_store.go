package server

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quiver-go/quiver/registry/store"
)

// recoveringStore is the store as the service uses it: once the store
// failed for long enough to cost a provider its lease, the first thing
// this node asks it when it answers again, whatever the request, is
// RenewAll, so that every lease gets a full TTL from then before anything
// can end one (ExpireLeases, a Register ending expired leases, a Renew
// refusing an expired one, a Catalog leaving one out and closing its
// stream). While the store was unreachable no provider could renew: their
// leases ran out through no fault of theirs, and ending them would settle
// the calls in their hands as outcome_unknown although the providers are
// alive and about to post. A provider that died meanwhile loses its lease
// one TTL after recovery. A registry that starts does the same (New calls
// RenewAll first).
//
// The store is taken as failing when an operation that has no error of
// its own to report (ExpireLeases, RenewAll, Catalog, Changes, Unsettled,
// PurgeSettled) fails while its caller still waits: the maintenance loop
// runs ExpireLeases every tick, a fraction of the TTL, so an outage long
// enough to let a lease run out is always seen. Errors of the other
// operations may be the caller's (a refused registration) and are not
// counted. An outage shorter than a quarter of the TTL, from the store's
// last answer to its next, renews nothing: a live provider renews every
// third of its TTL and retries a failed renewal within a quarter, so it
// keeps its lease through such an outage, and a store that fails now and
// then must not keep a dead provider's lease alive.
//
// With several nodes on one store each node does this after its own
// failures: when the store was unreachable from every node, every node
// renews all leases before it ends any. A node cut off alone does not stop
// the others, which saw no failure and expire the leases its providers
// could not renew, as they would dead providers'.
type recoveringStore struct {
	store.Store
	log *slog.Logger
	// short: an outage shorter than this renews nothing.
	short time.Duration
	// answered is when the store last answered (UnixNano); down mirrors
	// failing for the operations' fast path.
	answered atomic.Int64
	down     atomic.Bool

	mu sync.Mutex
	// failing: a failure was seen and the store has not answered since
	// (within short of its previous answer) or RenewAll succeeded.
	failing bool
	// downSince is the store's last answer before the failure.
	downSince time.Time
	// failures counts the failures seen; a renewal clears failing only
	// when none was seen while it ran.
	failures uint64
	// renewal is the RenewAll under way, nil when none.
	renewal *renewal
}

// renewal is one RenewAll after a failure, shared by the operations that
// wait for it.
type renewal struct {
	done chan struct{}
	err  error
}

// renewalTimeout bounds one RenewAll after a failure.
const renewalTimeout = 10 * time.Second

func newRecoveringStore(st store.Store, leaseTTL time.Duration, log *slog.Logger) *recoveringStore {
	r := &recoveringStore{Store: st, log: log, short: leaseTTL / 4}
	r.answered.Store(time.Now().UnixNano())
	return r
}

// saw records the outcome of an operation whose every error is the
// store's failure.
func (r *recoveringStore) saw(ctx context.Context, err error) {
	switch {
	case err == nil:
		r.ok()
	case ctx.Err() == nil:
		r.failed(err)
	}
}

// ok records an answer of the store. It ends a failure that lasted less
// than short: nothing could have expired for it.
func (r *recoveringStore) ok() {
	now := time.Now()
	r.answered.Store(now.UnixNano())
	if !r.down.Load() {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failing && r.renewal == nil && now.Sub(r.downSince) < r.short {
		r.failing = false
		r.down.Store(false)
		r.log.Info("registry: the store answers again after a short failure", "down", now.Sub(r.downSince).Round(time.Millisecond))
	}
}

// failed records a failure of the store.
func (r *recoveringStore) failed(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failures++
	if !r.failing {
		r.failing = true
		r.down.Store(true)
		r.downSince = time.Unix(0, r.answered.Load())
		r.log.Warn("registry: the store failed; every lease gets a full TTL when it answers again", "err", err)
	}
}

// recover runs RenewAll when the store has failed for short or more since
// the last renewal, or waits for the one under way; it fails when the
// store still does not answer.
func (r *recoveringStore) recover(ctx context.Context) error {
	if !r.down.Load() {
		return nil
	}
	r.mu.Lock()
	rn := r.renewal
	switch {
	case rn != nil:
	case !r.failing || time.Since(r.downSince) < r.short:
		r.mu.Unlock()
		return nil
	default:
		rn = &renewal{done: make(chan struct{})}
		r.renewal = rn
		go r.renew(rn, r.failures)
	}
	r.mu.Unlock()
	select {
	case <-rn.done:
		return rn.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// renew runs one RenewAll for the operations waiting on rn; failures is
// the count of failures seen when it started.
func (r *recoveringStore) renew(rn *renewal, failures uint64) {
	ctx, cancel := context.WithTimeout(context.Background(), renewalTimeout)
	defer cancel()
	leases, err := r.Store.RenewAll(ctx)
	if err == nil {
		r.answered.Store(time.Now().UnixNano())
	}
	r.mu.Lock()
	r.renewal = nil
	if err != nil {
		rn.err = fmt.Errorf("registry: renew the leases after the store failed: %w", err)
	} else if r.failures == failures {
		r.failing = false
		r.down.Store(false)
		r.log.Info("registry: the store answers again; every lease renewed for a full TTL",
			"leases", len(leases), "down", time.Since(r.downSince).Round(time.Millisecond))
	}
	r.mu.Unlock()
	close(rn.done)
}

// RenewAll implements store.Store; it ends a failure as a renewal does.
func (r *recoveringStore) RenewAll(ctx context.Context) ([]store.Lease, error) {
	r.mu.Lock()
	failures := r.failures
	r.mu.Unlock()
	leases, err := r.Store.RenewAll(ctx)
	if err != nil {
		r.saw(ctx, err)
		return nil, err
	}
	r.answered.Store(time.Now().UnixNano())
	r.mu.Lock()
	if r.failures == failures {
		r.failing = false
		r.down.Store(false)
	}
	r.mu.Unlock()
	return leases, nil
}

// answered runs op, an operation whose errors may be its caller's, once
// the store has recovered (recover); only its success tells that the store
// answers (answer).
func answered[T any](r *recoveringStore, ctx context.Context, op func() (T, error)) (T, error) {
	if err := r.recover(ctx); err != nil {
		var zero T
		return zero, err
	}
	v, err := op()
	r.answer(err)
	return v, err
}

// watched runs op, an operation with no error of its own to report, once
// the store has recovered; its failure counts as the store's (saw).
func watched[T any](r *recoveringStore, ctx context.Context, op func() (T, error)) (T, error) {
	if err := r.recover(ctx); err != nil {
		var zero T
		return zero, err
	}
	v, err := op()
	r.saw(ctx, err)
	return v, err
}

// answer records an answer of an operation whose errors may be its
// caller's: only a success tells that the store answers.
func (r *recoveringStore) answer(err error) {
	if err == nil {
		r.ok()
	}
}

func (r *recoveringStore) Register(ctx context.Context, in store.RegisterInput) (store.Registered, error) {
	return answered(r, ctx, func() (store.Registered, error) { return r.Store.Register(ctx, in) })
}

func (r *recoveringStore) Renew(ctx context.Context, leaseID string) (store.Lease, error) {
	return answered(r, ctx, func() (store.Lease, error) { return r.Store.Renew(ctx, leaseID) })
}

func (r *recoveringStore) Drain(ctx context.Context, leaseID string) (store.Lease, error) {
	return answered(r, ctx, func() (store.Lease, error) { return r.Store.Drain(ctx, leaseID) })
}

func (r *recoveringStore) Release(ctx context.Context, leaseID string) (store.Effects, error) {
	return answered(r, ctx, func() (store.Effects, error) { return r.Store.Release(ctx, leaseID) })
}

func (r *recoveringStore) ExpireLeases(ctx context.Context) (store.Effects, error) {
	return watched(r, ctx, func() (store.Effects, error) { return r.Store.ExpireLeases(ctx) })
}

func (r *recoveringStore) Unregister(ctx context.Context, toolset string) (store.Effects, error) {
	return answered(r, ctx, func() (store.Effects, error) { return r.Store.Unregister(ctx, toolset) })
}

func (r *recoveringStore) Catalog(ctx context.Context) (store.Catalog, error) {
	return watched(r, ctx, func() (store.Catalog, error) { return r.Store.Catalog(ctx) })
}

func (r *recoveringStore) Changes(ctx context.Context, after uint64) ([]store.Change, uint64, bool, error) {
	if err := r.recover(ctx); err != nil {
		return nil, 0, false, err
	}
	changes, rev, reset, err := r.Store.Changes(ctx, after)
	r.saw(ctx, err)
	return changes, rev, reset, err
}

func (r *recoveringStore) AcceptCall(ctx context.Context, call store.Call, assignTo string) (store.Call, bool, error) {
	if err := r.recover(ctx); err != nil {
		return store.Call{}, false, err
	}
	c, created, err := r.Store.AcceptCall(ctx, call, assignTo)
	r.answer(err)
	return c, created, err
}

func (r *recoveringStore) PublishCall(ctx context.Context, callID, leaseID string) (store.Call, bool, error) {
	if err := r.recover(ctx); err != nil {
		return store.Call{}, false, err
	}
	c, published, err := r.Store.PublishCall(ctx, callID, leaseID)
	r.answer(err)
	return c, published, err
}

func (r *recoveringStore) ReturnCall(ctx context.Context, callID, leaseID string) (store.Call, error) {
	return answered(r, ctx, func() (store.Call, error) { return r.Store.ReturnCall(ctx, callID, leaseID) })
}

func (r *recoveringStore) SettleCall(ctx context.Context, s store.Settlement) (store.Call, error) {
	return answered(r, ctx, func() (store.Call, error) { return r.Store.SettleCall(ctx, s) })
}

func (r *recoveringStore) GetCall(ctx context.Context, callID string) (store.Call, error) {
	return answered(r, ctx, func() (store.Call, error) { return r.Store.GetCall(ctx, callID) })
}

func (r *recoveringStore) Unsettled(ctx context.Context) ([]store.Call, error) {
	return watched(r, ctx, func() ([]store.Call, error) { return r.Store.Unsettled(ctx) })
}

func (r *recoveringStore) PurgeSettled(ctx context.Context, before time.Time) (int, error) {
	return watched(r, ctx, func() (int, error) { return r.Store.PurgeSettled(ctx, before) })
}

func (r *recoveringStore) ForgetSettled(ctx context.Context, results, payloads time.Time) (int, error) {
	return watched(r, ctx, func() (int, error) { return r.Store.ForgetSettled(ctx, results, payloads) })
}
