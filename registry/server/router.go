package server

import (
	"sync"

	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/registry/store"
)

// router holds what only this node knows: which leases have their stream
// connected here, and the calls each of those has in hand.
type router struct {
	mu     sync.Mutex
	leases map[string]*route
	// next rotates the choice of lease per token.
	next map[string]int
}

// route is a live lease as the router sees it.
type route struct {
	lease store.Lease
	// inHand are the calls published to the lease through this node and
	// not settled.
	inHand map[string]bool
	conn   *conn
}

// conn is a provider's stream connected to this node.
type conn struct {
	leaseID string
	// frames carries the frames to write; its capacity covers the lease's
	// MaxInFlight, so a send never blocks while the lease has room.
	frames chan *gen.CallFrame
	// room is signalled when the lease may take more calls.
	room chan struct{}
	// drain is closed to ask the provider to drain.
	drain     chan struct{}
	drainOnce sync.Once
	// closed is closed when the stream ends.
	closed    chan struct{}
	closeOnce sync.Once
}

func newRouter() *router {
	return &router{leases: map[string]*route{}, next: map[string]int{}}
}

// sync replaces the router's leases with a catalog view's, keeping the
// connections and calls in hand of leases that stay. It returns the
// connections of leases that ended.
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
		was := rt.lease.State
		rt.lease = l
		if rt.conn == nil {
			continue
		}
		switch {
		case l.State == store.LeaseDraining:
			rt.conn.askDrain()
		case l.State == store.LeaseActive && was != store.LeaseActive:
			rt.conn.signalRoom()
		}
	}
	for id, l := range v.leases {
		if _, ok := r.leases[id]; !ok {
			r.leases[id] = &route{lease: l, inHand: map[string]bool{}}
		}
	}
	return ended
}

// reserve picks a lease of token with its stream here, active, with room
// for one more call, and counts the call in its hand. ok is false when
// none has room.
func (r *router) reserve(token, callID string) (leaseID string, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
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

// room is how many more calls c's lease may take now: none unless it is
// active and c is its stream.
func (r *router) room(c *conn) (store.Lease, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rt, ok := r.leases[c.leaseID]
	if !ok || rt.conn != c || rt.lease.State != store.LeaseActive {
		return store.Lease{}, 0
	}
	return rt.lease, rt.lease.MaxInFlight - len(rt.inHand)
}

// hold counts a call in its lease's hand, unless the call is there
// already (ok false); needRoom also requires the lease to have room.
func (r *router) hold(leaseID, callID string, needRoom bool) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	rt, ok := r.leases[leaseID]
	if !ok || rt.inHand[callID] || (needRoom && len(rt.inHand) >= rt.lease.MaxInFlight) {
		return false
	}
	rt.inHand[callID] = true
	return true
}

// unreserve takes a call back out of a lease's hand.
func (r *router) unreserve(leaseID, callID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rt, ok := r.leases[leaseID]; ok && rt.inHand[callID] {
		delete(rt.inHand, callID)
		if rt.conn != nil {
			rt.conn.signalRoom()
		}
	}
}

// settled takes a settled call out of its lease's hand, giving the lease
// room back. It reports whether the call was in a hand here.
func (r *router) settled(c store.Call) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	rt, ok := r.leases[c.LeaseID]
	if !ok || !rt.inHand[c.ID] {
		return false
	}
	delete(rt.inHand, c.ID)
	if rt.conn != nil {
		rt.conn.signalRoom()
	}
	return true
}

// holds reports whether a call is in a hand here.
func (r *router) holds(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rt := range r.leases {
		if rt.inHand[id] {
			return true
		}
	}
	return false
}

// inHandCalls lists every call in a hand here.
func (r *router) inHandCalls() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, rt := range r.leases {
		for id := range rt.inHand {
			out = append(out, id)
		}
	}
	return out
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
		room:    make(chan struct{}, 1),
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

func (c *conn) signalRoom() {
	select {
	case c.room <- struct{}{}:
	default:
	}
}

// close closes c.closed; it reports whether this call closed it.
func (c *conn) close() (first bool) {
	c.closeOnce.Do(func() { close(c.closed); first = true })
	return first
}
