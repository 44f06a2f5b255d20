package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/quiver-go/quiver/discovery"
	"github.com/quiver-go/quiver/internal/httpguard"
	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/registry/store"
)

// Service implements the registry API (registry/gen/registry.Service) on a
// store.Store. Create it with New, serve Handler(), stop with Close.
type Service struct {
	cfg    Config
	store  store.Store
	bus    Bus
	shared bool
	log    *slog.Logger
	search *discovery.Engine

	// refreshMu serializes catalog refreshes; view is the latest.
	refreshMu sync.Mutex
	view      atomic.Pointer[view]
	known     map[string]*compiled

	router  *router
	waiters *waiters
	queued  queueLengths
	// changed is closed and replaced whenever the catalog revision grows.
	changedMu sync.Mutex
	changed   chan struct{}
	// announce collects what this node tells the others.
	announce chan Event

	// closing is closed by Close; loops counts the running loops.
	closing chan struct{}
	loops   sync.WaitGroup
	// reading bounds the request bodies read at once (MaxReadingBodies).
	reading *httpguard.BodySlots
	ready   atomic.Bool
}

var _ gen.Service = (*Service)(nil)
var _ gen.Auther = (*Service)(nil)

// New builds a registry service on cfg.Store: it reads the catalog, routes
// again the calls a previous process accepted and did not publish, and
// starts the loops that expire leases, give calls their deadline, purge
// old records and, on a shared bus, listen to the other nodes.
func New(ctx context.Context, cfg Config) (*Service, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	// The API caps a search's limit at 100; each search cuts to its own.
	eng, err := discovery.New(discovery.Settings{Limit: 100})
	if err != nil {
		return nil, err
	}
	s := &Service{
		cfg: cfg, store: newRecoveringStore(cfg.Store, cfg.LeaseTTL, cfg.Logger), bus: cfg.Bus, log: cfg.Logger, search: eng,
		known:    map[string]*compiled{},
		router:   newRouter(),
		waiters:  newWaiters(),
		changed:  make(chan struct{}),
		announce: make(chan Event, 1024),
		closing:  make(chan struct{}),
		reading:  httpguard.NewBodySlots(cfg.MaxReadingBodies),
	}
	if s.bus == nil {
		s.bus = NewLocalBus()
	}
	s.shared = s.bus.Events() != nil
	// No provider could renew while the registry was down: every lease
	// gets a full TTL before anything expires, so that providers alive
	// through the outage keep their leases and post the outcomes of the
	// calls in their hands. The service does the same when its store was
	// unreachable while the registry ran (recoveringStore, recovering_store.go).
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
	go s.maintenanceLoop()
	go s.announceLoop()
	if s.shared {
		s.loops.Add(1)
		go s.eventLoop()
	}
	s.ready.Store(true)
	return s, nil
}

// recover tracks the calls a previous process left unsettled and offers
// the accepted ones again: a local bus's queues died with the process, and
// a shared bus may lack a call whose node died before offering it.
func (s *Service) recover(ctx context.Context) error {
	calls, err := s.store.Unsettled(ctx)
	if err != nil {
		return fmt.Errorf("registry: read unsettled calls at start: %w", err)
	}
	for _, c := range calls {
		s.waiters.track(c)
		// On a shared bus too: this node may have died between recording a
		// call and offering it. A call offered twice is published once.
		if c.State == store.CallAccepted {
			s.offer(ctx, c.Token, c.ID)
		}
	}
	return nil
}

// Close stops the loops and every provider stream. It closes neither the
// store nor the bus.
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
	return nil
}

// changes returns a channel closed at the next catalog change.
func (s *Service) changes() <-chan struct{} {
	s.changedMu.Lock()
	defer s.changedMu.Unlock()
	return s.changed
}

// apply takes a state change's effects into account: the catalog, waiting
// consumers, providers to drain, the other nodes, and the log.
func (s *Service) apply(ctx context.Context, e store.Effects) {
	for _, c := range e.Settled {
		s.settled(c)
	}
	if len(e.Activated)+len(e.Removed)+len(e.Draining)+len(e.Ended) > 0 || e.Revision > 0 {
		s.changedLeases(ctx)
	}
	s.logEffects(e)
}

// changedLeases reads the catalog again after registrations or leases
// changed here, and tells the other nodes.
func (s *Service) changedLeases(ctx context.Context) {
	if err := s.refresh(ctx); err != nil {
		s.log.Error("registry: refresh after a change", "err", err)
	}
	s.tell(Event{Changed: true})
}

// settled hands a settled call to whoever waits for it here, frees its
// lease's room, and tells the other nodes.
func (s *Service) settled(c store.Call) {
	if c.State != store.CallSettled {
		return
	}
	s.settledHere(c)
	s.tell(Event{Settled: []string{c.ID}})
}

// settledHere is settled without telling the other nodes (who told us).
func (s *Service) settledHere(c store.Call) {
	s.router.settled(c)
	s.waiters.notify(c)
}

// tell queues an announcement for the other nodes.
func (s *Service) tell(e Event) {
	if !s.shared {
		return
	}
	select {
	case s.announce <- e:
	default:
		// The other nodes also poll for what they wait on; an announcement
		// only saves them the wait.
		s.log.Warn("registry: announcement queue full; dropping one")
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
