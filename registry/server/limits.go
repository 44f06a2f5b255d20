package server

import (
	"context"
	"fmt"
	"sync"
	"time"

	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/tools"
)

// DefaultMaxCallsPerKey is how many calls one key may have open (queued
// or running) at one node when Config.MaxCallsPerKey is 0.
const DefaultMaxCallsPerKey = 256

// keyLimiter counts the calls each key name has open at this node: a
// call counts from its admission until it settles, whether or not its
// caller still waits, so that abandoned calls count too. The count is per
// node, never shared through the store or the bus: a key reaching n nodes
// may have n times the limit open.
type keyLimiter struct {
	max  int // < 0: no limit
	mu   sync.Mutex
	open map[string]int
}

func newKeyLimiter(max int) *keyLimiter { return &keyLimiter{max: max, open: map[string]int{}} }

// acquire takes one of name's slots, false when it has none left.
func (l *keyLimiter) acquire(name string) bool {
	if l.max < 0 {
		return true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[name] >= l.max {
		return false
	}
	l.open[name]++
	return true
}

func (l *keyLimiter) release(name string) {
	if l.max < 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[name]--; l.open[name] <= 0 {
		delete(l.open, name)
	}
}

// keySlot is the slot a new call holds in its key's count. Release gives
// it back unless keepUntil handed it to the call's settlement; both may
// be called more than once.
type keySlot struct {
	l    *keyLimiter
	name string
	once sync.Once
}

func (k *keySlot) release() {
	if k != nil {
		k.once.Do(func() { k.l.release(k.name) })
	}
}

// keepUntil holds the slot until the call wt tracks settles, at most
// until limit (after which the registry's loops have settled it anyway),
// or the service closes.
func (k *keySlot) keepUntil(s *Service, wt *waiter, limit time.Time) {
	if k == nil {
		return
	}
	held := &keySlot{l: k.l, name: k.name}
	k.once.Do(func() {}) // the deferred release is now a no-op
	go func() {
		defer held.release()
		t := time.NewTimer(time.Until(limit))
		defer t.Stop()
		select {
		case <-wt.done:
		case <-t.C:
		case <-s.closing:
		}
	}()
}

// admitCall is the key's admission of a new call of spec: a gated tool
// needs the key's grant (Principal.MayConfirm), and the key a free slot
// (Config.MaxCallsPerKey). The slot is the caller's to release or keep.
func (s *Service) admitCall(ctx context.Context, spec tools.ToolSpec) (*keySlot, error) {
	p := principal(ctx)
	if spec.Confirmation != nil && !p.MayConfirm(spec.Name) {
		return nil, gen.MakeForbidden(fmt.Errorf("%s needs a person's confirmation and key %q has no grant for it: an operator lists the tool (or a glob matching it) in the key's \"confirm\" in the keys file, once the key's holder confirms such calls itself", spec.Name, p.Name))
	}
	if !s.cfg.limiter.acquire(p.Name) {
		return nil, gen.MakeKeyLimit(fmt.Errorf("key %q has %d calls open (queued or running) at this registry node, the most one key may have: retry with the same call id once one of them settles, or send fewer calls at once", p.Name, s.cfg.MaxCallsPerKey))
	}
	return &keySlot{l: s.cfg.limiter, name: p.Name}, nil
}
