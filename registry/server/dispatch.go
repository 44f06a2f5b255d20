package server

import (
	"context"
	"errors"
	"time"

	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/registry/store"
)

// dispatchLoop hands queued calls to leases with room, whenever a lease
// gets room or a call is queued.
func (s *Service) dispatchLoop() {
	defer s.loops.Done()
	for {
		select {
		case <-s.closing:
			return
		case <-s.kick:
			for _, a := range s.router.match() {
				go s.publishQueued(a)
			}
		}
	}
}

// publishQueued publishes a queued call to the lease reserved for it.
func (s *Service) publishQueued(a assignment) {
	ctx := context.Background()
	c, err := s.store.PublishCall(ctx, a.callID, a.leaseID)
	if err != nil {
		s.router.unreserve(a.leaseID, a.callID)
		if !errors.Is(err, store.ErrLeaseGone) {
			s.log.Error("registry: publish call", "call", a.callID, "err", err)
		}
		if c, gerr := s.store.GetCall(ctx, a.callID); gerr == nil && c.State == store.CallAccepted {
			s.router.enqueue(c.Token, queued{id: c.ID, deadline: c.Deadline}, int(^uint(0)>>1))
			s.wake()
		}
		return
	}
	switch {
	case c.State == store.CallPublished && c.LeaseID == a.leaseID:
		s.deliver(ctx, c)
	case c.State == store.CallSettled:
		s.router.unreserve(a.leaseID, a.callID)
		s.settled(c)
	default:
		s.router.unreserve(a.leaseID, a.callID)
	}
}

// deliver writes a published call's frame to its lease's stream. When the
// stream is gone before the frame was written, the call goes back to
// accepted and is routed again: it never reached a provider.
func (s *Service) deliver(ctx context.Context, c store.Call) {
	s.waiters.published(c.ID)
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
		s.router.enqueue(c.Token, queued{id: c.ID, deadline: c.Deadline}, int(^uint(0)>>1))
		s.wake()
	}
}

// callFrame renders a call for its provider.
func callFrame(c store.Call) *gen.CallFrame {
	id, ts, tool, tok, run := c.ID, c.Toolset, c.Tool, c.Token, c.RunID
	deadline := c.Deadline.UTC().Format(time.RFC3339Nano)
	return &gen.CallFrame{Type: "call", CallID: &id, Toolset: &ts, Tool: &tool, Payload: rawJSON(c.Payload), Token: &tok, RunID: &run, Deadline: &deadline}
}
