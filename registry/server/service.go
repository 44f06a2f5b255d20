package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quiver-go/quiver/discovery"
	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/registry/store"
)

// Service implements the registry API (registry/gen/registry.Service) on a
// store.Store. Create it with New, serve Handler(), stop with Close.
type Service struct {
	cfg    Config
	store  store.Store
	log    *slog.Logger
	search *discovery.Engine

	// refreshMu serializes catalog refreshes; view is the latest.
	refreshMu sync.Mutex
	view      atomic.Pointer[view]
	known     map[string]*compiled

	router  *router
	waiters *waiters
	// changed is closed and replaced whenever the catalog revision grows.
	changedMu sync.Mutex
	changed   chan struct{}

	// kick wakes the dispatcher: a lease got room or a call was queued.
	kick chan struct{}
	// closing is closed by Close; loops returns when the loops stopped.
	closing chan struct{}
	loops   sync.WaitGroup
	ready   atomic.Bool
}

var _ gen.Service = (*Service)(nil)
var _ gen.Auther = (*Service)(nil)

// New builds a registry service on cfg.Store: it reads the catalog, routes
// again the calls a previous process accepted and did not publish, and
// starts the loops that expire leases, give calls their deadline and purge
// old records.
func New(ctx context.Context, cfg Config) (*Service, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	eng, err := discovery.New()
	if err != nil {
		return nil, err
	}
	s := &Service{
		cfg: cfg, store: cfg.Store, log: cfg.Logger, search: eng,
		known:   map[string]*compiled{},
		router:  newRouter(),
		waiters: newWaiters(),
		changed: make(chan struct{}),
		kick:    make(chan struct{}, 1),
		closing: make(chan struct{}),
	}
	// No provider could renew while the registry was down: every lease
	// gets a full TTL before anything expires, so that providers alive
	// through the outage keep their leases and post the outcomes of the
	// calls in their hands.
	if _, err := s.store.RenewAll(ctx); err != nil {
		return nil, fmt.Errorf("registry: renew leases at start: %w", err)
	}
	effects, err := s.store.ExpireLeases(ctx)
	if err != nil {
		return nil, fmt.Errorf("registry: expire leases at start: %w", err)
	}
	if err := s.refresh(ctx); err != nil {
		return nil, err
	}
	s.logEffects(effects)
	if err := s.recover(ctx); err != nil {
		return nil, err
	}
	s.loops.Add(2)
	go s.dispatchLoop()
	go s.maintenanceLoop()
	s.ready.Store(true)
	return s, nil
}

// recover routes again the calls a previous process accepted, and counts
// the published ones in their leases' hands.
func (s *Service) recover(ctx context.Context) error {
	calls, err := s.store.Unsettled(ctx)
	if err != nil {
		return fmt.Errorf("registry: read unsettled calls at start: %w", err)
	}
	for _, c := range calls {
		// Tracked, so that a published call whose provider never posts
		// settles after its deadline and grace.
		s.waiters.track(c)
		switch c.State {
		case store.CallAccepted:
			s.router.enqueue(c.Token, queued{id: c.ID, deadline: c.Deadline}, int(^uint(0)>>1))
		case store.CallPublished:
			s.router.hold(c.LeaseID, c.ID)
		}
	}
	s.wake()
	return nil
}

// Close stops the loops and every provider stream. It does not close the
// store.
func (s *Service) Close() error {
	s.ready.Store(false)
	select {
	case <-s.closing:
	default:
		close(s.closing)
	}
	s.loops.Wait()
	return nil
}

// Ready reports whether the service serves (its store answered at start
// and it is not closing).
func (s *Service) Ready(ctx context.Context) error {
	if !s.ready.Load() {
		return errors.New("registry: not serving")
	}
	if _, _, _, err := s.store.Changes(ctx, ^uint64(0)>>1); err != nil {
		return fmt.Errorf("registry: store: %w", err)
	}
	return nil
}

// current is the latest catalog view.
func (s *Service) current() *view { return s.view.Load() }

// refresh reads the catalog again and applies it to the router.
func (s *Service) refresh(ctx context.Context) error {
	s.refreshMu.Lock()
	defer s.refreshMu.Unlock()
	cat, err := s.store.Catalog(ctx)
	if err != nil {
		return fmt.Errorf("registry: read catalog: %w", err)
	}
	prev := s.view.Load()
	v, err := newView(cat, prev, s.known)
	if err != nil {
		return err
	}
	s.view.Store(v)
	// A lease that ended closes its stream: its provider reconnects, reads
	// lease_expired and registers again. (A drain frame would tell it its
	// revision was replaced.)
	for _, c := range s.router.sync(v) {
		c.close()
	}
	if prev == nil || prev.revision != v.revision {
		s.changedMu.Lock()
		close(s.changed)
		s.changed = make(chan struct{})
		s.changedMu.Unlock()
	}
	s.wake()
	return nil
}

// changes returns a channel closed at the next catalog change.
func (s *Service) changes() <-chan struct{} {
	s.changedMu.Lock()
	defer s.changedMu.Unlock()
	return s.changed
}

// apply takes a state change's effects into account: the catalog, waiting
// consumers, providers to drain, and the log.
func (s *Service) apply(ctx context.Context, e store.Effects) {
	for _, c := range e.Settled {
		s.settled(c)
	}
	if len(e.Activated)+len(e.Removed)+len(e.Draining)+len(e.Ended) > 0 || e.Revision > 0 {
		if err := s.refresh(ctx); err != nil {
			s.log.Error("registry: refresh after a change", "err", err)
		}
	}
	s.logEffects(e)
}

// settled hands a settled call to whoever waits for it and frees its
// lease's room.
func (s *Service) settled(c store.Call) {
	if c.State != store.CallSettled {
		return
	}
	if s.router.settled(c) {
		s.wake()
	}
	s.router.dequeue(c.Token, c.ID)
	s.waiters.notify(c)
}

func (s *Service) wake() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

func (s *Service) logEffects(e store.Effects) {
	for _, r := range e.Activated {
		s.log.Info("registry: toolset active", "toolset", r.Toolset, "revision", r.Revision, "fingerprint", r.Fingerprint)
	}
	for _, name := range e.Removed {
		s.log.Info("registry: toolset removed", "toolset", name)
	}
	for _, l := range e.Draining {
		s.log.Info("registry: provider draining", "toolset", l.Toolset, "lease", l.ID, "provider", l.Provider)
	}
	for _, l := range e.Ended {
		s.log.Info("registry: provider lease ended", "toolset", l.Toolset, "lease", l.ID, "provider", l.Provider)
	}
	for _, c := range e.Settled {
		if c.Outcome == store.OutcomeUnknown || c.Outcome == store.OutcomeCallNotAdmitted {
			s.log.Info("registry: call settled by the registry", "call", c.ID, "toolset", c.Toolset, "tool", c.Tool, "outcome", c.Outcome)
		}
	}
}

// maintenanceLoop expires leases, settles calls past their deadline and
// purges old records.
func (s *Service) maintenanceLoop() {
	defer s.loops.Done()
	tick := time.NewTicker(max(min(s.cfg.LeaseTTL/4, time.Second), 10*time.Millisecond))
	defer tick.Stop()
	lastPurge := time.Now()
	for {
		select {
		case <-s.closing:
			return
		case now := <-tick.C:
			ctx := context.Background()
			if e, err := s.store.ExpireLeases(ctx); err != nil {
				s.log.Error("registry: expire leases", "err", err)
			} else {
				s.apply(ctx, e)
			}
			for _, id := range s.router.expired(now) {
				s.notAdmitted(ctx, id, "no healthy provider took the call before its deadline")
			}
			s.sweepPublished(ctx, now)
			if now.Sub(lastPurge) > time.Minute {
				lastPurge = now
				if n, err := s.store.PurgeSettled(ctx, now.Add(-s.cfg.Retention)); err != nil {
					s.log.Error("registry: purge call records", "err", err)
				} else if n > 0 {
					s.log.Info("registry: purged call records", "count", n)
				}
			}
		}
	}
}

// sweepPublished settles as outcome_unknown the published calls past their
// deadline and grace: their provider holds its lease but never posted.
func (s *Service) sweepPublished(ctx context.Context, now time.Time) {
	for _, id := range s.waiters.overdue(now.Add(-s.cfg.PublishedGrace)) {
		c, err := s.store.SettleCall(ctx, store.Settlement{CallID: id, Outcome: store.OutcomeUnknown,
			Error: "the provider did not post the outcome before the call's deadline"})
		if err == nil {
			s.settled(c)
		}
	}
}

// notAdmitted settles an accepted call as call_not_admitted.
func (s *Service) notAdmitted(ctx context.Context, id, why string) {
	c, err := s.store.SettleCall(ctx, store.Settlement{CallID: id, Outcome: store.OutcomeCallNotAdmitted, Error: why})
	if err != nil {
		s.log.Error("registry: settle call", "call", id, "err", err)
		return
	}
	s.settled(c)
}
