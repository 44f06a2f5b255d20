package server

import (
	"context"
	"errors"
	"time"

	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/registry/store"
)

// pull feeds a provider's stream connected here with the calls queued on
// the bus for its registration, as long as the lease has room, until the
// stream ends.
func (s *Service) pull(ctx context.Context, c *conn) {
	fail := 10 * time.Millisecond
	for ctx.Err() == nil {
		lease, room := s.router.room(c)
		if room <= 0 {
			// Full, draining, pending or replaced by a newer stream: wait
			// for room, and look again now and then (a lease's state
			// changes with the catalog).
			select {
			case <-c.room:
			case <-time.After(time.Second):
			case <-c.closed:
				return
			case <-ctx.Done():
				return
			}
			continue
		}
		ids, err := s.bus.Take(ctx, lease.Token, c.leaseID, room, time.Second)
		if err != nil {
			if ctx.Err() == nil {
				s.log.Warn("registry: take calls from the bus", "lease", c.leaseID, "err", err)
				sleep(ctx, fail)
				fail = min(fail*2, time.Second)
			}
			continue
		}
		fail = 10 * time.Millisecond
		// The room is held here, in order, and the calls published at once
		// (each is a store write of its own).
		for _, id := range ids {
			if !s.router.hold(c.leaseID, id, true) {
				s.offer(context.WithoutCancel(ctx), lease.Token, id)
				s.ack(lease.Token, id)
				continue
			}
			go s.publishTaken(ctx, c.leaseID, lease.Token, id)
		}
	}
}

// ack acknowledges a taken call on the bus.
func (s *Service) ack(token, id string) {
	if err := s.bus.Ack(context.Background(), token, id); err != nil {
		s.log.Warn("registry: ack a taken call", "call", id, "err", err)
	}
}

// publishTaken publishes a call taken from the bus, held in leaseID's
// hand, and writes its frame — only when this node published it: a call
// offered twice is published once.
func (s *Service) publishTaken(ctx context.Context, leaseID, token, id string) {
	ctx = context.WithoutCancel(ctx)
	defer s.ack(token, id)
	rec, published, err := s.store.PublishCall(ctx, id, leaseID)
	switch {
	case errors.Is(err, store.ErrUnknownCall):
		s.router.unreserve(leaseID, id) // purged: nothing to route
	case errors.Is(err, store.ErrLeaseGone):
		s.router.unreserve(leaseID, id)
		s.offer(ctx, token, id)
	case err != nil:
		// The write may have happened, its answer lost.
		s.router.unreserve(leaseID, id)
		s.log.Error("registry: publish call", "call", id, "err", err)
		s.afterLostWrite(id, leaseID)
	case published:
		s.deliver(ctx, rec)
	default:
		s.router.unreserve(leaseID, id)
		if rec.State == store.CallSettled {
			s.settled(rec)
		}
	}
}

// offer queues an accepted call on the bus.
func (s *Service) offer(ctx context.Context, token, id string) {
	if err := s.bus.Offer(ctx, token, id); err != nil {
		// The call stays accepted in the store: the sweep offers it again
		// or settles it at its deadline.
		s.log.Error("registry: offer a call", "call", id, "err", err)
	}
}

// deliver writes a published call's frame to its lease's stream. When the
// stream is gone before the frame was written, the call goes back to
// accepted and is routed again: it never reached a provider.
func (s *Service) deliver(ctx context.Context, c store.Call) {
	if s.router.send(c.LeaseID, callFrame(c)) {
		return
	}
	s.unwritten(ctx, c.ID, c.LeaseID)
}

// unwritten takes back a published call whose frame was never written.
func (s *Service) unwritten(ctx context.Context, callID, leaseID string) {
	c, err := s.store.ReturnCall(ctx, callID, leaseID)
	if err != nil {
		s.log.Error("registry: take back an unwritten call", "call", callID, "err", err)
		return
	}
	if c.State == store.CallAccepted {
		s.offer(ctx, c.Token, c.ID)
	}
}

// callFrame renders a call for its provider.
func callFrame(c store.Call) *gen.CallFrame {
	id, ts, tool, tok, run := c.ID, c.Toolset, c.Tool, c.Token, c.RunID
	deadline := c.Deadline.UTC().Format(time.RFC3339Nano)
	return &gen.CallFrame{Type: "call", CallID: &id, Toolset: &ts, Tool: &tool, Payload: rawJSON(c.Payload), Token: &tok, RunID: &run, Deadline: &deadline}
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// afterLostWrite finishes what a write that may have published a call to
// leaseID left when its answer was lost (the store went away after
// running it): the call is published to leaseID with its frame never
// written — write it now — or still accepted — offer it again — or not
// recorded at all. It reads the record until the store answers, for a
// while; past that, the sweep settles the call at its deadline.
func (s *Service) afterLostWrite(id, leaseID string) {
	ctx := context.Background()
	wait := 20 * time.Millisecond
	for range 30 {
		rec, err := s.store.GetCall(ctx, id)
		switch {
		case errors.Is(err, store.ErrUnknownCall):
			return
		case err != nil:
			sleep(ctx, wait)
			wait = min(wait*2, time.Second)
			continue
		case rec.State == store.CallPublished && leaseID != "" && rec.LeaseID == leaseID:
			// Published to the lease this node chose. Only this node
			// publishes to a lease whose stream it holds, and a call in
			// the lease's hand here was published by another of its
			// writes (a puller, a retry), which wrote the frame. Otherwise
			// the lost write published it: write the frame — unless the
			// stream has left this node, in which case the call cannot be
			// taken back (another node may have written it by now) and
			// settles at its deadline.
			if !s.router.hold(leaseID, id, false) {
				return
			}
			s.waiters.track(rec)
			if !s.router.send(leaseID, callFrame(rec)) {
				s.log.Warn("registry: a call published by a write whose answer was lost has no stream here; it settles at its deadline", "call", id)
			}
		case rec.State == store.CallAccepted:
			s.waiters.track(rec)
			s.offer(ctx, rec.Token, rec.ID)
		}
		return
	}
	s.log.Error("registry: a call's record stayed unreadable after a lost write", "call", id)
}
