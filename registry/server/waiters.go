package server

import (
	"sync"
	"time"

	"github.com/quiver-go/quiver/registry/store"
)

// waiters tracks the unsettled calls this process routes: whoever waits
// for a call's outcome, and the published calls whose provider may never
// post one.
type waiters struct {
	mu sync.Mutex
	m  map[string]*waiter
}

type waiter struct {
	done      chan struct{}
	call      store.Call
	deadline  time.Time
	published bool
}

func newWaiters() *waiters { return &waiters{m: map[string]*waiter{}} }

// track starts tracking c (or returns its tracker) and returns a channel
// closed when c settles; settledCall then returns the record.
func (w *waiters) track(c store.Call) *waiter {
	w.mu.Lock()
	defer w.mu.Unlock()
	wt, ok := w.m[c.ID]
	if !ok {
		wt = &waiter{done: make(chan struct{}), deadline: c.Deadline}
		w.m[c.ID] = wt
	}
	if c.State == store.CallPublished {
		wt.published = true
	}
	return wt
}

// published marks a tracked call as handed to a provider.
func (w *waiters) published(id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if wt, ok := w.m[id]; ok {
		wt.published = true
	}
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

// overdue returns the published calls whose deadline is before t.
func (w *waiters) overdue(t time.Time) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for id, wt := range w.m {
		if wt.published && wt.deadline.Before(t) {
			out = append(out, id)
		}
	}
	return out
}
