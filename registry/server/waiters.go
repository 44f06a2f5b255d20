package server

import (
	"sync"
	"time"

	"github.com/quiver-go/quiver/registry/store"
)

// waiters tracks the unsettled calls this node knows of: who waits for
// their outcome here, and when they were last offered again.
type waiters struct {
	mu sync.Mutex
	m  map[string]*waiter
}

type waiter struct {
	done    chan struct{}
	call    store.Call
	since   time.Time
	offered time.Time
}

func newWaiters() *waiters { return &waiters{m: map[string]*waiter{}} }

// track starts tracking c (or returns its tracker); its done channel is
// closed when c settles, and call then holds the settled record.
func (w *waiters) track(c store.Call) *waiter {
	w.mu.Lock()
	defer w.mu.Unlock()
	wt, ok := w.m[c.ID]
	if !ok {
		now := time.Now()
		wt = &waiter{done: make(chan struct{}), since: now, offered: now}
		w.m[c.ID] = wt
	}
	return wt
}

// notify ends the tracking of a settled call, waking its waiters.
func (w *waiters) notify(c store.Call) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if wt, ok := w.m[c.ID]; ok {
		wt.call = c
		close(wt.done)
		delete(w.m, c.ID)
	}
}

// has reports whether a call is tracked.
func (w *waiters) has(id string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.m[id]
	return ok
}

// older returns the calls tracked since before t.
func (w *waiters) older(t time.Time) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for id, wt := range w.m {
		if wt.since.Before(t) {
			out = append(out, id)
		}
	}
	return out
}

// reoffer reports whether an accepted call was last offered (by this node)
// more than after ago, and if so counts it as offered now. A call this
// node does not track was offered by another: it is tracked from now.
func (w *waiters) reoffer(id string, now time.Time, after time.Duration) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	wt, ok := w.m[id]
	if !ok {
		w.m[id] = &waiter{done: make(chan struct{}), since: now, offered: now}
		return false
	}
	if now.Sub(wt.offered) < after {
		return false
	}
	wt.offered = now
	return true
}
