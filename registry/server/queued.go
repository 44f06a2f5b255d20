package server

import (
	"context"
	"sync"
	"time"
)

// queueLengths caches how many calls wait on the bus per token, read at
// most every queueLengthAge: the bound on waiting calls is a guard against
// a flood, and asking a shared bus for each call would cost a round trip.
type queueLengths struct {
	mu   sync.Mutex
	seen map[string]queueLength
	// admitting counts, per token, the calls this node let past the bound
	// that are not on the bus yet: without them, calls arriving together
	// would all read the same length and all be let in.
	admitting map[string]int
}

type queueLength struct {
	n  int
	at time.Time
}

const queueLengthAge = 100 * time.Millisecond

// admit lets a call for token past the bound max on waiting calls, or
// says how many wait when the queue is full (full true). An admitted call
// counts as waiting until release is called, once it is on the bus or will
// not be (release is idempotent). The length is the bus's own when cache is
// false (read under the lock, so calls arriving together are counted one
// by one); with cache, the cached one read again when older than
// queueLengthAge, plus the calls this node offered since (it may undercount
// by the calls other nodes offered within queueLengthAge).
func (q *queueLengths) admit(ctx context.Context, bus Bus, token string, cache bool, max int) (n int, full bool, release func(), err error) {
	if cache && q.stale(token) {
		fresh, err := bus.Waiting(ctx, token)
		if err != nil {
			return 0, false, nil, err
		}
		q.mu.Lock()
		if q.seen == nil {
			q.seen = map[string]queueLength{}
		}
		q.seen[token] = queueLength{n: fresh, at: time.Now()}
		q.mu.Unlock()
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if cache {
		n = q.seen[token].n
	} else if n, err = bus.Waiting(ctx, token); err != nil {
		return 0, false, nil, err
	}
	if n += q.admitting[token]; n >= max {
		return n, true, nil, nil
	}
	if q.admitting == nil {
		q.admitting = map[string]int{}
	}
	q.admitting[token]++
	var once sync.Once
	return n, false, func() {
		once.Do(func() {
			q.mu.Lock()
			defer q.mu.Unlock()
			if q.admitting[token]--; q.admitting[token] <= 0 {
				delete(q.admitting, token)
			}
		})
	}, nil
}

// stale says whether token's cached length must be read again.
func (q *queueLengths) stale(token string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	l, ok := q.seen[token]
	return !ok || time.Since(l.at) >= queueLengthAge
}

// offered counts a call this node offered in token's cached length.
func (q *queueLengths) offered(token string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if l, ok := q.seen[token]; ok {
		l.n++
		q.seen[token] = l
	}
}
