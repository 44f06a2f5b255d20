package server

import (
	"context"
	"time"

	"github.com/quiver-go/quiver/registry/store"
)

// maintenanceLoop expires leases, settles calls past their deadline,
// purges old records and, on a shared bus, reads the catalog again and
// looks for outcomes an announcement may have missed.
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
			s.sweep(ctx, now)
			s.forget(ctx, now)
			if s.shared {
				if err := s.refresh(ctx); err != nil {
					s.log.Error("registry: refresh", "err", err)
				}
				s.poll(ctx)
			}
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

// sweep gives unsettled calls their deadline: an accepted call past it
// settles call_not_admitted (no healthy provider took it), a published one
// past it and the grace outcome_unknown (its provider holds its lease but
// never posted). On a shared bus it also offers again accepted calls
// waiting for long (their node may have died between accepting and
// offering them; a call offered twice is published once).
func (s *Service) sweep(ctx context.Context, now time.Time) {
	calls, err := s.store.Unsettled(ctx)
	if err != nil {
		s.log.Error("registry: read unsettled calls", "err", err)
		return
	}
	for _, c := range calls {
		var set store.Settlement
		switch {
		case c.State == store.CallAccepted && now.After(c.Deadline):
			set = store.Settlement{CallID: c.ID, Outcome: store.OutcomeCallNotAdmitted, Error: "no healthy provider took the call before its deadline"}
		case c.State == store.CallPublished && now.After(c.Deadline.Add(s.cfg.PublishedGrace)):
			set = store.Settlement{CallID: c.ID, Outcome: store.OutcomeUnknown, Error: "the provider did not post the outcome before the call's deadline"}
		case c.State == store.CallAccepted && s.shared && s.waiters.reoffer(c.ID, now, reofferAfter):
			s.offer(ctx, c.Token, c.ID)
			continue
		default:
			continue
		}
		settled, err := s.store.SettleCall(ctx, set)
		if err != nil {
			s.log.Error("registry: settle call", "call", c.ID, "err", err)
			continue
		}
		s.settled(settled)
	}
}

// reofferAfter is how long an accepted call waits before a node of a
// shared bus offers it again.
const reofferAfter = 5 * time.Second

// poll reads the records of the calls this node waits for or holds in a
// lease's hand, in case the announcement of their outcome was lost.
func (s *Service) poll(ctx context.Context) {
	ids := append(s.waiters.older(time.Now().Add(-time.Second)), s.router.inHandCalls()...)
	for _, id := range ids {
		if c, err := s.store.GetCall(ctx, id); err == nil && c.State == store.CallSettled {
			s.settledHere(c)
		}
	}
}

// eventLoop applies the other nodes' announcements.
func (s *Service) eventLoop() {
	defer s.loops.Done()
	events := s.bus.Events()
	for {
		select {
		case <-s.closing:
			return
		case e, ok := <-events:
			if !ok {
				return
			}
			ctx := context.Background()
			if e.Changed {
				if err := s.refresh(ctx); err != nil {
					s.log.Error("registry: refresh", "err", err)
				}
			}
			for _, id := range e.Settled {
				if !s.waiters.has(id) && !s.router.holds(id) {
					continue
				}
				if c, err := s.store.GetCall(ctx, id); err == nil && c.State == store.CallSettled {
					s.settledHere(c)
				}
			}
		}
	}
}

// announceLoop sends this node's announcements, merging those queued
// together into one.
func (s *Service) announceLoop() {
	defer s.loops.Done()
	for {
		select {
		case <-s.closing:
			return
		case e := <-s.announce:
			for more := true; more && len(e.Settled) < 512; {
				select {
				case next := <-s.announce:
					e.Settled = append(e.Settled, next.Settled...)
					e.Changed = e.Changed || next.Changed
				default:
					more = false
				}
			}
			if err := s.bus.Announce(context.Background(), e); err != nil {
				s.log.Warn("registry: announce", "err", err)
			}
		}
	}
}
