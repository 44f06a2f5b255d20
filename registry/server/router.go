package server

import (
	"sync"
	"time"

	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/registry/store"
)

// router holds what only this process knows: which leases have a stream
// connected here, the calls in hand per lease, and the calls accepted and
// waiting for a provider, per registration token.
type router struct {
	mu     sync.Mutex
	leases map[string]*route
	// queues are the accepted calls waiting for a provider, oldest first,
	// by token.
	queues map[string][]queued
	// next rotates the choice of lease per token.
	next map[string]int
}

// route is a live lease as the router sees it.
type route struct {
	lease store.Lease
	// inHand are the calls published to the lease and not settled.
	inHand map[string]bool
	conn   *conn
}

// queued is an accepted call waiting for a provider.
type queued struct {
	id       string
	deadline time.Time
}

// conn is a provider's stream connected to this process.
type conn struct {
	leaseID string
	// frames carries the frames to write, published calls first among
	// them; its capacity covers the lease's MaxInFlight, so a send never
	// blocks while the lease has room.
	frames chan *gen.CallFrame
	// drain is closed to ask the provider to drain.
	drain     chan struct{}
	drainOnce sync.Once
	// closed is closed when the stream ends.
	closed    chan struct{}
	closeOnce sync.Once
}

func newRouter() *router {
	return &router{leases: map[string]*route{}, queues: map[string][]queued{}, next: map[string]int{}}
}

// sync replaces the router's leases with a catalog view's, keeping
// connections and calls in hand of leases that stay. It returns the
// connections of leases that ended, and the calls they had in hand.
func (r *router) sync(v *view) (ended []*conn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, rt := range r.leases {
		l, ok := v.leases[id]
		if !ok {
			if rt.conn != nil {
				ended = append(ended, rt.conn)
			}
			delete(r.leases, id)
			continue
		}
		rt.lease = l
		if l.State == store.LeaseDraining && rt.conn != nil {
			rt.conn.askDrain()
		}
	}
	for id, l := range v.leases {
		if _, ok := r.leases[id]; !ok {
			r.leases[id] = &route{lease: l, inHand: map[string]bool{}}
		}
	}
	return ended
}

// reserve picks a connected, active lease of token with room for one more
// call and counts the call in its hand. ok is false when none has room.
func (r *router) reserve(token, callID string) (leaseID string, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reserveLocked(token, callID)
}

func (r *router) reserveLocked(token, callID string) (string, bool) {
	var candidates []*route
	for _, rt := range r.leases {
		if rt.lease.Token == token && rt.lease.State == store.LeaseActive && rt.conn != nil && len(rt.inHand) < rt.lease.MaxInFlight {
			candidates = append(candidates, rt)
		}
	}
	if len(candidates) == 0 {
		return "", false
	}
	// Least loaded first; the rotation breaks ties so replicas share calls.
	n := r.next[token]
	r.next[token] = n + 1
	best := candidates[n%len(candidates)]
	for _, c := range candidates {
		if len(c.inHand) < len(best.inHand) {
			best = c
		}
	}
	best.inHand[callID] = true
	return best.lease.ID, true
}

// unreserve takes a call back out of a lease's hand (the store did not
// publish it there).
func (r *router) unreserve(leaseID, callID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rt, ok := r.leases[leaseID]; ok {
		delete(rt.inHand, callID)
	}
}

// hold counts a call published before this process started (or by
// another path) in its lease's hand.
func (r *router) hold(leaseID, callID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rt, ok := r.leases[leaseID]; ok {
		rt.inHand[callID] = true
	}
}

// settled takes a settled call out of its lease's hand and out of the
// queues. It reports whether the lease got room back.
func (r *router) settled(c store.Call) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rt, ok := r.leases[c.LeaseID]; ok && rt.inHand[c.ID] {
		delete(rt.inHand, c.ID)
		return true
	}
	return false
}

// send hands a published call's frame to its lease's stream. It fails when
// the lease has no stream here any more: the frame was never written, so
// the call can go back to accepted.
func (r *router) send(leaseID string, f *gen.CallFrame) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	rt, ok := r.leases[leaseID]
	if !ok || rt.conn == nil {
		if ok {
			delete(rt.inHand, *f.CallID)
		}
		return false
	}
	select {
	case rt.conn.frames <- f:
		return true
	default:
		// Cannot happen while inHand bounds the frames; refuse rather than
		// block with the lock held.
		delete(rt.inHand, *f.CallID)
		return false
	}
}

// enqueue adds an accepted call to its token's queue. It reports false when
// the queue is full.
func (r *router) enqueue(token string, q queued, max int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.queues[token]) >= max {
		return false
	}
	r.queues[token] = append(r.queues[token], q)
	return true
}

// queueFull reports whether token's queue is at max.
func (r *router) queueFull(token string, max int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.queues[token]) >= max
}

// assignment is a queued call matched with a lease that has room for it.
type assignment struct {
	callID, leaseID, token string
}

// match pops queued calls for which a lease has room, reserving the room.
func (r *router) match() []assignment {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []assignment
	for token, q := range r.queues {
		for len(q) > 0 {
			lease, ok := r.reserveLocked(token, q[0].id)
			if !ok {
				break
			}
			out = append(out, assignment{callID: q[0].id, leaseID: lease, token: token})
			q = q[1:]
		}
		if len(q) == 0 {
			delete(r.queues, token)
		} else {
			r.queues[token] = q
		}
	}
	return out
}

// expired pops the queued calls whose deadline is before now.
func (r *router) expired(now time.Time) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for token, q := range r.queues {
		kept := q[:0]
		for _, c := range q {
			if c.deadline.Before(now) {
				out = append(out, c.id)
			} else {
				kept = append(kept, c)
			}
		}
		if len(kept) == 0 {
			delete(r.queues, token)
		} else {
			r.queues[token] = kept
		}
	}
	return out
}

// dequeue removes a call from every queue (it settled another way).
func (r *router) dequeue(token, callID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	q := r.queues[token]
	for i, c := range q {
		if c.id == callID {
			r.queues[token] = append(q[:i:i], q[i+1:]...)
			return
		}
	}
}

// connect attaches a provider's stream to its lease, replacing an older
// stream of the same lease. ok is false when the lease is not live here.
func (r *router) connect(leaseID string) (c *conn, old *conn, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rt, live := r.leases[leaseID]
	if !live {
		return nil, nil, false
	}
	c = &conn{
		leaseID: leaseID,
		frames:  make(chan *gen.CallFrame, rt.lease.MaxInFlight+1),
		drain:   make(chan struct{}),
		closed:  make(chan struct{}),
	}
	old, rt.conn = rt.conn, c
	if rt.lease.State == store.LeaseDraining {
		c.askDrain()
	}
	return c, old, true
}

// disconnect detaches c and returns the frames it never wrote: their calls
// were published but not handed to the provider.
func (r *router) disconnect(c *conn) (unwritten []*gen.CallFrame) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rt, ok := r.leases[c.leaseID]; ok && rt.conn == c {
		rt.conn = nil
	}
	for {
		select {
		case f := <-c.frames:
			if f.CallID != nil {
				unwritten = append(unwritten, f)
				if rt, ok := r.leases[c.leaseID]; ok {
					delete(rt.inHand, *f.CallID)
				}
			}
		default:
			return unwritten
		}
	}
}

// leaseOf returns a live lease.
func (r *router) leaseOf(id string) (store.Lease, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rt, ok := r.leases[id]
	if !ok {
		return store.Lease{}, false
	}
	return rt.lease, true
}

func (c *conn) askDrain() { c.drainOnce.Do(func() { close(c.drain) }) }

// close closes c.closed; it reports whether this call closed it.
func (c *conn) close() (first bool) {
	c.closeOnce.Do(func() { close(c.closed); first = true })
	return first
}
